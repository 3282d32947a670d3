/* fleet_judge.c - group the runs by model, choose each figure's reference
 * point, compare every run with the others there, and collect the problems
 * (the rules are in fleet_model.h).
 *
 * Cost: a candidate point's samples are copied and sorted once for its
 * median (N log N); a figure's candidates are pooled in a hash keyed by
 * identity (compare_load's), so the choice of its reference point is linear
 * in the rows; each run's value is compare's side estimate (compare_units.h,
 * N log N) and the comparisons are fleet_stat's, linear in the runs. */
#include "fleet_judge.h"
#include "fleet_util.h"
#include "stats.h"

#include "compare_stats.h"
#include "compare_units.h"
#include "fleet_figures.h"
#include "fleet_load.h"
#include "fleet_stat.h"
#include "parse_number.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- grouping ----------------------------------------------------------- */

static const cb_fleet *sort_fleet; /* qsort has no context argument */

static int cmp_by_model(const void *a, const void *b)
{
    const cb_fleet_member *x = &sort_fleet->members[*(const int *)a];
    const cb_fleet_member *y = &sort_fleet->members[*(const int *)b];
    int c = strcmp(x->model, y->model);
    if (c == 0) c = (int)x->cpu_only - (int)y->cpu_only;
    return c ? c : *(const int *)a - *(const int *)b; /* names are in index order */
}

static bool same_model(const cb_fleet_member *a, const cb_fleet_member *b)
{
    return strcmp(a->model, b->model) == 0 && a->cpu_only == b->cpu_only;
}

static bool add_group(cb_fleet *f, const int *order, int s, int e)
{
    const cb_fleet_member *first = &f->members[order[s]];
    cb_fleet_group *g = &f->groups[f->n_groups];
    g->model = strdup(first->model);
    g->members = malloc((size_t)(e - s) * sizeof *g->members);
    g->refs = calloc((size_t)(f->n_figures ? f->n_figures : 1), sizeof *g->refs);
    if (!g->model || !g->members || !g->refs) {
        free(g->model), free(g->members), free(g->refs);
        return false;
    }
    g->cpu_only = first->cpu_only;
    for (int k = s; k < e; k++) {
        g->members[g->n++] = order[k];
        f->members[order[k]].group = f->n_groups;
    }
    f->n_groups++;
    return true;
}

static bool make_groups(cb_fleet *f, cb_msg *err)
{
    int *order = malloc(((size_t)f->n_members + 1) * sizeof *order);
    f->groups = calloc((size_t)f->n_members + 1, sizeof *f->groups);
    if (!order || !f->groups) {
        free(order);
        return cb_fleet_oom(err);
    }
    int n = 0;
    for (int i = 0; i < f->n_members; i++)
        if (f->members[i].complete) order[n++] = i;
    sort_fleet = f;
    qsort(order, (size_t)n, sizeof *order, cmp_by_model);
    bool ok = true;
    for (int s = 0; ok && s < n;) {
        int e = s + 1;
        while (e < n && same_model(&f->members[order[e]], &f->members[order[s]]))
            e++;
        ok = add_group(f, order, s, e);
        s = e;
    }
    free(order);
    return ok || cb_fleet_oom(err);
}

/* ---- one figure of one model -------------------------------------------- */

static bool usable(const cb_cmp_point *p)
{
    return p && p->timed && p->n > 0;
}

/* The median of a point's times, sorted in a copy: the point's arrays keep
 * their time order (compare_units reads the rounds in it). NAN when out of
 * memory. */
static double point_median(const cb_cmp_point *p)
{
    double *copy = malloc((size_t)p->n * sizeof *copy);
    if (!copy) return NAN;
    memcpy(copy, p->times, (size_t)p->n * sizeof *copy);
    cb_cmp_sort(copy, p->n);
    double m = cb_stats_quantile_sorted(copy, p->n, 0.5);
    free(copy);
    return m;
}

/* A candidate of the figure in member m: declared for it, timed, with work. */
static bool candidate(const cb_fleet_member *m, const cb_fleet_figure *fig, const cb_cmp_point *p)
{
    return strcmp(p->device, m->device) == 0 && p->key_figure &&
           strcmp(p->key_figure, fig->name) == 0 && usable(p) && cb_fleet_work(fig, p) > 0;
}

/* Pool the candidates of the model's runs: a pooled point's "times" are
 * the runs' throughputs at it; origin[i] the point that brought it. */
static bool pool_candidates(const cb_fleet *f, const cb_fleet_group *g, const cb_fleet_figure *fig,
                            cb_cmp_run *pool, const cb_cmp_point ***origin, cb_msg *err)
{
    int cap = 0;
    for (int k = 0; k < g->n; k++) {
        const cb_fleet_member *m = &f->members[g->members[k]];
        const cb_cmp_run *run = &f->dirs[m->dir].run;
        for (int i = 0; i < run->n_points; i++) {
            const cb_cmp_point *pt = &run->points[i];
            if (!candidate(m, fig, pt)) continue;
            int before = pool->n_points;
            cb_cmp_point *q = cb_cmp_run_add_point(pool, pt->benchmark, pt->axes, "ok", NULL, err);
            if (!q) return false;
            if (pool->n_points > cap) {
                cap = cap ? 2 * cap : 64;
                const cb_cmp_point **grown = realloc(*origin, (size_t)cap * sizeof *grown);
                if (!grown) return cb_fleet_oom(err);
                *origin = grown;
            }
            if (pool->n_points > before) (*origin)[before] = pt;
            double med = point_median(pt);
            if (isnan(med) || !cb_cmp_point_add_time(q, cb_fleet_work(fig, pt) / med, 0, err))
                return isnan(med) ? cb_fleet_oom(err) : false;
        }
    }
    return true;
}

/* The reference point: among the pooled points that at least half of the
 * model's runs timed, the one with the highest median value, or for a
 * `largest` figure the one with the most work (then the highest median
 * value among equals). */
static void pick_ref(const cb_fleet_group *g, const cb_fleet_figure *fig, cb_cmp_run *pool,
                     const cb_cmp_point **origin, cb_fleet_ref *ref)
{
    int need = (g->n + 1) / 2, best_i = -1;
    double best = -1.0, best_work = -1.0;
    for (int i = 0; i < pool->n_points; i++) {
        cb_cmp_point *q = &pool->points[i];
        if (q->n < need) continue;
        cb_cmp_sort(q->times, q->n);
        double med = cb_stats_quantile_sorted(q->times, q->n, 0.5);
        double work = fig->rule == CB_CMP_KEY_LARGEST ? cb_fleet_work(fig, origin[i]) : 0.0;
        if (work > best_work || (work == best_work && med > best))
            best = med, best_work = work, best_i = i;
    }
    if (best_i < 0) return;
    ref->benchmark = origin[best_i]->benchmark; /* borrowed from the run that had it first */
    ref->axes = origin[best_i]->axes;
    ref->median_value = best;
}

static bool choose_ref(const cb_fleet *f, cb_fleet_group *g, int fig_i, cb_msg *err)
{
    cb_cmp_run pool;
    cb_cmp_run_init(&pool);
    const cb_cmp_point **origin = NULL;
    bool ok = pool_candidates(f, g, &f->figures[fig_i], &pool, &origin, err);
    if (ok) pick_ref(g, &f->figures[fig_i], &pool, origin, &g->refs[fig_i]);
    free(origin);
    cb_cmp_run_free(&pool);
    return ok;
}

static double median_of(double *v, int n)
{
    if (n == 0) return NAN;
    cb_cmp_sort(v, n);
    return cb_stats_quantile_sorted(v, n, 0.5);
}

/* The runs' values at the reference point. */
typedef struct figure_values {
    cb_fleet_value *vals;
    int *who;
    double *values, *clocks;
    int timed, n_clocks;
} figure_values;

static bool measure(cb_fleet *f, cb_fleet_group *g, int fig_i, figure_values *fv, cb_msg *err)
{
    const cb_fleet_figure *fig = &f->figures[fig_i];
    const cb_fleet_ref *ref = &g->refs[fig_i];
    for (int k = 0; k < g->n; k++) {
        cb_fleet_member *m = &f->members[g->members[k]];
        cb_fleet_cell *c = &m->cells[fig_i];
        const cb_cmp_point *pt = cb_fleet_point(f, m, ref->benchmark, ref->axes);
        c->point = pt;
        double work = pt ? cb_fleet_work(fig, pt) : 0.0;
        if (!usable(pt) || work <= 0) {
            c->verdict = CB_FLEET_MISSING;
            continue;
        }
        cb_side_est est;
        if (!cb_side_estimate(pt, NAN, &est, err)) return false;
        c->n = pt->n;
        c->value = work / est.median_s;
        fv->vals[fv->timed] = (cb_fleet_value){est.center, est.var, est.df};
        fv->who[fv->timed] = g->members[k];
        fv->values[fv->timed++] = c->value;
        if (!isnan(pt->facts.sm_clock_median_mhz))
            fv->clocks[fv->n_clocks++] = pt->facts.sm_clock_median_mhz;
    }
    return true;
}

static cb_fleet_verdict verdict_of(const cb_fleet_cell *c, const cb_fleet_loo *loo, int timed,
                                   const cb_fleet_opts *o)
{
    double limit = 1.0 + o->tolerance;
    if (timed < o->min_runs || isnan(loo->ci_lo)) return CB_FLEET_UNJUDGED;
    if (c->ci_hi < 1.0 / limit) return CB_FLEET_SLOW;
    if (c->ci_lo > limit) return CB_FLEET_FAST;
    return CB_FLEET_OK;
}

static void give_verdicts(cb_fleet *f, int fig_i, const figure_values *fv, cb_fleet_loo *loo,
                          const cb_fleet_opts *o)
{
    if (fv->timed >= 2) cb_fleet_leave_one_out(fv->vals, fv->timed, o->alpha, loo);
    for (int t = 0; t < fv->timed; t++) {
        cb_fleet_cell *c = &f->members[fv->who[t]].cells[fig_i];
        if (fv->timed < 2) { /* one run alone: nothing to set it against */
            c->verdict = CB_FLEET_UNJUDGED;
            continue;
        }
        /* Log times to throughput: the ratio and the CI invert. */
        c->ratio = exp(-loo[t].log_ratio);
        c->ci_lo = exp(-loo[t].ci_hi);
        c->ci_hi = exp(-loo[t].ci_lo);
        c->p = loo[t].p;
        c->verdict = verdict_of(c, &loo[t], fv->timed, o);
    }
}

static bool judge_figure(cb_fleet *f, cb_fleet_group *g, int fig_i, const cb_fleet_opts *o,
                         cb_msg *err)
{
    cb_fleet_ref *ref = &g->refs[fig_i];
    if (!choose_ref(f, g, fig_i, err)) return false;
    if (!ref->benchmark) return true; /* no run of the model measured it: NA */
    size_t n = (size_t)g->n;
    figure_values fv = {malloc(n * sizeof *fv.vals),
                        malloc(n * sizeof *fv.who),
                        malloc(n * sizeof *fv.values),
                        malloc(n * sizeof *fv.clocks),
                        0,
                        0};
    cb_fleet_loo *loo = malloc(n * sizeof *loo);
    bool ok = fv.vals && fv.who && fv.values && fv.clocks && loo;
    if (!ok) cb_fleet_oom(err);
    if (ok && (ok = measure(f, g, fig_i, &fv, err))) {
        ref->timed = fv.timed;
        give_verdicts(f, fig_i, &fv, loo, o);
        ref->median_value = median_of(fv.values, fv.timed);
        ref->median_sm_clock_mhz = median_of(fv.clocks, fv.n_clocks);
    }
    free(fv.vals), free(fv.who), free(fv.values), free(fv.clocks), free(loo);
    return ok;
}

/* ---- problems ----------------------------------------------------------- */

static void task_problem(const cb_fleet *f, cb_fleet_task *t)
{
    const char *node = t->node[0] ? t->node : "?";
    int d = cb_fleet_find_dir(f, t->run_dir);
    long long code;
    bool numeric = cb_parse_int(t->exit_code, -1000000, 1000000, &code, NULL);
    if (strcmp(t->state, "running") == 0)
        snprintf(t->problem, sizeof t->problem,
                 "started on %.60s but left no end record: killed (time limit, node failure "
                 "or scancel)",
                 node);
    else if (strcmp(t->state, "failed") == 0)
        snprintf(t->problem, sizeof t->problem, "failed on %.60s: exit %s%.20s%s%s%.120s", node,
                 numeric ? "" : "'", t->exit_code[0] ? t->exit_code : "?", numeric ? "" : "'",
                 t->reason[0] ? ": " : "", t->reason);
    else if (strcmp(t->state, "done") != 0 && strcmp(t->state, "reused") != 0)
        snprintf(t->problem, sizeof t->problem, "unknown state '%.16s'", t->state);
    else if (d < 0)
        snprintf(t->problem, sizeof t->problem, "recorded %.16s, but its run '%.100s' is missing",
                 t->state, t->run_dir);
    else if (f->dirs[d].task != t->id)
        snprintf(t->problem, sizeof t->problem,
                 "ran on %.60s into the run of task %d (same host and device): two tasks "
                 "shared a node, so another node has no run",
                 node, f->dirs[d].task);
}

/* The record of task `id` (records are sorted by id), or NULL. */
static int cmp_task_id(const void *id, const void *task)
{
    int a = *(const int *)id, b = ((const cb_fleet_task *)task)->id;
    return (a > b) - (a < b);
}

static const cb_fleet_task *find_task(const cb_fleet *f, int id)
{
    if (f->n_tasks <= 0) return NULL;
    return bsearch(&id, f->tasks, (size_t)f->n_tasks, sizeof *f->tasks, cmp_task_id);
}

static void member_problem(const cb_fleet *f, cb_fleet_member *m)
{
    const cb_fleet_task *t = m->task >= 0 ? find_task(f, m->task) : NULL;
    bool task_said = t && t->problem[0];
    if (!m->complete) {
        m->problem = !task_said;
    } else if (m->failed_points > 0) {
        snprintf(m->detail, sizeof m->detail, "%ld point(s) failed (status fail in results.csv)",
                 m->failed_points);
        m->problem = true;
    }
}

static bool clear_cells(cb_fleet *f, cb_msg *err)
{
    for (int i = 0; i < f->n_members; i++) {
        cb_fleet_member *m = &f->members[i];
        m->cells = malloc((size_t)(f->n_figures ? f->n_figures : 1) * sizeof *m->cells);
        if (!m->cells) return cb_fleet_oom(err);
        for (int c = 0; c < f->n_figures; c++)
            m->cells[c] = (cb_fleet_cell){NULL, 0, NAN, NAN, NAN, NAN, NAN, CB_FLEET_NA};
    }
    return true;
}

static void count_flags(cb_fleet *f)
{
    f->n_flagged = f->n_problems = 0;
    for (int i = 0; i < f->n_members; i++) {
        cb_fleet_member *m = &f->members[i];
        for (int c = 0; c < f->n_figures; c++) {
            cb_fleet_verdict v = m->cells[c].verdict;
            m->flagged =
                m->flagged || v == CB_FLEET_SLOW || v == CB_FLEET_FAST || v == CB_FLEET_MISSING;
        }
        f->n_flagged += m->flagged;
    }
    for (int t = 0; t < f->n_tasks; t++) {
        task_problem(f, &f->tasks[t]);
        f->n_problems += f->tasks[t].problem[0] != '\0';
    }
    for (int g = 0; g < f->n_gaps; g++)
        f->n_problems += f->gaps[g].last - f->gaps[g].first + 1;
    for (int i = 0; i < f->n_members; i++) {
        member_problem(f, &f->members[i]);
        f->n_problems += f->members[i].problem;
    }
}

bool cb_fleet_judge(cb_fleet *f, const cb_fleet_opts *o, cb_msg *err)
{
    if (!clear_cells(f, err) || !make_groups(f, err)) return false;
    for (int g = 0; g < f->n_groups; g++)
        for (int fig = 0; fig < f->n_figures; fig++)
            if (f->figures[fig].cpu == f->groups[g].cpu_only &&
                !judge_figure(f, &f->groups[g], fig, o, err))
                return false;
    count_flags(f);
    return true;
}
