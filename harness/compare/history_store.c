/* history_store.c - a run's points and results, written CB_HIST_BATCH rows
 * per statement: a statement per row made a 700-point add 1,400 round trips
 * to a PostgreSQL server, each one waiting for the server to be scheduled
 * (2-3 s on a busy machine, against 0.6 s of work); batched, it is 22. */
#include "compare_units.h"
#include "history_impl.h"
#include "stats.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_HIST_BATCH       64
#define CB_HIST_RESULT_COLS 20

/* "($k, $k+1, ...), (...)" for `rows` rows of `cols` parameters, after `head`. */
static char *values_sql(const char *head, int rows, int cols, const char *tail)
{
    size_t len = strlen(head) + strlen(tail) + (size_t)rows * (size_t)cols * 9 + 16;
    char *sql = malloc(len);
    if (!sql) return NULL;
    size_t used = (size_t)snprintf(sql, len, "%s", head);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            used += (size_t)snprintf(sql + used, len - used, "%s$%d%s",
                                     c == 0 ? (r ? ", (" : "(") : ", ", r * cols + c + 1,
                                     c == cols - 1 ? ")" : "");
    snprintf(sql + used, len - used, "%s", tail);
    return sql;
}

/* ---- points ---- */

typedef struct point_ids {
    const cb_cmp_point *const *chunk; /* the points of this statement */
    int n;
    long long *ids; /* ids[i] of chunk[i] */
} point_ids;

static bool take_point_id(void *ctx, int n_cols, const char *const *v, const double *nums,
                          cb_msg *err)
{
    (void)nums, (void)err;
    point_ids *p = ctx;
    if (n_cols < 4 || !v[0] || !v[1] || !v[2]) return true;
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->chunk[i]->benchmark, v[1]) == 0 && strcmp(p->chunk[i]->axes, v[2]) == 0 &&
            strcmp(p->chunk[i]->device, v[3] ? v[3] : "") == 0)
            p->ids[i] = strtoll(v[0], NULL, 10);
    return true;
}

static const char *point_kind(const cb_cmp_point *p, bool *declared)
{
    *declared = p->kind_declared;
    return cb_cmp_kind_name(p->kind);
}

/* Upsert `n` points whose kind is declared (or not) and take their ids: a
 * declared kind replaces the stored one, an inferred one only fills it. */
static bool upsert_points(cb_hdb *db, const cb_cmp_point *const *chunk, int n, bool declared,
                          long long *ids, cb_msg *err)
{
    const char **params = malloc((size_t)n * 4 * sizeof *params);
    char *sql =
        values_sql("INSERT INTO cubench_point (benchmark, axes, device, kind) VALUES ", n, 4,
                   declared ? " ON CONFLICT (benchmark, axes, device) DO UPDATE SET kind ="
                              " excluded.kind RETURNING id, benchmark, axes, device"
                            : " ON CONFLICT (benchmark, axes, device) DO UPDATE SET kind ="
                              " COALESCE(cubench_point.kind, excluded.kind)"
                              " RETURNING id, benchmark, axes, device");
    bool ok = params && sql;
    if (!ok) cb_hist_oom(err);
    for (int i = 0; ok && i < n; i++) {
        bool d;
        params[4 * i] = chunk[i]->benchmark;
        params[4 * i + 1] = chunk[i]->axes;
        params[4 * i + 2] = chunk[i]->device;
        params[4 * i + 3] = point_kind(chunk[i], &d);
        ids[i] = -1;
    }
    point_ids ctx = {chunk, n, ids};
    /* a full batch is always the same text: prepared once per connection */
    cb_hdb_stmt slot = n < CB_HIST_BATCH ? CB_STMT_ONCE
                       : declared        ? CB_STMT_POINTS_DECLARED
                                         : CB_STMT_POINTS_INFERRED;
    ok = ok && db->ops->query(db, slot, sql, 4 * n, params, take_point_id, &ctx, err);
    for (int i = 0; ok && i < n; i++)
        if (ids[i] < 0) {
            cb_msg_set(err, "%s: no id came back for point %.60s [%.60s]", db->where,
                       chunk[i]->benchmark, chunk[i]->axes);
            ok = false;
        }
    free(params), free(sql);
    return ok;
}

bool cb_hist_store_points(cb_hdb *db, const cb_cmp_run *run, long long *ids, cb_msg *err)
{
    const cb_cmp_point *chunk[CB_HIST_BATCH];
    long long chunk_ids[CB_HIST_BATCH];
    int where[CB_HIST_BATCH];
    for (int pass = 0; pass < 2; pass++) { /* declared kinds, then inferred ones */
        int n = 0;
        for (int i = 0; i <= run->n_points; i++) {
            bool flush = i == run->n_points || n == CB_HIST_BATCH;
            if (flush && n > 0) {
                if (!upsert_points(db, chunk, n, pass == 0, chunk_ids, err)) return false;
                for (int k = 0; k < n; k++)
                    ids[where[k]] = chunk_ids[k];
                n = 0;
            }
            if (i == run->n_points) break;
            bool declared;
            point_kind(&run->points[i], &declared);
            if (declared != (pass == 0)) continue;
            chunk[n] = &run->points[i], where[n++] = i;
        }
    }
    return true;
}

/* ---- results ---- */

static int cmp_rep_time(const void *a, const void *b)
{
    const double *x = a, *y = b; /* {replicate, time} */
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* The median of each replicate (round), in round order: "m0 m1 ...". */
static bool unit_medians(const cb_cmp_point *p, cb_hist_text *t, cb_msg *err)
{
    double *pairs = malloc((size_t)p->n * 2 * sizeof *pairs);
    double *times = malloc((size_t)p->n * sizeof *times);
    if (!pairs || !times) {
        free(pairs), free(times);
        return cb_hist_oom(err);
    }
    for (int i = 0; i < p->n; i++)
        pairs[2 * i] = p->replicate[i], pairs[2 * i + 1] = p->times[i];
    qsort(pairs, (size_t)p->n, 2 * sizeof *pairs, cmp_rep_time);
    for (int start = 0; start < p->n;) {
        int end = start, k = 0;
        while (end < p->n && pairs[2 * end] == pairs[2 * start])
            times[k++] = pairs[2 * end + 1], end++;
        cb_hist_text_add(t, "%s%.9g", start ? " " : "", cb_stats_quantile_sorted(times, k, 0.5));
        start = end;
    }
    free(pairs), free(times);
    return true;
}

/* One result row's parameters and the texts they point into. */
typedef struct result_row {
    char pid[32], batch[16], n[16], num[9][32];
    cb_hist_text units, samples;
    cb_side_est est;
} result_row;

static bool row_params(const cb_cmp_point *p, long long point_id, const char *run_id,
                       bool with_samples, result_row *r, const char **out, cb_msg *err)
{
    if (!cb_side_estimate(p, NAN, &r->est, err)) return false; /* rho from this point */
    if (p->n > 0 && !unit_medians(p, &r->units, err)) return false;
    for (int i = 0; with_samples && i < p->n; i++)
        cb_hist_text_add(&r->samples, "%s%d:%.9g", i ? " " : "", p->replicate[i], p->times[i]);
    if (r->units.failed || r->samples.failed) return cb_hist_oom(err);
    snprintf(r->pid, sizeof r->pid, "%lld", point_id);
    snprintf(r->batch, sizeof r->batch, "%d", p->batch);
    snprintf(r->n, sizeof r->n, "%d", p->n);
    const cb_side_est *e = &r->est;
    const char *v[CB_HIST_RESULT_COLS] = {run_id,
                                          r->pid,
                                          p->status,
                                          p->reason,
                                          p->timer,
                                          p->batch ? r->batch : NULL,
                                          cb_hdb_num(p->facts.median_s, r->num[0]),
                                          cb_hdb_num(p->facts.ci_lo_s, r->num[1]),
                                          cb_hdb_num(p->facts.ci_hi_s, r->num[2]),
                                          r->n,
                                          cb_hdb_num(e->center, r->num[3]),
                                          cb_hdb_num(e->var, r->num[4]),
                                          cb_hdb_num(e->df, r->num[5]),
                                          p->n ? cb_basis_name(e->basis) : NULL,
                                          p->throttle,
                                          cb_hdb_num(p->facts.sm_clock_median_mhz, r->num[6]),
                                          cb_hdb_num(p->facts.power_mean_w, r->num[7]),
                                          cb_hdb_num(p->facts.temp_max_c, r->num[8]),
                                          r->units.s,
                                          r->samples.s};
    memcpy(out, v, sizeof v);
    return true;
}

static bool insert_results(cb_hdb *db, const char *run_id, const cb_cmp_run *run, int from, int n,
                           const long long *ids, bool with_samples, cb_msg *err)
{
    result_row *rows = calloc((size_t)n, sizeof *rows);
    const char **params = malloc((size_t)n * CB_HIST_RESULT_COLS * sizeof *params);
    char *sql = values_sql("INSERT INTO cubench_result (run_id, point_id, status, reason, timer,"
                           " batch, median_s, ci_lo_s, ci_hi_s, n_samples, est_center, est_var,"
                           " est_df, est_basis, throttle, sm_clock_mhz, power_w, temp_c,"
                           " unit_medians, sample_times) VALUES ",
                           n, CB_HIST_RESULT_COLS, "");
    bool ok = rows && params && sql;
    if (!ok) cb_hist_oom(err);
    for (int i = 0; ok && i < n; i++)
        ok = row_params(&run->points[from + i], ids[from + i], run_id, with_samples, &rows[i],
                        params + i * CB_HIST_RESULT_COLS, err);
    ok = ok &&
         db->ops->query(db, CB_STMT_ONCE, sql, n * CB_HIST_RESULT_COLS, params, NULL, NULL, err);
    for (int i = 0; rows && i < n; i++)
        cb_hist_text_free(&rows[i].units), cb_hist_text_free(&rows[i].samples);
    free(rows), free(params), free(sql);
    return ok;
}

bool cb_hist_store_results(cb_hdb *db, const char *run_id, const cb_cmp_run *run,
                           const long long *ids, bool with_samples, long kill_after, cb_msg *err)
{
    for (int from = 0; from < run->n_points; from += CB_HIST_BATCH) {
        int n = run->n_points - from < CB_HIST_BATCH ? run->n_points - from : CB_HIST_BATCH;
        if (!insert_results(db, run_id, run, from, n, ids, with_samples, err)) return false;
        if (kill_after >= 0 && from + n >= kill_after) raise(SIGKILL); /* the test hook */
    }
    return true;
}
