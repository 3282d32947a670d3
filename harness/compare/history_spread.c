/* history_spread.c - the between-run spread of a point, learned from its own
 * past runs: what `cubench compare --history DB` adds for a side of fewer
 * than 3 runs (history.h states the rule).
 *
 * The spread per run is measured around the series' own levels: the
 * newest CB_HIST_SPREAD_RUNS usable runs are cut at every change point and
 * change of conditions that history_check finds in them (its outliers left
 * out), and the squared
 * deviations from each piece's mean are pooled (df: runs - pieces). A run's
 * median carries its own sampling noise, which compare counts separately
 * (the side's variance), so the mean of the runs' own variance (from
 * results.csv's 95% CI) is taken off. */
#include "history_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The sampling variance of a run's log median from its 95% CI, or 0. */
static double own_variance(const cb_hist_value *v)
{
    if (!(v->ci_lo_s > 0.0 && v->ci_hi_s >= v->ci_lo_s)) return 0.0;
    double sd = (log(v->ci_hi_s) - log(v->ci_lo_s)) / (2.0 * 1.959963984540054);
    return sd * sd;
}

static bool usable(const cb_hist_value *v)
{
    return (strcmp(v->status, "ok") == 0 || strcmp(v->status, "noisy") == 0) && !v->throttle &&
           v->median_s > 0.0 && isfinite(v->median_s);
}

/* The pieces of a series' tail: where each starts (a change's first bad
 * value) and which values are outliers, as history_check finds them. */
static bool pieces_of(const cb_hist_data *d, const cb_hist_series *tail,
                      const cb_hist_check_opts *o, bool *starts, bool *outlier, cb_msg *err)
{
    cb_hist_data one = *d;
    one.series = (cb_hist_series *)tail;
    one.n_series = 1;
    cb_hist_check c;
    if (!cb_history_check(&one, o, &c, err)) return false;
    for (int i = 0; i < c.n_changes; i++)
        starts[c.changes[i].after] = true;
    for (int i = 0; i < c.n_outliers; i++)
        outlier[c.outliers[i].value] = true;
    cb_hist_check_free(&c);
    return true;
}

/* Pool the squared deviations from each piece's mean into out. */
static void pool(const cb_hist_series *tail, const bool *starts, const bool *outlier,
                 cb_hist_spread *out)
{
    double ss = 0.0, own = 0.0, sum = 0.0, sq = 0.0;
    int runs = 0, pieces = 0, in_piece = 0;
    for (int i = 0; i <= tail->n; i++) {
        if ((i == tail->n || starts[i]) && in_piece > 0) {
            ss += sq - sum * sum / in_piece;
            pieces++;
            in_piece = 0, sum = sq = 0.0;
        }
        if (i == tail->n || !usable(&tail->v[i]) || outlier[i]) continue;
        double x = log(tail->v[i].median_s);
        sum += x, sq += x * x, in_piece++;
        own += own_variance(&tail->v[i]);
        runs++;
    }
    out->runs = runs;
    out->df = runs - pieces;
    if (out->df < 1.0 || runs < 3) {
        out->df = 0.0;
        return;
    }
    double var = ss / out->df - own / runs;
    double floor = CB_HIST_SPREAD_FLOOR * CB_HIST_SPREAD_FLOOR;
    out->sd = sqrt(var > floor ? var : floor);
}

bool cb_hist_series_spread(const cb_hist_data *d, int series, const cb_hist_check_opts *o,
                           cb_hist_spread *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    const cb_hist_series *s = &d->series[series];
    /* the newest usable runs, as a series of their own */
    int first = s->n, used = 0;
    while (first > 0 && used < CB_HIST_SPREAD_RUNS)
        used += usable(&s->v[--first]);
    cb_hist_series tail = *s;
    tail.v = s->v + first;
    tail.n = s->n - first;
    bool *starts = calloc((size_t)tail.n + 1, sizeof *starts);
    bool *outlier = calloc((size_t)tail.n + 1, sizeof *outlier);
    bool ok = starts && outlier;
    if (!ok) cb_hist_oom(err);
    ok = ok && pieces_of(d, &tail, o, starts, outlier, err);
    if (ok) pool(&tail, starts, outlier, out);
    free(starts), free(outlier);
    return ok;
}

bool cb_history_point_spread(cb_history *h, const char *machine, const char *benchmark,
                             const char *axes, const char *device, cb_hist_spread *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    cb_hist_data d;
    cb_hist_filter f = {machine, NULL, NULL, 0, benchmark, axes, device};
    if (!cb_history_load(h, &f, &d, err)) return false;
    bool ok = true;
    if (d.n_series > 0) {
        cb_hist_check_opts o;
        cb_hist_check_opts_default(&o);
        ok = cb_hist_series_spread(&d, 0, &o, out, err);
    }
    cb_hist_data_free(&d);
    return ok;
}

bool cb_history_spread_table(cb_history *h, const char *machine, cb_hist_spread_table *out,
                             cb_msg *err)
{
    memset(out, 0, sizeof *out);
    cb_hist_filter f = {machine, NULL, NULL, 0, NULL, NULL, NULL};
    if (!cb_history_load(h, &f, &out->data, err)) return false;
    out->spread = calloc((size_t)out->data.n_series + 1, sizeof *out->spread);
    bool ok = out->spread != NULL;
    if (!ok) cb_hist_oom(err);
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    for (int i = 0; ok && i < out->data.n_series; i++)
        ok = cb_hist_series_spread(&out->data, i, &o, &out->spread[i], err);
    if (!ok) cb_hist_spread_table_free(out);
    return ok;
}

static int cmp_series_key(const void *key, const void *elem)
{
    const cb_hist_series *k = key, *s = elem;
    int c = strcmp(k->benchmark, s->benchmark);
    if (!c) c = strcmp(k->axes, s->axes);
    return c ? c : strcmp(k->device, s->device);
}

const cb_hist_spread *cb_hist_spread_find(const cb_hist_spread_table *t, const char *benchmark,
                                          const char *axes, const char *device)
{
    /* one machine: the series are sorted by benchmark, axes, device */
    cb_hist_series key = {.benchmark = (char *)benchmark, .axes = (char *)axes};
    snprintf(key.device, sizeof key.device, "%s", device ? device : "");
    const cb_hist_series *s =
        bsearch(&key, t->data.series, (size_t)t->data.n_series, sizeof *s, cmp_series_key);
    return s ? &t->spread[s - t->data.series] : NULL;
}

void cb_hist_spread_table_free(cb_hist_spread_table *t)
{
    cb_hist_data_free(&t->data);
    free(t->spread);
    memset(t, 0, sizeof *t);
}
