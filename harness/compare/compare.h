/* compare.h - match the points of two sides and give each a verdict.
 *
 * Per point (identity = benchmark + axes) timed on both sides, on the log
 * scale (so effects are ratios NEW/BASE):
 *   d     = center(NEW) - center(BASE), each side's center and variance from
 *           its units (compare_units.h: runs, rounds or samples);
 *   var   = var(BASE) + var(NEW) + the between-run spread the data cannot
 *           show: sigma^2 (1/D_BASE + 1/D_NEW) over the sides with fewer than
 *           CB_CMP_MIN_RUNS runs (rounds or samples), sigma from --calibration
 *           (with its df), else `between_run_sd`, by default the built-in
 *           table by BASE median (compare_between.h; df infinite): rounds of
 *           one process held the H200 A/A ratio 1 in 43.6% of 99% CIs;
 *   df    by Welch-Satterthwaite over those parts;
 *   ratio = exp(d), CI = exp(d -+ t(1 - alpha/2, df) sqrt(var));
 *   p     = the two-sided minimum-effect test: with L = log(1 + delta),
 *           2 min(P(T >= (d - L)/se), P(T <= (d + L)/se)), i.e. the evidence
 *           that |log ratio| > L;
 *   q     = Benjamini-Hochberg over every point tested;
 *   mde   = exp(max(L + (t(1 - alpha/2) + t(power)) se,
 *                     log(1 + floor / BASE median) + t(power) se)) - 1:
 *           the smallest slowdown called `slower` with probability `power`
 *           at a point tested alone at level alpha (both the test and the
 *           floor are d > threshold, so the larger threshold decides).
 * Verdicts, the first rule that applies:
 *   missing       in BASE only, or timed in BASE and not in NEW
 *   new           in NEW only, or timed in NEW and not in BASE
 *   untimed       in both, timed in neither (skip/fail on both sides)
 *   inconclusive  fewer than min_samples samples on a side, or no spread
 *   slower        q <= alpha and d > 0: with confidence 1 - alpha (after BH)
 *                 NEW is more than delta slower; unless the change in
 *                 seconds is below the timer's floor -> inconclusive
 *   faster        q <= alpha and d < 0 (the mirror)
 *   same          the CI lies inside [1/(1 + delta), 1 + delta], and delta of
 *                 the median is above the floor (else inconclusive)
 *   inconclusive  anything else
 * The floor is the timer's resolution per run: event timer `event_res_s`
 * (CUDA documents about 0.5 us for an event pair), host clock
 * `host_res_s`, CUPTI none (nanosecond timestamps); divided by the batch. */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include "compare_calib.h"
#include "compare_load.h"
#include "compare_units.h"

typedef enum cb_verdict {
    CB_VERDICT_SLOWER,
    CB_VERDICT_FASTER,
    CB_VERDICT_INCONCLUSIVE,
    CB_VERDICT_MISSING,
    CB_VERDICT_NEW,
    CB_VERDICT_UNTIMED,
    CB_VERDICT_SAME,
    CB_VERDICT_COUNT
} cb_verdict;

/* "slower", "faster", "inconclusive", "missing", "new", "untimed", "same". */
const char *cb_verdict_name(cb_verdict v);

typedef struct cb_compare_opts {
    double delta;                      /* smallest change that matters, default 0.03       */
    double alpha;                      /* CI level 1 - alpha and FDR level, default 0.01    */
    double power;                      /* of the reported MDE, default 0.95                 */
    int min_samples;                   /* fewer on a side is inconclusive, default 5        */
    double event_res_s;                /* event timer resolution, default 0.5e-6; 0: none   */
    double host_res_s;                 /* host clock resolution, default 1e-7; 0: none      */
    double between_run_sd;             /* per run, for sides of rounds or samples without a
                                        * calibration; CB_BETWEEN_RUN_BUILTIN (default): the
                                        * table of compare_between.h; 0: none              */
    const cb_calibration *calibration; /* NULL: none                           */
} cb_compare_opts;

/* between_run_sd: take the built-in table by time scale (compare_between.h). */
#define CB_BETWEEN_RUN_BUILTIN (-1.0)

void cb_compare_opts_default(cb_compare_opts *o);

/* Where a point's between-run widening came from. */
typedef enum cb_widening {
    CB_WIDEN_NONE,        /* runs on both sides, or --between-run 0 */
    CB_WIDEN_CALIBRATION, /* --calibration                          */
    CB_WIDEN_DEFAULT,     /* between_run_sd or the built-in table   */
} cb_widening;

typedef struct cb_compare_row {
    const char *benchmark, *axes; /* borrowed from the runs                  */
    cb_verdict verdict;
    char note[256];
    double ratio, ci_lo, ci_hi; /* NAN unless tested                          */
    double p, q, mde;           /* NAN unless tested                          */
    double log_ratio, var, df;  /* d, its variance and df                     */
    cb_side_est base, cand;     /* n == 0 for a side without times            */
    cb_widening widening;
    double between_sd; /* sigma added, 0 none                                 */
    double floor_s;    /* the timer floor applied, seconds                    */
    const char *base_throttle, *new_throttle; /* NULL: none seen              */
    int order; /* position by identity (BASE order, then NEW-only)           */
} cb_compare_row;

/* Geometric mean of the ratios of a set of points, with its CI: on the log
 * scale the mean of d, its variance the larger of sum(var)/P^2 (the points'
 * own uncertainty, df by Satterthwaite) and s^2(d)/P (the points as a sample
 * of the suite, df P - 1). */
typedef struct cb_geomean {
    int points;
    double ratio, ci_lo, ci_hi; /* NAN when points == 0; CI needs 1 point */
} cb_geomean;

typedef struct cb_compare_group {
    const char *benchmark;
    cb_geomean geomean;
    int counts[CB_VERDICT_COUNT];
} cb_compare_group;

typedef struct cb_compare_result {
    cb_compare_row *rows; /* sorted: slower (largest r first), faster
                           * (smallest r first), inconclusive, missing, new,
                           * untimed, same; ties in identity order */
    int n_rows;
    int counts[CB_VERDICT_COUNT];
    int tested; /* points with a test (both sides timed, enough samples) */
    cb_geomean geomean;
    cb_compare_group *groups; /* per benchmark, in identity order */
    int n_groups;
    int basis_count[2][3]; /* [base/new][cb_basis] over tested points     */
    int widening_count[3]; /* tested points by cb_widening                 */
    int throttled;         /* points throttled on either side              */
} cb_compare_result;

/* Compare `base` with `cand`. The result borrows names from both runs, which
 * must outlive it. False with `err` set when out of memory. */
bool cb_compare_runs(const cb_cmp_run *base, const cb_cmp_run *cand, const cb_compare_opts *o,
                     cb_compare_result *out, cb_msg *err);

void cb_compare_result_free(cb_compare_result *r);

/* Record the between-run spread of an A/A pair (compare_calib.h): every
 * point timed on both sides with min_samples each is an observation. Sets
 * *points to their number. False with `err` set when out of memory. */
bool cb_compare_calibrate(const cb_cmp_run *a, const cb_cmp_run *b, const cb_compare_opts *o,
                          cb_calibration *out, int *points, cb_msg *err);

#endif
