/* compare_stats.h - the rank statistics behind `cubench compare`.
 *
 * Two samples: BASE x[0..m) and NEW y[0..n). The Mann-Whitney statistic is
 *     U = #{(i, j) : y[j] > x[i]} + #{(i, j) : y[j] == x[i]} / 2,
 * so a large U means NEW is larger (slower, for times). Under H0 (both from
 * one continuous distribution) U is symmetric about m n / 2. Its exact
 * distribution is used when there are no ties and m n <= CB_MWU_EXACT_MAX;
 * otherwise the normal approximation with the tie-corrected variance
 *     var U = m n / 12 * ((m + n + 1) - sum(t^3 - t) / ((m + n)(m + n - 1)))
 * (t = size of each group of equal values in the pooled sample) and a
 * continuity correction of 1/2.
 */
#ifndef CB_COMPARE_STATS_H
#define CB_COMPARE_STATS_H

#include "cb_common.h"

/* Largest m*n for which the exact null distribution of U is computed: the
 * recurrence costs about (m n)^2 / 4 additions and (m n) min(m,n) doubles. */
#define CB_MWU_EXACT_MAX 2500

/* Standard normal: upper-tail probability P(Z > z), and the quantile z with
 * P(Z <= z) = p for 0 < p < 1 (relative error below 1e-12). */
double cb_normal_sf(double z);
double cb_normal_quantile(double p);

/* Exact null distribution of U without ties: cdf[u] = P(U <= u) for
 * u = 0 .. m*n; the caller frees it. NULL when m or n < 1, when
 * m*n > CB_MWU_EXACT_MAX, or when out of memory. */
double *cb_mwu_exact_cdf(int m, int n);

/* The Mann-Whitney test of two ascending-sorted samples. */
typedef struct cb_mwu {
    double u;        /* U of y over x, as defined above                       */
    double p;        /* two-sided p-value                                      */
    double tie_term; /* sum(t^3 - t) over groups of equal pooled values        */
    bool exact;      /* p from the exact distribution (no ties, small m n)     */
} cb_mwu;

/* Run the test; `cdf` is cb_mwu_exact_cdf(m, n) or NULL, and is used only
 * when there are no ties. m, n >= 1. */
void cb_mwu_test(const double *x, int m, const double *y, int n, const double *cdf, cb_mwu *out);

/* The rank k (1-based) such that [d_(k), d_(mn+1-k)] of the m n sorted
 * pairwise differences y[j] - x[i] is a confidence interval for the shift
 * with coverage >= 1 - alpha (Moses): the largest k with P(U <= k-1) <= alpha/2.
 * `cdf` as for cb_mwu_test (exact ranks), else the normal approximation with
 * `tie_term`. Returns 0 when no such k exists (too few samples for the level). */
int64_t cb_mwu_ci_rank(int m, int n, double alpha, const double *cdf, double tie_term);

/* Benjamini-Hochberg adjusted p-values (q-values): q_(i) = min over j >= i of
 * p_(j) * M / j, capped at 1, where p_(1) <= ... <= p_(M) are the M non-NaN
 * entries of p. NaN entries get a NaN q and are not part of the family.
 * Returns false when out of memory. */
bool cb_bh_qvalues(const double *p, int n, double *q);

/* Quantile of ascending `sorted` (n >= 1) by linear interpolation between
 * order statistics (Hyndman-Fan type 7, as results.csv's quartiles). */
double cb_cmp_quantile(const double *sorted, int n, double q);

/* (q3 - q1) / median of ascending `sorted`; NaN when n < 1 or median <= 0. */
double cb_cmp_rel_iqr(const double *sorted, int n);

#endif
