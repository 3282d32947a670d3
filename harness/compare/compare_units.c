/* compare_units.c - units (directory, replicate) -> a side's estimate
 * (compare_units.h states the rules). */
#include "compare_units.h"
#include "stats.h"

#include "compare_stats.h"
#include "unit_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The autocorrelation is clipped here: beyond it n_eff hangs on noise. */
#define RHO_MAX 0.95
/* Rounds of a run are tested for two modes from this many on. */
#define MODE_ROUNDS 4

const char *cb_basis_name(cb_basis b)
{
    static const char *const names[] = {
        [CB_BASIS_RUNS] = "runs", [CB_BASIS_ROUNDS] = "rounds", [CB_BASIS_SAMPLES] = "samples"};
    return cb_enum_name(names, CB_ARRAY_LEN(names), (int)b, "samples");
}

typedef struct sample_ref {
    int dir, replicate, at; /* `at`: position in the point's arrays (time order) */
} sample_ref;

static int cmp_sample_ref(const void *a, const void *b)
{
    const sample_ref *x = a, *y = b;
    if (x->dir != y->dir) return (x->dir > y->dir) - (x->dir < y->dir);
    if (x->replicate != y->replicate)
        return (x->replicate > y->replicate) - (x->replicate < y->replicate);
    return (x->at > y->at) - (x->at < y->at);
}

/* The point's samples grouped by (directory, replicate), time order kept
 * inside a group; the loader's order is usually grouped already. */
static sample_ref *group_samples(const cb_cmp_point *p)
{
    sample_ref *refs = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof *refs);
    if (!refs) return NULL;
    bool grouped = true;
    for (int i = 0; i < p->n; i++) {
        refs[i] = (sample_ref){p->dir[i], p->replicate[i], i};
        if (i > 0 && cmp_sample_ref(&refs[i - 1], &refs[i]) > 0) grouped = false;
    }
    if (!grouped) qsort(refs, (size_t)p->n, sizeof *refs, cmp_sample_ref);
    return refs;
}

/* Scratch for one point: logs of a unit and two buffers. */
typedef struct work {
    sample_ref *refs;
    double *logs, *sorted;
    cb_unit_scratch s;
} work;

static bool work_alloc(work *w, int n)
{
    size_t m = (size_t)(n > 0 ? n : 1);
    w->logs = malloc(m * sizeof *w->logs);
    w->s.a = malloc(m * sizeof *w->s.a);
    w->s.b = malloc(m * sizeof *w->s.b);
    w->sorted = malloc(m * sizeof *w->sorted);
    return w->logs && w->s.a && w->s.b && w->sorted;
}

static void work_free(work *w)
{
    free(w->refs), free(w->logs), free(w->s.a), free(w->s.b), free(w->sorted);
}

/* The end of the unit that starts at refs[u], its logs into w->logs. */
static int unit_logs(const cb_cmp_point *p, const work *w, int u, int end_limit)
{
    int end = u;
    while (end < end_limit && w->refs[end].dir == w->refs[u].dir &&
           w->refs[end].replicate == w->refs[u].replicate) {
        w->logs[end - u] = log(p->times[w->refs[end].at]);
        end++;
    }
    return end;
}

/* The smallest gap between distinct sample times (`sorted`: ascending),
 * in seconds; NAN when every time is equal. */
static double smallest_gap(const double *sorted, int n)
{
    double gap = INFINITY;
    for (int i = 1; i < n; i++)
        if (sorted[i] > sorted[i - 1] && sorted[i] - sorted[i - 1] < gap)
            gap = sorted[i] - sorted[i - 1];
    return isfinite(gap) ? gap : NAN;
}

/* The timer's grid: the smallest gap (`gap`, smallest_gap's), where the
 * times show one, i.e. at least half of them tie with another (a short
 * point's thousands of event samples sit on a handful of 32 ns steps on the
 * H200). Times that mostly differ may come from a finer clock or none:
 * their smallest gap says nothing about a resolution (NAN). */
static double grid_of(const double *sorted, int n, double gap)
{
    int distinct = n > 0;
    for (int i = 1; i < n; i++)
        distinct += sorted[i] > sorted[i - 1];
    return n >= 2 && 2 * distinct <= n ? gap : NAN;
}

/* The smallest gap between distinct sample times (`gap`), relative to the
 * median: the timer's grid when the times sit on one (0 when every time is
 * equal). `sorted`: the point's times, ascending. */
static double relative_tick(double gap, const double *sorted, int n)
{
    double med = cb_stats_quantile_sorted(sorted, n, 0.5);
    return !isnan(gap) && med > 0.0 ? gap / med : 0.0;
}

double cb_units_rho(const cb_cmp_point *const *points, int n)
{
    double num = 0.0, den = 0.0, samples = 0.0, units = 0.0;
    for (int i = 0; i < n; i++) {
        const cb_cmp_point *p = points[i];
        work w = {0};
        if (!p || p->n < 3 || !work_alloc(&w, p->n) || !(w.refs = group_samples(p))) {
            work_free(&w);
            continue;
        }
        memcpy(w.sorted, p->times, (size_t)p->n * sizeof *w.sorted);
        cb_cmp_sort(w.sorted, p->n);
        double tick = relative_tick(smallest_gap(w.sorted, p->n), w.sorted, p->n);
        for (int u = 0; u < p->n;) {
            int end = unit_logs(p, &w, u, p->n);
            if (end - u >= 3) {
                cb_unit_lag1(w.logs, end - u, tick, &w.s, &num, &den);
                samples += end - u;
                units++;
            }
            u = end;
        }
        work_free(&w);
    }
    if (!(den > 0.0) || units == 0) return 0.0;
    double rho = num / den, m = samples / units;
    rho += (1.0 + 3.0 * rho) / m; /* the estimate is biased low by about this */
    return rho < 0.0 ? 0.0 : rho > RHO_MAX ? RHO_MAX : rho;
}

/* Mean and sample variance of v[0..n). */
static void mean_var(const double *v, int n, double *mean, double *var)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    *mean = s / n;
    double ss = 0.0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *var = n > 1 ? ss / (n - 1) : NAN;
}

/* The variance of a mean of k values whose spread is `spread` (df k - 1),
 * or at least `floor_var` (the mean variance the level below implies, with
 * `floor_df`): whichever is larger, with its df. */
static void level_variance(double spread, int k, double floor_var, double floor_df, double *var,
                           double *df)
{
    if (k >= 2 && !(spread < floor_var)) {
        *var = spread / k;
        *df = k - 1;
    } else {
        *var = floor_var / k;
        *df = floor_df;
    }
}

/* Rounds in two groups far apart: the largest gap between sorted round
 * values, against the rounds' own standard error. */
static double round_modes(const cb_unit *units, int k, double *buf)
{
    if (k < MODE_ROUNDS) return NAN;
    double se = 0.0;
    for (int i = 0; i < k; i++) {
        buf[i] = units[i].value;
        se += units[i].var / k;
    }
    cb_cmp_sort(buf, k);
    double gap = 0.0;
    for (int i = 2; i + 1 < k; i++) /* both groups of two rounds or more */
        if (buf[i] - buf[i - 1] > gap) gap = buf[i] - buf[i - 1];
    return gap > 0.0 && gap >= CB_BIMODAL_SDS * sqrt(se) ? gap : NAN;
}

/* Note a mode gap on the side. */
static void note_mode(cb_side_est *out, double gap)
{
    if (isnan(gap)) return;
    out->bimodal = true;
    if (isnan(out->mode_gap) || gap > out->mode_gap) out->mode_gap = gap;
}

/* One directory's units (refs[start .. end)) into its value. */
static cb_dir_value dir_of(const cb_cmp_point *p, work *w, int start, int end, double rho,
                           double tick, cb_unit *units, cb_side_est *out)
{
    int n_units = 0;
    for (int u = start; u < end;) {
        int stop = unit_logs(p, w, u, end);
        cb_unit *unit = &units[n_units++];
        *unit = cb_unit_of(w->logs, stop - u, rho, tick, &w->s);
        if (unit->bimodal) note_mode(out, unit->gap);
        out->tick_floor = out->tick_floor || unit->tick;
        u = stop;
    }
    /* the directory's value: mean of its units; spread of its rounds, at
     * least the mean sampling variance of one unit */
    double floor_var = 0.0, floor_df = 0.0, spread;
    bool floor_known = true;
    for (int u = 0; u < n_units; u++) {
        w->s.a[u] = units[u].value;
        floor_known = floor_known && !isnan(units[u].var);
        floor_var += units[u].var / n_units;
        floor_df += units[u].df;
    }
    cb_dir_value d = {0.0, 0.0, 0.0, n_units};
    mean_var(w->s.a, n_units, &d.value, &spread);
    if (!floor_known) floor_var = NAN, floor_df = NAN;
    if (n_units >= 2 && isnan(floor_var)) floor_var = 0.0, floor_df = INFINITY;
    level_variance(spread, n_units, floor_var, floor_df, &d.var, &d.df);
    note_mode(out, round_modes(units, n_units, w->s.b));
    return d;
}

/* The side from its directories' values (dirs[0 .. n)). */
static void side_of(const cb_dir_value *dirs, int n, double *buf, cb_side_est *out)
{
    double var_sum = 0.0, df_den = 0.0, floor_df = 0.0, spread;
    bool all_rounds = true;
    for (int d = 0; d < n; d++) {
        buf[d] = dirs[d].value;
        var_sum += dirs[d].var;
        df_den += dirs[d].var * dirs[d].var / dirs[d].df;
        floor_df += dirs[d].df;
        all_rounds = all_rounds && dirs[d].units >= 2;
    }
    mean_var(buf, n, &out->center, &spread);
    if (n >= CB_CMP_MIN_RUNS) {
        out->basis = CB_BASIS_RUNS;
        level_variance(spread, n, var_sum / n, floor_df, &out->var, &out->df);
    } else {
        out->basis = all_rounds ? CB_BASIS_ROUNDS : CB_BASIS_SAMPLES;
        out->var = var_sum / ((double)n * n);
        out->df = df_den > 0.0 ? var_sum * var_sum / df_den : INFINITY;
    }
}

bool cb_side_estimate_dirs(const cb_cmp_point *p, double rho, cb_side_est *out,
                           cb_dir_value *dirs_out, int n_dirs_out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    out->center = out->median_s = out->var = out->df = out->rel_iqr = out->mode_gap = NAN;
    out->grid_s = NAN;
    for (int d = 0; d < n_dirs_out; d++)
        dirs_out[d] = (cb_dir_value){NAN, NAN, NAN, 0};
    out->n = p->n;
    if (p->n < 1) return true;
    if (isnan(rho)) rho = cb_units_rho(&p, 1);
    out->rho = rho;
    work w = {0};
    cb_unit *units = malloc((size_t)p->n * sizeof *units);
    cb_dir_value *dirs = malloc((size_t)p->n * sizeof *dirs);
    bool ok = units && dirs && work_alloc(&w, p->n) && (w.refs = group_samples(p));
    if (!ok) {
        cb_msg_set(err, "out of memory");
        goto done;
    }
    memcpy(w.sorted, p->times, (size_t)p->n * sizeof *w.sorted);
    cb_cmp_sort(w.sorted, p->n);
    const double gap = smallest_gap(w.sorted, p->n);
    double tick = relative_tick(gap, w.sorted, p->n);
    int n_dirs = 0;
    for (int start = 0; start < p->n;) {
        int end = start;
        while (end < p->n && w.refs[end].dir == w.refs[start].dir)
            end++;
        dirs[n_dirs] = dir_of(p, &w, start, end, rho, tick, units, out);
        out->units += dirs[n_dirs].units;
        int at = w.refs[start].dir;
        if (at >= 0 && at < n_dirs_out) dirs_out[at] = dirs[n_dirs];
        n_dirs++;
        start = end;
    }
    out->runs = n_dirs;
    side_of(dirs, n_dirs, w.s.a, out);
    out->median_s = exp(out->center);
    out->rel_iqr = cb_cmp_rel_iqr(w.sorted, p->n);
    out->grid_s = grid_of(w.sorted, p->n, gap);
done:
    free(units), free(dirs);
    work_free(&w);
    return ok;
}

bool cb_side_estimate(const cb_cmp_point *p, double rho, cb_side_est *out, cb_msg *err)
{
    return cb_side_estimate_dirs(p, rho, out, NULL, 0, err);
}
