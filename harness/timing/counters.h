/* counters.h - hardware counters per point through CUPTI's range profiler.
 *
 * `cubench run --metrics sol|memory|compute|NAME,...` collects metrics for
 * each CUDA point in its own replay pass, after the point's timed samples
 * and never inside them: one range around each kernel of one run (CUPTI's
 * auto ranges, so a range lasts as long as its kernel, as in Nsight
 * Compute), replayed as often as CUPTI needs passes to read every counter
 * (user replay: cubench replays the point's whole enqueue). A point of
 * several kernels gets their ranges combined (counters_aggregate.c): counts
 * add up, rates and shares of peak are averaged weighted by each kernel's
 * GPU time. A point that launches no kernel (a plain copy) gets one user
 * range around its whole run instead, and its row says so.
 * docs/counters.md says what each preset holds and how an administrator
 * allows counters.
 *
 * Order of calls:
 *   cb_counters_open(spec, devices)   before the run: parse and validate the
 *                                     names (exit 2 on a bad one) on the chip
 *                                     of every device of the run, or on every
 *                                     chip CUPTI knows when there is no device
 *   for each single-GPU CUDA point, after its samples, before its teardown:
 *     cb_counters_measure(c, &pass, &values)   ok, skip (counters not allowed
 *                                     or not supported here: the reason says
 *                                     which) or fail (a CUPTI or CUDA error)
 *     ... the row keeps values.names/units/values until it is written ...
 *     cb_counters_values_free(&values)
 *   cb_counters_write_json(j, c)      meta.json's "metrics" section
 *   cb_counters_close(c)              after the last point
 *
 * The counters see the GPU while it replays the point, not while it was
 * timed: the clocks of a replay pass can differ from the samples' (CUPTI
 * 13.0 leaves the clocks alone, as `ncu --clock-control none` does), and a
 * multi-pass metric combines counters read in different passes. */
#ifndef CB_COUNTERS_H
#define CB_COUNTERS_H

#include "cb_common.h"
#include "json_writer.h"

typedef struct cb_counters cb_counters;

/* Parse `spec` (presets and metric names, comma-separated; a preset may sit
 * in a list: "sol,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum") and
 * validate every name on the chip of each device in `ordinals`. With no
 * device (n_ordinals == 0) a name is checked against every chip this CUPTI
 * knows, and refused only when no chip knows it; cb_counters_notice says
 * so. CB_OK with *out; CB_FAIL with a message for the user (an unknown
 * preset or metric, with the closest names the chip knows) when the run must
 * not start (exit 2). A chip the host API does not know, or a CUPTI that
 * does not load, is not an error here: every point's metric pass is then a
 * skip with that reason. */
cb_status cb_counters_open(const char *spec, const int *ordinals, int n_ordinals, cb_counters **out,
                           cb_msg *why);
void cb_counters_close(cb_counters *c);

/* The spec as given, and a line worth printing before the run (how the
 * names were checked, or why no pass can run), or NULL. */
const char *cb_counters_spec(const cb_counters *c);
const char *cb_counters_notice(const cb_counters *c);

/* Kernels of one run that get a range each. A point that launches this
 * many or more is measured as one range around its whole run instead (the
 * row's metrics_reason says so): CUPTI keeps a fixed number of ranges per
 * pass, and the counter data image grows with it. */
#define CB_COUNTERS_MAX_KERNELS 256

/* The point's side of a metric pass. `run` enqueues the point's whole work
 * once (what one timed run enqueues) and is called once per replay pass,
 * between the profiler's start and stop; `before`, when given, runs before
 * each pass outside them (the runner flushes L2 there for a cold point and
 * waits for the stream). Both return a cb_status with a message in `why`. */
typedef struct cb_counters_pass {
    int device; /* the CUDA ordinal the point runs on (the current device) */
    cb_status (*before)(void *user, cb_msg *why);
    cb_status (*run)(void *user, cb_msg *why);
    void *user;
} cb_counters_pass;

/* What one metric pass gave. The SOL figures come from the metrics that
 * feed them (docs/counters.md, "Columns"); NAN when not collected. */
typedef struct cb_counters_values {
    cb_status status; /* CB_OK; CB_SKIP: counters unavailable here; CB_FAIL */
    /* Why not CB_OK; with CB_OK, why the figures come from one range around
     * the whole run rather than one per kernel; else empty. */
    char reason[CB_MSG_LEN];
    /* Kernels of one run whose ranges the values combine: >= 1 per kernel;
     * 0 the run launched none (one range around the whole run); -1 not
     * known (CB_COUNTERS_MAX_KERNELS or more: one range around the whole
     * run), or no values. */
    int kernels;
    int passes;    /* replay passes run (both scopes)                 */
    double wall_s; /* host time of the whole metric pass, seconds     */
    int n; /* metrics collected (the chip's resolved list, gpu__time_duration.sum always in it) */
    const char *const *names, *const *units; /* [n], owned by the session */
    double *values;                          /* [n], owned by the caller: the point's values */
    double sol_dram_pct, sol_l2_pct, sol_l1_pct, sol_sm_pct, sol_tensor_pct; /* % of peak */
    double dram_bytes;     /* DRAM bytes read + written by one run's kernels */
    double measured_flops; /* floating-point operations the SMs executed     */
} cb_counters_values;

/* One metric pass of one point (see above). Returns out->status. A skip for
 * a reason that holds for the device (no permission, MIG, unsupported GPU,
 * counters busy) is remembered: later points on that device skip at once
 * with the same reason. Never touches the point's timing. */
cb_status cb_counters_measure(cb_counters *c, const cb_counters_pass *pass,
                              cb_counters_values *out);
void cb_counters_values_free(cb_counters_values *v);

/* The work model against the counters: a note such as "counters: DRAM bytes
 * 1.52x the model's" when measured DRAM bytes or FLOPs differ from the
 * model's by more than CB_COUNTERS_MODEL_TOLERANCE (relative). False when
 * they agree or cannot be compared (a figure missing or zero). */
#define CB_COUNTERS_MODEL_TOLERANCE 0.10
bool cb_counters_model_note(const cb_counters_values *v, double model_bytes, double model_flops,
                            char *buf, size_t len);

/* meta.json: "metrics": null without a session, else the spec, the state,
 * each chip with its metrics (name, unit, description, what they feed),
 * passes, and the CUPTI and CUDA driver versions. */
void cb_counters_write_json(cb_json *j, const cb_counters *c);

#endif
