/* history_check.c - every series' change points, and what each coincides
 * with (docs/history.md):
 *   1. a series' usable values are the log medians of its timed runs that
 *      were not throttled (a throttled run says what the clocks did, not
 *      what the code costs; compare never calls it a regression either);
 *   2. the series is cut where the machine's conditions change (another
 *      GPU, driver or CUDA runtime between two consecutive usable runs):
 *      the detector never sees such a step, so it cannot call it a
 *      regression; each cut is tested on its own (the runs since the last
 *      change point before it against those up to the next after it) and
 *      reported under its cause when significant;
 *   3. (cubench) a run more than 8 robust spreads away from the runs on both
 *      sides of it is an outlier and set aside too (reported as such);
 *   4. each piece goes to the detector (history_detect.c);
 *   5. a change is open when it is the last of its series; a regression
 *      when it is open, a code change, slower with its whole 1 - alpha CI
 *      above 1 + delta (compare's minimum-effect rule), and its first bad
 *      run is among the point's newest `recent` runs (its own runs: a
 *      commit measured as several run directories counts once per point). */
#include "compare_stats.h"
#include "history_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cb_hist_check_opts_default(cb_hist_check_opts *o)
{
    o->delta = 0.03;
    o->alpha = 0.01;
    o->p_split = 0.01;
    o->p_merge = 0.001;
    o->window = 50;
    o->min_runs = 2;
    o->recent = 5;
    o->method = CB_HIST_METHOD_CUBENCH;
}

const char *cb_hist_cause_name(cb_hist_cause c)
{
    static const char *const names[] = {"code", "machine", "driver", "runtime"};
    return cb_enum_name(names, CB_ARRAY_LEN(names), (int)c, "?");
}

void cb_hist_check_free(cb_hist_check *c)
{
    free(c->changes);
    free(c->events);
    free(c->outliers);
    memset(c, 0, sizeof *c);
}

static bool differs(const char *a, const char *b)
{
    return *a && *b && strcmp(a, b) != 0;
}

/* What changed from run a to run b, CODE when nothing did. `what` (may be
 * NULL) receives the words. */
static cb_hist_cause env_change(const cb_hist_run *a, const cb_hist_run *b, char *what, size_t len)
{
    cb_hist_cause c = CB_HIST_CAUSE_CODE;
    const char *from = "", *to = "", *label = "";
    if (differs(a->runtime, b->runtime))
        c = CB_HIST_CAUSE_RUNTIME, label = "CUDA runtime ", from = a->runtime, to = b->runtime;
    if (differs(a->driver_api, b->driver_api))
        c = CB_HIST_CAUSE_DRIVER, label = "CUDA driver API ", from = a->driver_api,
        to = b->driver_api;
    if (differs(a->driver, b->driver))
        c = CB_HIST_CAUSE_DRIVER, label = "driver ", from = a->driver, to = b->driver;
    if (differs(a->gpu_uuid, b->gpu_uuid))
        c = CB_HIST_CAUSE_MACHINE, label = "GPU ", from = a->gpu_uuid, to = b->gpu_uuid;
    if (differs(a->gpu_name, b->gpu_name))
        c = CB_HIST_CAUSE_MACHINE, label = "GPU ", from = a->gpu_name, to = b->gpu_name;
    if (what) snprintf(what, len, "%s%.80s -> %.80s", label, from, to);
    return c;
}

static bool usable(const cb_hist_value *v)
{
    return (strcmp(v->status, "ok") == 0 || strcmp(v->status, "noisy") == 0) && !v->throttle &&
           v->median_s > 0.0 && isfinite(v->median_s);
}

/* A growing array of changes. */
typedef struct changes {
    cb_hist_change *v;
    int n, cap;
} changes;

static bool push_change(changes *c, const cb_hist_change *ch)
{
    cb_hist_change *v = cb_grow_array(c->v, c->n, &c->cap, 64, sizeof *v);
    if (!v) return false;
    c->v = v;
    c->v[c->n++] = *ch;
    return true;
}

/* One series prepared for detection. */
typedef struct prepared {
    double *x; /* usable log medians, in run order        */
    int *at;   /* x[i] is series value at[i]              */
    int n;
    int *cut;             /* segment starts in x (cut[0] = 0), n_cut of them, then n */
    cb_hist_cause *cause; /* cause[s]: what starts segment s (s >= 1) */
    int n_cut;
} prepared;

static void prepared_free(prepared *p)
{
    free(p->x), free(p->at), free(p->cut), free(p->cause);
    memset(p, 0, sizeof *p);
}

static bool prepare(const cb_hist_data *d, const cb_hist_series *s, prepared *p)
{
    memset(p, 0, sizeof *p);
    p->x = malloc((size_t)(s->n + 1) * sizeof *p->x);
    p->at = malloc((size_t)(s->n + 1) * sizeof *p->at);
    p->cut = malloc((size_t)(s->n + 2) * sizeof *p->cut);
    p->cause = malloc((size_t)(s->n + 2) * sizeof *p->cause);
    if (!p->x || !p->at || !p->cut || !p->cause) return false;
    p->cut[0] = 0;
    p->cause[0] = CB_HIST_CAUSE_CODE;
    p->n_cut = 1;
    for (int i = 0; i < s->n; i++) {
        if (!usable(&s->v[i])) continue;
        if (p->n > 0) {
            const cb_hist_run *a = &d->runs[s->v[p->at[p->n - 1]].run], *b = &d->runs[s->v[i].run];
            cb_hist_cause c = env_change(a, b, NULL, 0);
            if (c != CB_HIST_CAUSE_CODE) p->cause[p->n_cut] = c, p->cut[p->n_cut++] = p->n;
        }
        p->x[p->n] = log(s->v[i].median_s);
        p->at[p->n++] = i;
    }
    p->cut[p->n_cut] = p->n;
    return true;
}

/* How far (in the segment's robust spread per run) a run must sit from the
 * runs on both sides of it to be an outlier. 8: on the generated H200
 * series (tests/history/history_sim.c) it finds the unflagged 10-30% slow
 * runs, and leaves the false change points of series without them where
 * they were (5 and 6 also set aside the tails of the noisiest points). */
#define CB_HIST_OUTLIER_K 8.0

static double median_of(const double *x, int n)
{
    double v[8];
    memcpy(v, x, (size_t)n * sizeof *v);
    for (int i = 1; i < n; i++) /* n <= 3: insertion */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1], v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Is x[i] an outlier in [lo, hi): more than K spreads above (or below) the
 * median of up to 3 runs on its left and of up to 3 on its right? A run
 * after a step is like its right side, so it is never one; the two newest
 * runs of a segment are never judged (nothing on their right yet). */
static bool is_outlier(const double *x, int lo, int hi, int i, double reach)
{
    if (i - lo < 2 || hi - i - 1 < 2) return false;
    int nl = i - lo < 3 ? i - lo : 3, nr = hi - i - 1 < 3 ? hi - i - 1 : 3;
    double dl = x[i] - median_of(x + i - nl, nl), dr = x[i] - median_of(x + i + 1, nr);
    return (dl > reach && dr > reach) || (dl < -reach && dr < -reach);
}

/* Set the outlier runs of each segment aside (cubench's method): a run far
 * off both its neighbours with no throttle word to explain it would
 * otherwise be a change point up and another down, or hide a step. */
static bool set_outliers_aside(prepared *p, int series, cb_hist_check *out)
{
    bool *flag = calloc((size_t)p->n + 1, sizeof *flag);
    if (!flag) return false;
    for (int g = 0; g < p->n_cut; g++) {
        int lo = p->cut[g], hi = p->cut[g + 1];
        double sd = cb_cpd_noise(p->x + lo, hi - lo);
        double reach = CB_HIST_OUTLIER_K * (sd > CB_HIST_SPREAD_FLOOR ? sd : CB_HIST_SPREAD_FLOOR);
        for (int i = lo; i < hi; i++)
            flag[i] = is_outlier(p->x, lo, hi, i, reach);
    }
    int kept = 0, g = 1;
    for (int i = 0; i < p->n; i++) {
        while (g < p->n_cut && p->cut[g] == i)
            p->cut[g++] = kept;
        if (!flag[i]) {
            p->x[kept] = p->x[i], p->at[kept++] = p->at[i];
            continue;
        }
        cb_hist_outlier *v = realloc(out->outliers, (size_t)(out->n_outliers + 1) * sizeof *v);
        if (!v) {
            free(flag);
            return false;
        }
        out->outliers = v;
        out->outliers[out->n_outliers++] = (cb_hist_outlier){series, p->at[i]};
    }
    while (g <= p->n_cut)
        p->cut[g++] = kept;
    p->n = kept;
    free(flag);
    return true;
}

static void detect_opts(const cb_hist_check_opts *o, cb_cpd_opts *c)
{
    bool hunter = o->method == CB_HIST_METHOD_HUNTER;
    c->p_split = o->p_split;
    c->p_merge = o->p_merge;
    c->window = o->window;
    c->min_seg = hunter ? 1 : o->min_runs > 1 ? o->min_runs : 1; /* hunter: any */
    c->student = hunter;
    c->floor_rel = CB_HIST_SPREAD_FLOOR;
}

/* The change record of a step found (or tested) in x. */
static void describe(const cb_hist_series *s, const prepared *p, int series, const cb_cpd_step *st,
                     cb_hist_cause cause, const cb_hist_check_opts *o, cb_hist_change *ch)
{
    memset(ch, 0, sizeof *ch);
    ch->series = series;
    ch->before = p->at[st->at - 1];
    ch->after = p->at[st->at];
    ch->run = s->v[ch->after].run;
    ch->ratio = exp(st->d);
    double t = st->df > 0.0 ? cb_t_quantile(1.0 - o->alpha / 2.0, st->df) : INFINITY;
    ch->ci_lo = exp(st->d - t * st->se);
    ch->ci_hi = exp(st->d + t * st->se);
    ch->p = st->p;
    ch->n_before = st->at - st->lo;
    ch->n_after = st->hi - st->at;
    ch->cause = cause;
    int lo = ch->before - 2 > 0 ? ch->before - 2 : 0;
    int hi = ch->after + 2 < s->n - 1 ? ch->after + 2 : s->n - 1;
    for (int i = lo; i <= hi; i++)
        ch->throttled_near += s->v[i].throttle != NULL;
}

/* Detect inside each segment; `found` receives x-indexes of all steps found
 * (for the cuts' tests), `n_found` their count. */
static bool detect_segments(const cb_hist_series *s, const prepared *p, int series,
                            const cb_hist_check_opts *o, cb_cpd_step *steps, int *n_steps,
                            changes *out)
{
    cb_cpd_opts co;
    detect_opts(o, &co);
    *n_steps = 0;
    for (int g = 0; g < p->n_cut; g++) {
        int lo = p->cut[g], hi = p->cut[g + 1];
        int k = cb_cpd_detect(p->x + lo, hi - lo, &co, steps + *n_steps);
        if (k < 0) return false;
        for (int i = 0; i < k; i++) {
            cb_cpd_step *st = &steps[*n_steps + i];
            st->at += lo, st->lo += lo, st->hi += lo;
            cb_hist_change ch;
            describe(s, p, series, st, CB_HIST_CAUSE_CODE, o, &ch);
            if (!push_change(out, &ch)) return false;
        }
        *n_steps += k;
    }
    return true;
}

/* Test each cut between the nearest change points on either side. */
static bool test_cuts(const cb_hist_series *s, const prepared *p, int series,
                      const cb_hist_check_opts *o, const cb_cpd_step *steps, int n_steps,
                      changes *out)
{
    for (int g = 1; g < p->n_cut; g++) {
        int at = p->cut[g], lo = p->cut[g - 1], hi = p->cut[g + 1];
        for (int i = 0; i < n_steps; i++) {
            if (steps[i].at <= at && steps[i].at > lo) lo = steps[i].at;
            if (steps[i].at > at && steps[i].at < hi) hi = steps[i].at;
        }
        if (at - lo < 1 || hi - at < 1 || hi - lo < 3) continue;
        double floor_sd = cb_cpd_noise(p->x + lo, at - lo);
        double right = cb_cpd_noise(p->x + at, hi - at);
        if (right > floor_sd) floor_sd = right;
        if (floor_sd < CB_HIST_SPREAD_FLOOR) floor_sd = CB_HIST_SPREAD_FLOOR;
        cb_cpd_step st;
        cb_cpd_test(p->x, lo, at, hi, floor_sd, o->method == CB_HIST_METHOD_HUNTER, &st);
        if (!(st.p <= o->p_merge)) continue;
        cb_hist_change ch;
        describe(s, p, series, &st, p->cause[g], o, &ch);
        if (!push_change(out, &ch)) return false;
    }
    return true;
}

/* Mark each series' last change open, and the regressions among them. */
static void judge_open(const cb_hist_data *d, cb_hist_change *v, int n, int first,
                       const cb_hist_check_opts *o)
{
    int last = -1;
    for (int i = first; i < n; i++)
        if (last < 0 || v[i].after > v[last].after) last = i;
    if (last < 0) return;
    cb_hist_change *ch = &v[last];
    ch->open = true;
    const cb_hist_series *s = &d->series[ch->series];
    ch->regression = ch->cause == CB_HIST_CAUSE_CODE && ch->ci_lo > 1.0 + o->delta &&
                     s->n - ch->after <= o->recent;
}

static bool check_series(const cb_hist_data *d, int series, const cb_hist_check_opts *o,
                         changes *out, cb_hist_check *check)
{
    const cb_hist_series *s = &d->series[series];
    prepared p = {0};
    cb_cpd_step *steps = malloc((size_t)(s->n + 1) * sizeof *steps);
    bool ok = steps && prepare(d, s, &p);
    if (ok && o->method == CB_HIST_METHOD_CUBENCH) ok = set_outliers_aside(&p, series, check);
    int first = out->n, n_steps = 0;
    if (ok && p.n >= 2 * (o->min_runs > 1 ? o->min_runs : 1)) {
        check->series++;
        ok = detect_segments(s, &p, series, o, steps, &n_steps, out) &&
             test_cuts(s, &p, series, o, steps, n_steps, out);
    }
    if (ok) judge_open(d, out->v, out->n, first, o);
    prepared_free(&p);
    free(steps);
    return ok;
}

/* Regressions, then other open changes, then the rest; newest first. */
static int change_order(const cb_hist_change *c)
{
    return c->regression ? 0 : c->open ? 1 : 2;
}

static int cmp_change(const void *pa, const void *pb)
{
    const cb_hist_change *a = pa, *b = pb;
    int oa = change_order(a), ob = change_order(b);
    if (oa != ob) return oa - ob;
    if (a->run != b->run) return b->run - a->run;
    return a->series - b->series;
}

/* Changes of conditions between consecutive runs of each machine. */
static bool machine_events(const cb_hist_data *d, cb_hist_check *out)
{
    for (int i = 1; i < d->n_runs; i++) {
        const cb_hist_run *a = &d->runs[i - 1], *b = &d->runs[i];
        if (strcmp(a->machine, b->machine) != 0) continue;
        cb_hist_event e = {i, CB_HIST_CAUSE_CODE, ""};
        e.cause = env_change(a, b, e.what, sizeof e.what);
        if (e.cause == CB_HIST_CAUSE_CODE) continue;
        cb_hist_event *v = realloc(out->events, (size_t)(out->n_events + 1) * sizeof *v);
        if (!v) return false;
        out->events = v;
        out->events[out->n_events++] = e;
    }
    return true;
}

bool cb_history_check(const cb_hist_data *d, const cb_hist_check_opts *o, cb_hist_check *out,
                      cb_msg *err)
{
    memset(out, 0, sizeof *out);
    changes all = {0};
    bool ok = true;
    for (int i = 0; ok && i < d->n_series; i++)
        ok = check_series(d, i, o, &all, out);
    ok = ok && machine_events(d, out);
    if (!ok) {
        free(all.v);
        cb_hist_check_free(out);
        return cb_hist_oom(err);
    }
    if (all.n > 1) qsort(all.v, (size_t)all.n, sizeof *all.v, cmp_change);
    out->changes = all.v;
    out->n_changes = all.n;
    for (int i = 0; i < all.n; i++)
        out->regressions += all.v[i].regression;
    return true;
}
