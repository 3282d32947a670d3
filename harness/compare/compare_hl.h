/* compare_hl.h - the Hodges-Lehmann ratio of two timing samples and its
 * Moses confidence interval, plus the Mann-Whitney p-value.
 *
 * Times are compared on the log scale, so the shift is a ratio: with
 * x = log(BASE), y = log(NEW) and the m n pairwise differences
 * d = y[j] - x[i], the estimate is r = exp(median d), and the (1 - alpha)
 * interval is [exp(d_(k)), exp(d_(mn+1-k))] with k = cb_mwu_ci_rank().
 *
 * Order statistics of the differences are found without storing them when
 * m n is large: d is sorted along both axes of the (i, j) grid, so the count
 * of differences below a value takes one O(m + n) walk. Selection keeps the
 * candidates between two bounds as one row range per column (Monahan's
 * algorithm for the Hodges-Lehmann estimator) and picks the next bounds from
 * a random sample of the candidates around the wanted rank (Floyd-Rivest),
 * so a few rounds of O(m + n) walks suffice.
 */
#ifndef CB_COMPARE_HL_H
#define CB_COMPARE_HL_H

#include "cb_common.h"

/* Up to this many pairs the differences are materialised and sorted;
 * above it, selection. Selection is exact too; the sort is the reference. */
#define CB_HL_SORT_MAX (1 << 16)

/* The k-th smallest (1-based, 1 <= k <= m n) of y[j] - x[i] for ascending x
 * and y, by selection. Candidates are gathered and sorted once at most
 * `gather_max` (>= 1) of them remain. False with `err` set when out of memory. */
bool cb_hl_kth_diff(const double *x, int m, const double *y, int n, int64_t k, int64_t gather_max,
                    double *out, cb_msg *err);

typedef struct cb_shift {
    double ratio;        /* r = NEW/BASE, exp of the Hodges-Lehmann log shift   */
    double ci_lo, ci_hi; /* (1 - alpha) CI of r; 0 and +inf when none exists    */
    int64_t ci_rank;     /* k of the CI (0: too few samples for the level)      */
    double u, p;         /* Mann-Whitney U of NEW over BASE, two-sided p-value  */
    bool exact;          /* p and k from the exact null distribution of U       */
} cb_shift;

/* Compare BASE times base[0..m) with NEW times cand[0..n) (all > 0 and
 * finite; m, n >= 1; not modified). False with `err` set when out of memory. */
bool cb_shift_estimate(const double *base, int m, const double *cand, int n, double alpha,
                       cb_shift *out, cb_msg *err);

#endif
