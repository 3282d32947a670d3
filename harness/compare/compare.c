/* compare.c - matching, per-point tests, q-values, verdicts. */
#include "compare.h"
#include "stats.h"

#include "compare_geomean.h"
#include "compare_point.h"
#include "compare_stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cb_verdict_name(cb_verdict v)
{
    static const char *const names[CB_VERDICT_COUNT] = {
        [CB_VERDICT_SLOWER] = "slower",       [CB_VERDICT_FASTER] = "faster",
        [CB_VERDICT_THROTTLED] = "throttled", [CB_VERDICT_INCONCLUSIVE] = "inconclusive",
        [CB_VERDICT_MISSING] = "missing",     [CB_VERDICT_NEW] = "new",
        [CB_VERDICT_UNTIMED] = "untimed",     [CB_VERDICT_SAME] = "same",
    };
    return cb_enum_name(names, CB_ARRAY_LEN(names), (int)v, "?");
}

void cb_compare_opts_default(cb_compare_opts *o)
{
    memset(o, 0, sizeof *o);
    o->delta = 0.03;
    o->alpha = 0.01;
    o->power = 0.99;
    o->min_samples = 5;
    o->event_res_s = NAN; /* each side's sample grid */
    o->host_res_s = 1e-7;
    o->between_run_sd = CB_BETWEEN_RUN_BY_KIND;
}

static bool has_times(const cb_cmp_point *p)
{
    return p && p->timed && p->n > 0;
}

static bool tested(const cb_compare_row *row)
{
    return !isnan(row->p);
}

/* Append to a row's note, "; " between parts. */
static void note_add(cb_compare_row *row, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void note_add(cb_compare_row *row, const char *fmt, ...)
{
    size_t used = strlen(row->note);
    if (used + 3 >= sizeof row->note) return;
    if (used) used += (size_t)snprintf(row->note + used, sizeof row->note - used, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->note + used, sizeof row->note - used, fmt, ap);
    va_end(ap);
    cb_utf8_trim_tail(row->note);
}

/* Why a side has no times, for the note of a missing or new row. */
static void untimed_note(cb_compare_row *row, const char *side, const cb_cmp_point *p)
{
    if (!p)
        note_add(row, "not in %s", side);
    else if (!p->timed)
        note_add(row, "%s: %s%s%.180s", side, p->status, *p->reason ? ": " : "", p->reason);
    else
        note_add(row, "%s: %s but no samples in samples.csv", side, p->status);
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
        if (change_s >= row->floor_s)
            return row->log_ratio > 0 ? CB_VERDICT_SLOWER : CB_VERDICT_FASTER;
        fmt_us(a, sizeof a, change_s), fmt_us(b, sizeof b, row->floor_s);
        note_add(row, "a change of %s: below the timer's %s floor", a, b);
        return CB_VERDICT_INCONCLUSIVE;
    }
    if (log(row->ci_lo) >= -L && log(row->ci_hi) <= L) {
        if (o->delta * row->base.median_s >= row->floor_s) return CB_VERDICT_SAME;
        fmt_us(a, sizeof a, o->delta * row->base.median_s), fmt_us(b, sizeof b, row->floor_s);
        note_add(row, "±%g%% of the median is %s: below the timer's %s floor", 100.0 * o->delta, a,
                 b);
        return CB_VERDICT_INCONCLUSIVE;
    }
    if (row->ci_lo > 1.0 + o->delta || row->ci_hi < 1.0 / (1.0 + o->delta))
        note_add(row, "beyond ±%g%%, but not after the correction for many points (q=%.2g)",
                 100.0 * o->delta, row->q);
    else
        note_add(row, "the CI reaches past ±%g%% (MDE %.1f%%)", 100.0 * o->delta, 100.0 * row->mde);
    return CB_VERDICT_INCONCLUSIVE;
}

static bool any_sample_throttle(const cb_cmp_run *run, const cb_cmp_point *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->dir[i] >= 0 && p->dir[i] < run->n_dirs && run->dirs[p->dir[i]].has_sample_throttle)
            return true;
    return false;
}

cb_throttle_evidence cb_compare_throttle(const cb_cmp_run *run, const cb_cmp_point *p)
{
    cb_throttle_evidence e = {false, false, NULL, 0, 0, NAN, NAN, NAN, NAN};
    if (!p || !has_times(p)) return e;
    bool per_sample = any_sample_throttle(run, p);
    e.reasons = p->throttle;
    e.samples = p->throttled_n;
    e.of = p->n;
    e.set_aside = p->facts.throttled_samples;
    e.waited_s = p->facts.throttle_wait_s;
    /* the kept samples' own clock when recorded, else the row's */
    bool own_clock = !isnan(p->clock_lo);
    e.clock_lo = own_clock ? p->clock_lo : p->facts.sm_clock_min_mhz;
    e.clock_hi = own_clock ? p->clock_hi : p->facts.sm_clock_max_mhz;
    bool clock_moved = e.clock_hi > 0.0 && e.clock_lo < (1.0 - CB_CMP_CLOCK_MOVED) * e.clock_hi;
    bool row_moved =
        p->facts.sm_clock_max_mhz > 0.0 &&
        p->facts.sm_clock_min_mhz < (1.0 - CB_CMP_CLOCK_MOVED) * p->facts.sm_clock_max_mhz;
    e.throttled = (per_sample ? p->throttled_n > 0 : p->throttle != NULL) || clock_moved;
    e.seen = e.throttled || p->throttle != NULL || row_moved;
    return e;
}

/* Both sides' SM clock medians when they are more than CB_CMP_CLOCK_MOVED
 * apart (an H200 has run one 4096^3 TF32 GEMM at a steady 1980 MHz in one
 * process and 1860 MHz in the next, both rows saying no throttle reason):
 * a difference then measures the GPU's state, not the code. */
static void clocks_apart(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c)
{
    row->clock_base = row->clock_new = NAN;
    if (!b || !c) return;
    const double mb = b->facts.sm_clock_median_mhz, mc = c->facts.sm_clock_median_mhz;
    if (!(mb > 0.0) || !(mc > 0.0)) return;
    if (fabs(mb - mc) > CB_CMP_CLOCK_MOVED * fmax(mb, mc)) {
        row->clock_base = mb;
        row->clock_new = mc;
    }
}

/* Each side's estimate, the autocorrelation pooled over both. */
static bool estimate_sides(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c,
                           cb_msg *err)
{
    const cb_cmp_point *both[2] = {b, c};
    double rho = cb_units_rho(both, 2);
    if ((b && !cb_side_estimate(b, rho, &row->base, err)) ||
        (c && !cb_side_estimate(c, rho, &row->cand, err)))
        return false;
    if (!b) row->base.center = row->base.median_s = NAN;
    if (!c) row->cand.center = row->cand.median_s = NAN;
    return true;
}

/* new, missing or untimed, with the note; false for a point timed on both
 * sides. */
static bool classify_untested(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c)
{
    if (!b || (!has_times(b) && has_times(c))) {
        row->verdict = CB_VERDICT_NEW;
        untimed_note(row, "BASE", b);
    } else if (!c || (has_times(b) && !has_times(c))) {
        row->verdict = CB_VERDICT_MISSING;
        untimed_note(row, "NEW", c);
    } else if (!has_times(b)) {
        row->verdict = CB_VERDICT_UNTIMED;
        untimed_note(row, "BASE", b);
    } else {
        return false;
    }
    return true;
}

/* Verdict, note and test of a point present on at least one side. */
static bool match_point(cb_compare_row *row, const cb_cmp_run *base, const cb_cmp_run *cand,
                        const cb_cmp_point *b, const cb_cmp_point *c, const cb_compare_opts *o,
                        cb_msg *err)
{
    row->ratio = row->ci_lo = row->ci_hi = row->p = row->q = row->mde = NAN;
    row->log_ratio = row->var = row->df = row->floor_s = NAN;
    row->base_point = b;
    row->new_point = c;
    row->kind = b ? b->kind : c->kind;
    row->spread = (cb_spread){0.0, INFINITY, NAN, 0.0, ""};
    row->base_throttle = cb_compare_throttle(base, b);
    row->new_throttle = cb_compare_throttle(cand, c);
    clocks_apart(row, b, c);
    if (!estimate_sides(row, b, c, err)) return false;
    row->verdict = CB_VERDICT_INCONCLUSIVE;
    if (!classify_untested(row, b, c)) {
        if (row->base.n < o->min_samples || row->cand.n < o->min_samples) {
            note_add(row, "too few samples (%d/%d, need %d)", row->base.n, row->cand.n,
                     o->min_samples);
        } else {
            cb_compare_point_test(row, b, c, base->device, o);
            if (isnan(row->var) && row->widening != CB_WIDEN_UNKNOWN)
                note_add(row, "no spread to test against: one sample per run on a side");
        }
    }
    return true;
}

static void note_throttle_side(cb_compare_row *row, const char *side, const cb_throttle_evidence *e)
{
    if (!e->throttled) return;
    char clock[64] = "", aside[80] = "";
    if (e->clock_hi > 0.0 && e->clock_lo < (1.0 - CB_CMP_CLOCK_MOVED) * e->clock_hi)
        snprintf(clock, sizeof clock, ", SM clock %.0f-%.0f MHz", e->clock_lo, e->clock_hi);
    if (e->set_aside > 0.0)
        snprintf(aside, sizeof aside, ", %.0f set aside (%.2g s waited)", e->set_aside,
                 isnan(e->waited_s) ? 0.0 : e->waited_s);
    if (e->samples > 0)
        note_add(row, "%s %d of %d samples under %.60s%s%s", side, e->samples, e->of,
                 e->reasons ? e->reasons : "throttling", clock, aside);
    else
        note_add(row, "%s %.60s%s%s", side, e->reasons ? e->reasons : "throttled", clock, aside);
}

/* A row throttled on either side: its own verdict, the test's in the note. */
static void apply_throttle(cb_compare_row *row)
{
    const bool apart = !isnan(row->clock_base);
    if (!row->base_throttle.throttled && !row->new_throttle.throttled && !apart) return;
    bool compared = row->verdict <= CB_VERDICT_INCONCLUSIVE || row->verdict == CB_VERDICT_SAME;
    if (!compared) return;
    char before[sizeof row->note];
    snprintf(before, sizeof before, "%s", row->note);
    row->note[0] = '\0';
    if (tested(row))
        note_add(row, "throttled: the test said %s (ratio %.3f)", cb_verdict_name(row->verdict),
                 row->ratio);
    else
        note_add(row, "throttled");
    note_throttle_side(row, "BASE", &row->base_throttle);
    note_throttle_side(row, "NEW", &row->new_throttle);
    if (apart)
        note_add(row, "SM clock medians apart: BASE %.0f MHz, NEW %.0f MHz", row->clock_base,
                 row->clock_new);
    if (before[0]) note_add(row, "%s", before);
    row->verdict = CB_VERDICT_THROTTLED;
}

static void note_modes(cb_compare_row *row)
{
    if (row->base.bimodal)
        note_add(row, "bimodal: BASE switches between modes %.1f%% apart",
                 100.0 * expm1(row->base.mode_gap));
    if (row->cand.bimodal)
        note_add(row, "bimodal: NEW switches between modes %.1f%% apart",
                 100.0 * expm1(row->cand.mode_gap));
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

/* Match every point: BASE's in order, then those only NEW has. */
static bool match_all(const cb_cmp_run *base, const cb_cmp_run *cand, const cb_compare_opts *o,
                      cb_compare_result *out, cb_msg *err)
{
    for (int i = 0; i < base->n_points; i++) {
        const cb_cmp_point *b = &base->points[i];
        cb_compare_row *row = &out->rows[out->n_rows];
        *row = (cb_compare_row){.benchmark = b->benchmark, .axes = b->axes, .device = b->device};
        row->order = out->n_rows++;
        const cb_cmp_point *c = cb_cmp_run_find(cand, b->benchmark, b->axes, b->device);
        if (!match_point(row, base, cand, b, c, o, err)) return false;
    }
    for (int i = 0; i < cand->n_points; i++) {
        const cb_cmp_point *c = &cand->points[i];
        if (cb_cmp_run_find(base, c->benchmark, c->axes, c->device)) continue;
        cb_compare_row *row = &out->rows[out->n_rows];
        *row = (cb_compare_row){.benchmark = c->benchmark, .axes = c->axes, .device = c->device};
        row->order = out->n_rows++;
        if (!match_point(row, base, cand, NULL, c, o, err)) return false;
    }
    return true;
}

/* Points per kind that can catch 2 delta, and why the others cannot. */
static void count_power(cb_compare_result *out, const cb_compare_opts *o, double *buf)
{
    for (int k = 0; k <= CB_CMP_KINDS; k++) {
        cb_power_count *pc = &out->power[k];
        int m = 0;
        for (int i = 0; i < out->n_rows; i++) {
            const cb_compare_row *r = &out->rows[i];
            if (k < CB_CMP_KINDS && r->kind != (cb_cmp_kind)k) continue;
            pc->untested += r->widening == CB_WIDEN_UNKNOWN;
            if (!tested(r)) continue;
            pc->tested++;
            pc->detect += r->mde <= 2.0 * o->delta;
            pc->floor_bound += r->mde > 2.0 * o->delta && r->mde_bound == CB_MDE_FLOOR;
            buf[m++] = r->mde;
        }
        cb_cmp_sort(buf, m);
        pc->mde_median = m ? cb_stats_quantile_sorted(buf, m, 0.5) : NAN;
    }
}

/* q-values over the tested points, then each row's verdict and counts. */
static bool decide_all(cb_compare_result *out, const cb_compare_opts *o, double *p, double *q)
{
    for (int i = 0; i < out->n_rows; i++)
        p[i] = out->rows[i].p;
    if (!cb_bh_qvalues(p, out->n_rows, q)) return false;
    for (int i = 0; i < out->n_rows; i++) {
        cb_compare_row *row = &out->rows[i];
        row->q = q[i];
        out->widening_count[row->widening]++;
        if (tested(row)) {
            row->verdict = decide(row, o);
            out->tested++;
            out->basis_count[0][row->base.basis]++;
            out->basis_count[1][row->cand.basis]++;
            out->bimodal += row->base.bimodal || row->cand.bimodal;
        }
        note_modes(row);
        row->tested_verdict = row->verdict;
        apply_throttle(row);
        out->throttled_slower +=
            row->verdict == CB_VERDICT_THROTTLED && row->tested_verdict == CB_VERDICT_SLOWER;
        out->counts[row->verdict]++;
    }
    return true;
}

bool cb_compare_runs(const cb_cmp_run *base, const cb_cmp_run *cand, const cb_compare_opts *o,
                     cb_compare_result *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    out->geomean = (cb_geomean){0, NAN, NAN, NAN, 0.0};
    size_t cap = (size_t)base->n_points + (size_t)cand->n_points + 1;
    out->rows = calloc(cap, sizeof *out->rows);
    double *p = malloc(cap * sizeof *p), *q = malloc(cap * sizeof *q);
    int *all = malloc(cap * sizeof *all);
    cb_offsets ob = {0}, on = {0};
    bool ok = out->rows && p && q && all;
    if (!ok) cb_msg_set(err, "out of memory");
    ok = ok && match_all(base, cand, o, out, err);
    if (ok && !(ok = decide_all(out, o, p, q))) cb_msg_set(err, "out of memory");
    ok = ok && cb_offsets_fill(&ob, out->rows, out->n_rows, true, base, err) &&
         cb_offsets_fill(&on, out->rows, out->n_rows, false, cand, err);
    if (ok) {
        for (int i = 0; i < out->n_rows; i++)
            all[i] = i;
        out->geomean = cb_geomean_of(out->rows, all, out->n_rows, &ob, &on, o);
        count_power(out, o, p);
        ok = cb_compare_groups(out, &ob, &on, o, err);
    }
    if (ok) qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, cmp_rows);
    cb_offsets_free(&ob), cb_offsets_free(&on);
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
