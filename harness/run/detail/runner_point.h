/* runner_point.h - what the runner's files share about one point in
 * flight: the timer's resources, how the point is timed, its samples pooled
 * over its rounds, and the phases that take and finish them.
 *   runner.c          the sweep: points x rounds, each row written when its point is done
 *   runner_timing.c   events, streams, the L2 flush; one sample, enqueued,
 *                     read, or waited for
 *   runner_head_start.c  how long a cold sample's flush and hold last
 *   runner_sample.c   the samples of one round under the stopping rule, one
 *                     ahead, with throttled samples set aside
 *   runner_point.c    a finished point: statistics, status, drift, telemetry,
 *                     derived figures */
#ifndef CB_RUNNER_POINT_H
#define CB_RUNNER_POINT_H

#include "runner.h"
#include "telemetry.h"

#include <cuda_runtime_api.h>

/* Auto rounds (cfg->replicates == 0): points whose first round measured a
 * median below CB_AUTO_ROUNDS_BELOW_S per run get CB_AUTO_ROUNDS rounds, so
 * a single run carries its own between-round spread where one run per side
 * is weakest; longer points are already precise from one round. */
#define CB_AUTO_ROUNDS         3
#define CB_AUTO_ROUNDS_BELOW_S 65e-6

/* Everything the timer needs for CUDA points, made once per sweep. */
typedef struct cb_timing {
    bool ready;
    cudaStream_t stream;
    /* Two pairs: a sample in flight while the one before it is read. */
    cudaEvent_t start[2], stop[2];
    void *flush_buf;
    size_t flush_bytes; /* the buffer: twice the L2 (the longest flush)  */
    size_t l2_bytes;    /* the L2's size (the shortest flush)            */
    float *flush_sink;
    unsigned *flush_done; /* the flush-and-hold kernel's block counter      */
    uint64_t next_sample_id;
} cb_timing;

/* What opens a cold event-timed sample, before its start event: an L2
 * flush of flush_bytes, then a hold of hold_ns (one GPU thread waiting on
 * the global timer). Together they are the host's head start: the time it
 * has to enqueue the runs before the GPU reaches the start event. A sample
 * whose start event had completed by the time the host finished enqueuing
 * is *late*: the GPU may have idled inside it, waiting for the host. */
typedef struct cb_head_start {
    size_t flush_bytes; /* 0: no flush (hot samples, warm-up) */
    unsigned hold_ns;
} cb_head_start;

/* The head starts a point chooses from, shortest first (runner_head_start.c). */
enum { CB_HEAD_LEVELS = 5 };
cb_head_start cb_head_start_level(const cb_timing *t, int level);

cb_status cb_timing_init(cb_timing *t, const cb_device_info *dev, cb_msg *why);
void cb_timing_free(cb_timing *t);

/* How one point is timed: decided once from the benchmark and the config. */
typedef struct point_timing {
    bool cuda;       /* needs the device, stream and events          */
    bool host_timer; /* monotonic clock around run (+ stream sync)   */
    bool hot;        /* batched back to back, no flush               */
} point_timing;

point_timing cb_point_timing_of(const cb_bench *b, const cb_run_config *cfg);

/* The enqueue half of an event-timed sample on event pair `slot`: the head
 * start (NULL or flush_bytes 0: none), start event, `batch` runs (one
 * CUPTI correlation id), stop event. With a head start, *late (may be
 * NULL) says whether the sample started late (cb_head_start). */
cb_status cb_enqueue_sample(const cb_bench *b, void *state, cb_timing *t, const cb_head_start *head,
                            int batch, uint64_t sample_id, int slot, bool *late, cb_msg *why);
/* Wait for the sample on pair `slot`; *elapsed is its whole batch (s). */
cb_status cb_read_sample(cb_timing *t, int slot, double *elapsed, cb_msg *why);
/* One sample, waited for, by the point's timer, after `head` (NULL: none;
 * a host-timed sample takes only its flush); *host_t0 (may be NULL) the
 * host clock when it started; *late (may be NULL) as cb_enqueue_sample. */
cb_status cb_time_sample(const cb_bench *b, void *state, cb_timing *t, point_timing pt,
                         const cb_head_start *head, int batch, uint64_t sample_id, double *elapsed,
                         double *host_t0, bool *late, cb_msg *why);

/* A point's head start and what its samples made of it
 * (runner_head_start.c). */
typedef struct point_head {
    bool chosen;         /* in round 0, after the warm-up                    */
    bool probed;         /* chosen by probe samples (runs under 2 ms)        */
    bool watch;          /* late samples are set aside (the point's runs are
                          * normally on time)                                */
    bool raised;         /* sampling raised the level the probe chose        */
    int level;           /* index into cb_head_start_level's list            */
    cb_head_start start; /* that level's flush and hold                      */
    int since_taken;     /* samples and late ones since the level was set    */
    int since_late;
    int set_aside; /* late samples set aside, all rounds               */
    int late_kept; /* late samples kept (late whatever the head start) */
    int kept;      /* kept samples that had the head start             */
} point_head;

/* The samples of one point, pooled over its rounds. */
typedef struct point_samples {
    double *time_s;  /* per run (sample / batch), by the point's timer */
    double *cupti_s; /* per run by CUPTI; NAN where no record          */
    double *host_t0; /* host monotonic clock at the sample's start     */
    int *replicate;  /* the round the sample came from                 */
    uint64_t *id;    /* its CUPTI correlation id (0: none)             */
    int n, cap;
} point_samples;

void cb_point_samples_free(point_samples *ps);
/* Room for `more` samples after the n already held. */
cb_status cb_point_samples_reserve(point_samples *ps, int more, cb_msg *why);

/* One point across its rounds. */
typedef struct point_run {
    cb_result *r;
    point_samples samples;
    int batch;       /* fixed by the first round: every round's samples alike */
    int rounds;      /* rounds this point runs (auto: decided after round 0)   */
    int rounds_done; /* rounds finished, and the samples they hold: what an */
    int n_done;      /* interrupted run keeps of the point                  */
    bool closed;     /* skip or fail in some round: no more rounds            */
    bool done;       /* its last round ran: no more rounds                    */
    bool written;    /* its row is on disk (written as soon as the point is done) */
    int noisy_rounds;
    char noisy_reason[CB_MSG_LEN];
    cb_point_info info; /* from the last setup */
    /* telemetry */
    bool tele; /* this point is sampled by NVML            */
    /* NVML's violation counters across each round's sampling: the time the
     * clocks were held down by the power limit or temperature */
    double capped_power_s, capped_thermal_s;
    uint64_t capped_rounds;         /* bit r: round r saw the counters move (r >= 63: bit 63) */
    cb_telemetry_readings readings; /* every round's, oldest first   */
    double *sample_sm_clock_mhz;    /* per sample, for samples.csv   */
    const char **sample_throttle;
    /* throttle-aware sampling */
    bool keep_throttled; /* set aside no more (the wait budget is spent) */
    bool self_throttled; /* ... because the point's own load throttles the GPU */
    bool waited;         /* the runner has waited for a recovery for this point */
    /* Once the point's own load throttles the GPU again (self_throttled),
     * the clock takes a few tenths of a second to settle under the cap:
     * samples read before cap_settle_until are set aside, and when it
     * passes, the round drops what it kept before and its samples start
     * over (runner_sample.c). cap_settle_samples counts both. */
    bool cap_restart;
    double cap_settle_until;
    int cap_settle_samples;
    char throttle_why[64]; /* the last reason a sample was set aside */
    point_head head;       /* the head start of its cold samples */
} point_run;

typedef enum sampling_end {
    SAMPLING_CONVERGED,
    SAMPLING_BUDGET,
    SAMPLING_FUTILE, /* stopped early: the target was out of reach (stats.h) */
    SAMPLING_INTERRUPTED,
    SAMPLING_FAILED,
} sampling_end;

/* Append "; text" (or "text") to the row's note, cut at a whole UTF-8
 * character when it does not fit. */
void cb_note_append(cb_result *r, const char *text);

/* The stopping rule of round `round` of this point. */
cb_stop_rule cb_round_rule(const cb_run_config *cfg, const point_run *pr, int round);

/* Round 0 of a cold CUDA point, after its warm-up: choose the shortest
 * head start its samples do not outrun (runner_head_start.c). */
cb_status cb_choose_head_start(const cb_bench *b, void *state, cb_timing *t, point_timing pt,
                               double single_s, point_run *pr, cb_msg *why);
/* The head start of the point's samples: NULL for hot ones. */
const cb_head_start *cb_point_head_start(point_timing pt, const point_run *pr);
/* After a sample with the point's head start: true when it is to be set
 * aside (late, while the point's runs are normally on time); may raise the
 * head start for the samples that follow. A kept sample is counted. */
bool cb_head_start_set_aside(const cb_timing *t, point_run *pr, bool late);
/* The row's note on the head start, where there is something to say. */
void cb_note_head_start(point_run *pr);

/* The samples of one round under the stopping rule (runner_sample.c);
 * *first_id and *n_round say which CUPTI ids and how many samples. */
sampling_end cb_phase_sample(const cb_run_config *cfg, const cb_bench *b, void *state, cb_timing *t,
                             point_timing pt, int round, point_run *pr, uint64_t *first_id,
                             int *n_round, cb_msg *why);

/* Before a round samples: while the GPU is throttled, wait (bounded by the
 * point's throttle budget) for it to recover; the wait goes to the row.
 * A wait marks the point `waited`: a cap the point before left, once
 * lifted, counts as the point's one recovery (runner.c, phase_timed). */
void cb_settle_throttle(const cb_run_config *cfg, point_run *pr);

/* The point's hardware-counter pass (--metrics), in its last round only,
 * after the samples (runner_counters.c). */
void cb_phase_counters(const cb_run_config *cfg, const cb_bench *b, void *state, cb_timing *t,
                       point_timing pt, int round, point_run *pr);

/* Pool the rounds into the row: statistics, status, drift (runner_point.c). */
void cb_point_finish(const cb_run_config *cfg, point_run *pr);
/* The violation counters before a round samples (*before) and after it:
 * the round's capping goes to the point. */
void cb_point_capping_add(point_run *pr, int round, const cb_violation_ns *before,
                          const cb_violation_ns *after);
/* The row's telemetry, each sample's SM clock and reasons, the flag. */
void cb_point_telemetry_finish(point_run *pr);
void cb_point_telemetry_free(point_run *pr);
/* Figures from the median and the work model; pct_ref from an earlier row. */
void cb_derive_figures(cb_result *r, const cb_run_config *cfg, const cb_result *done, int n_done);

#endif
