/* compare_stats.c - normal and Student t distributions, BH, quantiles. */
#include "compare_stats.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CB_SQRT2   1.41421356237309504880
#define CB_SQRT2PI 2.50662827463100050242
/* From this many degrees of freedom on the t CDF is the normal one with
 * the 1/df, 1/df^2 and 1/df^3 terms of its expansion (error of order
 * 1/df^4, below 1e-18 here): the incomplete-beta route loses digits there,
 * its lgamma prefactor cancelling between huge arguments (2e-10 at 1e6 df,
 * worse beyond). */
#define CB_T_DF_EXPANSION 1e5

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

/* The modified Lentz method keeps c and d off zero by this much. */
#define LENTZ_TINY 1e-300

/* One step of the modified Lentz method: the fraction's next partial
 * numerator `num` updates c and d; returns the factor the value takes. */
static double lentz_step(double num, double *c, double *d)
{
    *d = 1.0 + num * *d;
    *c = 1.0 + num / *c;
    if (fabs(*d) < LENTZ_TINY) *d = LENTZ_TINY;
    if (fabs(*c) < LENTZ_TINY) *c = LENTZ_TINY;
    *d = 1.0 / *d;
    return *d * *c;
}

/* The continued fraction of the regularized incomplete beta function
 * I_x(a, b), evaluated by the modified Lentz method; converges quickly for
 * x < (a + 1) / (a + b + 2), which the caller arranges. */
static double beta_fraction(double a, double b, double x)
{
    const double eps = 1e-15;
    double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
    if (fabs(d) < LENTZ_TINY) d = LENTZ_TINY;
    d = 1.0 / d;
    double f = d;
    for (int m = 1; m <= 10000; m++) {
        /* even step */
        f *= lentz_step(m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m)), &c, &d);
        /* odd step */
        double step =
            lentz_step(-(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0)), &c, &d);
        f *= step;
        if (fabs(step - 1.0) < eps) break;
    }
    return f;
}

/* log(Gamma(a + 1/2) / Gamma(a)): by lgamma for small a, by its
 * asymptotic series for large a, where the two lgammas would cancel to a
 * difference far smaller than either (1e5 against 6 at df 1e6). */
static double log_gamma_ratio_half(double a)
{
    if (a < 30.0) return lgamma(a + 0.5) - lgamma(a);
    double r = 1.0 / a, r2 = r * r;
    return 0.5 * log(a) +
           r * (-1.0 / 8.0 + r2 * (1.0 / 192.0 + r2 * (-1.0 / 640.0 + r2 * 17.0 / 14336.0)));
}

/* P(|T| > |t|) = I_x(df / 2, 1 / 2) with x = df / (df + t^2) and y = 1 - x
 * = t^2 / (df + t^2), each computed directly (1 - x would lose y's digits
 * when t^2 << df). */
static double t_two_tails(double t, double df)
{
    double a = 0.5 * df, b = 0.5, t2 = t * t;
    double x = df / (df + t2), y = t2 / (df + t2);
    if (y <= 0.0) return 1.0;
    /* log(x^a y^b / B(a, b)) with B(a, 1/2) = Gamma(a) Gamma(1/2) / Gamma(a + 1/2) */
    double log_front = log_gamma_ratio_half(a) - 0.5 * log(M_PI) - a * log1p(t2 / df) + b * log(y);
    if (x < (a + 1.0) / (a + b + 2.0)) return exp(log_front) * beta_fraction(a, b, x) / a;
    return 1.0 - exp(log_front) * beta_fraction(b, a, y) / b;
}

/* P(T <= t) for df >= CB_T_DF_EXPANSION: Phi(t) - phi(t) (Q1 / df + Q2 /
 * df^2 + Q3 / df^3), the Q_k odd polynomials that integrate the expansion
 * of the t density about the normal one, f(t) / phi(t) = 1 + (t^4 - 2t^2 -
 * 1) / (4 df) + (3t^8 - 28t^6 + 30t^4 + 12t^2 + 3) / (96 df^2) + (t^12 -
 * 22t^10 + 113t^8 - 92t^6 - 33t^4 - 6t^2 + 15) / (384 df^3) + ... (each Q_k
 * solves t Q - Q' = that term; checked against mpmath in the tests). The
 * tail is summed from its own side so that small probabilities keep their
 * digits. */
static double t_cdf_large_df(double t, double df)
{
    if (isinf(df)) return 1.0 - cb_normal_sf(t);
    double a = fabs(t), a2 = a * a;
    double q1 = (a2 + 1.0) * a / 4.0;
    double q2 = (((3.0 * a2 - 7.0) * a2 - 5.0) * a2 - 3.0) * a / 96.0;
    double q3 = (((((a2 - 11.0) * a2 + 14.0) * a2 + 6.0) * a2 - 3.0) * a2 - 15.0) * a / 384.0;
    double pdf = exp(-0.5 * a2) / CB_SQRT2PI;
    double tail = cb_normal_sf(a) + pdf * ((q1 + (q2 + q3 / df) / df) / df);
    return t >= 0 ? 1.0 - tail : tail;
}

double cb_t_cdf(double t, double df)
{
    if (isnan(t) || !(df > 0.0)) return NAN;
    if (df >= CB_T_DF_EXPANSION) return t_cdf_large_df(t, df);
    if (isinf(t)) return t > 0 ? 1.0 : 0.0;
    double tail = 0.5 * t_two_tails(t, df);
    return t > 0 ? 1.0 - tail : tail;
}

static double t_pdf(double t, double df)
{
    double log_c = log_gamma_ratio_half(0.5 * df) - 0.5 * log(df * M_PI);
    return exp(log_c - 0.5 * (df + 1.0) * log1p(t * t / df));
}

/* The Cornish-Fisher expansion of the t quantile around the normal one
 * (Abramowitz & Stegun 26.7.5): within 1e-6 of the root from about 5 df
 * on, so one or two Newton steps finish it. */
static double t_quantile_start(double z, double df)
{
    double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
    double g1 = (z3 + z) / 4.0;
    double g2 = (5.0 * z5 + 16.0 * z3 + 3.0 * z) / 96.0;
    double g3 = (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / 384.0;
    double g4 = (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / 92160.0;
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df;
}

/* The upper quantile (1/2 < p < 1): Newton steps from the expansion, kept
 * inside a bracket [lo, hi] of the root that every evaluation narrows; a
 * step that would leave it bisects instead (the expansion is poor below a
 * few df). */
static double t_upper_quantile(double p, double df)
{
    double t = t_quantile_start(cb_normal_quantile(p), df);
    double lo = 0.0, hi = INFINITY;
    for (int it = 0; it < 400; it++) {
        double f = cb_t_cdf(t, df) - p;
        if (f == 0.0) return t;
        if (f < 0)
            lo = t;
        else
            hi = t;
        double next = t - f / t_pdf(t, df);
        if (!(next > lo && next < hi))
            next = isinf(hi) ? 2.0 * (t > 1.0 ? t : 1.0) : 0.5 * (lo + hi);
        if (fabs(next - t) <= 1e-13 * fabs(next)) return next;
        t = next;
    }
    return t;
}

double cb_t_quantile(double p, double df)
{
    if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
        return p == 0.0 ? -INFINITY : p == 1.0 ? INFINITY : NAN;
    if (isinf(df)) return cb_normal_quantile(p);
    if (p < 0.5) return -cb_t_quantile(1.0 - p, df);
    return p == 0.5 ? 0.0 : t_upper_quantile(p, df);
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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void cb_cmp_sort(double *x, int n)
{
    if (n > 1) qsort(x, (size_t)n, sizeof *x, cmp_double);
}

double cb_cmp_rel_iqr(const double *sorted, int n)
{
    double med = cb_stats_quantile_sorted(sorted, n, 0.5);
    if (!(med > 0.0)) return NAN;
    return (cb_stats_quantile_sorted(sorted, n, 0.75) - cb_stats_quantile_sorted(sorted, n, 0.25)) /
           med;
}
