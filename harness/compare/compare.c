/* compare.c - matching, per-point tests, q-values, verdicts, geomeans. */
#include "compare.h"

#include "compare_point.h"
#include "compare_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cb_verdict_name(cb_verdict v)
{
    static const char *const names[CB_VERDICT_COUNT] = {
        [CB_VERDICT_SLOWER] = "slower",
        [CB_VERDICT_FASTER] = "faster",
        [CB_VERDICT_INCONCLUSIVE] = "inconclusive",
        [CB_VERDICT_MISSING] = "missing",
        [CB_VERDICT_NEW] = "new",
        [CB_VERDICT_UNTIMED] = "untimed",
        [CB_VERDICT_SAME] = "same",
    };
    return v >= 0 && v < CB_VERDICT_COUNT ? names[v] : "?";
}

void cb_compare_opts_default(cb_compare_opts *o)
{
    o->delta = 0.03;
    o->alpha = 0.01;
    o->power = 0.99;
    o->min_samples = 5;
    o->event_res_s = 0.5e-6;
    o->host_res_s = 1e-7;
    o->between_run_sd = CB_BETWEEN_RUN_BUILTIN;
    o->calibration = NULL;
}

static bool has_times(const cb_cmp_point *p)
{
    return p && p->timed && p->n > 0;
}

/* Why a side has no times, for the note of a missing or new row. */
static void untimed_note(char *note, size_t len, const char *side, const cb_cmp_point *p)
{
    if (!p)
        snprintf(note, len, "not in %s", side);
    else if (!p->timed)
        snprintf(note, len, "%s: %s%s%.180s", side, p->status, *p->reason ? ": " : "", p->reason);
    else
        snprintf(note, len, "%s: %s but no samples in samples.csv", side, p->status);
}

static void fmt_us(char *buf, size_t len, double s)
{
    snprintf(buf, len, "%.3g us", 1e6 * s);
}

/* Slower, faster, same or inconclusive for a tested row (q known). */
static cb_verdict decide(cb_compare_row *row, const cb_compare_opts *o)
{
    double L = log1p(o->delta);
    char a[32], b[32];
    if (row->q <= o->alpha) {
        double change_s = fabs(row->cand.median_s - row->base.median_s);
        if (change_s < row->floor_s) {
            fmt_us(a, sizeof a, change_s), fmt_us(b, sizeof b, row->floor_s);
            snprintf(row->note, sizeof row->note, "a change of %s: below the timer's %s floor", a,
                     b);
            return CB_VERDICT_INCONCLUSIVE;
        }
        return row->log_ratio > 0 ? CB_VERDICT_SLOWER : CB_VERDICT_FASTER;
    }
    if (log(row->ci_lo) >= -L && log(row->ci_hi) <= L) {
        if (o->delta * row->base.median_s >= row->floor_s) return CB_VERDICT_SAME;
        fmt_us(a, sizeof a, o->delta * row->base.median_s), fmt_us(b, sizeof b, row->floor_s);
        snprintf(row->note, sizeof row->note,
                 "±%g%% of the median is %s: below the timer's %s floor", 100.0 * o->delta, a, b);
        return CB_VERDICT_INCONCLUSIVE;
    }
    if (row->ci_lo > 1.0 + o->delta || row->ci_hi < 1.0 / (1.0 + o->delta))
        snprintf(row->note, sizeof row->note,
                 "beyond ±%g%%, but not after the correction for %s (q=%.2g)", 100.0 * o->delta,
                 "many points", row->q);
    else
        snprintf(row->note, sizeof row->note, "the CI reaches past ±%g%% (MDE %.1f%%)",
                 100.0 * o->delta, 100.0 * row->mde);
    return CB_VERDICT_INCONCLUSIVE;
}

/* Match a BASE point (may be NULL) with a NEW point (may be NULL); test it
 * when both are timed. Returns false when out of memory. */
static bool match_point(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c,
                        const cb_compare_opts *o, cb_msg *err)
{
    row->ratio = row->ci_lo = row->ci_hi = row->p = row->q = row->mde = NAN;
    row->log_ratio = row->var = row->df = NAN;
    row->floor_s = NAN;
    row->base_throttle = b ? b->throttle : NULL;
    row->new_throttle = c ? c->throttle : NULL;
    if ((b && !cb_side_estimate(b, &row->base, err)) ||
        (c && !cb_side_estimate(c, &row->cand, err)))
        return false;
    if (!b) row->base.center = row->base.median_s = NAN;
    if (!c) row->cand.center = row->cand.median_s = NAN;
    if (!b || (!has_times(b) && has_times(c))) {
        row->verdict = CB_VERDICT_NEW;
        untimed_note(row->note, sizeof row->note, "BASE", b);
    } else if (!c || (has_times(b) && !has_times(c))) {
        row->verdict = CB_VERDICT_MISSING;
        untimed_note(row->note, sizeof row->note, "NEW", c);
    } else if (!has_times(b)) {
        row->verdict = CB_VERDICT_UNTIMED;
        untimed_note(row->note, sizeof row->note, "BASE", b);
    } else if (row->base.n < o->min_samples || row->cand.n < o->min_samples) {
        row->verdict = CB_VERDICT_INCONCLUSIVE;
        snprintf(row->note, sizeof row->note, "too few samples (%d/%d, need %d)", row->base.n,
                 row->cand.n, o->min_samples);
    } else {
        row->verdict = CB_VERDICT_INCONCLUSIVE; /* until decided */
        cb_compare_point_test(row, b, c, o);
        if (isnan(row->var))
            snprintf(row->note, sizeof row->note,
                     "no spread to test against: one sample per run on a side");
    }
    return true;
}

/* Append which side ran throttled to the row's note. */
static void note_throttle(cb_compare_row *row)
{
    size_t used = strlen(row->note);
    snprintf(row->note + used, sizeof row->note - used, "%sthrottled:%s%.40s%s%.40s",
             used ? "; " : "", row->base_throttle ? " BASE " : "",
             row->base_throttle ? row->base_throttle : "", row->new_throttle ? " NEW " : "",
             row->new_throttle ? row->new_throttle : "");
}

static int cmp_rows(const void *a, const void *b)
{
    const cb_compare_row *x = a, *y = b;
    if (x->verdict != y->verdict) return (int)x->verdict - (int)y->verdict;
    if (x->verdict == CB_VERDICT_SLOWER && x->ratio != y->ratio)
        return x->ratio < y->ratio ? 1 : -1;
    if (x->verdict == CB_VERDICT_FASTER && x->ratio != y->ratio)
        return x->ratio > y->ratio ? 1 : -1;
    return (x->order > y->order) - (x->order < y->order);
}

static bool tested(const cb_compare_row *row)
{
    return !isnan(row->p);
}

/* The geometric mean over rows[idx[0..k)] that were tested. */
static cb_geomean geomean_of(const cb_compare_row *rows, const int *idx, int k,
                             const cb_compare_opts *o)
{
    cb_geomean g = {0, NAN, NAN, NAN};
    double sum = 0.0, var_sum = 0.0, df_den = 0.0;
    for (int i = 0; i < k; i++) {
        const cb_compare_row *r = &rows[idx[i]];
        if (!tested(r)) continue;
        g.points++;
        sum += r->log_ratio;
        var_sum += r->var;
        if (r->var > 0.0 && isfinite(r->df)) df_den += r->var * r->var / r->df;
    }
    if (g.points == 0) return g;
    int P = g.points;
    double mean = sum / P, ss = 0.0;
    for (int i = 0; i < k; i++)
        if (tested(&rows[idx[i]]))
            ss += (rows[idx[i]].log_ratio - mean) * (rows[idx[i]].log_ratio - mean);
    double var = var_sum / ((double)P * P);
    double df = df_den > 0.0 ? var_sum * var_sum / df_den : INFINITY;
    if (P >= 2 && ss / (P - 1) / P > var) {
        var = ss / (P - 1) / P;
        df = P - 1;
    }
    double t = cb_t_quantile(1.0 - o->alpha / 2.0, df);
    g.ratio = exp(mean);
    g.ci_lo = exp(mean - t * sqrt(var));
    g.ci_hi = exp(mean + t * sqrt(var));
    return g;
}

typedef struct name_ref {
    const char *name;
    int row; /* index into rows, identity order */
} name_ref;

static int cmp_name_ref(const void *a, const void *b)
{
    const name_ref *x = a, *y = b;
    int s = strcmp(x->name, y->name);
    return s ? s : (x->row > y->row) - (x->row < y->row);
}

/* Groups per benchmark, by sorting the names (n log n, not n x groups);
 * groups come out in identity order (of each one's first row). */
static bool build_groups(cb_compare_result *out, const cb_compare_opts *o, cb_msg *err)
{
    int n = out->n_rows;
    name_ref *refs = malloc((size_t)(n ? n : 1) * sizeof *refs);
    int *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    int *first = malloc((size_t)(n ? n : 1) * sizeof *first);
    cb_compare_group *tmp = calloc((size_t)(n ? n : 1), sizeof *tmp);
    bool ok = refs && idx && first && tmp;
    if (!ok) {
        cb_msg_set(err, "compare: out of memory");
        goto done;
    }
    for (int i = 0; i < n; i++)
        refs[i] = (name_ref){out->rows[i].benchmark, i};
    qsort(refs, (size_t)n, sizeof *refs, cmp_name_ref);
    int g = 0;
    for (int s = 0; s < n;) {
        int e = s;
        while (e < n && strcmp(refs[e].name, refs[s].name) == 0)
            e++;
        cb_compare_group *grp = &tmp[g];
        grp->benchmark = refs[s].name;
        for (int i = s; i < e; i++) {
            idx[i - s] = refs[i].row;
            grp->counts[out->rows[refs[i].row].verdict]++;
        }
        grp->geomean = geomean_of(out->rows, idx, e - s, o);
        first[g++] = refs[s].row; /* the smallest row index of the group */
        s = e;
    }
    /* identity order: place each group at the rank of its first row */
    out->groups = calloc((size_t)(g ? g : 1), sizeof *out->groups);
    int *rank = calloc((size_t)(n ? n : 1), sizeof *rank);
    if (!out->groups || !rank) {
        free(rank);
        cb_msg_set(err, "compare: out of memory");
        ok = false;
        goto done;
    }
    for (int i = 0; i < n; i++)
        rank[i] = -1;
    for (int k = 0; k < g; k++)
        rank[first[k]] = k;
    for (int i = 0; i < n; i++)
        if (rank[i] >= 0) out->groups[out->n_groups++] = tmp[rank[i]];
    free(rank);
done:
    free(refs), free(idx), free(first), free(tmp);
    return ok;
}

bool cb_compare_runs(const cb_cmp_run *base, const cb_cmp_run *cand, const cb_compare_opts *o,
                     cb_compare_result *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    out->geomean = (cb_geomean){0, NAN, NAN, NAN};
    size_t cap = (size_t)base->n_points + (size_t)cand->n_points;
    out->rows = calloc(cap ? cap : 1, sizeof *out->rows);
    double *p = malloc((cap ? cap : 1) * sizeof *p);
    double *q = malloc((cap ? cap : 1) * sizeof *q);
    int *all = malloc((cap ? cap : 1) * sizeof *all);
    bool ok = false;
    if (!out->rows || !p || !q || !all) {
        cb_msg_set(err, "compare: out of memory");
        goto done;
    }
    /* Identity order: BASE's points, then the points only NEW has. */
    for (int i = 0; i < base->n_points; i++) {
        const cb_cmp_point *b = &base->points[i];
        cb_compare_row *row = &out->rows[out->n_rows];
        row->benchmark = b->benchmark;
        row->axes = b->axes;
        row->order = out->n_rows++;
        if (!match_point(row, b, cb_cmp_run_find(cand, b->benchmark, b->axes), o, err)) goto done;
    }
    for (int i = 0; i < cand->n_points; i++) {
        const cb_cmp_point *c = &cand->points[i];
        if (cb_cmp_run_find(base, c->benchmark, c->axes)) continue;
        cb_compare_row *row = &out->rows[out->n_rows];
        row->benchmark = c->benchmark;
        row->axes = c->axes;
        row->order = out->n_rows++;
        if (!match_point(row, NULL, c, o, err)) goto done;
    }

    for (int i = 0; i < out->n_rows; i++)
        p[i] = out->rows[i].p;
    if (!cb_bh_qvalues(p, out->n_rows, q)) {
        cb_msg_set(err, "compare: out of memory");
        goto done;
    }
    for (int i = 0; i < out->n_rows; i++) {
        cb_compare_row *row = &out->rows[i];
        row->q = q[i];
        all[i] = i;
        if (tested(row)) {
            row->verdict = decide(row, o);
            out->tested++;
            out->basis_count[0][row->base.basis]++;
            out->basis_count[1][row->cand.basis]++;
            out->widening_count[row->widening]++;
        }
        if (row->base_throttle || row->new_throttle) {
            out->throttled++;
            note_throttle(row);
        }
        out->counts[row->verdict]++;
    }
    out->geomean = geomean_of(out->rows, all, out->n_rows, o);
    if (!build_groups(out, o, err)) goto done;
    qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, cmp_rows);
    ok = true;
done:
    free(p), free(q), free(all);
    if (!ok) cb_compare_result_free(out);
    return ok;
}

void cb_compare_result_free(cb_compare_result *r)
{
    free(r->rows);
    free(r->groups);
    memset(r, 0, sizeof *r);
}

bool cb_compare_calibrate(const cb_cmp_run *a, const cb_cmp_run *b, const cb_compare_opts *o,
                          cb_calibration *out, int *points, cb_msg *err)
{
    *points = 0;
    cb_calib_obs *obs = malloc((size_t)(a->n_points > 0 ? a->n_points : 1) * sizeof *obs);
    if (!obs) {
        cb_msg_set(err, "compare: out of memory");
        return false;
    }
    int basis_seen[3] = {0};
    bool ok = true;
    for (int i = 0; ok && i < a->n_points; i++) {
        const cb_cmp_point *pa = &a->points[i];
        const cb_cmp_point *pb = cb_cmp_run_find(b, pa->benchmark, pa->axes);
        if (!has_times(pa) || !has_times(pb)) continue;
        cb_side_est ea, eb;
        ok = cb_side_estimate(pa, &ea, err) && cb_side_estimate(pb, &eb, err);
        if (!ok || ea.n < o->min_samples || eb.n < o->min_samples) continue;
        double v = ea.var + eb.var, d = eb.center - ea.center;
        if (isnan(v)) continue;
        basis_seen[ea.basis]++, basis_seen[eb.basis]++;
        obs[(*points)++] = (cb_calib_obs){.benchmark = pa->benchmark,
                                          .median_s = ea.median_s,
                                          .excess = d * d - v,
                                          .run_share = 1.0 / ea.runs + 1.0 / eb.runs};
    }
    int kinds = (basis_seen[0] > 0) + (basis_seen[1] > 0) + (basis_seen[2] > 0);
    const char *basis = kinds > 1                     ? "mixed"
                        : basis_seen[CB_BASIS_RUNS]   ? "runs"
                        : basis_seen[CB_BASIS_ROUNDS] ? "rounds"
                                                      : "samples";
    if (ok) ok = cb_calibration_build(obs, *points, basis, a->device, out, err);
    free(obs);
    return ok;
}
