/* compare_spread.h - where the between-run spread of a point comes from when
 * a side has fewer than CB_CMP_MIN_RUNS runs (processes), and its data
 * cannot show how much another process would differ.
 *
 * compare asks, in this order, and takes the first answer:
 *   1. the runs themselves: a side of >= CB_CMP_MIN_RUNS runs needs no
 *      widening (its spread is measured); rounds inside one run are its
 *      unit, and what rounds cannot show comes from 2-4;
 *   2. the spread sources the caller gives (cb_compare_opts.sources), in
 *      order: a calibration recorded from >= 3 processes of this machine
 *      (compare_calib.h: cb_calibration_source), then a history of past runs
 *      (a later `compare --history DB` plugs its database in here);
 *   3. `--between-run X`, when the user states a spread;
 *   4. the default of the point's kind (compare_defaults.h), measured on
 *      recorded H200 A/A runs; a kind without a trustworthy default has
 *      none, and its points are `inconclusive` from one run per side, with
 *      that reason.
 *
 * A source is a plain C interface: a context and a lookup. The lookup sees
 * the point (identity, kind, BASE center, the basis of the side's own
 * uncertainty) and answers with a spread and its degrees of freedom, or
 * declines. Spreads are relative standard deviations per run (log scale). */
#ifndef CB_COMPARE_SPREAD_H
#define CB_COMPARE_SPREAD_H

#include "compare_kind.h"

#include <stddef.h>

/* Where the variance of a side comes from (compare_units.h). */
typedef enum cb_basis {
    CB_BASIS_RUNS,
    CB_BASIS_ROUNDS,
    CB_BASIS_SAMPLES,
} cb_basis;

/* "runs", "rounds", "samples". */
const char *cb_basis_name(cb_basis b);

typedef struct cb_spread_query {
    const char *benchmark, *axes, *device; /* identity (device "" usually)  */
    const char *device_name;               /* BASE's GPU, "" unknown         */
    cb_cmp_kind kind;
    double median_s; /* BASE's center, seconds                         */
    cb_basis basis;  /* the coarser of the two sides' own bases          */
} cb_spread_query;

typedef struct cb_spread {
    double sd;     /* between-run standard deviation per run, relative     */
    double df;     /* its degrees of freedom (INFINITY: taken as exact)     */
    double run_sd; /* the part every point of a run shares (a run-wide
                    * offset: clocks, placement), for the geometric mean;
                    * NAN unknown                                          */
    double run_df;
    char what[120]; /* for the report: "bucket 6 of vecadd/float4_per_thread" */
} cb_spread;

typedef struct cb_spread_source {
    const char *name;  /* "calibration", "history": the `widening` word   */
    const char *label; /* for the report: the file or database            */
    const void *ctx;
    /* Fill *out and return true, or return false: no figure for this
     * point here (the next source is asked). */
    bool (*lookup)(const void *ctx, const cb_spread_query *q, cb_spread *out);
} cb_spread_source;

#endif
