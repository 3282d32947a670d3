/* results.h - the record of one finished point, as written to results.csv.
 * docs/schema.md documents every field. NAN marks "not measured". */
#ifndef CB_RESULTS_H
#define CB_RESULTS_H

#include "bench.h"
#include "stats.h"

/* 3: kind, key figures, phase times and throttle columns; 2: device,
 * replicate and telemetry columns. Readers accept 1, 2 and 3. */
#define CB_SCHEMA_VERSION 3

/* What the GPU did while a point was sampled (telemetry.h fills it). */
typedef struct cb_point_telemetry {
    bool valid; /* false: no telemetry (no NVML, host benchmark) */
    double sm_clock_min_mhz, sm_clock_median_mhz, sm_clock_max_mhz;
    double mem_clock_median_mhz;
    double power_mean_w; /* NAN when the GPU reports no power          */
    double temp_max_c;   /* NAN when the GPU reports no temperature    */
    char throttle[128];  /* reason words joined by '+', or "none"      */
} cb_point_telemetry;

/* Per-sample extras for samples.csv; every pointer may be NULL. */
typedef struct cb_sample_extras {
    const int *replicate;        /* the replicate (round) each sample came from */
    const double *sm_clock_mhz;  /* SM clock nearest the sample                 */
    const char *const *throttle; /* reason words seen during the sample         */
} cb_sample_extras;

/* Hardware counters of the point's metric pass (--metrics; docs/counters.md).
 * Filled by the runner from timing/counters.h; asked == false leaves every
 * counters column empty (no --metrics, a host point, a multi-GPU point). */
typedef struct cb_point_counters {
    bool asked;
    cb_status status;        /* CB_OK collected; CB_SKIP unavailable here; CB_FAIL */
    char reason[CB_MSG_LEN]; /* why not CB_OK; with CB_OK, why one range around the run */
    int kernels;             /* kernels of one run the figures combine; 0 none, -1 not known */
    double sol_dram_pct, sol_l2_pct, sol_l1_pct, sol_sm_pct, sol_tensor_pct; /* % of peak */
    double dram_bytes;                       /* DRAM bytes read + written by one run        */
    double measured_flops;                   /* floating-point operations of one run         */
    int passes;                              /* replay passes of the metric pass             */
    double wall_s;                           /* host time of the metric pass, seconds        */
    int n;                                   /* metrics in metrics.csv for this point        */
    const char *const *names, *const *units; /* [n], owned by the counters session */
    double *values;                          /* [n], owned by the runner until the row is written */
} cb_point_counters;

/* Where a point's wall time went, in seconds, summed over its rounds. */
typedef struct cb_phase_times {
    double setup_s;    /* allocations, inputs, poisoning (the hook)         */
    double verify_s;   /* the first run and its check                       */
    double warmup_s;   /* warm-up runs                                      */
    double sampling_s; /* the timed samples, CUPTI's view of them included  */
    double teardown_s; /* freeing                                           */
} cb_phase_times;

typedef struct cb_result {
    const cb_bench *bench;
    char axes[CB_POINT_TEXT]; /* cb_point_format of the point              */
    cb_point point;           /* the point itself (valid when n_axes > 0)   */
    cb_status status;
    char reason[CB_MSG_LEN];
    const char *timer; /* "event" or "host"                           */
    const char *cache; /* "cold", "hot" or "n/a"                       */
    int batch;
    cb_summary summary;    /* of per-run times; summary.n == 0 untimed     */
    double cupti_median_s; /* NAN without CUPTI                           */
    char kernels[256];     /* kernel names CUPTI saw, '|'-separated       */
    double bytes, flops;   /* work model of one run; NAN if none          */
    double gbps, tflops;   /* derived from the median                     */
    double peak;           /* in peak_unit; NAN if none                   */
    const char *peak_unit; /* "GB/s", "TFLOP/s" or ""                      */
    double pct_peak;
    const cb_bench *ref;       /* the reference benchmark (pct_ref), or NULL    */
    const char *ref_benchmark; /* its name once pct_ref was found, or NULL     */
    double pct_ref;
    double occupancy;    /* NAN when not a kernel launch               */
    double verify_error; /* NAN when not verified                      */
    char note[384];
    int device;           /* ordinal; -1 for host benchmarks          */
    char device_uuid[48]; /* "GPU-..." or ""                          */
    int replicates;       /* replicates (rounds) the samples came from */
    cb_point_telemetry telemetry;
    const char *peak_source; /* where `peak` came from, or NULL            */
    cb_point_kind kind;
    const cb_key_figure *key_figure; /* the key figure the row stands for, or NULL */
    cb_phase_times phases;
    int throttled_samples;  /* samples set aside while the GPU throttled      */
    double throttle_wait_s; /* time spent waiting for its clock to recover    */
    cb_point_counters counters;
} cb_result;

#endif
