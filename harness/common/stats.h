/* stats.h - summary statistics of samples, the stopping rule, drift.
 *
 * The stopping rule, exactly: after a sample, with n samples so far (in the
 * order they were taken), stop as converged when all of
 *   1. n >= min_samples;
 *   2. the effective sample size n_eff >= min_samples, where
 *      n_eff = n (1 - rho) / (1 + rho) and rho is the lag-1 autocorrelation
 *      of the samples, bias-corrected (rho_hat + (1 + 3 rho_hat) / n, the
 *      first-order bias of the AR(1) estimate) and clipped to [0, 0.95];
 *   3. the 95% CI of the median, from n_eff (below), has
 *      (ci_hi - ci_lo) / 2 <= target_rel x median: its half-width, taken as
 *      half its total width, is within target_rel of the median (the
 *      interval need not be symmetric about the median).
 * Checked after every sample below 64, then after every 2^j-th (2^j the
 * largest power of two <= n / 64, at least 8). Else the point
 * is out of budget (`noisy`) once max_time_s has passed (with min_samples
 * taken) or max_samples are taken.
 *
 * Hopeless rounds stop early (futile_share > 0): at a check from
 * futile_share x max_time_s of sampling on, with at least 2 x min_samples
 * taken, a round whose half-width h would still exceed futile_factor x
 * target_rel at the end of its budget if it shrank as 1/sqrt(n) does from
 * here, h sqrt(elapsed / max_time_s) > futile_factor x target_rel, stops
 * as out of budget (CB_STOP_FUTILE: `noisy`, as it would have ended). The
 * default, half the budget and a factor of 3, was chosen by replaying the
 * stopping rule over the samples of 10 default runs of one H200 (27 s of
 * 225 s of sampling saved, 1 of 3475 rounds that converged later cut) and
 * checked on 10 runs recorded earlier on another (40 s of 331 s saved, none
 * of 2826 cut); rounds whose interval cannot yet be computed (n_eff too
 * small) are never cut.
 *
 * The CI is distribution-free: with m = floor(n_eff) and j the largest rank
 * with 1 - 2 P(Binomial(m, 1/2) < j) >= 0.95, it is the sample quantiles at
 * levels j / (m + 1) and (m - j + 1) / (m + 1) (type 6 interpolation), which
 * are the order statistics x_(j) and x_(n-j+1) when n_eff = n. Autocorrelated
 * samples carry less information than their count: 26% of the H200 points
 * with >= 50 samples had rho > 0, and their plain CIs were too narrow.
 */
#ifndef CB_STATS_H
#define CB_STATS_H

#include "cb_common.h"

typedef struct cb_summary {
    int n;
    double median, min, max, q1, q3, mean, stddev;
    double rho1;         /* lag-1 autocorrelation used for n_eff (>= 0)      */
    double n_eff;        /* effective sample size, <= n                      */
    double ci_lo, ci_hi; /* 95% CI of the median, from n_eff                 */
    double ci_rel_half;  /* (ci_hi - ci_lo) / (2 median); inf if n_eff small */
} cb_summary;

/* Summarise n samples (n >= 1), given in the order they were taken. `x` is
 * not modified. Out of memory leaves every figure NaN (ci_rel_half inf). */
void cb_stats_summarise(const double *x, int n, cb_summary *out);

/* Ranks (1-based, lo <= hi) of the order statistics bounding a CI of the
 * median with coverage >= `level` (e.g. 0.95). Returns false when n is too
 * small for any such interval (then the CI is [min, max]). */
bool cb_stats_median_ci_ranks(int n, double level, int *lo, int *hi);

/* Quantile by linear interpolation between order statistics of sorted x
 * (type 7, as results.csv's quartiles). */
double cb_stats_quantile_sorted(const double *sorted, int n, double q);

/* The lag-1 autocorrelation of x (in order) that the rule uses, as above:
 * bias-corrected and clipped to [0, 0.95]; 0 when n < 3 or x is constant.
 * *n_eff receives n (1 - rho) / (1 + rho). */
double cb_stats_autocorr(const double *x, int n, double *n_eff);

/* The 95% CI of the median of ascending `sorted` (n values) carrying the
 * information of n_eff independent ones. False when floor(n_eff) is too
 * small for a 95% interval (then [min, max]). */
bool cb_stats_median_ci(const double *sorted, int n, double n_eff, double *lo, double *hi);

/* Drift while sampling: the median of the last third of x (in order) against
 * the first third. *change = last / first - 1. True when each third has at
 * least 6 samples (n >= 18) and their 95% median CIs do not overlap: a
 * change the spread inside each third cannot explain. */
bool cb_stats_drift(const double *x, int n, double *change);

typedef struct cb_stop_rule {
    int min_samples;      /* default 10                            */
    int max_samples;      /* hard cap, default 100000              */
    double target_rel;    /* CI half-width / median, default 0.005 */
    double max_time_s;    /* per-point budget for sampling         */
    double futile_share;  /* hopeless rounds stop from this share of max_time_s on (0: never) */
    double futile_factor; /* hopeless: the projected half-width over target_rel exceeds this  */
} cb_stop_rule;

typedef enum cb_stop_verdict {
    CB_STOP_CONTINUE,
    CB_STOP_CONVERGED, /* CI target met: the point is ok          */
    CB_STOP_BUDGET,    /* out of time or samples: the point is noisy */
    CB_STOP_FUTILE,    /* the target is out of reach within the budget: noisy */
} cb_stop_verdict;

/* Decide after each sample. `x` holds the n samples in the order taken;
 * `elapsed_s` is the time spent sampling so far. */
cb_stop_verdict cb_stop_check(const cb_stop_rule *rule, const double *x, int n, double elapsed_s);

/* A round that the budget ended (cb_stop_check said CB_STOP_BUDGET), `s`
 * its summary (cb_stats_summarise): does its interval meet the target all
 * the same? Such samples were taken until
 * time ran out, not until they looked precise, so their interval carries
 * none of the optional-stopping bias that makes the rule ask for
 * min_samples effective samples before it stops early; the interval itself
 * still comes from n_eff. True when it exists and is within target_rel: a
 * long point whose 10 samples of 0.1-0.3 s drift together (n_eff 8 < 10)
 * with a CI of +-0.01-0.5% reached the precision the run asked for. */
bool cb_stop_met_at_budget(const cb_stop_rule *rule, const cb_summary *s);

/* Why a round of n samples summarised in `s` missed `rule`'s target, in
 * words for the row's reason (into out, len bytes): its interval against
 * the target and the budget (`futile`: stopped early after spent_s because
 * the target was out of reach), or, where the samples move together so
 * much that no 95% interval exists, that and how few independent samples
 * they count as (never "+-inf%"). */
void cb_stop_describe_miss(const cb_stop_rule *rule, const cb_summary *s, int n, bool futile,
                           double spent_s, char *out, size_t len);

#endif
