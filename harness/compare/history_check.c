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
 *   3. each piece goes to the detector (history_detect.c);
 *   4. a change is open when it is the last of its series; a regression
 *      when it is open, a code change, slower with its whole 1 - alpha CI
 *      above 1 + delta (compare's minimum-effect rule), and its first bad
 *      run is among the machine's newest `recent` runs. */
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
    o->min_runs = 1;
    o->recent = 5;
    o->method = CB_HIST_METHOD_CUBENCH;
}

const char *cb_hist_cause_name(cb_hist_cause c)
{
    static const char *const names[] = {"code", "machine", "driver", "runtime"};
    return c >= 0 && c < CB_ARRAY_LEN(names) ? names[c] : "?";
}

void cb_hist_check_free(cb_hist_check *c)
{
    free(c->changes);
    free(c->events);
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
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        cb_hist_change *v = realloc(c->v, (size_t)cap * sizeof *v);
        if (!v) return false;
        c->v = v, c->cap = cap;
    }
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

static void detect_opts(const cb_hist_check_opts *o, cb_cpd_opts *c)
{
    bool hunter = o->method == CB_HIST_METHOD_HUNTER;
    c->p_split = o->p_split;
    c->p_merge = o->p_merge;
    c->window = o->window;
    c->min_seg = o->min_runs > 1 ? o->min_runs : 1;
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

/* The position of each run among its machine's runs, counted from the
 * newest (0: the newest). Runs are sorted by machine, then start. */
static int *rank_from_newest(const cb_hist_data *d)
{
    int *rank = malloc((size_t)(d->n_runs + 1) * sizeof *rank);
    if (!rank) return NULL;
    for (int i = 0; i < d->n_runs;) {
        int j = i;
        while (j < d->n_runs && strcmp(d->runs[j].machine, d->runs[i].machine) == 0)
            j++;
        for (int k = i; k < j; k++)
            rank[k] = j - 1 - k;
        i = j;
    }
    return rank;
}

/* Mark each series' last change open, and the regressions among them. */
static void judge_open(const cb_hist_data *d, cb_hist_change *v, int n, int first, const int *rank,
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
                     rank[s->v[ch->after].run] < o->recent;
}

static bool check_series(const cb_hist_data *d, int series, const cb_hist_check_opts *o,
                         const int *rank, changes *out, int *tested)
{
    const cb_hist_series *s = &d->series[series];
    prepared p = {0};
    cb_cpd_step *steps = malloc((size_t)(s->n + 1) * sizeof *steps);
    bool ok = steps && prepare(d, s, &p);
    int first = out->n, n_steps = 0;
    if (ok && p.n >= 2 * (o->min_runs > 1 ? o->min_runs : 1)) {
        (*tested)++;
        ok = detect_segments(s, &p, series, o, steps, &n_steps, out) &&
             test_cuts(s, &p, series, o, steps, n_steps, out);
    }
    if (ok) judge_open(d, out->v, out->n, first, rank, o);
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
    int *rank = rank_from_newest(d);
    bool ok = rank != NULL;
    for (int i = 0; ok && i < d->n_series; i++)
        ok = check_series(d, i, o, rank, &all, &out->series);
    ok = ok && machine_events(d, out);
    free(rank);
    if (!ok) {
        free(all.v);
        cb_hist_check_free(out);
        cb_msg_set(err, "history: out of memory");
        return false;
    }
    qsort(all.v, (size_t)all.n, sizeof *all.v, cmp_change);
    out->changes = all.v;
    out->n_changes = all.n;
    for (int i = 0; i < all.n; i++)
        out->regressions += all.v[i].regression;
    return true;
}
