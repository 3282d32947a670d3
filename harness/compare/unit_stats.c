/* unit_stats.c - one unit's value and variance (unit_stats.h). */
#include "unit_stats.h"
#include "stats.h"

#include "compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The shortest run of samples on each side of a mode switch. */
#define MIN_SEGMENT 3
/* Fewer samples cannot show a switch against the noise. */
#define MIN_SWITCH_N 10
/* The robust standard deviation of a normal sample: 1.4826 x its MAD. */
#define MAD_TO_SD 1.4826

static double median_of(const double *x, int n, double *buf)
{
    memcpy(buf, x, (size_t)n * sizeof *buf);
    cb_cmp_sort(buf, n);
    return cb_stats_quantile_sorted(buf, n, 0.5);
}

double cb_ar1_factor(double rho, int n)
{
    double f = 1.0, rk = 1.0;
    for (int k = 1; k < n && rk > 1e-12; k++) {
        rk *= rho;
        f += 2.0 * (1.0 - (double)k / n) * rk;
    }
    return f;
}

/* The spread of a split: |m2 - m1| over the robust sd of the samples
 * about their segment's median. */
static double split_score(const double *x, int n, int k, double tick, double *buf, double *gap)
{
    double m1 = median_of(x, k, buf), m2 = median_of(x + k, n - k, buf);
    for (int i = 0; i < n; i++)
        buf[i] = fabs(x[i] - (i < k ? m1 : m2));
    cb_cmp_sort(buf, n);
    double sd = MAD_TO_SD * cb_stats_quantile_sorted(buf, n, 0.5);
    if (sd < tick) sd = tick; /* tied samples: the grid is the resolution */
    *gap = m2 - m1;
    return sd > 0.0 ? fabs(*gap) / sd : (*gap != 0.0 ? INFINITY : 0.0);
}

static double head_mean(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s / n;
}

/* Where the unit switches modes (0: nowhere) and by how much: the split a
 * mean shift fits best (the largest |mean before - mean after| scaled by
 * sqrt(k (n - k) / n), linear), kept when its robust score holds. */
static int find_switch(const double *x, int n, double tick, cb_unit_scratch *s, double *gap)
{
    if (n < MIN_SWITCH_N) return 0;
    int lo = n / 5 > MIN_SEGMENT ? n / 5 : MIN_SEGMENT, best_k = 0;
    double total = 0.0, head = 0.0, best = 0.0;
    for (int i = 0; i < n; i++)
        total += x[i];
    for (int k = 1; k <= n - lo; k++) {
        head += x[k - 1];
        if (k < lo) continue;
        double shift = fabs(head / k - (total - head) / (n - k)) * sqrt((double)k * (n - k) / n);
        if (shift > best) best = shift, best_k = k;
    }
    if (!best_k) return 0;
    /* A cheap screen before the robust score (three sorts): the level step
     * against the noise of successive differences, which a step raises by
     * one difference only. Below half the threshold it cannot pass. */
    double ssd = 0.0;
    for (int i = 1; i < n; i++)
        ssd += (x[i] - x[i - 1]) * (x[i] - x[i - 1]);
    double sd = sqrt(ssd / (2.0 * (n - 1)));
    if (sd < tick) sd = tick;
    double step = fabs(head_mean(x, best_k) - head_mean(x + best_k, n - best_k));
    if (step < 0.5 * CB_BIMODAL_SDS * sd) return 0;
    return split_score(x, n, best_k, tick, s->b, gap) >= CB_BIMODAL_SDS ? best_k : 0;
}

/* The sampling variance of the log median of x[0..n) (n >= 2), with df;
 * buf holds x sorted afterwards. */
static void spacing_variance(const double *x, int n, double rho, double *buf, double *var,
                             double *df)
{
    double f = cb_ar1_factor(rho, n);
    if (f > n - 1.0) f = n - 1.0;
    double n_eff = n * (n - f) / ((n - 1.0) * f);
    if (n_eff < 1.0) n_eff = 1.0;
    memcpy(buf, x, (size_t)n * sizeof *buf);
    cb_cmp_sort(buf, n);
    double h = 0.5 / sqrt(n_eff);
    double spread =
        cb_stats_quantile_sorted(buf, n, 0.5 + h) - cb_stats_quantile_sorted(buf, n, 0.5 - h);
    *var = 0.25 * spread * spread * (n - 1.0) / (n - f);
    double d = sqrt(n_eff);
    *df = d > n_eff - 1.0 ? n_eff - 1.0 : d;
    if (*df < 1.0) *df = 1.0;
}

void cb_unit_lag1(const double *logs, int n, double tick_rel, cb_unit_scratch *s, double *num,
                  double *den)
{
    if (n < 3) return;
    double gap = 0.0;
    int k = find_switch(logs, n, tick_rel, s, &gap);
    int start[2] = {0, k ? k : n}, end[2] = {k ? k : n, n};
    for (int seg = 0; seg < (k ? 2 : 1); seg++) { /* about each level's own mean */
        double mean = head_mean(logs + start[seg], end[seg] - start[seg]);
        for (int i = start[seg]; i < end[seg]; i++) {
            double d = logs[i] - mean;
            *den += d * d;
            if (i + 1 < end[seg]) *num += d * (logs[i + 1] - mean);
        }
    }
}

cb_unit cb_unit_of(const double *logs, int n, double rho, double tick_rel, cb_unit_scratch *s)
{
    cb_unit u = {logs[0], NAN, NAN, false, NAN, false};
    if (n < 2) return u;
    double gap = 0.0;
    int k = find_switch(logs, n, tick_rel, s, &gap);
    if (k) { /* the within-level spread, about each level */
        u.value = median_of(logs, n, s->b);
        double m1 = median_of(logs, k, s->b), m2 = median_of(logs + k, n - k, s->b);
        for (int i = 0; i < n; i++)
            s->a[i] = logs[i] - (i < k ? m1 : m2);
        spacing_variance(s->a, n, rho, s->b, &u.var, &u.df);
        double mode = 0.25 * gap * gap; /* measured from both levels: taken as exact */
        u.df = u.var > 0.0 ? (u.var + mode) * (u.var + mode) / (u.var * u.var / u.df) : INFINITY;
        if (u.df < 2.0) u.df = 2.0;
        u.var += mode;
        u.bimodal = true;
        u.gap = fabs(gap);
    } else {
        spacing_variance(logs, n, rho, s->b, &u.var, &u.df);
        u.value = cb_stats_quantile_sorted(s->b, n, 0.5); /* s->b is sorted */
    }
    double grid = tick_rel * tick_rel / 12.0;
    if (u.var < grid) {
        u.var = grid;
        u.tick = true;
    }
    return u;
}
