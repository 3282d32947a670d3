/* fleet_figures.c - key figures from the runs, or from a map for older
 * runs (fleet_figures.h). */
#include "fleet_figures.h"
#include "fleet_util.h"

#include "csv_reader.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

double cb_fleet_work(const cb_fleet_figure *fig, const cb_cmp_point *p)
{
    double w = fig->flops ? p->facts.flops / 1e12 : p->facts.bytes / 1e9;
    return w > 0 && isfinite(w) ? w : 0.0;
}

/* Does `token` (len bytes, "name=value") stand as one axis of `axes`? */
static bool has_axis(const char *axes, const char *token, size_t len)
{
    for (const char *a = axes; *a;) {
        size_t n = strcspn(a, ";");
        if (n == len && strncmp(a, token, len) == 0) return true;
        a += n + (a[n] == ';');
    }
    return false;
}

static bool where_holds(const char *axes, const char *where)
{
    for (const char *w = where; *w;) {
        size_t n = strcspn(w, ";");
        if (n && !has_axis(axes, w, n)) return false;
        w += n + (w[n] == ';');
    }
    return true;
}

/* The map's columns. */
typedef struct map_cols {
    int figure, rule, kind, bench, where;
} map_cols;

static bool check_map(const cb_csv *map, map_cols *c, cb_msg *err)
{
    static const char *const need[] = {"key_figure", "key_rule", "benchmark"};
    int col[3];
    if (!cb_csv_require(map, need, 3, col, err)) return false;
    *c = (map_cols){col[0], col[1], cb_csv_col(map, "kind"), col[2], cb_csv_col(map, "where")};
    for (int r = 0; r < cb_csv_rows(map); r++) {
        const char *rule = cb_csv_get(map, r, c->rule),
                   *kind = c->kind >= 0 ? cb_csv_get(map, r, c->kind) : "";
        cb_cmp_kind k;
        bool rule_ok = !*rule || strcmp(rule, "best") == 0 || strcmp(rule, "largest") == 0;
        if (!rule_ok || (*kind && !cb_cmp_kind_parse(kind, &k)) || !*cb_csv_get(map, r, c->bench)) {
            cb_msg_set(err,
                       "%s:%ld: a map line is key_figure, key_rule (best, largest), kind "
                       "(%s, or empty), benchmark (a glob), where",
                       cb_csv_name(map), cb_csv_line(map, r), cb_cmp_kind_list);
            return false;
        }
    }
    return true;
}

/* The first map line for the point, or -1. */
static int map_line(const cb_csv *map, const map_cols *c, const cb_cmp_point *p)
{
    for (int r = 0; r < cb_csv_rows(map); r++)
        if (fnmatch(cb_csv_get(map, r, c->bench), p->benchmark, 0) == 0 &&
            (c->where < 0 || where_holds(p->axes, cb_csv_get(map, r, c->where))))
            return r;
    return -1;
}

static bool map_point(const cb_csv *map, const map_cols *c, cb_cmp_point *p, cb_msg *err)
{
    int r = map_line(map, c, p);
    if (r < 0) return true;
    const char *kind = c->kind >= 0 ? cb_csv_get(map, r, c->kind) : "";
    if (*kind && !p->kind_declared) cb_cmp_kind_parse(kind, &p->kind);
    const char *name = cb_csv_get(map, r, c->figure);
    if (!*name) return true;
    p->key_rule =
        strcmp(cb_csv_get(map, r, c->rule), "largest") == 0 ? CB_CMP_KEY_LARGEST : CB_CMP_KEY_BEST;
    return (p->key_figure = strdup(name)) != NULL || cb_fleet_oom(err);
}

static int find_figure(const cb_fleet *f, const char *name)
{
    for (int i = 0; i < f->n_figures; i++)
        if (strcmp(f->figures[i].name, name) == 0) return i;
    return -1;
}

/* A figure, new or known; NULL when out of memory. */
static cb_fleet_figure *figure(cb_fleet *f, const char *name, cb_cmp_key_rule rule, bool cpu)
{
    int i = find_figure(f, name);
    if (i >= 0) return &f->figures[i];
    cb_fleet_figure *grown = realloc(f->figures, (size_t)(f->n_figures + 1) * sizeof *grown);
    if (!grown) return NULL;
    f->figures = grown;
    cb_fleet_figure *fig = &f->figures[f->n_figures];
    *fig = (cb_fleet_figure){strdup(name), "", true, cpu, rule};
    if (!fig->name) return NULL;
    f->n_figures++;
    return fig;
}

/* The map's figures, in its order: a fleet judged by the map knows them
 * all, also those no run timed. */
static bool map_figures(cb_fleet *f, const cb_csv *map, const map_cols *c, cb_msg *err)
{
    for (int r = 0; r < cb_csv_rows(map); r++) {
        const char *name = cb_csv_get(map, r, c->figure);
        bool largest = strcmp(cb_csv_get(map, r, c->rule), "largest") == 0;
        bool cpu = c->kind >= 0 && strcmp(cb_csv_get(map, r, c->kind), "host") == 0;
        if (*name && !figure(f, name, largest ? CB_CMP_KEY_LARGEST : CB_CMP_KEY_BEST, cpu))
            return cb_fleet_oom(err);
    }
    return true;
}

static bool declares(const cb_cmp_run *run)
{
    for (int i = 0; i < run->n_points; i++)
        if (run->points[i].key_figure) return true;
    return false;
}

bool cb_fleet_apply_map(cb_fleet *f, const char *path, cb_msg *err)
{
    cb_csv *map = cb_csv_read_file(path, err);
    map_cols c;
    bool ok = map && check_map(map, &c, err), used = false;
    for (int d = 0; ok && d < f->n_dirs; d++) {
        cb_cmp_run *run = &f->dirs[d].run;
        if (run->n_dirs == 0 || declares(run)) continue;
        used = true;
        for (int i = 0; ok && i < run->n_points; i++)
            ok = map_point(map, &c, &run->points[i], err);
    }
    if (ok && used) ok = map_figures(f, map, &c, err);
    cb_csv_free(map);
    return ok;
}

/* A candidate of the figure: it stays compute-bound and CPU-only only if
 * every candidate is. */
static bool add_candidate(cb_fleet *f, const cb_cmp_point *p, cb_msg *err)
{
    cb_fleet_figure *fig = figure(f, p->key_figure, p->key_rule, true);
    if (!fig) return cb_fleet_oom(err);
    double bytes = isnan(p->facts.bytes) ? 0.0 : p->facts.bytes;
    fig->flops = fig->flops && p->facts.flops > 0 && p->facts.flops > bytes;
    fig->cpu = fig->cpu && p->kind == CB_CMP_KIND_HOST;
    return true;
}

bool cb_fleet_collect_figures(cb_fleet *f, cb_msg *err)
{
    f->undeclared = 0;
    for (int d = 0; d < f->n_dirs; d++) {
        const cb_cmp_run *run = &f->dirs[d].run;
        if (run->n_dirs == 0) continue;
        f->undeclared += !declares(run);
        for (int i = 0; i < run->n_points; i++) {
            const cb_cmp_point *p = &run->points[i];
            if (p->key_figure && p->timed && !add_candidate(f, p, err)) return false;
        }
    }
    for (int i = 0; i < f->n_figures; i++)
        f->figures[i].unit = f->figures[i].flops ? "TFLOP/s" : "GB/s";
    return true;
}
