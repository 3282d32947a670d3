/* stats.c - sample summaries, the median's confidence interval (aware of
 * autocorrelation), drift, and the stopping rule (stats.h states it). */
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The CI level of the stopping rule and of results.csv's ci_lo/ci_hi. */
#define CB_CI_LEVEL 0.95
/* rho is clipped here: beyond it n_eff would hang on a noisy estimate. */
#define CB_RHO_MAX 0.95
/* A drift test needs a 95% median CI in each third: 6 samples at least. */
#define CB_DRIFT_MIN_THIRD 6

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cb_stats_quantile_sorted(const double *sorted, int n, double q)
{
    if (n <= 0) return NAN;
    if (n == 1) return sorted[0];
    double pos = q * (n - 1);
    int i = (int)floor(pos);
    if (i >= n - 1) return sorted[n - 1];
    double frac = pos - i;
    return sorted[i] + frac * (sorted[i + 1] - sorted[i]);
}

/* Type 6: the value at position p (n + 1) among the order statistics, so
 * that level j / (n + 1) is exactly x_(j). */
static double quantile_type6(const double *sorted, int n, double p)
{
    double pos = p * (n + 1);
    if (pos <= 1.0) return sorted[0];
    if (pos >= n) return sorted[n - 1];
    int i = (int)floor(pos);
    return sorted[i - 1] + (pos - i) * (sorted[i] - sorted[i - 1]);
}

/* log of the Binomial(n, 1/2) probability mass at k. */
static double log_binom_half(int n, int k)
{
    return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) - n * log(2.0);
}

bool cb_stats_median_ci_ranks(int n, double level, int *lo, int *hi)
{
    /* The interval [x_(j), x_(n-j+1)] covers the median with probability
     * 1 - 2 P(B < j), B ~ Binomial(n, 1/2). Take the largest j that keeps the
     * coverage >= level. */
    double tail_max = (1.0 - level) / 2.0;
    double cdf = 0.0; /* P(B <= j - 1) */
    int best = 0;
    for (int j = 1; j <= n / 2; j++) {
        cdf += exp(log_binom_half(n, j - 1));
        if (cdf > tail_max) break;
        best = j;
    }
    if (best == 0) {
        *lo = 1;
        *hi = n;
        return false;
    }
    *lo = best;
    *hi = n - best + 1;
    return true;
}

double cb_stats_autocorr(const double *x, int n, double *n_eff)
{
    *n_eff = n;
    if (n < 3) return 0.0;
    double mean = 0.0;
    for (int i = 0; i < n; i++)
        mean += x[i];
    mean /= n;
    double num = 0.0, den = 0.0;
    for (int i = 0; i < n; i++) {
        double d = x[i] - mean;
        den += d * d;
        if (i + 1 < n) num += d * (x[i + 1] - mean);
    }
    if (!(den > 0.0)) return 0.0;
    double rho = num / den;
    rho += (1.0 + 3.0 * rho) / n; /* the estimate is biased low by about this */
    if (!(rho > 0.0)) return 0.0;
    if (rho > CB_RHO_MAX) rho = CB_RHO_MAX;
    *n_eff = n * (1.0 - rho) / (1.0 + rho);
    return rho;
}

bool cb_stats_median_ci(const double *sorted, int n, double n_eff, double *lo, double *hi)
{
    int m = n_eff < n ? (int)floor(n_eff) : n;
    int j, k;
    if (n < 1 || !cb_stats_median_ci_ranks(m, CB_CI_LEVEL, &j, &k)) {
        *lo = n > 0 ? sorted[0] : NAN;
        *hi = n > 0 ? sorted[n - 1] : NAN;
        return false;
    }
    *lo = quantile_type6(sorted, n, (double)j / (m + 1));
    *hi = quantile_type6(sorted, n, (double)k / (m + 1));
    return true;
}

void cb_stats_summarise(const double *x, int n, cb_summary *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    double *s = n > 0 ? malloc(sizeof(double) * (size_t)n) : NULL;
    if (!s) {
        out->median = out->min = out->max = out->q1 = out->q3 = out->mean = NAN;
        out->stddev = out->ci_lo = out->ci_hi = out->rho1 = out->n_eff = NAN;
        out->ci_rel_half = INFINITY;
        return;
    }
    memcpy(s, x, sizeof(double) * (size_t)n);
    qsort(s, (size_t)n, sizeof(double), cmp_double);
    out->min = s[0];
    out->max = s[n - 1];
    out->median = cb_stats_quantile_sorted(s, n, 0.5);
    out->q1 = cb_stats_quantile_sorted(s, n, 0.25);
    out->q3 = cb_stats_quantile_sorted(s, n, 0.75);
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += s[i];
    out->mean = sum / n;
    double ss = 0;
    for (int i = 0; i < n; i++)
        ss += (s[i] - out->mean) * (s[i] - out->mean);
    out->stddev = n > 1 ? sqrt(ss / (n - 1)) : 0.0;
    out->rho1 = cb_stats_autocorr(x, n, &out->n_eff);
    bool have_ci = cb_stats_median_ci(s, n, out->n_eff, &out->ci_lo, &out->ci_hi);
    out->ci_rel_half =
        (have_ci && out->median > 0) ? (out->ci_hi - out->ci_lo) / (2.0 * out->median) : INFINITY;
    free(s);
}

/* Median and plain 95% CI of x[0..n) (a sorted copy in `buf`). */
static bool third_median_ci(const double *x, int n, double *buf, double *med, double *lo,
                            double *hi)
{
    memcpy(buf, x, sizeof(double) * (size_t)n);
    qsort(buf, (size_t)n, sizeof(double), cmp_double);
    *med = cb_stats_quantile_sorted(buf, n, 0.5);
    return cb_stats_median_ci(buf, n, n, lo, hi);
}

bool cb_stats_drift(const double *x, int n, double *change)
{
    *change = NAN;
    int k = n / 3;
    if (k < CB_DRIFT_MIN_THIRD) return false;
    double *buf = malloc(sizeof(double) * (size_t)k);
    if (!buf) return false;
    double m0, lo0, hi0, m1, lo1, hi1;
    bool ok = third_median_ci(x, k, buf, &m0, &lo0, &hi0) &&
              third_median_ci(x + n - k, k, buf, &m1, &lo1, &hi1);
    free(buf);
    if (!ok || !(m0 > 0.0)) return false;
    *change = m1 / m0 - 1.0;
    return lo1 > hi0 || hi1 < lo0;
}

/* The early stop of a round that cannot reach its target (stats.h). A
 * half-width that is not finite (n_eff too small for an interval) is no
 * evidence either way: such rounds run on. */
static bool hopeless(const cb_stop_rule *rule, const cb_summary *s, double elapsed_s)
{
    if (!(rule->futile_share > 0.0) || !(rule->max_time_s > 0.0)) return false;
    if (elapsed_s < rule->futile_share * rule->max_time_s || s->n < 2 * rule->min_samples)
        return false;
    if (!isfinite(s->ci_rel_half)) return false;
    const double share = elapsed_s < rule->max_time_s ? elapsed_s / rule->max_time_s : 1.0;
    return s->ci_rel_half * sqrt(share) > rule->futile_factor * rule->target_rel;
}

cb_stop_verdict cb_stop_check(const cb_stop_rule *rule, const double *x, int n, double elapsed_s)
{
    if (n >= rule->min_samples) {
        /* A check sorts every sample: O(n log n). Checked every 8th sample,
         * a point of 8000 short samples spent ~67 us of host time per sample
         * on checks (more than the GPU's sample; 7.6 us now). Checked
         * every 2^j-th sample, 2^j the largest power of two <= n / 64 and
         * at least 8 (64 checks per doubling of n), the total stays near
         * O(n log n) and the rule stops at most 1/64 later than checking
         * every sample would. */
        int every = 8;
        while (every * 64 <= n)
            every *= 2;
        if (n < 64 || n % every == 0) {
            cb_summary s;
            cb_stats_summarise(x, n, &s);
            if (s.n_eff >= rule->min_samples && s.ci_rel_half <= rule->target_rel)
                return CB_STOP_CONVERGED;
            if (hopeless(rule, &s, elapsed_s)) return CB_STOP_FUTILE;
        }
    }
    if (n >= rule->max_samples) return CB_STOP_BUDGET;
    if (elapsed_s >= rule->max_time_s && n >= rule->min_samples) return CB_STOP_BUDGET;
    /* Even a budget of zero gets its minimum samples, unless a single sample
     * is so slow that the minimum would take 10x the budget. */
    if (elapsed_s >= 10.0 * rule->max_time_s && n >= 3) return CB_STOP_BUDGET;
    return CB_STOP_CONTINUE;
}

bool cb_stop_met_at_budget(const cb_stop_rule *rule, const cb_summary *s)
{
    return isfinite(s->ci_rel_half) && s->ci_rel_half <= rule->target_rel;
}

void cb_stop_describe_miss(const cb_stop_rule *rule, const cb_summary *s, int n, bool futile,
                           double spent_s, char *out, size_t len)
{
    if (!isfinite(s->ci_rel_half))
        snprintf(out, len,
                 "no 95%% CI of the median after %d samples: they move together (lag-1 "
                 "autocorrelation %.2f) and count as %.1f independent ones (target +-%.2f%%, "
                 "budget %.3g s)",
                 n, s->rho1, s->n_eff, 100 * rule->target_rel, rule->max_time_s);
    else if (futile)
        snprintf(out, len,
                 "CI of the median +-%.2f%% after %d samples (target +-%.2f%%): out of reach "
                 "within the budget of %.3g s, stopped after %.2f s",
                 100 * s->ci_rel_half, n, 100 * rule->target_rel, rule->max_time_s, spent_s);
    else
        snprintf(out, len,
                 "CI of the median +-%.2f%% after %d samples (target +-%.2f%%, budget %.3g s)",
                 100 * s->ci_rel_half, n, 100 * rule->target_rel, rule->max_time_s);
}
