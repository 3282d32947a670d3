/* results.h - the record of one finished point, as written to results.csv.
 * docs/schema.md documents every field. NAN marks "not measured". */
#ifndef CB_RESULTS_H
#define CB_RESULTS_H

#include "bench.h"
#include "stats.h"

#define CB_SCHEMA_VERSION 1

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
    const char *ref_benchmark; /* or NULL                                     */
    double pct_ref;
    double occupancy;    /* NAN when not a kernel launch               */
    double verify_error; /* NAN when not verified                      */
    char note[160];
} cb_result;

#endif
