/* run_config.h - what a run is asked to do and what it did: the settings
 * every layer above the descriptors reads (the runner, meta.json, the
 * session), the planned points and the totals. Plain data, no behaviour
 * beyond the defaults. */
#ifndef CB_RUN_CONFIG_H
#define CB_RUN_CONFIG_H

#include "results.h"

typedef enum cb_cache_mode {
    CB_CACHE_COLD, /* flush L2 before every sample; one run per sample */
    CB_CACHE_HOT,  /* batch runs back to back into >= hot_min_sample_s */
} cb_cache_mode;

typedef struct cb_run_config {
    cb_stop_rule stop;
    cb_cache_mode cache;
    double hot_min_sample_s; /* hot samples last at least this long (1e-4)  */
    int warmup_runs;         /* runs after the verified one (default 3)     */
    double warmup_max_s;     /* ... unless they take longer than this        */
    uint64_t seed;
    int host_threads;
    bool use_cupti;     /* CUPTI activity records next to the events   */
    bool cupti_primary; /* --timer cupti: CUPTI times feed the statistics */
    bool nvtx;
    bool profile; /* bracket the (single) point with cudaProfilerStart/Stop */
    bool quiet;   /* no progress line                                 */
    /* Replicates: the sweep runs `replicates` rounds, each point set up
     * afresh (new allocations, new warm-up) in every round, the rounds
     * interleaved over the points so that slow drifts and the GPU's
     * millisecond-scale modes spread over every point. Each round samples
     * under the stopping rule with 1/replicates of the time budget; the row
     * pools the rounds and samples.csv says which round each sample is from,
     * so compare can test on replicate medians. 1 = today's single pass. */
    int replicates; /* 0: auto (runner_point.h: 3 rounds for short points) */
    /* Throttle-aware sampling (docs/methodology.md): where NVML samples the
     * point's GPU, a sample taken while it throttles is set aside and the
     * runner waits for the clock to recover, at most throttle_wait_max_s
     * per point; after that, or with keep_throttled (--keep-throttled, for
     * studies of sustained power), throttled samples are kept. */
    bool keep_throttled;
    double throttle_wait_max_s;
    /* A point whose own load brings the GPU back to its cap after the
     * runner waited for it is measured at what the capped GPU sustains:
     * the samples before and for cap_settle_s after that moment (the clock
     * falling to its capped level) are set aside and the round's samples
     * start over (its budget runs on). */
    double cap_settle_s;
    const cb_device_info *dev; /* NULL without a device                     */
    /* Every device of the run (dev among them), for benchmarks that use
     * several (cb_bench.devices > 1); NULL means {dev}. */
    const cb_device_info *const *devs;
    int n_devs;
    char no_device_reason[CB_MSG_LEN];
    /* NVML telemetry around each CUDA point's sampling (telemetry.h); NULL
     * or not sampling: the telemetry columns stay empty. */
    struct cb_telemetry *telemetry;
    /* --metrics: hardware counters in a replay pass after each single-GPU
     * CUDA point's samples (timing/counters.h); NULL: no metric pass. */
    struct cb_counters *counters;
} cb_run_config;

typedef struct cb_planned_point {
    const cb_bench *bench;
    const cb_bench *ref;          /* bench->ref_bench, resolved by the plan; NULL if none */
    cb_point point;               /* n_axes == 0 for a benchmark that cannot be expanded */
    char skip_reason[CB_MSG_LEN]; /* non-empty: write a skip row, do not run */
} cb_planned_point;

typedef struct cb_run_totals {
    int ok, noisy, skip, fail;
    bool interrupted;
    bool context_lost;            /* a sticky CUDA error ended the sweep early     */
    bool write_failed;            /* results could not be written: the sweep stopped */
    char stop_reason[CB_MSG_LEN]; /* why the sweep stopped early, if it did */
} cb_run_totals;

/* Default configuration (10 samples, +-0.5% CI, 1 s per point, cold). */
void cb_run_config_defaults(cb_run_config *cfg);

#endif
