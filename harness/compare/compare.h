/* compare.h - match the points of two sides and give each a verdict.
 *
 * Per point (identity = benchmark + axes (+ device in runs of several)) timed
 * on both sides, on the log scale (so effects are ratios NEW/BASE):
 *   d     = center(NEW) - center(BASE), each side's center and variance from
 *           its units (compare_units.h: runs, rounds or samples);
 *   var   = var(BASE) + var(NEW) + the between-run spread the data cannot
 *           show: sigma^2 (1/D_BASE + 1/D_NEW) over the sides with fewer than
 *           CB_CMP_MIN_RUNS runs, sigma (with its df) from the first of: the
 *           spread sources (a calibration, a history), --between-run, the
 *           default of the point's kind (compare_spread.h); a kind without a
 *           default leaves the point untested (inconclusive, and why);
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
 *   inconclusive  fewer than min_samples samples on a side, no spread, or no
 *                 between-run spread for its kind from one run per side
 *   throttled     either side ran throttled (a throttling reason in a kept
 *                 sample's `throttle`, else in results.csv's; or an SM clock
 *                 that moved by more than CB_CMP_CLOCK_MOVED while it
 *                 sampled), or the two sides ran at steady SM clocks more
 *                 than CB_CMP_CLOCK_MOVED apart (median against median: the
 *                 GPU's state differed, whatever reason it gave): a throttled
 *                 difference is no regression; the note says what the test
 *                 would have said and the evidence
 *   slower        q <= alpha and d > 0: with confidence 1 - alpha (after BH)
 *                 NEW is more than delta slower; unless the change in
 *                 seconds is below the timer's floor -> inconclusive
 *   faster        q <= alpha and d < 0 (the mirror)
 *   same          the CI lies inside [1/(1 + delta), 1 + delta], and delta of
 *                 the median is above the floor (else inconclusive)
 *   inconclusive  anything else
 * The floor is the timer's resolution per run: event timer `event_res_s`,
 * by default the grid the point's samples sit on (the smallest gap between
 * two distinct sample times, the larger of the two sides': 32 ns for the
 * H200's events) but never more than the ~0.5 us CUDA documents for an
 * event pair; host clock `host_res_s`, CUPTI none (nanosecond timestamps);
 * divided by the batch. */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include "compare_calib.h"
#include "compare_load.h"
#include "compare_spread.h"
#include "compare_units.h"

/* An SM clock whose (max - min) / max while sampling exceeds this ran
 * throttled (the runner's own rule for its `note`, docs/schema.md). */
#define CB_CMP_CLOCK_MOVED 0.02

typedef enum cb_verdict {
    CB_VERDICT_SLOWER,
    CB_VERDICT_FASTER,
    CB_VERDICT_THROTTLED,
    CB_VERDICT_INCONCLUSIVE,
    CB_VERDICT_MISSING,
    CB_VERDICT_NEW,
    CB_VERDICT_UNTIMED,
    CB_VERDICT_SAME,
    CB_VERDICT_COUNT
} cb_verdict;

/* "slower", "faster", "throttled", "inconclusive", "missing", "new",
 * "untimed", "same". */
const char *cb_verdict_name(cb_verdict v);

/* What CUDA documents as the resolution of an event pair: the floor where
 * a side's samples show no grid (every time equal, or one sample). */
#define CB_EVENT_RES_DOCUMENTED_S 0.5e-6

typedef struct cb_compare_opts {
    double delta;                    /* smallest change that matters, default 0.03       */
    double alpha;                    /* CI level 1 - alpha and FDR level, default 0.01    */
    double power;                    /* of the reported MDE, default 0.99                 */
    int min_samples;                 /* fewer on a side is inconclusive, default 5        */
    double event_res_s;              /* event timer resolution; NAN (default): each side's
                                      * sample grid, at most CB_EVENT_RES_DOCUMENTED_S;
                                      * 0: none                                       */
    double host_res_s;               /* host clock resolution, default 1e-7; 0: none      */
    double between_run_sd;           /* per run, for sides of fewer than 3 runs that no
                                      * source covers; CB_BETWEEN_RUN_BY_KIND (default):
                                      * the default of the point's kind; 0: none      */
    const cb_spread_source *sources; /* asked in order (calibration, history) */
    int n_sources;
} cb_compare_opts;

/* between_run_sd: the default of each point's kind (compare_defaults.h). */
#define CB_BETWEEN_RUN_BY_KIND (-1.0)

void cb_compare_opts_default(cb_compare_opts *o);

/* Where a point's between-run widening came from. */
typedef enum cb_widening {
    CB_WIDEN_NONE,    /* runs on both sides, or --between-run 0            */
    CB_WIDEN_SOURCE,  /* a spread source (row->source: calibration, history) */
    CB_WIDEN_DEFAULT, /* --between-run X, else the default of its kind     */
    CB_WIDEN_UNKNOWN, /* needed, and nothing knows it: untested            */
} cb_widening;

/* What the MDE of a tested point is bound by. */
typedef enum cb_mde_bound {
    CB_MDE_SPREAD, /* the test: its standard error */
    CB_MDE_FLOOR,  /* the timer's floor            */
} cb_mde_bound;

/* What made a side count as throttled (or nothing). */
typedef struct cb_throttle_evidence {
    bool throttled;            /* its kept samples ran throttled: the verdict      */
    bool seen;                 /* throttling seen while it sampled (results.csv),
                                * perhaps only in samples the runner set aside    */
    const char *reasons;       /* throttling words (borrowed), NULL none        */
    int samples, of;           /* kept samples under a reason, of all kept       */
    double clock_lo, clock_hi; /* SM clock min/max while sampling; NAN     */
    double set_aside;          /* samples the runner set aside (v3); NAN        */
    double waited_s;           /* seconds it waited for the clock (v3); NAN     */
} cb_throttle_evidence;

typedef struct cb_compare_row {
    const char *benchmark, *axes, *device;      /* borrowed from the runs     */
    const cb_cmp_point *base_point, *new_point; /* borrowed; NULL: absent */
    cb_cmp_kind kind;
    cb_verdict verdict;
    cb_verdict tested_verdict; /* a throttled row: what the test said    */
    char note[512];
    double ratio, ci_lo, ci_hi; /* NAN unless tested                          */
    double p, q, mde;           /* NAN unless tested                          */
    cb_mde_bound mde_bound;
    double log_ratio, var, df; /* d, its variance and df                     */
    cb_side_est base, cand;    /* n == 0 for a side without times            */
    cb_widening widening;
    int source;       /* CB_WIDEN_SOURCE: index into opts.sources         */
    cb_spread spread; /* the between-run spread used (sd 0: none)         */
    double floor_s;   /* the timer floor applied, seconds                 */
    cb_throttle_evidence base_throttle, new_throttle;
    double clock_base, clock_new; /* SM clock medians more than CB_CMP_CLOCK_MOVED
                                   * apart; NAN when not, or not recorded      */
    int order;                    /* position by identity (BASE order, then NEW-only)           */
} cb_compare_row;

/* Geometric mean of the ratios of a set of points, with its CI: on the log
 * scale the mean of d; its variance the larger of sum(var)/P^2 (the points'
 * own uncertainty, df by Satterthwaite) and s^2(d)/P (the points as a sample
 * of the suite, df P - 1), plus the run-wide offset every point of a run
 * shares, which no average over points removes: per side, s^2 of its runs'
 * mean offsets / D from the data when the side has >= CB_CMP_MIN_RUNS runs,
 * else the spread's run-wide part (run_sd^2 / D, the largest of the
 * points'). */
typedef struct cb_geomean {
    int points;
    double ratio, ci_lo, ci_hi; /* NAN when points == 0; CI needs 1 point */
    double offset_var;          /* the run-wide part of the variance      */
} cb_geomean;

typedef struct cb_compare_group {
    const char *benchmark;
    cb_geomean geomean;
    int counts[CB_VERDICT_COUNT];
} cb_compare_group;

/* The power of one kind of point (or of all, index CB_CMP_KINDS). */
typedef struct cb_power_count {
    int tested;      /* points with a test                              */
    int detect;      /* of them with MDE <= 2 delta                     */
    int floor_bound; /* MDE set by the timer floor                      */
    int untested;    /* timed on both sides, no between-run spread      */
    double mde_median;
} cb_power_count;

typedef struct cb_compare_result {
    cb_compare_row *rows; /* sorted: slower (largest r first), faster
                           * (smallest r first), throttled, inconclusive,
                           * missing, new, untimed, same; ties in identity
                           * order */
    int n_rows;
    int counts[CB_VERDICT_COUNT];
    int tested; /* points with a test (both sides timed, enough samples) */
    cb_geomean geomean;
    cb_compare_group *groups; /* per benchmark, in identity order */
    int n_groups;
    int basis_count[2][3]; /* [base/new][cb_basis] over tested points     */
    int widening_count[4]; /* points by cb_widening                       */
    int throttled_slower;  /* throttled points the test called slower     */
    int bimodal;           /* tested points with a mode switch            */
    cb_power_count power[CB_CMP_KINDS + 1];
} cb_compare_result;

/* Compare `base` with `cand`. The result borrows names from both runs, which
 * must outlive it. False with `err` set when out of memory. */
bool cb_compare_runs(const cb_cmp_run *base, const cb_cmp_run *cand, const cb_compare_opts *o,
                     cb_compare_result *out, cb_msg *err);

void cb_compare_result_free(cb_compare_result *r);

/* The throttle evidence of one side's point: `throttled` from the kept
 * samples' own `throttle` and `sm_clock_mhz` where samples.csv records
 * them (v2), else from results.csv's `throttle` and SM clock range. */
cb_throttle_evidence cb_compare_throttle(const cb_cmp_run *run, const cb_cmp_point *p);

#endif
