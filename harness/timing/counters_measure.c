/* counters_measure.c - one metric pass: the point's enqueue replayed until
 * CUPTI has every pass it needs, a range around each of its kernels.
 *
 *   [first pass on the device] is the device supported, are counters
 *                              allowed (the availability image)?
 *   enable the range profiler on the current context
 *   counter data image for up to CB_COUNTERS_MAX_KERNELS ranges; set the
 *   config: auto ranges (one per kernel: a range lasts as long as its
 *   kernel, as Nsight Compute measures it) and user replay (cubench
 *   replays the whole enqueue, which may be many kernels and copies)
 *   per pass: before (L2 flush, wait) - start - run - stop - wait, until
 *             stop says every pass was submitted
 *   decode, evaluate each range, combine them into the point's values
 *   (counters_aggregate.c), disable
 *
 * A run that launched no kernel (a copy alone) records no range that way;
 * one that launched CB_COUNTERS_MAX_KERNELS or more may have lost some. Both
 * are measured again with one user range (push/pop) around the whole
 * enqueue, which sees copies too but also the launch gaps between push and
 * pop; the row's reason says so. (A first version used that range for
 * every point: on an H200 it lasted 807 us around a 728 us kernel, and
 * every "% of peak elapsed" figure read lower than Nsight Compute's, e.g.
 * DRAM 82.6% against 91.5% for the float4 vector add at 2^28.)
 *
 * A CUPTI result that means "not here" (no permission, MIG, vGPU, another
 * profiler holds the counters, an unsupported GPU) makes the pass a skip
 * and is remembered for the device; any other error fails this pass only.
 * The profiler is disabled on every path out, so the next point starts
 * clean. */
#include "counters_session.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Replays beyond what the config image says it needs before the loop is
 * called off (CUPTI decides when every pass is in). */
#define CB_COUNTERS_EXTRA_PASSES 8

/* The CUPTI results that mean "counters are not available here", and why;
 * any other result is an error of the pass. */
static const struct {
    CUptiResult result;
    const char *why;
} unavailable[] = {
    {CUPTI_ERROR_INSUFFICIENT_PRIVILEGES,
     "the driver lets only administrators read GPU performance counters (docs/counters.md "
     "says how to allow them)"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED,
     "a virtual GPU whose host does not allow profiling"},
    {CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES,
     "a virtual GPU whose host does not allow profiling"},
    {CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "a MIG instance: the counters belong to the whole GPU"},
    {CUPTI_ERROR_HARDWARE_BUSY,
     "another profiler holds the counters (Nsight Compute, DCGM profiling, or another CUPTI "
     "client)"},
    {CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED,
     "another profiling tool in this process holds CUPTI's profiler"},
    {CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
     "another profiling tool in this process holds CUPTI's profiler"},
    {CUPTI_ERROR_NOT_SUPPORTED, "CUPTI's range profiler does not support this GPU or setup"},
    {CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED,
     "CUPTI's range profiler does not support this GPU or setup"},
    {CUPTI_ERROR_NOT_COMPATIBLE, "CUPTI's range profiler does not support this GPU or setup"},
    {CUPTI_ERROR_INVALID_CHIP_NAME, "this CUPTI does not know the GPU's chip"},
    {CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED, "profiling is not supported on a CMP"},
    {CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED, "profiling is not supported with SLI"},
    {CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED, "profiling is not supported under WSL"},
    {CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED,
     "profiling is not supported with confidential computing"},
};

static const char *unavailable_hint(CUptiResult r)
{
    for (int i = 0; i < CB_ARRAY_LEN(unavailable); i++)
        if (unavailable[i].result == r) return unavailable[i].why;
    return NULL;
}

typedef struct pass_state {
    struct cb_counters *c;
    cb_counters_device *d;
    const cb_counters_chip *chip;
    cb_counters_values *out;
    bool sticky;             /* the skip holds for the device               */
    cb_counters_scope scope; /* this attempt's ranges                       */
    size_t max_ranges;       /* ... and how many the data image holds        */
    bool whole_run_next;     /* per-kernel ranges cannot stand for this run  */
    void *profiler;
    uint8_t *data;
    size_t data_size;
} pass_state;

/* A CUPTI call that did not succeed: a skip (remembered for the device)
 * or a failure of this pass, with the call, file and line. */
static cb_status call_failed(pass_state *ps, const char *call, CUptiResult r, const char *file,
                             int line)
{
    const char *hint = unavailable_hint(r);
    const char *name = cb_counters_result_name(ps->c, r);
    ps->out->status = hint ? CB_SKIP : CB_FAIL;
    ps->sticky = hint != NULL;
    if (hint)
        snprintf(ps->out->reason, sizeof ps->out->reason, "counters unavailable: %s (%.40s: %s)",
                 hint, call, name);
    else
        snprintf(ps->out->reason, sizeof ps->out->reason, "counters: %.80s failed at %s:%d: %s",
                 call, file, line, name);
    return ps->out->status;
}

#define CB_COUNTERS_CALL(ps, fn, ...)                                                              \
    do {                                                                                           \
        CUptiResult cb_cr_ = (ps)->c->target->fn(__VA_ARGS__);                                     \
        if (cb_cr_ != CUPTI_SUCCESS) return call_failed((ps), #fn, cb_cr_, __FILE__, __LINE__);    \
    } while (0)

static cb_status pass_error(pass_state *ps, cb_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static cb_status pass_error(pass_state *ps, cb_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ps->out->reason, sizeof ps->out->reason, fmt, ap);
    va_end(ap);
    ps->out->status = st;
    return st;
}

/* What cuptiProfilerDeviceSupported says is missing (3 = supported). */
static const char *unsupported_part(const cb_counters_support *s)
{
    if (s->architecture != 3) return "this GPU's architecture (CUPTI's range profiler: sm_75 on)";
    if (s->vgpu != 3) return "a virtual GPU whose host does not allow profiling";
    if (s->sli != 3) return "SLI";
    if (s->confidential_compute != 3) return "confidential computing";
    if (s->cmp != 3) return "a crypto-mining processor (CMP)";
    if (s->wsl != 3) return "WSL";
    return "an unsupported configuration";
}

/* The first pass on a device asks whether counters can work there at all. */
static cb_status probe_device(pass_state *ps, void *ctx)
{
    cb_counters_support s;
    memset(&s, 0, sizeof s);
    CUptiResult r = ps->c->target->device_supported(ps->d->ordinal, &s);
    if (r == CUPTI_SUCCESS && s.overall != 3) {
        ps->sticky = true;
        return pass_error(ps, CB_SKIP, "counters unavailable: not supported on %s",
                          unsupported_part(&s));
    }
    CB_COUNTERS_CALL(ps, availability, ctx);
    ps->d->probed = true;
    return CB_OK;
}

static cb_status begin(pass_state *ps)
{
    void *ctx = NULL;
    CB_COUNTERS_CALL(ps, current_context, &ctx);
    if (!ps->d->probed && probe_device(ps, ctx) != CB_OK) return ps->out->status;
    CB_COUNTERS_CALL(ps, enable, ctx, &ps->profiler);
    const cb_counters_chip *chip = ps->chip;
    CB_COUNTERS_CALL(ps, counter_data, ps->profiler, chip->names, (size_t)chip->n, ps->max_ranges,
                     &ps->data, &ps->data_size);
    CB_COUNTERS_CALL(ps, set_config, ps->profiler, chip->config, chip->config_size, ps->data,
                     ps->data_size, ps->scope, ps->max_ranges);
    return CB_OK;
}

/* One replay: the point's enqueue between start and stop (inside the one
 * user range for a whole-run attempt). The range is closed and the
 * profiler stopped even when the run fails, so it can be disabled
 * cleanly. */
static cb_status one_pass(pass_state *ps, const cb_counters_pass *pass, bool *all_submitted)
{
    cb_msg why = {{0}};
    const bool user_range = ps->scope == CB_COUNTERS_WHOLE_RUN;
    if (pass->before && pass->before(pass->user, &why) != CB_OK)
        return pass_error(ps, CB_FAIL, "counters: before a replay pass: %.200s", why.text);
    CB_COUNTERS_CALL(ps, start, ps->profiler);
    if (user_range) CB_COUNTERS_CALL(ps, push, ps->profiler, "cubench");
    cb_status run = pass->run(pass->user, &why);
    if (user_range) CB_COUNTERS_CALL(ps, pop, ps->profiler);
    CB_COUNTERS_CALL(ps, stop, ps->profiler, all_submitted);
    if (run != CB_OK)
        return pass_error(ps, CB_FAIL, "counters: the replayed run: %.200s", why.text);
    if (!ps->c->target->synchronize(&why))
        return pass_error(ps, CB_FAIL, "counters: after a replay pass: %.200s", why.text);
    ps->out->passes++;
    return CB_OK;
}

static cb_status replay(pass_state *ps, const cb_counters_pass *pass)
{
    const int limit = ps->out->passes + (int)ps->chip->passes + CB_COUNTERS_EXTRA_PASSES;
    bool all = false;
    while (!all) {
        if (ps->out->passes >= limit)
            return pass_error(ps, CB_FAIL,
                              "counters: CUPTI kept asking for passes beyond the %zu its config "
                              "needs",
                              ps->chip->passes);
        if (one_pass(ps, pass, &all) != CB_OK) return ps->out->status;
    }
    return CB_OK;
}

/* Per-kernel ranges that cannot stand for the run: measure it again as one
 * range, and say why in the row (`kernels` as counters.h defines it). */
static cb_status want_whole_run(pass_state *ps, int kernels, const char *what)
{
    ps->whole_run_next = true;
    ps->out->kernels = kernels;
    snprintf(ps->out->reason, sizeof ps->out->reason,
             "%s: one range around the whole run, launch gaps included (counts exact, %% of peak "
             "a lower bound)",
             what);
    return CB_OK;
}

/* How many ranges the decoded data holds, and whether they can be used. */
static cb_status check_ranges(pass_state *ps, size_t ranges, size_t dropped)
{
    if (ps->scope == CB_COUNTERS_PER_KERNEL) {
        char what[96];
        snprintf(what, sizeof what, "%d or more kernels in one run", CB_COUNTERS_MAX_KERNELS);
        if (ranges == 0 && dropped == 0) return want_whole_run(ps, 0, "no kernel in one run");
        if (dropped > 0 || ranges >= ps->max_ranges) return want_whole_run(ps, -1, what);
        return CB_OK;
    }
    if (dropped == 0 && ranges == 0)
        return pass_error(ps, CB_SKIP,
                          "counters: CUPTI recorded no range for this point, neither per kernel "
                          "nor around the whole run");
    if (dropped > 0 || ranges != 1)
        return pass_error(ps, CB_FAIL,
                          "counters: the counter data holds %zu ranges, %zu dropped (expected "
                          "one range, none dropped)",
                          ranges, dropped);
    return CB_OK;
}

/* Every range's values, combined into the point's (counters_aggregate.c). */
static cb_status evaluate_ranges(pass_state *ps, size_t ranges)
{
    const cb_counters_chip *chip = ps->chip;
    const size_t n = (size_t)chip->n;
    double *rows = malloc(sizeof(double) * n * ranges);
    double *v = malloc(sizeof(double) * n);
    if (!rows || !v) {
        free(rows);
        free(v);
        return pass_error(ps, CB_FAIL, "counters: %s", "out of host memory");
    }
    for (size_t i = 0; i < n * ranges; i++)
        rows[i] = NAN;
    for (size_t r = 0; r < ranges; r++) {
        CUptiResult e = ps->c->host->evaluate(chip->host, ps->data, ps->data_size, r, chip->names,
                                              n, rows + r * n);
        if (e != CUPTI_SUCCESS) {
            free(rows);
            free(v);
            return call_failed(ps, "evaluate", e, __FILE__, __LINE__);
        }
    }
    cb_counters_aggregate(chip->names, chip->n, rows, (int)ranges, chip->time_index, v);
    free(rows);
    ps->out->values = v;
    if (ps->scope == CB_COUNTERS_PER_KERNEL) ps->out->kernels = (int)ranges;
    return CB_OK;
}

static cb_status finish(pass_state *ps)
{
    size_t dropped = 0, ranges = 0;
    CB_COUNTERS_CALL(ps, decode, ps->profiler, &dropped);
    CB_COUNTERS_CALL(ps, ranges, ps->data, ps->data_size, &ranges);
    if (check_ranges(ps, ranges, dropped) != CB_OK || ps->whole_run_next) return ps->out->status;
    return evaluate_ranges(ps, ranges);
}

/* One attempt in one scope: enable, replay, decode, disable. */
static void attempt(pass_state *ps, const cb_counters_pass *pass, cb_counters_scope scope)
{
    ps->scope = scope;
    ps->max_ranges = scope == CB_COUNTERS_PER_KERNEL ? CB_COUNTERS_MAX_KERNELS : 1;
    ps->whole_run_next = false;
    if (begin(ps) == CB_OK && replay(ps, pass) == CB_OK) finish(ps);
    if (ps->profiler) {
        CUptiResult r = ps->c->target->disable(ps->profiler);
        if (r != CUPTI_SUCCESS && ps->out->status == CB_OK)
            call_failed(ps, "disable", r, __FILE__, __LINE__);
        ps->profiler = NULL;
    }
    free(ps->data);
    ps->data = NULL;
    ps->data_size = 0;
}

static void values_reset(cb_counters_values *v)
{
    memset(v, 0, sizeof *v);
    v->status = CB_OK;
    v->sol_dram_pct = v->sol_l2_pct = v->sol_l1_pct = v->sol_sm_pct = v->sol_tensor_pct = NAN;
    v->dram_bytes = v->measured_flops = NAN;
    v->kernels = -1;
}

static cb_counters_device *device_of(struct cb_counters *c, int ordinal)
{
    for (int i = 0; i < c->n_devices; i++)
        if (c->devices[i].ordinal == ordinal) return &c->devices[i];
    return NULL;
}

cb_status cb_counters_measure(cb_counters *c, const cb_counters_pass *pass, cb_counters_values *out)
{
    values_reset(out);
    const double t0 = cb_now_s();
    cb_counters_device *d = device_of(c, pass->device);
    if (!d || d->skip_reason[0]) {
        out->status = CB_SKIP;
        snprintf(out->reason, sizeof out->reason, "%s",
                 d ? d->skip_reason : "counters: this device was not opened for --metrics");
        return out->status;
    }
    pass_state ps = {.c = c, .d = d, .chip = &c->chips[d->chip], .out = out};
    out->n = ps.chip->n;
    out->names = ps.chip->names;
    out->units = ps.chip->units;
    attempt(&ps, pass, CB_COUNTERS_PER_KERNEL);
    if (out->status == CB_OK && ps.whole_run_next) attempt(&ps, pass, CB_COUNTERS_WHOLE_RUN);
    if (out->status != CB_OK || !out->values) {
        free(out->values);
        out->values = NULL;
        out->kernels = -1;
    }
    if (out->status == CB_SKIP && ps.sticky)
        snprintf(d->skip_reason, sizeof d->skip_reason, "%s", out->reason);
    if (out->status == CB_OK) cb_counters_fill_figures(ps.chip, out);
    out->wall_s = cb_now_s() - t0;
    return out->status;
}

void cb_counters_values_free(cb_counters_values *v)
{
    free(v->values);
    v->values = NULL;
}
