/* compare_report.c - the markdown rendering of a cb_compare_result. */
#include "compare_report.h"

#include "compare_defaults.h"
#include "report_text.h"

#include <math.h>
#include <string.h>

/* At most this many throttled points are named in the markdown. */
#define CB_REPORT_MAX_THROTTLED 10

const char *cb_widening_name(const cb_compare_row *row, const cb_compare_opts *o)
{
    switch (row->widening) {
    case CB_WIDEN_SOURCE:
        return row->source < o->n_sources ? o->sources[row->source].name : "source";
    case CB_WIDEN_DEFAULT:
        return "default";
    case CB_WIDEN_UNKNOWN:
        return "unknown";
    case CB_WIDEN_NONE:
        break;
    }
    return "none";
}

static const char *fmt_time(double s, char *buf, size_t len)
{
    if (isnan(s))
        snprintf(buf, len, "-");
    else if (s < 1e-6)
        snprintf(buf, len, "%.3g ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(buf, len, "%.3g µs", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else
        snprintf(buf, len, "%.3g s", s);
    return buf;
}

static const char *fmt_ratio(double r, char *buf, size_t len)
{
    if (isnan(r))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3f (%+.1f%%)", r, 100.0 * (r - 1.0));
    return buf;
}

static const char *fmt_pct(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f%%", 100.0 * v);
    return buf;
}

static const char *fmt_geomean(const cb_geomean *g, char *buf, size_t len)
{
    if (g->points == 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.3f (%.3f – %.3f)", g->ratio, g->ci_lo, g->ci_hi);
    return buf;
}

static void side_line(FILE *f, const char *name, const cb_cmp_run *run)
{
    fprintf(f, "%s `", name);
    cb_md_cell_text(f, run->label);
    fputc('`', f);
    if (run->n_dirs > 1)
        fprintf(f, " + %d more run%s", run->n_dirs - 1, cb_plural(run->n_dirs - 1));
    if (run->git_sha[0] || run->device[0]) {
        fputs(" (", f);
        if (run->git_sha[0]) fputs("git ", f), cb_md_cell_text(f, run->git_sha);
        if (run->git_sha[0] && run->device[0]) fputs(", ", f);
        if (run->device[0]) cb_md_cell_text(f, run->device);
        fputc(')', f);
    }
}

/* ---- what one comparison can see ------------------------------------------ */

static void power_by_kind(FILE *f, const cb_compare_result *r, const cb_compare_opts *o)
{
    int kinds = 0;
    for (int k = 0; k < CB_CMP_KINDS; k++)
        kinds += r->power[k].tested + r->power[k].untested > 0;
    if (kinds < 2) return;
    fprintf(f,
            "\n| kind | tested | MDE ≤ %g%% | median MDE | no between-run spread |\n"
            "|---|--:|--:|--:|--:|\n",
            200.0 * o->delta);
    char m[32];
    for (int k = 0; k < CB_CMP_KINDS; k++) {
        const cb_power_count *pc = &r->power[k];
        if (pc->tested + pc->untested == 0) continue;
        fprintf(f, "| %s | %d | %d | %s | %d |\n", cb_cmp_kind_name((cb_cmp_kind)k), pc->tested,
                pc->detect, fmt_pct(pc->mde_median, m, sizeof m), pc->untested);
    }
}

/* The event timer's floor as the options set it. */
static const char *event_floor_text(const cb_compare_opts *o, char *buf, size_t len)
{
    if (isnan(o->event_res_s))
        snprintf(buf, len,
                 "events: the grid of the point's samples, at most %g µs (`floor_s` in the CSV)",
                 1e6 * CB_EVENT_RES_DOCUMENTED_S);
    else
        snprintf(buf, len, "event timer %g µs", 1e6 * o->event_res_s);
    return buf;
}

/* The points that cannot catch 2 delta, by what binds them, and what helps. */
static void power_help(FILE *f, const cb_compare_result *r, const cb_compare_opts *o)
{
    char buf[128];
    const cb_power_count *all = &r->power[CB_CMP_KINDS];
    int spread = all->tested - all->detect - all->floor_bound;
    if (spread > 0)
        fprintf(f,
                "- %d point%s (MDE above %g%%) are held back by their spread: more runs per "
                "side (from 3, separate processes are the unit), `--replicates R` (rounds in "
                "each run), a calibration of this machine (`cubench compare --calibrate A B C -o "
                "FILE` on 3 or more runs of one build, then `--calibration FILE`), or a history "
                "narrow it.\n",
                spread, cb_plural(spread), 200.0 * o->delta);
    if (all->floor_bound > 0)
        fprintf(f,
                "- %d point%s are held back by the timer's floor (%s): a change smaller than "
                "that cannot be seen; batching runs into samples (`cubench run --cache hot`) "
                "divides the floor.\n",
                all->floor_bound, cb_plural(all->floor_bound),
                event_floor_text(o, buf, sizeof buf));
    if (all->untested > 0)
        fprintf(f,
                "- %d point%s could not be tested: their kind has no default between-run spread "
                "(below), and one run per side cannot show it: 3 runs per side, a calibration or "
                "a history make them testable.\n",
                all->untested, cb_plural(all->untested));
}

static void power(FILE *f, const cb_report_input *in)
{
    const cb_compare_result *r = in->result;
    const cb_compare_opts *o = in->opts;
    const cb_power_count *all = &r->power[CB_CMP_KINDS];
    char m[32];
    if (all->tested + all->untested == 0) return;
    fprintf(f,
            "**What this comparison can see:** %d of %d tested point%s would flag a slowdown of "
            "%g%% (2δ) with probability %g (MDE ≤ %g%%); median MDE %s.",
            all->detect, all->tested, cb_plural(all->tested), 200.0 * o->delta, o->power,
            200.0 * o->delta, fmt_pct(all->mde_median, m, sizeof m));
    if (all->untested)
        fprintf(f, " %d more timed on both sides could not be tested.", all->untested);
    fputs("\n", f);
    power_by_kind(f, r, o);
    if (all->detect < all->tested || all->untested) fputs("\n", f);
    power_help(f, r, o);
    fputs("\n", f);
}

/* ---- what the comparison can know ----------------------------------------- */

/* "BASE: 1 run, 5 rounds per point, schema 2" and what an old schema lacks. */
static void side_shape(FILE *f, const char *name, const cb_cmp_run *run)
{
    int v1 = 0, rounds_min = 0, rounds_max = 0;
    for (int d = 0; d < run->n_dirs; d++) {
        v1 += run->dirs[d].schema == 1;
        int r = run->dirs[d].rounds;
        if (d == 0 || r < rounds_min) rounds_min = r;
        if (r > rounds_max) rounds_max = r;
    }
    fprintf(f, "- %s: %d run%s", name, run->n_dirs, cb_plural(run->n_dirs));
    if (rounds_max > 1 && rounds_min == rounds_max)
        fprintf(f, ", %d rounds each", rounds_max);
    else if (rounds_max > 1)
        fprintf(f, ", %d to %d rounds each", rounds_min, rounds_max);
    else
        fputs(", one round each", f);
    if (v1 > 0)
        fprintf(f, "; %sschema 1: no replicates, throttle or telemetry recorded",
                v1 == run->n_dirs ? "" : "partly ");
    fputs(".\n", f);
    for (int i = 0; i < run->n_duplicates; i++) {
        fprintf(f, "- %s: `", name);
        cb_md_cell_text(f, run->duplicates[i].path);
        fputs("` left out: ", f);
        cb_md_cell_text(f, run->duplicates[i].why);
        fputs(" (the same run counted twice would pass for independent evidence).\n", f);
    }
}

static void basis_lines(FILE *f, const cb_compare_result *r)
{
    static const char *const basis_text[] = {
        [CB_BASIS_RUNS] = "the spread of its runs (separate processes)",
        [CB_BASIS_ROUNDS] = "the spread of its rounds inside each run",
        [CB_BASIS_SAMPLES] = "its samples (one unit per run)",
    };
    for (int side = 0; side < 2; side++)
        for (int b = 0; b < 3; b++)
            if (r->basis_count[side][b])
                fprintf(f, "- %s's uncertainty at %d point%s: %s.\n", side ? "NEW" : "BASE",
                        r->basis_count[side][b], cb_plural(r->basis_count[side][b]), basis_text[b]);
}

/* The kinds' defaults as the report states them. */
static void default_table(FILE *f)
{
    int n;
    const cb_kind_default *t = cb_kind_defaults(&n);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%s%s", i ? "; " : "", cb_cmp_kind_name(t[i].kind));
        if (!isinf(t[i].below_s)) fprintf(f, " below %.3g µs", 1e6 * t[i].below_s);
        if (t[i].trusted)
            fprintf(f, " %.2g%%", 100.0 * t[i].sd);
        else
            fputs(" none", f);
        while (i + 1 < n && t[i + 1].kind == t[i].kind && !t[i].trusted)
            i++;
    }
}

static void widening_lines(FILE *f, const cb_compare_result *r, const cb_compare_opts *o)
{
    for (int s = 0; s < o->n_sources; s++) {
        int used = 0;
        for (int i = 0; i < r->n_rows; i++)
            used += r->rows[i].widening == CB_WIDEN_SOURCE && r->rows[i].source == s;
        if (!used) continue;
        fprintf(f, "- Widened at %d point%s by the between-run spread of the %s `", used,
                cb_plural(used), o->sources[s].name);
        cb_md_cell_text(f, o->sources[s].label);
        fputs("`.\n", f);
    }
    int def = r->widening_count[CB_WIDEN_DEFAULT];
    if (def && o->between_run_sd > 0.0)
        fprintf(f,
                "- Widened at %d point%s by the between-run spread of %g%% per run given by "
                "--between-run: runs of one process cannot show how much another differs.\n",
                def, cb_plural(def), 100.0 * o->between_run_sd);
    else if (def) {
        fprintf(f, "- Assumed a default between-run spread at %d point%s, by kind of point (", def,
                cb_plural(def));
        default_table(f);
        fputs("; measured on H200 A/A runs, docs/compare.md): rounds or samples of one process "
              "cannot show how much another process differs. Replace it with this machine's: "
              "`cubench compare --calibrate A B C -o FILE` on 3 or more runs of one build, then "
              "`--calibration FILE`.\n",
              f);
    }
}

static void knowledge(FILE *f, const cb_report_input *in)
{
    const cb_compare_result *r = in->result;
    const cb_compare_opts *o = in->opts;
    fputs("**What this comparison can know.**\n\n", f);
    side_shape(f, "BASE", in->base);
    side_shape(f, "NEW", in->cand);
    if (in->conditions && in->conditions->base_mix[0])
        fprintf(f,
                "- **BASE mixes devices:** %s: the spread of its runs holds the devices' "
                "difference.\n",
                in->conditions->base_mix);
    if (in->conditions && in->conditions->new_mix[0])
        fprintf(f,
                "- **NEW mixes devices:** %s: the spread of its runs holds the devices' "
                "difference.\n",
                in->conditions->new_mix);
    if (r->tested == 0 && r->widening_count[CB_WIDEN_UNKNOWN] == 0) {
        fputs("\n", f);
        return;
    }
    basis_lines(f, r);
    widening_lines(f, r, o);
    int rounds_only = r->basis_count[0][CB_BASIS_ROUNDS] + r->basis_count[1][CB_BASIS_ROUNDS];
    if (rounds_only && o->n_sources == 0 && o->between_run_sd == 0.0)
        fputs("- Rounds stand in for separate processes here (--between-run 0): a process-level "
              "offset that no round shows is not in the CIs (on the H200 such CIs held the truth "
              "at 44-53% of A/A points, not 99%).\n",
              f);
    if (r->bimodal)
        fprintf(f,
                "- %d point%s switched between two modes inside a run (`bimodal` in the note): "
                "their variance holds the gap between the modes.\n",
                r->bimodal, cb_plural(r->bimodal));
    fputs("\n", f);
}

static void conditions(FILE *f, const cb_report_input *in)
{
    const cb_cmp_conditions *c = in->conditions;
    if (!c) return;
    if (c->n_diffs > 0) {
        fputs("> **Warning:** BASE and NEW ran under different conditions:\n>\n"
              "> | condition | BASE | NEW |\n> |---|---|---|\n",
              f);
        for (int i = 0; i < c->n_diffs; i++) {
            fputs("> | ", f);
            cb_md_cell_text(f, c->diffs[i].key);
            fputs(" | ", f);
            cb_md_cell_text(f, c->diffs[i].base);
            fputs(" | ", f);
            cb_md_cell_text(f, c->diffs[i].cand);
            fputs(" |\n", f);
        }
        fputs("\n", f);
    }
    int nb = in->base->n_dirs, nn = in->cand->n_dirs;
    if (c->base_meta < nb || c->new_meta < nn)
        fprintf(f, "Runs without meta.json (conditions unknown): BASE %d of %d, NEW %d of %d.\n\n",
                nb - c->base_meta, nb, nn - c->new_meta, nn);
    if ((c->base_telemetry > 0) != (c->new_telemetry > 0))
        fprintf(f, "Telemetry: only %s recorded clocks, power and throttling.\n\n",
                c->base_telemetry ? "BASE" : "NEW");
}

static bool is_throttled(const cb_compare_row *row)
{
    return row->base_throttle.seen || row->new_throttle.seen || !isnan(row->clock_base);
}

static void throttle_words(FILE *f, const char *side, const cb_throttle_evidence *e)
{
    if (!e->seen) return;
    fprintf(f, " %s ", side);
    if (e->reasons)
        cb_md_cell_text(f, e->reasons);
    else
        fprintf(f, "SM clock %.0f-%.0f MHz", e->clock_lo, e->clock_hi);
}

static void throttled(FILE *f, const cb_compare_result *r)
{
    int n = 0, shown = 0;
    for (int i = 0; i < r->n_rows; i++)
        n += is_throttled(&r->rows[i]);
    if (n == 0) return;
    fprintf(f,
            "**Throttled** (clock-event reasons while sampling, or steady SM clocks apart) at %d "
            "point%s:",
            n, cb_plural(n));
    for (int i = 0; i < r->n_rows && shown < CB_REPORT_MAX_THROTTLED; i++) {
        const cb_compare_row *row = &r->rows[i];
        if (!is_throttled(row)) continue;
        fputs(shown ? "; " : " ", f);
        cb_md_cell_text(f, row->benchmark);
        fputs(" [", f);
        cb_md_cell_text(f, row->axes);
        fputs("]", f);
        throttle_words(f, "BASE", &row->base_throttle);
        throttle_words(f, "NEW", &row->new_throttle);
        if (!isnan(row->clock_base))
            fprintf(f, " (SM clock medians BASE %.0f, NEW %.0f MHz)", row->clock_base,
                    row->clock_new);
        shown++;
    }
    if (n > shown) fprintf(f, "; and %d more", n - shown);
    fputs(".", f);
    if (r->counts[CB_VERDICT_THROTTLED])
        fprintf(f,
                " A throttled difference is no regression: the %d point%s whose kept samples ran "
                "throttled get the verdict `throttled` (%d of them the test alone would call "
                "slower; `--fail-on-throttled` makes those fail).",
                r->counts[CB_VERDICT_THROTTLED], cb_plural(r->counts[CB_VERDICT_THROTTLED]),
                r->throttled_slower);
    fputs("\n\n", f);
}

/* ---- the tables ----------------------------------------------------------- */

static void table_head(FILE *f, const cb_compare_opts *o)
{
    fprintf(f,
            "| verdict | benchmark | axes | NEW/BASE | %g%% CI | q | MDE | BASE | NEW | units "
            "| note |\n",
            100.0 * (1.0 - o->alpha));
    fputs("|---|---|---|--:|---|--:|--:|--:|--:|--:|---|\n", f);
}

static void table_row(FILE *f, const cb_compare_row *row)
{
    char a[64], b[64], c[64], d[64];
    const char *v = cb_verdict_name(row->verdict);
    bool strong = row->verdict == CB_VERDICT_SLOWER || row->verdict == CB_VERDICT_FASTER;
    fprintf(f, strong ? "| **%s** | " : "| %s | ", v);
    cb_md_cell_text(f, row->benchmark);
    fputs(" | ", f);
    cb_md_cell_text(f, row->axes);
    if (row->device && row->device[0]) fputs(" device ", f), cb_md_cell_text(f, row->device);
    fprintf(f, " | %s | ", fmt_ratio(row->ratio, a, sizeof a));
    if (!isnan(row->ci_lo))
        fprintf(f, "%.3f – %.3f", row->ci_lo, row->ci_hi);
    else
        fputs("-", f);
    if (isnan(row->q))
        fputs(" | - ", f);
    else
        fprintf(f, " | %.2g ", row->q);
    fprintf(f, "| %s | %s | %s | %d/%d | ", fmt_pct(row->mde, d, sizeof d),
            fmt_time(row->base.median_s, b, sizeof b), fmt_time(row->cand.median_s, c, sizeof c),
            row->base.units, row->cand.units);
    cb_md_cell_text(f, row->note);
    fputs(" |\n", f);
}

static void rules(FILE *f, const cb_report_input *in)
{
    char floor[128];
    const cb_compare_opts *o = in->opts;
    double level = 100.0 * (1.0 - o->alpha);
    fprintf(f,
            "Rules: *slower*/*faster*: NEW is more than %g%% slower/faster with %g%% confidence "
            "after the Benjamini–Hochberg correction over the %d tested points; *same*: the %g%% "
            "CI of NEW/BASE lies within ±%g%%; *throttled*: a side ran throttled, never a "
            "regression; otherwise *inconclusive*. MDE: the smallest slowdown a point catches "
            "with probability %g at level %g (and at least the timer's floor: %s, host clock "
            "%g µs, per run of a batch). Fewer than %d samples on a side: *inconclusive*.\n\n",
            100.0 * o->delta, level, in->result->tested, level, 100.0 * o->delta, o->power,
            o->alpha, event_floor_text(o, floor, sizeof floor), 1e6 * o->host_res_s,
            o->min_samples);
}

static void groups(FILE *f, const cb_compare_result *r, const cb_compare_opts *o)
{
    char buf[96];
    if (r->n_groups <= 1) return;
    fprintf(f,
            "| benchmark | tested points | geomean NEW/BASE (%g%% CI) | slower | faster | same | "
            "other |\n",
            100.0 * (1.0 - o->alpha));
    fputs("|---|--:|--:|--:|--:|--:|--:|\n", f);
    for (int g = 0; g < r->n_groups; g++) {
        const cb_compare_group *grp = &r->groups[g];
        int other = 0;
        for (int v = 0; v < CB_VERDICT_COUNT; v++)
            other += grp->counts[v];
        other -= grp->counts[CB_VERDICT_SLOWER] + grp->counts[CB_VERDICT_FASTER] +
                 grp->counts[CB_VERDICT_SAME];
        fputs("| ", f);
        cb_md_cell_text(f, grp->benchmark);
        fprintf(f, " | %d | %s | %d | %d | %d | %d |\n", grp->geomean.points,
                fmt_geomean(&grp->geomean, buf, sizeof buf), grp->counts[CB_VERDICT_SLOWER],
                grp->counts[CB_VERDICT_FASTER], grp->counts[CB_VERDICT_SAME], other);
    }
    fputs("\n", f);
}

static void heading(FILE *f, const cb_report_input *in)
{
    const cb_compare_result *r = in->result;
    fprintf(f, "### %s: ", in->title && *in->title ? in->title : "cubench compare");
    bool any = false;
    for (int v = 0; v < CB_VERDICT_COUNT; v++) {
        if (!r->counts[v]) continue;
        fprintf(f, "%s%s%d %s%s", any ? ", " : "", v == CB_VERDICT_SLOWER ? "**" : "", r->counts[v],
                cb_verdict_name((cb_verdict)v), v == CB_VERDICT_SLOWER ? "**" : "");
        any = true;
    }
    if (!any) fputs("no points", f);
    fputs("\n\n", f);
    side_line(f, "BASE", in->base);
    fputs(" → ", f);
    side_line(f, "NEW", in->cand);
    fputs("\n\n", f);
}

static void point_tables(FILE *f, const cb_compare_result *r, const cb_compare_opts *o)
{
    int changed = r->n_rows - r->counts[CB_VERDICT_SAME];
    if (changed > 0) {
        table_head(f, o);
        for (int i = 0; i < r->n_rows; i++)
            if (r->rows[i].verdict != CB_VERDICT_SAME) table_row(f, &r->rows[i]);
        fputs("\n", f);
    }
    if (r->counts[CB_VERDICT_SAME] == 0) return;
    fprintf(f, "<details><summary>%d unchanged points (same)</summary>\n\n",
            r->counts[CB_VERDICT_SAME]);
    table_head(f, o);
    for (int i = 0; i < r->n_rows; i++)
        if (r->rows[i].verdict == CB_VERDICT_SAME) table_row(f, &r->rows[i]);
    fputs("\n</details>\n", f);
}

bool cb_compare_write_markdown(FILE *f, const cb_report_input *in)
{
    const cb_compare_result *r = in->result;
    const cb_compare_opts *o = in->opts;
    char buf[96];
    heading(f, in);
    power(f, in);
    knowledge(f, in);
    conditions(f, in);
    throttled(f, r);
    fprintf(f, "Overall geometric-mean NEW/BASE: **%s** (%g%% CI) over %d tested points",
            fmt_geomean(&r->geomean, buf, sizeof buf), 100.0 * (1.0 - o->alpha), r->geomean.points);
    if (r->geomean.points && r->geomean.offset_var > 0.0)
        fprintf(f, ", with a run-wide offset of %.2g%% per side in the CI",
                100.0 * sqrt(r->geomean.offset_var / 2.0));
    fputs(".\n\n", f);
    rules(f, in);
    groups(f, r, o);
    point_tables(f, r, o);
    return !ferror(f);
}
