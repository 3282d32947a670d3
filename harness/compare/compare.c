/* compare.c - matching, per-point statistics, q-values and verdicts. */
#include "compare.h"

#include "compare_hl.h"
#include "compare_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cb_verdict_name(cb_verdict v)
{
    static const char *const names[CB_VERDICT_COUNT] = {
        [CB_VERDICT_SLOWER] = "slower",   [CB_VERDICT_FASTER] = "faster",
        [CB_VERDICT_NOISY] = "noisy",     [CB_VERDICT_INCONCLUSIVE] = "inconclusive",
        [CB_VERDICT_MISSING] = "missing", [CB_VERDICT_NEW] = "new",
        [CB_VERDICT_SAME] = "same",
    };
    return v >= 0 && v < CB_VERDICT_COUNT ? names[v] : "?";
}

void cb_compare_opts_default(cb_compare_opts *o)
{
    o->delta = 0.03;
    o->alpha = 0.01;
    o->noise_limit = 0.10;
    o->min_samples = 5;
    o->min_abs_delta = 0.5e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct side_summary {
    double median, rel_iqr, q1, q3;
    int n;
} side_summary;

/* Quartiles and relative IQR of one side's times (sorted on a copy). */
static bool describe_side(const cb_cmp_point *p, side_summary *out)
{
    *out = (side_summary){NAN, NAN, NAN, NAN, p ? p->n : 0};
    if (!p || p->n == 0) return true;
    double *s = malloc((size_t)p->n * sizeof *s);
    if (!s) return false;
    memcpy(s, p->times, (size_t)p->n * sizeof *s);
    qsort(s, (size_t)p->n, sizeof *s, cmp_double);
    out->median = cb_cmp_quantile(s, p->n, 0.5);
    out->q1 = cb_cmp_quantile(s, p->n, 0.25);
    out->q3 = cb_cmp_quantile(s, p->n, 0.75);
    out->rel_iqr = cb_cmp_rel_iqr(s, p->n);
    free(s);
    return true;
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
        snprintf(note, len, "%s: %s%s%.150s", side, p->status, *p->reason ? ": " : "", p->reason);
    else
        snprintf(note, len, "%s: %s but no samples in samples.csv", side, p->status);
}

static cb_verdict decide(cb_compare_row *row, const cb_compare_opts *o)
{
    double up = 1.0 + o->delta, down = 1.0 / (1.0 + o->delta);
    if (row->base_n < o->min_samples || row->new_n < o->min_samples) {
        snprintf(row->note, sizeof row->note, "too few samples (%d/%d, need %d)", row->base_n,
                 row->new_n, o->min_samples);
        return CB_VERDICT_INCONCLUSIVE;
    }
    if (fabs(row->new_median - row->base_median) < o->min_abs_delta) {
        snprintf(row->note, sizeof row->note, "medians %.3g us apart: below the %.3g us resolution",
                 1e6 * fabs(row->new_median - row->base_median), 1e6 * o->min_abs_delta);
        return CB_VERDICT_SAME;
    }
    bool significant = row->q <= o->alpha;
    bool up_effect = row->ci_lo > 1.0 && row->ratio >= up && significant;
    bool down_effect = row->ci_hi < 1.0 && row->ratio <= down && significant;
    /* NaN (median 0) counts as noisy: the spread cannot be judged. */
    if (!(row->base_rel_iqr <= o->noise_limit) || !(row->new_rel_iqr <= o->noise_limit)) {
        if (up_effect && row->new_q1 > row->base_q3 * up) {
            snprintf(row->note, sizeof row->note, "noisy, but the quartile ranges are apart");
            return CB_VERDICT_SLOWER;
        }
        if (down_effect && row->new_q3 < row->base_q1 * down) {
            snprintf(row->note, sizeof row->note, "noisy, but the quartile ranges are apart");
            return CB_VERDICT_FASTER;
        }
        snprintf(row->note, sizeof row->note, "relative IQR %.1f%% / %.1f%% above %.1f%%",
                 100.0 * row->base_rel_iqr, 100.0 * row->new_rel_iqr, 100.0 * o->noise_limit);
        return CB_VERDICT_NOISY;
    }
    if (up_effect) return CB_VERDICT_SLOWER;
    if (down_effect) return CB_VERDICT_FASTER;
    if (row->ci_lo >= down && row->ci_hi <= up) return CB_VERDICT_SAME;
    if ((row->ci_lo > 1.0 || row->ci_hi < 1.0) && !significant)
        snprintf(row->note, sizeof row->note, "not significant after FDR correction (q=%.3g)",
                 row->q);
    else if (row->ci_lo > 1.0 || row->ci_hi < 1.0)
        snprintf(row->note, sizeof row->note, "smaller than %.1f%%, but the CI reaches beyond",
                 100.0 * o->delta);
    else
        snprintf(row->note, sizeof row->note, "CI wider than +-%.1f%%", 100.0 * o->delta);
    return CB_VERDICT_INCONCLUSIVE;
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

static void add_to_group(cb_compare_result *out, const cb_compare_row *row, double *log_sums)
{
    int g = 0;
    while (g < out->n_groups && strcmp(out->groups[g].benchmark, row->benchmark) != 0)
        g++;
    if (g == out->n_groups) {
        out->groups[g] = (cb_compare_group){.benchmark = row->benchmark, .geomean = NAN};
        log_sums[g] = 0.0;
        out->n_groups++;
    }
    cb_compare_group *grp = &out->groups[g];
    grp->counts[row->verdict]++;
    if (!isnan(row->ratio)) {
        grp->points++;
        log_sums[g] += log(row->ratio);
        grp->geomean = exp(log_sums[g] / grp->points);
    }
}

static bool compare_point(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c,
                          const cb_compare_opts *o, cb_msg *err)
{
    row->ratio = row->ci_lo = row->ci_hi = row->p = row->q = NAN;
    side_summary sb, sc;
    if (!describe_side(b, &sb) || !describe_side(c, &sc)) {
        cb_msg_set(err, "compare: out of memory");
        return false;
    }
    row->base_median = sb.median;
    row->base_rel_iqr = sb.rel_iqr;
    row->base_q1 = sb.q1;
    row->base_q3 = sb.q3;
    row->base_n = sb.n;
    row->new_median = sc.median;
    row->new_rel_iqr = sc.rel_iqr;
    row->new_q1 = sc.q1;
    row->new_q3 = sc.q3;
    row->new_n = sc.n;
    if (!has_times(c)) {
        row->verdict = CB_VERDICT_MISSING;
        untimed_note(row->note, sizeof row->note, "NEW", c);
        return true;
    }
    if (!has_times(b)) {
        row->verdict = CB_VERDICT_NEW;
        untimed_note(row->note, sizeof row->note, "BASE", b);
        return true;
    }
    cb_shift s;
    if (!cb_shift_estimate(b->times, b->n, c->times, c->n, o->alpha, &s, err)) return false;
    row->ratio = s.ratio;
    row->ci_lo = s.ci_lo;
    row->ci_hi = s.ci_hi;
    row->p = s.p;
    return true;
}

bool cb_compare_runs(const cb_cmp_run *base, const cb_cmp_run *cand, const cb_compare_opts *o,
                     cb_compare_result *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    out->geomean = NAN;
    size_t cap = (size_t)base->n_points + (size_t)cand->n_points;
    out->rows = calloc(cap ? cap : 1, sizeof *out->rows);
    out->groups = calloc(cap ? cap : 1, sizeof *out->groups);
    double *p = malloc((cap ? cap : 1) * sizeof *p);
    double *q = malloc((cap ? cap : 1) * sizeof *q);
    double *log_sums = malloc((cap ? cap : 1) * sizeof *log_sums);
    bool ok = false;
    if (!out->rows || !out->groups || !p || !q || !log_sums) {
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
        if (!compare_point(row, b, cb_cmp_run_find(cand, b->benchmark, b->axes), o, err)) goto done;
    }
    for (int i = 0; i < cand->n_points; i++) {
        const cb_cmp_point *c = &cand->points[i];
        if (cb_cmp_run_find(base, c->benchmark, c->axes)) continue;
        cb_compare_row *row = &out->rows[out->n_rows];
        row->benchmark = c->benchmark;
        row->axes = c->axes;
        row->order = out->n_rows++;
        if (!compare_point(row, NULL, c, o, err)) goto done;
    }

    for (int i = 0; i < out->n_rows; i++)
        p[i] = out->rows[i].p;
    if (!cb_bh_qvalues(p, out->n_rows, q)) {
        cb_msg_set(err, "compare: out of memory");
        goto done;
    }
    double log_sum = 0.0;
    for (int i = 0; i < out->n_rows; i++) {
        cb_compare_row *row = &out->rows[i];
        row->q = q[i];
        if (!isnan(row->ratio)) {
            row->verdict = decide(row, o);
            log_sum += log(row->ratio);
            out->geomean_points++;
        }
        out->counts[row->verdict]++;
        add_to_group(out, row, log_sums);
    }
    if (out->geomean_points > 0) out->geomean = exp(log_sum / out->geomean_points);
    qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, cmp_rows);
    ok = true;
done:
    free(p), free(q), free(log_sums);
    if (!ok) cb_compare_result_free(out);
    return ok;
}

void cb_compare_result_free(cb_compare_result *r)
{
    free(r->rows);
    free(r->groups);
    memset(r, 0, sizeof *r);
}
