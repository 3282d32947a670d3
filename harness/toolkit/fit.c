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

bool cb_fit_latency_bandwidth(const double *x, const double *t, int n, cb_fit *out)
{
    out->points = 0;
    out->alpha_s = out->beta_bps = out->r2 = out->max_rel_err = NAN;
    if (n < 3) return false;
    double *xs = malloc(sizeof(double) * (size_t)n);
    if (!xs) return false;
    int used = 0;
    double sw = 0, swx = 0, swt = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(x[i]) && x[i] > 0 && isfinite(t[i]) && t[i] > 0)) continue;
        double w = 1.0 / (t[i] * t[i]);
        sw += w, swx += w * x[i], swt += w * t[i];
        xs[used++] = x[i];
    }
    qsort(xs, (size_t)used, sizeof *xs, cmp_double);
    int distinct = used > 0;
    for (int i = 1; i < used; i++)
        distinct += xs[i] != xs[i - 1];
    free(xs);
    if (used < 3 || distinct < 3) return false;

    /* Centred on the weighted means: x spans six orders of magnitude, and
     * the raw normal equations would cancel most of their digits. */
    double xm = swx / sw, tm = swt / sw, sxx = 0, sxt = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(x[i]) && x[i] > 0 && isfinite(t[i]) && t[i] > 0)) continue;
        double w = 1.0 / (t[i] * t[i]);
        sxx += w * (x[i] - xm) * (x[i] - xm);
        sxt += w * (x[i] - xm) * (t[i] - tm);
    }
    double slope = sxt / sxx; /* seconds per byte */
    double alpha = tm - slope * xm;
    double ss_res = 0, ss_tot = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        if (!(isfinite(x[i]) && x[i] > 0 && isfinite(t[i]) && t[i] > 0)) continue;
        double w = 1.0 / (t[i] * t[i]), r = t[i] - (alpha + slope * x[i]);
        ss_res += w * r * r;
        ss_tot += w * (t[i] - tm) * (t[i] - tm);
        if (fabs(r) / t[i] > worst) worst = fabs(r) / t[i];
    }
    out->points = used;
    out->alpha_s = alpha;
    out->beta_bps = slope > 0 ? 1.0 / slope : NAN;
    out->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : NAN;
    out->max_rel_err = worst;
    return true;
}

/* ---- fits.csv ---- */

typedef struct fit_out {
    int order;
    const char *bench;
    const char *curve;
    double x_min, x_max;
    cb_fit fit;
} fit_out;

typedef struct fit_table {
    const fit_out *rows;
    int n;
} fit_table;

static int cmp_out_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b; /* `order` leads both out structs */
    return (x > y) - (x < y);
}

static void write_fits(FILE *f, const void *ctx)
{
    const fit_table *tab = ctx;
    fputs("benchmark,curve,points,bytes_min,bytes_max,alpha_us,beta_gbps,n_half_bytes,r2,"
          "max_rel_err\n",
          f);
    for (int i = 0; i < tab->n; i++) {
        const fit_out *o = &tab->rows[i];
        cb_csv_row row;
        cb_csv_begin(&row, f);
        cb_csv_str(&row, o->bench);
        cb_csv_str(&row, o->curve);
        cb_csv_int(&row, o->fit.points);
        cb_csv_num(&row, o->x_min);
        cb_csv_num(&row, o->x_max);
        cb_csv_num(&row, o->fit.alpha_s * 1e6);
        cb_csv_num(&row, o->fit.beta_bps / 1e9);
        /* Hockney's n1/2: the size that reaches half of beta. */
        cb_csv_num(&row, o->fit.alpha_s > 0 ? o->fit.alpha_s * o->fit.beta_bps : NAN);
        cb_csv_num(&row, o->fit.r2);
        cb_csv_num(&row, o->fit.max_rel_err);
        cb_csv_end(&row);
    }
}

static cb_status fits_write(const char *dir, const cb_result *rows, int n, cb_curve_row *cr,
                            cb_msg *why)
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
    if (m == 0) return CB_OK;
    cb_curve_rows_sort(cr, m);

    fit_out *outs = malloc(sizeof *outs * (size_t)m);
    double *x = malloc(sizeof *x * (size_t)m), *t = malloc(sizeof *t * (size_t)m);
    int n_out = 0;
    for (int g = 0; outs && x && t && g < m;) {
        int e = g;
        while (e < m && cb_curve_rows_same(&cr[g], &cr[e]))
            e++;
        fit_out *o = &outs[n_out];
        o->order = cr[g].order;
        o->bench = cr[g].r->bench->name;
        o->curve = cr[g].key;
        o->x_min = INFINITY, o->x_max = -INFINITY;
        for (int k = g; k < e; k++) {
            x[k - g] = cr[k].x, t[k - g] = cr[k].t;
            if (cr[k].order < o->order) o->order = cr[k].order;
            if (cr[k].x < o->x_min) o->x_min = cr[k].x;
            if (cr[k].x > o->x_max) o->x_max = cr[k].x;
        }
        if (cb_fit_latency_bandwidth(x, t, e - g, &o->fit)) n_out++;
        g = e;
    }
    cb_status st = CB_OK;
    if (!outs || !x || !t) {
        cb_msg_set(why, "out of memory fitting %d rows", m);
        st = CB_FAIL;
    } else if (n_out > 0) {
        qsort(outs, (size_t)n_out, sizeof *outs, cmp_out_order);
        fit_table tab = {outs, n_out};
        st = cb_write_atomically(dir, "fits.csv", write_fits, &tab, why);
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
