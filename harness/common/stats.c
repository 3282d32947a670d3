/* stats.c - sample summaries, the median's confidence interval, stopping rule. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void cb_stats_summarise(const double *x, int n, cb_summary *out)
{
    memset(out, 0, sizeof *out);
    out->n = n;
    if (n <= 0) {
        out->median = out->min = out->max = out->q1 = out->q3 = out->mean = NAN;
        out->stddev = out->ci_lo = out->ci_hi = NAN;
        out->ci_rel_half = INFINITY;
        return;
    }
    double *s = malloc(sizeof(double) * (size_t)n);
    if (!s) abort();
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
    int lo, hi;
    bool have_ci = cb_stats_median_ci_ranks(n, 0.95, &lo, &hi);
    out->ci_lo = s[lo - 1];
    out->ci_hi = s[hi - 1];
    out->ci_rel_half =
        (have_ci && out->median > 0) ? (out->ci_hi - out->ci_lo) / (2.0 * out->median) : INFINITY;
    free(s);
}

cb_stop_verdict cb_stop_check(const cb_stop_rule *rule, const double *x, int n, double elapsed_s)
{
    if (n >= rule->min_samples) {
        /* Sorting every sample is O(n log n) per check; cheap next to a GPU
         * sample, and checking only every few samples once n is large keeps
         * long runs linear-ish. */
        if (n < 64 || n % 8 == 0) {
            cb_summary s;
            cb_stats_summarise(x, n, &s);
            if (s.ci_rel_half <= rule->target_rel) return CB_STOP_CONVERGED;
        }
    }
    if (n >= rule->max_samples) return CB_STOP_BUDGET;
    if (elapsed_s >= rule->max_time_s && n >= rule->min_samples) return CB_STOP_BUDGET;
    /* Even a budget of zero gets its minimum samples, unless a single sample
     * is so slow that the minimum would take 10x the budget. */
    if (elapsed_s >= 10.0 * rule->max_time_s && n >= 3) return CB_STOP_BUDGET;
    return CB_STOP_CONTINUE;
}
