/* fleet_judge.c - group the runs by model, choose each figure's reference
 * point, compare every run with the others there, and collect the problems
 * (the rules are in fleet.h).
 *
 * Cost: a candidate point's samples are copied and sorted once for its
 * median (N log N); a figure's candidates are pooled in a hash keyed by
 * identity (compare_load's), so the choice of its reference point is linear
 * in the rows; each run's value is compare's side estimate (compare_units.h,
 * N log N) and the comparisons are fleet_stat's, linear in the runs.
 */
#include "fleet.h"

#include "compare_stats.h"
#include "compare_units.h"
#include "fleet_stat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool oom(cb_msg *err)
{
    cb_msg_set(err, "fleet: out of memory");
    return false;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

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

static bool make_groups(cb_fleet *f, cb_msg *err)
{
    int *order = malloc(((size_t)f->n_members + 1) * sizeof *order);
    f->groups = calloc((size_t)f->n_members + 1, sizeof *f->groups);
    if (!order || !f->groups) {
        free(order);
        return oom(err);
    }
    int n = 0;
    for (int i = 0; i < f->n_members; i++)
        if (f->members[i].complete) order[n++] = i;
    sort_fleet = f;
    qsort(order, (size_t)n, sizeof *order, cmp_by_model);
    for (int s = 0; s < n;) {
        const cb_fleet_member *first = &f->members[order[s]];
        int e = s + 1;
        while (e < n && strcmp(f->members[order[e]].model, first->model) == 0 &&
               f->members[order[e]].cpu_only == first->cpu_only)
            e++;
        cb_fleet_group *g = &f->groups[f->n_groups];
        g->model = strdup(first->model);
        g->members = malloc((size_t)(e - s) * sizeof *g->members);
        if (!g->model || !g->members) {
            free(g->model), free(g->members);
            free(order);
            return oom(err);
        }
        g->cpu_only = first->cpu_only;
        for (int k = s; k < e; k++) {
            g->members[g->n++] = order[k];
            f->members[order[k]].group = f->n_groups;
        }
        f->n_groups++;
        s = e;
    }
    free(order);
    return true;
}

/* ---- one figure of one model -------------------------------------------- */

/* The work of a point in the figure's unit times 1e9 or 1e12, or 0. */
static double unit_work(const cb_fleet_figure *fig, const cb_fleet_point_info *in)
{
    double w = fig->flops ? in->flops / 1e12 : in->bytes / 1e9;
    return w > 0 && isfinite(w) ? w : 0.0;
}

static bool usable(const cb_cmp_point *p)
{
    return p->timed && p->n > 0;
}

/* The median of a point's times, sorted in a copy: the point's arrays keep
 * their time order (compare_units reads the rounds in it). NAN when out of
 * memory. */
static double point_median(const cb_cmp_point *p, double **scratch, int *cap)
{
    if (p->n > *cap) {
        double *grown = realloc(*scratch, (size_t)p->n * sizeof *grown);
        if (!grown) return NAN;
        *scratch = grown;
        *cap = p->n;
    }
    memcpy(*scratch, p->times, (size_t)p->n * sizeof **scratch);
    qsort(*scratch, (size_t)p->n, sizeof **scratch, cmp_double);
    return cb_cmp_quantile(*scratch, p->n, 0.5);
}

/* The reference point: among the points the figure matches that at least
 * half of the model's runs timed, the one with the highest median value, or
 * for a `largest` figure the one with the most work (then the highest
 * median value among equals). */
static bool choose_ref(cb_fleet *f, cb_fleet_group *g, int fig_i, cb_msg *err)
{
    const cb_fleet_figure *fig = &cb_fleet_figures[fig_i];
    cb_fleet_ref *ref = &g->refs[fig_i];
    cb_cmp_run pool; /* "times" of a pooled point are the runs' values */
    cb_cmp_run_init(&pool);
    int *origin = NULL; /* pool point -> member that added it first */
    int origin_cap = 0, scratch_cap = 0;
    double *scratch = NULL;
    bool ok = true;
    for (int k = 0; ok && k < g->n; k++) {
        cb_fleet_member *m = &f->members[g->members[k]];
        for (int p = 0; ok && p < m->run.n_points; p++) {
            const cb_cmp_point *pt = &m->run.points[p];
            double work = unit_work(fig, &m->info[p]);
            if (!usable(pt) || work <= 0 || !fig->match(pt->benchmark, pt->axes)) continue;
            int before = pool.n_points;
            cb_cmp_point *q = cb_cmp_run_add_point(&pool, pt->benchmark, pt->axes, "ok", NULL, err);
            if (!q) {
                ok = false;
                break;
            }
            if (pool.n_points > before) {
                if (pool.n_points > origin_cap) {
                    origin_cap = origin_cap ? origin_cap * 2 : 64;
                    int *grown = realloc(origin, (size_t)origin_cap * sizeof *origin);
                    if (!grown) {
                        ok = oom(err);
                        break;
                    }
                    origin = grown;
                }
                origin[before] = g->members[k];
            }
            double med = point_median(pt, &scratch, &scratch_cap);
            if (isnan(med)) ok = oom(err);
            if (ok) ok = cb_cmp_point_add_time(q, work / med, 0, err);
        }
    }
    int need = (g->n + 1) / 2;
    double best = -1.0, best_work = -1.0;
    int best_i = -1;
    for (int i = 0; ok && i < pool.n_points; i++) {
        cb_cmp_point *q = &pool.points[i];
        if (q->n < need) continue;
        qsort(q->times, (size_t)q->n, sizeof *q->times, cmp_double);
        double med = cb_cmp_quantile(q->times, q->n, 0.5);
        const cb_fleet_member *m = &f->members[origin[i]];
        const cb_cmp_point *pt = cb_cmp_run_find(&m->run, q->benchmark, q->axes);
        double work = fig->largest ? unit_work(fig, &m->info[pt - m->run.points]) : 0.0;
        if (work > best_work || (work == best_work && med > best)) {
            best = med;
            best_work = work;
            best_i = i;
        }
    }
    if (ok && best_i >= 0) {
        /* Borrow the names from the run that added the point first. */
        const cb_fleet_member *m = &f->members[origin[best_i]];
        const cb_cmp_point *pt =
            cb_cmp_run_find(&m->run, pool.points[best_i].benchmark, pool.points[best_i].axes);
        ref->benchmark = pt->benchmark;
        ref->axes = pt->axes;
        ref->median_value = best;
    }
    free(origin);
    free(scratch);
    cb_cmp_run_free(&pool);
    return ok;
}

static double median_of(double *v, int n)
{
    if (n == 0) return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return cb_cmp_quantile(v, n, 0.5);
}

static bool judge_figure(cb_fleet *f, cb_fleet_group *g, int fig_i, const cb_fleet_opts *o,
                         cb_msg *err)
{
    const cb_fleet_figure *fig = &cb_fleet_figures[fig_i];
    cb_fleet_ref *ref = &g->refs[fig_i];
    if (!choose_ref(f, g, fig_i, err)) return false;
    if (!ref->benchmark) return true; /* no run of the model measured it: NA */

    cb_fleet_value *vals = malloc((size_t)g->n * sizeof *vals);
    cb_fleet_loo *loo = malloc((size_t)g->n * sizeof *loo);
    int *who = malloc((size_t)g->n * sizeof *who);
    double *values = malloc((size_t)g->n * sizeof *values);
    double *clocks = malloc((size_t)g->n * sizeof *clocks);
    bool ok = vals && loo && who && values && clocks;
    if (!ok) oom(err);
    int timed = 0, n_clocks = 0;
    for (int k = 0; ok && k < g->n; k++) {
        cb_fleet_member *m = &f->members[g->members[k]];
        cb_fleet_cell *c = &m->cells[fig_i];
        const cb_cmp_point *pt = cb_cmp_run_find(&m->run, ref->benchmark, ref->axes);
        c->point = pt ? (int)(pt - m->run.points) : -1;
        double work = pt ? unit_work(fig, &m->info[c->point]) : 0.0;
        if (!pt || !usable(pt) || work <= 0) {
            c->verdict = CB_FLEET_MISSING;
            continue;
        }
        cb_side_est est;
        if (!cb_side_estimate(pt, &est, err)) {
            ok = false;
            break;
        }
        c->n = pt->n;
        c->value = work / est.median_s;
        vals[timed] = (cb_fleet_value){est.center, est.var, est.df};
        who[timed] = g->members[k];
        values[timed++] = c->value;
        double clock = m->info[c->point].sm_clock_median_mhz;
        if (!isnan(clock)) clocks[n_clocks++] = clock;
    }
    if (ok) {
        ref->timed = timed;
        if (timed >= 2) cb_fleet_leave_one_out(vals, timed, o->alpha, loo);
        for (int t = 0; t < timed; t++) {
            cb_fleet_cell *c = &f->members[who[t]].cells[fig_i];
            if (timed < 2) {
                c->verdict = CB_FLEET_UNJUDGED; /* one run alone: nothing to set it against */
                continue;
            }
            /* Log times to throughput: the ratio and the CI invert. */
            c->ratio = exp(-loo[t].log_ratio);
            c->ci_lo = exp(-loo[t].ci_hi);
            c->ci_hi = exp(-loo[t].ci_lo);
            c->p = loo[t].p;
            double limit = 1.0 + o->tolerance;
            if (timed < o->min_runs || isnan(loo[t].ci_lo))
                c->verdict = CB_FLEET_UNJUDGED;
            else if (c->ci_hi < 1.0 / limit)
                c->verdict = CB_FLEET_SLOW;
            else if (c->ci_lo > limit)
                c->verdict = CB_FLEET_FAST;
            else
                c->verdict = CB_FLEET_OK;
        }
        ref->median_value = median_of(values, timed);
        ref->median_sm_clock_mhz = median_of(clocks, n_clocks);
    }
    free(vals), free(loo), free(who), free(values), free(clocks);
    return ok;
}

/* ---- problems ----------------------------------------------------------- */

static void task_problem(cb_fleet *f, cb_fleet_task *t)
{
    const char *node = t->node[0] ? t->node : "?";
    int d = cb_fleet_find_dir(f, t->run_dir);
    if (!t->state[0]) {
        if (f->expected >= 0 && t->id >= f->expected) return; /* not part of the array */
        snprintf(t->problem, sizeof t->problem,
                 "no record: the task never started (pending, cancelled, or its node failed "
                 "before it ran)");
    } else if (strcmp(t->state, "running") == 0) {
        snprintf(t->problem, sizeof t->problem,
                 "started on %.60s but left no end record: killed (time limit, node failure "
                 "or scancel)",
                 node);
    } else if (strcmp(t->state, "failed") == 0) {
        snprintf(t->problem, sizeof t->problem, "failed on %.60s: exit %d%s%.120s", node,
                 t->exit_code, t->reason[0] ? ": " : "", t->reason);
    } else if (strcmp(t->state, "done") != 0 && strcmp(t->state, "reused") != 0) {
        snprintf(t->problem, sizeof t->problem, "unknown state '%.16s'", t->state);
    } else if (d < 0) {
        snprintf(t->problem, sizeof t->problem, "recorded %.16s, but its run '%.60s' is missing",
                 t->state, t->run_dir);
    } else if (f->dirs[d].task != t->id) {
        snprintf(t->problem, sizeof t->problem,
                 "ran on %.60s into the run of task %d (same host and device): two tasks "
                 "shared a node, so another node has no run",
                 node, f->dirs[d].task);
    }
}

static void member_problem(cb_fleet *f, cb_fleet_member *m)
{
    bool task_said = m->task >= 0 && f->tasks[m->task].problem[0];
    if (!m->complete) {
        m->problem = !task_said;
    } else if (m->failed_points > 0) {
        snprintf(m->detail, sizeof m->detail, "%ld point(s) failed (status fail in results.csv)",
                 m->failed_points);
        m->problem = true;
    }
}

bool cb_fleet_judge(cb_fleet *f, const cb_fleet_opts *o, cb_msg *err)
{
    for (int i = 0; i < f->n_members; i++)
        for (int c = 0; c < CB_FLEET_FIGURES; c++)
            f->members[i].cells[c] = (cb_fleet_cell){-1, 0, NAN, NAN, NAN, NAN, NAN, CB_FLEET_NA};
    if (!make_groups(f, err)) return false;
    for (int g = 0; g < f->n_groups; g++)
        for (int fig = 0; fig < CB_FLEET_FIGURES; fig++)
            if (cb_fleet_figures[fig].cpu == f->groups[g].cpu_only &&
                !judge_figure(f, &f->groups[g], fig, o, err))
                return false;

    f->n_flagged = f->n_problems = 0;
    for (int i = 0; i < f->n_members; i++) {
        cb_fleet_member *m = &f->members[i];
        for (int c = 0; c < CB_FLEET_FIGURES; c++) {
            cb_fleet_verdict v = m->cells[c].verdict;
            if (v == CB_FLEET_SLOW || v == CB_FLEET_FAST || v == CB_FLEET_MISSING)
                m->flagged = true;
        }
        f->n_flagged += m->flagged;
    }
    for (int t = 0; t < f->n_tasks; t++) {
        task_problem(f, &f->tasks[t]);
        f->n_problems += f->tasks[t].problem[0] != '\0';
    }
    for (int i = 0; i < f->n_members; i++) {
        member_problem(f, &f->members[i]);
        f->n_problems += f->members[i].problem;
    }
    return true;
}
