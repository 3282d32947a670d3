/* compare_stats.c - Mann-Whitney null distribution, test, CI ranks, BH. */
#include "compare_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CB_SQRT2   1.41421356237309504880
#define CB_SQRT2PI 2.50662827463100050242

double cb_normal_sf(double z)
{
    return 0.5 * erfc(z / CB_SQRT2);
}

/* Acklam's rational approximation (relative error 1.15e-9), then one Halley
 * step against erfc, which brings it to double precision. */
double cb_normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                               -2.759285104469687e+02, 1.383577518672690e+02,
                               -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                               -1.556989798598866e+02, 6.680131188771972e+01,
                               -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                               -2.400758277161838e+00, -2.549732539343734e+00,
                               4.374664141464968e+00,  2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    const double p_low = 0.02425;
    if (!(p > 0.0 && p < 1.0)) return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
    double x;
    if (p < p_low || p > 1.0 - p_low) {
        double q = sqrt(-2.0 * log(p < p_low ? p : 1.0 - p));
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
        if (p > 1.0 - p_low) x = -x;
    } else {
        double q = p - 0.5, r = q * q;
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
    }
    double e = 0.5 * erfc(-x / CB_SQRT2) - p;
    double u = e * CB_SQRT2PI * exp(x * x / 2.0);
    return x - u / (1.0 + x * u / 2.0);
}

/* f_{i,j}(u) = P(U = u) for i "row" and j "column" observations satisfies
 *     f_{i,j}(u) = i/(i+j) f_{i-1,j}(u - j) + j/(i+j) f_{i,j-1}(u)
 * (the largest of the i + j values is a row value, beating all j columns, or
 * a column value, beating none). Only additions of positive terms, so no
 * cancellation. Rows run over the larger sample to keep each row short. */
double *cb_mwu_exact_cdf(int m, int n)
{
    if (m < 1 || n < 1 || (int64_t)m * n > CB_MWU_EXACT_MAX) return NULL;
    int a = m > n ? m : n, b = m > n ? n : m;
    /* Row i holds f_{i,j} for j = 0..b back to back; f_{i,j} has i*j+1 entries. */
    size_t row_len = (size_t)a * (size_t)b * (size_t)(b + 1) / 2 + (size_t)b + 1;
    size_t *start = malloc((size_t)(b + 1) * sizeof *start);
    double *prev = calloc(row_len, sizeof *prev);
    double *cur = calloc(row_len, sizeof *cur);
    size_t total = (size_t)m * (size_t)n + 1;
    double *cdf = malloc(total * sizeof *cdf);
    if (!start || !prev || !cur || !cdf) {
        free(start), free(prev), free(cur), free(cdf);
        return NULL;
    }
    for (int j = 0; j <= b; j++)
        prev[j] = 1.0; /* i = 0: U = 0 surely, length 1 each */
    for (int i = 1; i <= a; i++) {
        /* Offsets in row i, and in row i-1 (computed on the fly). */
        size_t off = 0;
        for (int j = 0; j <= b; j++) {
            start[j] = off;
            off += (size_t)i * (size_t)j + 1;
        }
        size_t poff = 0; /* start of f_{i-1,j} in prev */
        for (int j = 0; j <= b; j++) {
            double *f = cur + start[j];
            size_t len = (size_t)i * (size_t)j + 1;
            if (j == 0) {
                f[0] = 1.0;
            } else {
                const double *up = prev + poff;          /* f_{i-1,j}, (i-1) j + 1 entries */
                const double *left = cur + start[j - 1]; /* f_{i,j-1}, i (j-1) + 1 */
                double wu = (double)i / (i + j), wl = (double)j / (i + j);
                size_t up_len = (size_t)(i - 1) * (size_t)j + 1;
                size_t left_len = (size_t)i * (size_t)(j - 1) + 1;
                for (size_t u = 0; u < len; u++) {
                    double v = 0.0;
                    if (u >= (size_t)j && u - (size_t)j < up_len) v += wu * up[u - (size_t)j];
                    if (u < left_len) v += wl * left[u];
                    f[u] = v;
                }
            }
            poff += (size_t)(i - 1) * (size_t)j + 1;
        }
        double *t = prev;
        prev = cur;
        cur = t;
    }
    const double *f = prev + start[b]; /* f_{a,b} */
    double acc = 0.0;
    for (size_t u = 0; u < total; u++) {
        acc += f[u];
        cdf[u] = acc < 1.0 ? acc : 1.0;
    }
    free(start), free(prev), free(cur);
    return cdf;
}

void cb_mwu_test(const double *x, int m, const double *y, int n, const double *cdf, cb_mwu *out)
{
    /* U by two pointers: for each y[j], count x below and equal. */
    double u = 0.0;
    int lt = 0, le = 0;
    for (int j = 0; j < n; j++) {
        while (lt < m && x[lt] < y[j])
            lt++;
        if (le < lt) le = lt;
        while (le < m && x[le] <= y[j])
            le++;
        u += lt + 0.5 * (le - lt);
    }
    /* Tie groups of the pooled sample by a merge walk. */
    double tie_term = 0.0;
    int i = 0, j = 0;
    while (i < m || j < n) {
        double v = (j >= n || (i < m && x[i] <= y[j])) ? x[i] : y[j];
        double t = 0.0;
        while (i < m && x[i] == v)
            i++, t++;
        while (j < n && y[j] == v)
            j++, t++;
        tie_term += t * t * t - t;
    }
    double mn = (double)m * n;
    out->u = u;
    out->tie_term = tie_term;
    out->exact = cdf && tie_term == 0.0;
    if (out->exact) {
        double lower = u < mn - u ? u : mn - u; /* an integer without ties */
        double p = 2.0 * cdf[(size_t)lower];
        out->p = p < 1.0 ? p : 1.0;
        return;
    }
    double big_n = (double)m + n;
    double var = mn / 12.0 * ((big_n + 1.0) - tie_term / (big_n * (big_n - 1.0)));
    if (!(var > 0.0)) { /* every pooled value equal: no evidence either way */
        out->p = 1.0;
        return;
    }
    double z = (fabs(u - mn / 2.0) - 0.5) / sqrt(var);
    if (z < 0.0) z = 0.0;
    double p = 2.0 * cb_normal_sf(z);
    out->p = p < 1.0 ? p : 1.0;
}

int64_t cb_mwu_ci_rank(int m, int n, double alpha, const double *cdf, double tie_term)
{
    int64_t mn = (int64_t)m * n;
    if (cdf) {
        int64_t k = 0;
        while (k < mn && cdf[k] <= alpha / 2.0)
            k++; /* cdf[k] = P(U <= k) */
        /* now k = the number of u with P(U <= u) <= alpha/2, i.e. the
         * largest k with P(U <= k-1) <= alpha/2 */
        return k > mn / 2 ? mn / 2 : k;
    }
    double big_n = (double)m + n;
    double var = (double)mn / 12.0 * ((big_n + 1.0) - tie_term / (big_n * (big_n - 1.0)));
    if (!(var > 0.0)) return 0;
    double z = cb_normal_quantile(1.0 - alpha / 2.0);
    /* P(U <= k-1) ~ Phi((k - 1/2 - mn/2) / sd) <= alpha/2 */
    double k = floor((double)mn / 2.0 + 0.5 - z * sqrt(var));
    if (k < 1.0) return 0;
    return (int64_t)k;
}

typedef struct p_index {
    double p;
    int i;
} p_index;

static int cmp_p_index(const void *a, const void *b)
{
    const p_index *x = a, *y = b;
    if (x->p < y->p) return -1;
    if (x->p > y->p) return 1;
    return (x->i > y->i) - (x->i < y->i);
}

bool cb_bh_qvalues(const double *p, int n, double *q)
{
    p_index *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v) return false;
    int mcount = 0;
    for (int i = 0; i < n; i++) {
        q[i] = NAN;
        if (!isnan(p[i])) v[mcount++] = (p_index){p[i], i};
    }
    qsort(v, (size_t)mcount, sizeof *v, cmp_p_index);
    double running = 1.0;
    for (int r = mcount; r >= 1; r--) {
        double adj = v[r - 1].p * mcount / r;
        if (adj < running) running = adj;
        q[v[r - 1].i] = running;
    }
    free(v);
    return true;
}

double cb_cmp_quantile(const double *sorted, int n, double q)
{
    if (n < 1) return NAN;
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    if (lo >= n - 1) return sorted[n - 1];
    if (lo < 0) return sorted[0];
    return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

double cb_cmp_rel_iqr(const double *sorted, int n)
{
    double med = cb_cmp_quantile(sorted, n, 0.5);
    if (!(med > 0.0)) return NAN;
    return (cb_cmp_quantile(sorted, n, 0.75) - cb_cmp_quantile(sorted, n, 0.25)) / med;
}
