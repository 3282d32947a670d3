/* fit.c - latency/bandwidth fits per curve (fits.csv) and the copy/compute
 * overlap model (overlap.csv), computed from a run's result rows.
 *
 * Everything here reads the rows' identity text (`axes`), not their
 * cb_point, so the same code serves rows read back from a results.csv. */
#include "fit.h"

#include "csv_writer.h"

#include <errno.h>
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

/* ---- the identity text: "name=value;name=value" ---- */

/* Copy the value of item `name` into buf; false when absent. */
static bool axes_value(const char *axes, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (const char *item = axes; item && *item;) {
        const char *end = strchr(item, ';');
        size_t il = end ? (size_t)(end - item) : strlen(item);
        if (il > nl && strncmp(item, name, nl) == 0 && item[nl] == '=') {
            size_t vl = il - nl - 1;
            if (vl >= len) vl = len - 1;
            memcpy(buf, item + nl + 1, vl);
            buf[vl] = '\0';
            return true;
        }
        item = end ? end + 1 : NULL;
    }
    return false;
}

/* `axes` without item `name`, order kept. */
static void axes_without(const char *axes, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name), used = 0;
    buf[0] = '\0';
    for (const char *item = axes; item && *item;) {
        const char *end = strchr(item, ';');
        size_t il = end ? (size_t)(end - item) : strlen(item);
        bool skip = il > nl && strncmp(item, name, nl) == 0 && item[nl] == '=';
        if (!skip && used + il + 2 < len) {
            if (used) buf[used++] = ';';
            memcpy(buf + used, item, il);
            used += il;
            buf[used] = '\0';
        }
        item = end ? end + 1 : NULL;
    }
}

/* ---- grouping rows into curves ---- */

typedef struct curve_row {
    const cb_result *r;
    int order;               /* index in the run, for a stable output order */
    char key[CB_POINT_TEXT]; /* axes without the swept (or split) axis     */
    double x, t;
} curve_row;

static int cmp_curve_row(const void *a, const void *b)
{
    const curve_row *p = a, *q = b;
    int c = strcmp(p->r->bench->name, q->r->bench->name);
    if (c == 0) c = strcmp(p->key, q->key);
    if (c == 0) c = (p->order > q->order) - (p->order < q->order);
    return c;
}

static bool same_curve(const curve_row *p, const curve_row *q)
{
    return strcmp(p->r->bench->name, q->r->bench->name) == 0 && strcmp(p->key, q->key) == 0;
}

static bool timed(const cb_result *r)
{
    return r->bench && r->bench->name && (r->status == CB_OK || r->status == CB_NOISY) &&
           r->summary.n > 0 && isfinite(r->summary.median) && r->summary.median > 0;
}

/* Write to `dir`/name through a temporary file and a rename. */
typedef void (*table_writer)(FILE *f, const void *ctx);

static void write_atomically(const char *dir, const char *name, table_writer write, const void *ctx)
{
    char path[4096], tmp[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name) >= (int)sizeof tmp) {
        fprintf(stderr, "cubench: path too long for %s in %s\n", name, dir);
        return;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "cubench: cannot write %s: %s\n", tmp, strerror(errno));
        return;
    }
    write(f, ctx);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0) bad = true;
    if (bad || rename(tmp, path) != 0) {
        fprintf(stderr, "cubench: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
    }
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

static void fits_write(const char *dir, const cb_result *rows, int n, curve_row *cr)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const cb_result *r = &rows[i];
        char bytes[64];
        if (!timed(r) || !axes_value(r->axes, "bytes", bytes, sizeof bytes)) continue;
        curve_row *c = &cr[m++];
        c->r = r;
        c->order = i;
        axes_without(r->axes, "bytes", c->key, sizeof c->key);
        /* The work model's bytes, so beta is in the units of the gbps column
         * (both directions for bidir, read + write for d2d). */
        c->x = isfinite(r->bytes) && r->bytes > 0 ? r->bytes : strtod(bytes, NULL);
        c->t = r->summary.median;
    }
    if (m == 0) return;
    qsort(cr, (size_t)m, sizeof *cr, cmp_curve_row);

    fit_out *outs = malloc(sizeof *outs * (size_t)m);
    double *x = malloc(sizeof *x * (size_t)m), *t = malloc(sizeof *t * (size_t)m);
    int n_out = 0;
    for (int g = 0; outs && x && t && g < m;) {
        int e = g;
        while (e < m && same_curve(&cr[g], &cr[e]))
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
    if (outs && n_out > 0) {
        qsort(outs, (size_t)n_out, sizeof *outs, cmp_out_order);
        fit_table tab = {outs, n_out};
        write_atomically(dir, "fits.csv", write_fits, &tab);
    }
    free(outs);
    free(x);
    free(t);
}

/* ---- overlap.csv ---- */

enum { ST_H2D, ST_KERNEL, ST_D2H, ST_PIPELINE, ST_COUNT };
static const char *const stage_words[ST_COUNT] = {"h2d", "kernel", "d2h", "pipeline"};

typedef struct overlap_out {
    int order;
    const char *bench;
    const char *point; /* axes without stage */
    char bytes[32], streams[32];
    char base[CB_POINT_TEXT]; /* point without streams: what speedup compares */
    double t[ST_COUNT];
    double speedup;
} overlap_out;

typedef struct overlap_table {
    const overlap_out *rows;
    int n;
} overlap_table;

static void write_overlap(FILE *f, const void *ctx)
{
    const overlap_table *tab = ctx;
    fputs("benchmark,point,bytes,streams,h2d_s,kernel_s,d2h_s,pipeline_s,serial_s,ideal_s,"
          "efficiency,hidden_fraction,speedup_vs_1_stream\n",
          f);
    for (int i = 0; i < tab->n; i++) {
        const overlap_out *o = &tab->rows[i];
        /* NAN propagates: a missing stage leaves the derived fields empty. */
        double serial = o->t[ST_H2D] + o->t[ST_KERNEL] + o->t[ST_D2H];
        double ideal = fmax(o->t[ST_H2D], fmax(o->t[ST_KERNEL], o->t[ST_D2H]));
        if (isnan(o->t[ST_H2D]) || isnan(o->t[ST_KERNEL]) || isnan(o->t[ST_D2H])) ideal = NAN;
        double pipe = o->t[ST_PIPELINE];
        cb_csv_row row;
        cb_csv_begin(&row, f);
        cb_csv_str(&row, o->bench);
        cb_csv_str(&row, o->point);
        cb_csv_str(&row, o->bytes);
        cb_csv_str(&row, o->streams);
        for (int s = 0; s < ST_COUNT; s++)
            cb_csv_num(&row, o->t[s]);
        cb_csv_num(&row, serial);
        cb_csv_num(&row, ideal);
        cb_csv_num(&row, ideal / pipe);
        cb_csv_num(&row, serial > ideal ? (serial - pipe) / (serial - ideal) : NAN);
        cb_csv_num(&row, o->speedup);
        cb_csv_end(&row);
    }
}

static int stage_of(const cb_result *r)
{
    char word[32];
    if (!axes_value(r->axes, "stage", word, sizeof word)) return -1;
    for (int s = 0; s < ST_COUNT; s++)
        if (strcmp(word, stage_words[s]) == 0) return s;
    return -1;
}

static void overlap_write(const char *dir, const cb_result *rows, int n, curve_row *cr)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        const cb_result *r = &rows[i];
        int stage = timed(r) ? stage_of(r) : -1;
        if (stage < 0) continue;
        curve_row *c = &cr[m++];
        c->r = r;
        c->order = i;
        axes_without(r->axes, "stage", c->key, sizeof c->key);
        c->x = stage;
        c->t = r->summary.median;
    }
    if (m == 0) return;
    qsort(cr, (size_t)m, sizeof *cr, cmp_curve_row);

    overlap_out *outs = malloc(sizeof *outs * (size_t)m);
    if (!outs) return;
    int n_out = 0;
    for (int g = 0; g < m;) {
        int e = g;
        while (e < m && same_curve(&cr[g], &cr[e]))
            e++;
        overlap_out *o = &outs[n_out++];
        o->order = cr[g].order;
        o->bench = cr[g].r->bench->name;
        o->point = cr[g].key;
        if (!axes_value(o->point, "bytes", o->bytes, sizeof o->bytes)) o->bytes[0] = '\0';
        if (!axes_value(o->point, "streams", o->streams, sizeof o->streams)) o->streams[0] = '\0';
        axes_without(o->point, "streams", o->base, sizeof o->base);
        for (int s = 0; s < ST_COUNT; s++)
            o->t[s] = NAN;
        for (int k = g; k < e; k++)
            o->t[(int)cr[k].x] = cr[k].t; /* the latest row wins */
        g = e;
    }
    for (int i = 0; i < n_out; i++) {
        outs[i].speedup = NAN;
        for (int j = 0; j < n_out; j++) {
            if (strcmp(outs[j].streams, "1") == 0 && strcmp(outs[j].bench, outs[i].bench) == 0 &&
                strcmp(outs[j].base, outs[i].base) == 0)
                outs[i].speedup = outs[j].t[ST_PIPELINE] / outs[i].t[ST_PIPELINE];
        }
    }
    qsort(outs, (size_t)n_out, sizeof *outs, cmp_out_order);
    overlap_table tab = {outs, n_out};
    write_atomically(dir, "overlap.csv", write_overlap, &tab);
    free(outs);
}

void cb_fits_write(const char *dir, const cb_result *rows, int n)
{
    if (!dir || !rows || n <= 0) return;
    curve_row *cr = malloc(sizeof *cr * (size_t)n);
    if (!cr) {
        fprintf(stderr, "cubench: out of memory writing fits\n");
        return;
    }
    fits_write(dir, rows, n, cr);
    overlap_write(dir, rows, n, cr);
    free(cr);
}
