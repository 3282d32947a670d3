/* stats.h - summary statistics of samples and the stopping rule.
 *
 * The stopping rule: take at least `min_samples`, then stop as soon as the
 * 95% confidence interval of the median is within +-`target_rel` of the
 * median; if the point's time budget runs out first, the point is `noisy`.
 * The CI is distribution-free: order statistics whose ranks come from the
 * exact Binomial(n, 1/2) distribution, so it holds for skewed timing data.
 */
#ifndef CB_STATS_H
#define CB_STATS_H

#include "cb_common.h"

typedef struct cb_summary {
    int n;
    double median, min, max, q1, q3, mean, stddev;
    double ci_lo, ci_hi; /* 95% CI of the median                     */
    double ci_rel_half;  /* (ci_hi - ci_lo) / (2 median); inf if n small */
} cb_summary;

/* Summarise n samples (n >= 1). `x` is not modified. */
void cb_stats_summarise(const double *x, int n, cb_summary *out);

/* Ranks (1-based, lo <= hi) of the order statistics bounding a CI of the
 * median with coverage >= `level` (e.g. 0.95). Returns false when n is too
 * small for any such interval (then the CI is [min, max]). */
bool cb_stats_median_ci_ranks(int n, double level, int *lo, int *hi);

/* Quantile by linear interpolation between order statistics of sorted x. */
double cb_stats_quantile_sorted(const double *sorted, int n, double q);

typedef struct cb_stop_rule {
    int min_samples;   /* default 10                          */
    int max_samples;   /* hard cap, default 100000            */
    double target_rel; /* CI half-width / median, default 0.005 */
    double max_time_s; /* per-point budget for sampling       */
} cb_stop_rule;

typedef enum cb_stop_verdict {
    CB_STOP_CONTINUE,
    CB_STOP_CONVERGED, /* CI target met: the point is ok          */
    CB_STOP_BUDGET,    /* out of time or samples: the point is noisy */
} cb_stop_verdict;

/* Decide after each sample. `elapsed_s` is the time spent sampling so far. */
cb_stop_verdict cb_stop_check(const cb_stop_rule *rule, const double *x, int n, double elapsed_s);

#endif
