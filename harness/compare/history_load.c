/* history_load.c - read runs and series from a history database.
 *
 * Three reads in one read transaction (one consistent view while another
 * process adds): the runs (of the machine asked for), the points (filtered
 * here by glob and axes), then the results: all of them in one pass when
 * every point is wanted (no ORDER BY: a sort of a million rows is quicker
 * here than through the database), or point by point through the index
 * when a few are. The results are grouped by point and machine and put in
 * run order in memory. */
#include "history_impl.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void cb_hist_data_free(cb_hist_data *d)
{
    for (int i = 0; i < d->n_series; i++) {
        cb_hist_series *s = &d->series[i];
        for (int k = 0; k < s->n; k++)
            free(s->v[k].throttle);
        free(s->v);
        free(s->benchmark), free(s->axes);
    }
    free(d->series);
    free(d->runs);
    memset(d, 0, sizeof *d);
}

bool cb_hist_axes_match(const char *axes, const char *const *items, int n)
{
    for (int i = 0; i < n; i++) {
        size_t len = strlen(items[i]);
        bool found = false;
        for (const char *a = axes; *a && !found;) {
            size_t part = strcspn(a, ";");
            found = part == len && strncmp(a, items[i], len) == 0;
            a += part + (a[part] == ';');
        }
        if (!found) return false;
    }
    return true;
}

/* ---- the runs ---- */

typedef struct run_rows {
    cb_hist_data *d;
    int cap;
    bool oom;
} run_rows;

static void copy(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

static bool add_run_row(void *ctx, int n_cols, const char *const *v, const double *nums,
                        cb_msg *err)
{
    (void)nums;
    run_rows *r = ctx;
    cb_hist_data *d = r->d;
    if (n_cols < 11) return true;
    cb_hist_run *runs = cb_grow_array(d->runs, d->n_runs, &r->cap, 256, sizeof *runs);
    if (!runs) return cb_hist_oom(err);
    d->runs = runs;
    cb_hist_run *run = &d->runs[d->n_runs++];
    run->id = v[0] ? strtoll(v[0], NULL, 10) : -1;
    copy(run->started, sizeof run->started, v[1]);
    copy(run->git_sha, sizeof run->git_sha, v[2]);
    copy(run->machine, sizeof run->machine, v[3]);
    copy(run->gpu_name, sizeof run->gpu_name, v[4]);
    copy(run->gpu_uuid, sizeof run->gpu_uuid, v[5]);
    copy(run->driver, sizeof run->driver, v[6]);
    copy(run->driver_api, sizeof run->driver_api, v[7]);
    copy(run->runtime, sizeof run->runtime, v[8]);
    copy(run->host, sizeof run->host, v[9]);
    run->complete = v[10] && strcmp(v[10], "1") == 0;
    return true;
}

#define RUN_COLUMNS                                                                                \
    "SELECT r.id, r.started, r.git_sha, m.name, r.gpu_name, r.gpu_uuid, r.driver, r.driver_api,"   \
    " r.runtime, r.host, r.complete FROM cubench_run r JOIN cubench_machine m ON m.id ="           \
    " r.machine_id"

static bool load_runs(cb_hdb *db, const char *machine, cb_hist_data *d, cb_msg *err)
{
    run_rows r = {d, 0, false};
    const char *params[] = {machine};
    if (machine)
        return db->ops->query(db, CB_STMT_ONCE,
                              RUN_COLUMNS " WHERE m.name = $1 ORDER BY m.name, r.started, r.id", 1,
                              params, add_run_row, &r, err);
    return db->ops->query(db, CB_STMT_ONCE, RUN_COLUMNS " ORDER BY m.name, r.started, r.id", 0,
                          NULL, add_run_row, &r, err);
}

/* ---- the points ---- */

typedef struct point_row {
    long long id;
    char *benchmark, *axes;
    char device[16], kind[16];
} point_row;

typedef struct point_rows {
    point_row *v;
    int n, cap;
    const cb_hist_filter *f;
    int total; /* before the filter */
} point_rows;

static bool point_wanted(const cb_hist_filter *f, const char *benchmark, const char *axes,
                         const char *device)
{
    if (!f) return true;
    if (f->point_benchmark && f->point_axes)
        return strcmp(f->point_benchmark, benchmark) == 0 && strcmp(f->point_axes, axes) == 0 &&
               strcmp(f->point_device ? f->point_device : "", device) == 0;
    if (f->benchmark && fnmatch(f->benchmark, benchmark, 0) != 0) return false;
    return cb_hist_axes_match(axes, f->axes, f->n_axes);
}

static bool add_point_row(void *ctx, int n_cols, const char *const *v, const double *nums,
                          cb_msg *err)
{
    (void)nums;
    point_rows *p = ctx;
    if (n_cols < 5 || !v[0] || !v[1] || !v[2]) return true;
    p->total++;
    if (!point_wanted(p->f, v[1], v[2], v[3] ? v[3] : "")) return true;
    point_row *pts = cb_grow_array(p->v, p->n, &p->cap, 256, sizeof *pts);
    if (!pts) goto oom;
    p->v = pts;
    point_row *r = &p->v[p->n];
    r->id = strtoll(v[0], NULL, 10);
    r->benchmark = strdup(v[1]);
    r->axes = strdup(v[2]);
    copy(r->device, sizeof r->device, v[3]);
    copy(r->kind, sizeof r->kind, v[4]);
    if (!r->benchmark || !r->axes) {
        free(r->benchmark), free(r->axes);
        goto oom;
    }
    p->n++;
    return true;
oom:
    return cb_hist_oom(err);
}

static void points_free(point_rows *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->v[i].benchmark), free(p->v[i].axes);
    free(p->v);
}

static int cmp_point_id(const void *a, const void *b)
{
    const point_row *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* ---- the results ---- */

typedef struct raw_result {
    int point; /* index into the point rows (sorted by id) */
    int run;   /* index into d->runs                        */
    cb_hist_value v;
} raw_result;

typedef struct run_index {
    long long id;
    int at;
} run_index;

typedef struct result_rows {
    raw_result *v;
    int n, cap;
    const point_rows *points;
    const run_index *runs; /* sorted by id */
    int n_runs;
} result_rows;

static int cmp_run_index(const void *a, const void *b)
{
    const run_index *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

static bool add_result_row(void *ctx, int n_cols, const char *const *v, const double *nums,
                           cb_msg *err)
{
    result_rows *r = ctx;
    if (n_cols < 10 || !v[0] || !v[1]) return true;
    point_row key = {.id = strtoll(v[0], NULL, 10)};
    const point_row *p =
        bsearch(&key, r->points->v, (size_t)r->points->n, sizeof key, cmp_point_id);
    run_index rk = {strtoll(v[1], NULL, 10), 0};
    const run_index *ri = bsearch(&rk, r->runs, (size_t)r->n_runs, sizeof rk, cmp_run_index);
    if (!p || !ri) return true; /* a point or machine not asked for */
    raw_result *nv = cb_grow_array(r->v, r->n, &r->cap, 4096, sizeof *nv);
    if (!nv) goto oom;
    r->v = nv;
    raw_result *x = &r->v[r->n];
    x->point = (int)(p - r->points->v);
    x->run = ri->at;
    x->v.run = ri->at;
    copy(x->v.status, sizeof x->v.status, v[2]);
    x->v.median_s = cb_hdb_number(v, nums, 3);
    x->v.ci_lo_s = cb_hdb_number(v, nums, 4);
    x->v.ci_hi_s = cb_hdb_number(v, nums, 5);
    x->v.sm_clock_mhz = cb_hdb_number(v, nums, 6);
    x->v.power_w = cb_hdb_number(v, nums, 7);
    x->v.temp_c = cb_hdb_number(v, nums, 8);
    x->v.throttle = v[9] && *v[9] ? strdup(v[9]) : NULL;
    if (v[9] && *v[9] && !x->v.throttle) goto oom;
    r->n++;
    return true;
oom:
    return cb_hist_oom(err);
}

#define RESULT_COLUMNS                                                                             \
    "SELECT point_id, run_id, status, median_s, ci_lo_s, ci_hi_s, sm_clock_mhz, power_w,"          \
    " temp_c, throttle FROM cubench_result"

static bool load_results(cb_hdb *db, const point_rows *pts, result_rows *rr, cb_msg *err)
{
    if (pts->n == pts->total)
        return db->ops->query(db, CB_STMT_ONCE, RESULT_COLUMNS, 0, NULL, add_result_row, rr, err);
    for (int i = 0; i < pts->n; i++) {
        char id[32];
        snprintf(id, sizeof id, "%lld", pts->v[i].id);
        const char *params[] = {id};
        if (!db->ops->query(db, CB_STMT_POINT_RESULTS, RESULT_COLUMNS " WHERE point_id = $1", 1,
                            params, add_result_row, rr, err))
            return false;
    }
    return true;
}

static int cmp_raw(const void *a, const void *b)
{
    const raw_result *x = a, *y = b;
    if (x->point != y->point) return x->point - y->point;
    return x->run - y->run;
}

/* Series from the sorted results: one per point and machine. Takes the
 * throttle strings. */
static bool group(const point_rows *pts, raw_result *raw, int n, cb_hist_data *d, cb_msg *err)
{
    d->series = calloc((size_t)n + 1, sizeof *d->series);
    if (!d->series) goto oom;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && raw[j].point == raw[i].point &&
               strcmp(d->runs[raw[j].run].machine, d->runs[raw[i].run].machine) == 0)
            j++;
        cb_hist_series *s = &d->series[d->n_series];
        const point_row *p = &pts->v[raw[i].point];
        s->benchmark = strdup(p->benchmark);
        s->axes = strdup(p->axes);
        s->v = malloc((size_t)(j - i) * sizeof *s->v);
        d->n_series++;
        if (!s->benchmark || !s->axes || !s->v) goto oom;
        copy(s->kind, sizeof s->kind, p->kind);
        copy(s->device, sizeof s->device, p->device);
        s->machine = d->runs[raw[i].run].machine;
        for (int k = i; k < j; k++) {
            s->v[s->n++] = raw[k].v;
            raw[k].v.throttle = NULL;
        }
        i = j;
    }
    return true;
oom:
    return cb_hist_oom(err);
}

static int cmp_series(const void *a, const void *b)
{
    const cb_hist_series *x = a, *y = b;
    int c = strcmp(x->machine, y->machine);
    if (!c) c = strcmp(x->benchmark, y->benchmark);
    if (!c) c = strcmp(x->axes, y->axes);
    if (!c) c = strcmp(x->device, y->device);
    return c;
}

static bool load_all(cb_hdb *db, const cb_hist_filter *f, cb_hist_data *out, cb_msg *err)
{
    point_rows pts = {NULL, 0, 0, f, 0};
    result_rows rr = {0};
    run_index *ri = NULL;
    bool ok = load_runs(db, f ? f->machine : NULL, out, err) &&
              db->ops->query(db, CB_STMT_ONCE,
                             "SELECT id, benchmark, axes, device, kind FROM cubench_point", 0, NULL,
                             add_point_row, &pts, err);
    if (ok) {
        if (pts.n > 1) qsort(pts.v, (size_t)pts.n, sizeof *pts.v, cmp_point_id);
        ri = malloc((size_t)(out->n_runs + 1) * sizeof *ri);
        ok = ri != NULL;
        if (!ok) cb_hist_oom(err);
    }
    if (ok) {
        for (int i = 0; i < out->n_runs; i++)
            ri[i] = (run_index){out->runs[i].id, i};
        qsort(ri, (size_t)out->n_runs, sizeof *ri, cmp_run_index);
        rr = (result_rows){NULL, 0, 0, &pts, ri, out->n_runs};
        ok = load_results(db, &pts, &rr, err);
    }
    if (ok) {
        if (rr.n > 1) qsort(rr.v, (size_t)rr.n, sizeof *rr.v, cmp_raw);
        ok = group(&pts, rr.v, rr.n, out, err);
    }
    for (int i = 0; i < rr.n; i++)
        free(rr.v[i].v.throttle);
    free(rr.v);
    free(ri);
    points_free(&pts);
    if (ok) qsort(out->series, (size_t)out->n_series, sizeof *out->series, cmp_series);
    return ok;
}

bool cb_history_load(cb_history *h, const cb_hist_filter *f, cb_hist_data *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    cb_hdb *db = h->db;
    if (!db->ops->begin_read(db, err)) return false;
    bool ok = load_all(db, f, out, err);
    cb_msg quiet;
    if (!db->ops->exec(db, "COMMIT", ok ? err : &quiet)) ok = false;
    if (!ok) cb_hist_data_free(out);
    return ok;
}
