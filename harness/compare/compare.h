/* compare.h - match the points of two sides and give each a verdict.
 *
 * Per point (identity = benchmark + axes) with both sides timed:
 *   r        Hodges-Lehmann ratio NEW/BASE of the sample times, with its
 *            (1 - alpha) Moses CI [lo, hi] (compare_hl.h);
 *   p        two-sided Mann-Whitney p-value;
 *   q        Benjamini-Hochberg q-value of p over every point timed on both
 *            sides (the family), so that among the points called slower or
 *            faster the expected share of false calls is at most alpha;
 *   rel IQR  (q3 - q1) / median of each side's times.
 *
 * Verdicts, first rule that applies wins:
 *   1. missing       in BASE but not in NEW, or NEW did not time it (skip/fail)
 *   2. new           in NEW only, or timed in NEW but not in BASE
 *   3. inconclusive  fewer than min_samples samples on either side
 *   3b. same         the medians differ by less than min_abs_delta seconds:
 *                    below the timer's resolution (CUDA documents about
 *                    0.5 us for event pairs), a few percent of a 4 us point
 *                    is launch jitter between processes, not a regression
 *   4. noisy         rel IQR above noise_limit on either side, unless the
 *                    change also clears the spread: slower when rule 5 holds
 *                    and NEW's q1 > BASE's q3 (1 + delta); faster when rule 6
 *                    holds and NEW's q3 < BASE's q1 / (1 + delta)
 *   5. slower        lo > 1  and  r >= 1 + delta  and  q <= alpha
 *   6. faster        hi < 1  and  r <= 1/(1 + delta)  and  q <= alpha
 *   7. same          1/(1 + delta) <= lo  and  hi <= 1 + delta
 *   8. inconclusive  anything else (a change too small to matter but not shown
 *                    to be small, or a large change without significance)
 * Noisy comes before slower on purpose: the rank test assumes independent
 * samples from a steady machine; a wide spread (clock changes, a neighbour on
 * the GPU, bimodal timings) breaks that, and a regression gate must not fail
 * on it. The exception in rule 4 keeps a gross slowdown from hiding behind
 * its own noise: when three quarters of NEW's samples are slower than three
 * quarters of BASE's by more than delta, the spread cannot explain it.
 */
#ifndef CB_COMPARE_H
#define CB_COMPARE_H

#include "compare_load.h"

typedef enum cb_verdict {
    CB_VERDICT_SLOWER,
    CB_VERDICT_FASTER,
    CB_VERDICT_NOISY,
    CB_VERDICT_INCONCLUSIVE,
    CB_VERDICT_MISSING,
    CB_VERDICT_NEW,
    CB_VERDICT_SAME,
    CB_VERDICT_COUNT
} cb_verdict;

/* "slower", "faster", "noisy", "inconclusive", "missing", "new", "same". */
const char *cb_verdict_name(cb_verdict v);

typedef struct cb_compare_opts {
    double delta;         /* smallest relative change that matters, default 0.03 */
    double alpha;         /* CI level 1 - alpha and FDR level, default 0.01       */
    double noise_limit;   /* largest relative IQR of a side, default 0.10         */
    int min_samples;      /* fewer on a side is inconclusive, default 5           */
    double min_abs_delta; /* seconds; smaller median changes are same, 0.5e-6  */
} cb_compare_opts;

void cb_compare_opts_default(cb_compare_opts *o);

typedef struct cb_compare_row {
    const char *benchmark, *axes; /* borrowed from the runs                  */
    cb_verdict verdict;
    char note[192];                 /* why, for missing/new/inconclusive rows  */
    double ratio, ci_lo, ci_hi;     /* NAN unless both sides are timed         */
    double p, q;                    /* NAN unless both sides are timed         */
    double base_median, new_median; /* seconds; NAN for a side without times */
    int base_n, new_n;
    double base_rel_iqr, new_rel_iqr;
    double base_q1, base_q3, new_q1, new_q3; /* seconds; NAN without times */
    int order;                               /* position by identity (BASE order, then NEW-only) */
} cb_compare_row;

/* Geometric mean of r over the points of one benchmark timed on both sides. */
typedef struct cb_compare_group {
    const char *benchmark;
    int points;     /* timed on both sides                                   */
    double geomean; /* NAN when points == 0                                  */
    int counts[CB_VERDICT_COUNT];
} cb_compare_group;

typedef struct cb_compare_result {
    cb_compare_row *rows; /* sorted: slower (largest r first), faster
                           * (smallest r first), noisy, inconclusive, missing,
                           * new, same; ties in identity order */
    int n_rows;
    int counts[CB_VERDICT_COUNT];
    double geomean; /* over all points timed on both sides; NAN when none */
    int geomean_points;
    cb_compare_group *groups; /* per benchmark, in identity order */
    int n_groups;
} cb_compare_result;

/* Compare `base` with `cand`. The result borrows names from both runs, which
 * must outlive it. False with `err` set when out of memory. */
bool cb_compare_runs(const cb_cmp_run *base, const cb_cmp_run *cand, const cb_compare_opts *o,
                     cb_compare_result *out, cb_msg *err);

void cb_compare_result_free(cb_compare_result *r);

#endif
