/* fleet_shift.c - a run's samples against the other runs' medians (the
 * statistic is explained in fleet_shift.h). */
#include "fleet_shift.h"

#include "compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool oom(cb_msg *err)
{
    cb_msg_set(err, "fleet: out of memory");
    return false;
}

bool cb_fleet_base_init(cb_fleet_base *b, const double *medians, int count, int max_base,
                        cb_msg *err)
{
    memset(b, 0, sizeof *b);
    if (count < 2 || max_base < 1) {
        cb_msg_set(err, "fleet: a comparison needs two runs and a base of one (got %d, %d)", count,
                   max_base);
        return false;
    }
    b->count = count;
    b->m = count - 1 < max_base ? count - 1 : max_base;
    b->log_medians = malloc((size_t)count * sizeof *b->log_medians);
    b->x = malloc((size_t)b->m * sizeof *b->x);
    if (!b->log_medians || !b->x) {
        cb_fleet_base_free(b);
        return oom(err);
    }
    for (int i = 0; i < count; i++)
        b->log_medians[i] = log(medians[i]);
    qsort(b->log_medians, (size_t)count, sizeof *b->log_medians, cmp_double);
    return true;
}

void cb_fleet_base_free(cb_fleet_base *b)
{
    for (int i = 0; i < b->cdf_len; i++)
        free(b->cdf[i]);
    free(b->cdf);
    free(b->log_medians);
    free(b->x);
    free(b->y);
    free(b->d);
    memset(b, 0, sizeof *b);
}

/* BASE for the run at position `pos` of the sorted medians: the others, or
 * m of them at ranks (j + 1/2) (count - 1) / m. Ascending either way. */
static void fill_base(cb_fleet_base *b, int pos)
{
    int others = b->count - 1;
    for (int j = 0; j < b->m; j++) {
        int k = others == b->m ? j : (int)(((double)j + 0.5) * others / b->m);
        b->x[j] = b->log_medians[k < pos ? k : k + 1];
    }
}

/* The exact null cdf for (m, n), computed on first use. NULL when out of
 * memory (the caller then falls back to the normal approximation). */
static const double *exact_cdf(cb_fleet_base *b, int n)
{
    if (!b->cdf) {
        b->cdf_len = CB_MWU_EXACT_MAX / b->m + 1;
        b->cdf = calloc((size_t)b->cdf_len, sizeof *b->cdf);
        if (!b->cdf) {
            b->cdf_len = 0;
            return NULL;
        }
    }
    if (!b->cdf[n]) b->cdf[n] = cb_mwu_exact_cdf(b->m, n);
    return b->cdf[n];
}

/* The order statistics ranks[0..count) of the m n differences y - x: by one
 * sort of all of them when they are few (the usual fleet: a few hundred
 * runs, a few samples each), else by compare's selection per rank. */
static bool order_stats(cb_fleet_base *b, int n, const int64_t *ranks, int count, double *vals,
                        cb_msg *err)
{
    int m = b->m;
    int64_t mn = (int64_t)m * n;
    if (mn <= CB_HL_SORT_MAX) {
        if (mn > b->d_cap) {
            double *d = realloc(b->d, (size_t)mn * sizeof *d);
            if (!d) return oom(err);
            b->d = d;
            b->d_cap = mn;
        }
        int64_t c = 0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                b->d[c++] = b->y[j] - b->x[i];
        qsort(b->d, (size_t)mn, sizeof *b->d, cmp_double);
        for (int r = 0; r < count; r++)
            vals[r] = b->d[ranks[r] - 1];
        return true;
    }
    int64_t gather = 4 * ((int64_t)m + n);
    if (gather < 4096) gather = 4096;
    for (int r = 0; r < count; r++) {
        if (r > 0 && ranks[r] == ranks[r - 1])
            vals[r] = vals[r - 1];
        else if (!cb_hl_kth_diff(b->x, m, b->y, n, ranks[r], gather, &vals[r], err))
            return false;
    }
    return true;
}

bool cb_fleet_base_compare(cb_fleet_base *b, double own_median, const double *times, int n,
                           double alpha, cb_shift *out, cb_msg *err)
{
    if (n > b->y_cap) {
        double *y = realloc(b->y, (size_t)n * sizeof *y);
        if (!y) return oom(err);
        b->y = y;
        b->y_cap = n;
    }
    for (int i = 0; i < n; i++)
        b->y[i] = log(times[i]);
    qsort(b->y, (size_t)n, sizeof *b->y, cmp_double);

    /* The run's own median among the sorted ones: the first equal value. */
    double own = log(own_median);
    int lo = 0, hi = b->count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (b->log_medians[mid] < own)
            lo = mid + 1;
        else
            hi = mid;
    }
    fill_base(b, lo < b->count ? lo : b->count - 1);

    int m = b->m;
    int64_t mn = (int64_t)m * n;
    cb_mwu t;
    cb_mwu_test(b->x, m, b->y, n, NULL, &t);
    const double *cdf = NULL;
    if (mn <= CB_MWU_EXACT_MAX && t.tie_term == 0.0) {
        cdf = exact_cdf(b, n);
        if (cdf) cb_mwu_test(b->x, m, b->y, n, cdf, &t);
    }
    out->u = t.u;
    out->p = t.p;
    out->exact = t.exact;
    out->ci_rank = cb_mwu_ci_rank(m, n, alpha, cdf, t.tie_term);

    int64_t ranks[4] = {(mn + 1) / 2, mn / 2 + 1, out->ci_rank, mn + 1 - out->ci_rank};
    int count = out->ci_rank >= 1 ? 4 : 2;
    double vals[4];
    if (!order_stats(b, n, ranks, count, vals, err)) return false;
    out->ratio = exp(0.5 * (vals[0] + vals[1]));
    out->ci_lo = out->ci_rank >= 1 ? exp(vals[2]) : 0.0;
    out->ci_hi = out->ci_rank >= 1 ? exp(vals[3]) : INFINITY;
    return true;
}
