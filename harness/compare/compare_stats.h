/* compare_stats.h - the distributions and corrections behind `cubench
 * compare`: the standard normal, Student's t (any real degrees of freedom,
 * for Welch-Satterthwaite), Benjamini-Hochberg q-values, and quantiles. */
#ifndef CB_COMPARE_STATS_H
#define CB_COMPARE_STATS_H

#include "cb_common.h"

/* Standard normal: upper-tail probability P(Z > z), and the quantile z with
 * P(Z <= z) = p for 0 < p < 1 (relative error below 1e-12). */
double cb_normal_sf(double z);
double cb_normal_quantile(double p);

/* Student's t with `df` > 0 degrees of freedom (INFINITY: the normal):
 * P(T <= t), and the quantile t with P(T <= t) = p for 0 < p < 1. Both
 * accurate to about 1e-12 at every df: the regularized incomplete beta by a
 * continued fraction below 1e5 df, Fisher's expansion about the normal
 * above (where the beta's lgamma prefactor would cancel digits away); the
 * quantile by safeguarded Newton steps on the CDF. */
double cb_t_cdf(double t, double df);
double cb_t_quantile(double p, double df);

/* Benjamini-Hochberg adjusted p-values (q-values): q_(i) = min over j >= i of
 * p_(j) * M / j, capped at 1, where p_(1) <= ... <= p_(M) are the M non-NaN
 * entries of p. NaN entries get a NaN q and are not part of the family.
 * Returns false when out of memory. */
bool cb_bh_qvalues(const double *p, int n, double *q);

/* x[0 .. n) in ascending order (their quantiles: cb_stats_quantile_sorted,
 * Hyndman-Fan type 7 as results.csv's quartiles). */
void cb_cmp_sort(double *x, int n);

/* (q3 - q1) / median of ascending `sorted`; NaN when n < 1 or median <= 0. */
double cb_cmp_rel_iqr(const double *sorted, int n);

#endif
