/* fit.c - latency/bandwidth fits per curve (fits.csv), computed from a
 * run's result rows.
 *
 * Everything here reads the rows' identity text (`axes`), not their
 * cb_point, so the same code serves rows read back from a results.csv. */
#include "fit.h"

#include "csv_writer.h"
#include "row_groups.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the fit ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A point the fit can use: x and t finite and positive. */
static bool fit_usable(double x, double t)
{
    return isfinite(x) && x > 0 && isfinite(t) && t > 0;
}

/* How many distinct sizes the usable points have (*used: how many usable
 * points); -1 when out of memory. */
static int distinct_sizes(const double *x, const double *t, int n, int *used)
{
    *used = 0;
    double *xs = malloc(sizeof(double) * (size_t)n);
    if (!xs) return -1;
    for (int i = 0; i < n; i++)
        if (fit_usable(x[i], t[i])) xs[(*used)++] = x[i];
    qsort(xs, (size_t)*used, sizeof *xs, cmp_double);
    int distinct = *used > 0;
    for (int i = 1; i < *used; i++)
        distinct += xs[i] != xs[i - 1];
    free(xs);
    return distinct;
}

/* The weighted means of x and t over the usable points (weights 1 / t^2). */
static void weighted_means(const double *x, const double *t, int n, double *xm, double *tm)
{
    double sw = 0, swx = 0, swt = 0;
    for (int i = 0; i < n; i++) {
        if (!fit_usable(x[i], t[i])) continue;
        double w = 1.0 / (t[i] * t[i]);
        sw += w, swx += w * x[i], swt += w * t[i];
    }
    *xm = swx / sw;
    *tm = swt / sw;
}

/* The weighted slope of t over x, centred on the means: x spans six
 * orders of magnitude, and the raw normal equations would cancel most of
 * their digits. Seconds per byte. */
static double weighted_slope(const double *x, const double *t, int n, double xm, double tm)
{
    double sxx = 0, sxt = 0;
    for (int i = 0; i < n; i++) {
        if (!fit_usable(x[i], t[i])) continue;
        double w = 1.0 / (t[i] * t[i]);
        sxx += w * (x[i] - xm) * (x[i] - xm);
        sxt += w * (x[i] - xm) * (t[i] - tm);
    }
    return sxt / sxx;
}

/* r2 and the worst relative error of t = alpha + slope x. */
static void fit_quality(const double *x, const double *t, int n, double alpha, double slope,
                        double tm, cb_fit *out)
{
    double ss_res = 0, ss_tot = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        if (!fit_usable(x[i], t[i])) continue;
        double w = 1.0 / (t[i] * t[i]), r = t[i] - (alpha + slope * x[i]);
        ss_res += w * r * r;
        ss_tot += w * (t[i] - tm) * (t[i] - tm);
        if (fabs(r) / t[i] > worst) worst = fabs(r) / t[i];
    }
    out->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : NAN;
    out->max_rel_err = worst;
}

bool cb_fit_latency_bandwidth(const double *x, const double *t, int n, cb_fit *out)
{
    out->points = 0;
    out->alpha_s = out->beta_bps = out->r2 = out->max_rel_err = NAN;
    if (n < 3) return false;
    int used;
    int distinct = distinct_sizes(x, t, n, &used);
    if (used < 3 || distinct < 3) return false;

    double xm, tm;
    weighted_means(x, t, n, &xm, &tm);
    double slope = weighted_slope(x, t, n, xm, tm);
    double alpha = tm - slope * xm;
    fit_quality(x, t, n, alpha, slope, tm, out);
    out->points = used;
    out->alpha_s = alpha;
    out->beta_bps = slope > 0 ? 1.0 / slope : NAN;
    return true;
}

/* ---- fits.csv ---- */

typedef struct fit_out {
    int order; /* leads, for cb_cmp_leading_order */
    const char *bench;
    const char *curve;
    double x_min, x_max;
    cb_fit fit;
} fit_out;

static void write_fit_row(cb_csv_row *row, const void *item)
{
    const fit_out *o = item;
    cb_csv_str(row, o->bench);
    cb_csv_str(row, o->curve);
    cb_csv_int(row, o->fit.points);
    cb_csv_num(row, o->x_min);
    cb_csv_num(row, o->x_max);
    cb_csv_num(row, o->fit.alpha_s * 1e6);
    cb_csv_num(row, o->fit.beta_bps / 1e9);
    /* Hockney's n1/2: the size that reaches half of beta. */
    cb_csv_num(row, o->fit.alpha_s > 0 ? o->fit.alpha_s * o->fit.beta_bps : NAN);
    cb_csv_num(row, o->fit.r2);
    cb_csv_num(row, o->fit.max_rel_err);
}

/* fits.csv: one row per fitted curve (docs/schema.md). */
static const cb_csv_layout fits_csv = {
    .header = "benchmark,curve,points,bytes_min,bytes_max,alpha_us,beta_gbps,n_half_bytes,r2,"
              "max_rel_err",
    .item_size = sizeof(fit_out),
    .row = write_fit_row,
};

/* The timed rows with a `bytes` axis, as curve rows; how many. */
static int collect_curve_rows(const cb_result *rows, int n, cb_curve_row *cr)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const cb_result *r = &rows[i];
        char bytes[64];
        if (!cb_result_timed(r) || !cb_axes_value(r->axes, "bytes", bytes, sizeof bytes)) continue;
        cb_curve_row *c = &cr[m++];
        c->r = r;
        c->order = i;
        cb_axes_without(r->axes, "bytes", c->key, sizeof c->key);
        /* The work model's bytes, so beta is in the units of the gbps column
         * (both directions for bidir, read + write for d2d). */
        c->x = isfinite(r->bytes) && r->bytes > 0 ? r->bytes : strtod(bytes, NULL);
        c->t = r->summary.median;
    }
    return m;
}

/* Fit one curve, rows cr[0..n): false when it has no fit. x and t are
 * scratch for n values. */
static bool fit_curve(const cb_curve_row *cr, int n, double *x, double *t, fit_out *o)
{
    o->order = cr[0].order;
    o->bench = cr[0].r->bench->name;
    o->curve = cr[0].key;
    o->x_min = INFINITY, o->x_max = -INFINITY;
    for (int k = 0; k < n; k++) {
        x[k] = cr[k].x, t[k] = cr[k].t;
        if (cr[k].order < o->order) o->order = cr[k].order;
        if (cr[k].x < o->x_min) o->x_min = cr[k].x;
        if (cr[k].x > o->x_max) o->x_max = cr[k].x;
    }
    return cb_fit_latency_bandwidth(x, t, n, &o->fit);
}

/* Fit every curve of the sorted rows cr[0..m); the number of fits. */
static int fit_curves(const cb_curve_row *cr, int m, fit_out *outs, double *x, double *t)
{
    int n_out = 0;
    for (int g = 0; g < m;) {
        int e = g;
        while (e < m && cb_curve_rows_same(&cr[g], &cr[e]))
            e++;
        if (fit_curve(&cr[g], e - g, x, t, &outs[n_out])) n_out++;
        g = e;
    }
    return n_out;
}

static cb_status fits_write(const char *dir, const cb_result *rows, int n, cb_curve_row *cr,
                            cb_msg *why)
{
    int m = collect_curve_rows(rows, n, cr);
    if (m == 0) return CB_OK;
    cb_curve_rows_sort(cr, m);

    fit_out *outs = malloc(sizeof *outs * (size_t)m);
    double *x = malloc(sizeof *x * (size_t)m), *t = malloc(sizeof *t * (size_t)m);
    cb_status st = CB_OK;
    if (!outs || !x || !t) {
        cb_msg_set(why, "out of memory fitting %d rows", m);
        st = CB_FAIL;
    } else {
        int n_out = fit_curves(cr, m, outs, x, t);
        if (n_out > 0) {
            qsort(outs, (size_t)n_out, sizeof *outs, cb_cmp_leading_order);
            st = cb_write_csv_table(dir, "fits.csv", &fits_csv, outs, n_out, why);
        }
    }
    free(outs);
    free(x);
    free(t);
    return st;
}

cb_status cb_fits_write(const char *dir, const cb_result *rows, int n, cb_msg *why)
{
    if (!dir || !rows || n <= 0) return CB_OK;
    cb_curve_row *cr = malloc(sizeof *cr * (size_t)n);
    if (!cr) {
        cb_msg_set(why, "out of memory writing fits");
        return CB_FAIL;
    }
    cb_status st = fits_write(dir, rows, n, cr, why);
    free(cr);
    return st;
}
