/* compare_report.c - markdown and CSV renderings of a cb_compare_result. */
#include "compare_report.h"

#include "compare_between.h"

#include <math.h>
#include <string.h>

/* At most this many throttled points are named in the markdown. */
#define CB_REPORT_MAX_THROTTLED 10

const char *cb_widening_name(cb_widening w)
{
    return w == CB_WIDEN_CALIBRATION ? "calibration" : w == CB_WIDEN_DEFAULT ? "default" : "none";
}

void cb_md_cell_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
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
        fprintf(f, " + %d more run%s", run->n_dirs - 1, run->n_dirs > 2 ? "s" : "");
    if (run->git_sha[0] || run->device[0]) {
        fputs(" (", f);
        if (run->git_sha[0]) fputs("git ", f), cb_md_cell_text(f, run->git_sha);
        if (run->git_sha[0] && run->device[0]) fputs(", ", f);
        if (run->device[0]) cb_md_cell_text(f, run->device);
        fputc(')', f);
    }
}

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
    fprintf(f, "- %s: %d run%s", name, run->n_dirs, run->n_dirs == 1 ? "" : "s");
    if (rounds_max > 1) {
        if (rounds_min == rounds_max)
            fprintf(f, ", %d rounds each", rounds_max);
        else
            fprintf(f, ", %d to %d rounds each", rounds_min, rounds_max);
    } else {
        fputs(", one round each", f);
    }
    if (v1 > 0)
        fprintf(f, "; %sschema 1: no replicates, throttle or telemetry recorded",
                v1 == run->n_dirs ? "" : "partly ");
    fputs(".\n", f);
}

/* Which unit the tests used, and where the between-run spread came from. */
static void knowledge(FILE *f, const cb_report_input *in)
{
    const cb_compare_result *r = in->result;
    const cb_compare_opts *o = in->opts;
    fputs("**What this comparison can know.**\n\n", f);
    side_shape(f, "BASE", in->base);
    side_shape(f, "NEW", in->cand);
    if (r->tested == 0) {
        fputs("\n", f);
        return;
    }
    static const char *const basis_text[] = {
        [CB_BASIS_RUNS] = "the spread of its runs (separate processes)",
        [CB_BASIS_ROUNDS] = "the spread of its rounds inside each run",
        [CB_BASIS_SAMPLES] = "its samples (one unit per run)",
    };
    for (int side = 0; side < 2; side++)
        for (int b = 0; b < 3; b++)
            if (r->basis_count[side][b])
                fprintf(f, "- %s's uncertainty at %d point%s: %s.\n", side ? "NEW" : "BASE",
                        r->basis_count[side][b], r->basis_count[side][b] == 1 ? "" : "s",
                        basis_text[b]);
    if (r->widening_count[CB_WIDEN_CALIBRATION])
        fprintf(f,
                "- Widened at %d point%s by the between-run spread of the calibration `%s`%s%s "
                "(an A/A pair, %s).\n",
                r->widening_count[CB_WIDEN_CALIBRATION],
                r->widening_count[CB_WIDEN_CALIBRATION] == 1 ? "" : "s", o->calibration->path,
                o->calibration->device[0] ? " recorded on " : "", o->calibration->device,
                o->calibration->basis);
    if (r->widening_count[CB_WIDEN_DEFAULT] && o->between_run_sd > 0.0)
        fprintf(f,
                "- Widened at %d point%s by the between-run spread of %g%% per run given by "
                "--between-run: runs of one process cannot show how much another differs.\n",
                r->widening_count[CB_WIDEN_DEFAULT],
                r->widening_count[CB_WIDEN_DEFAULT] == 1 ? "" : "s", 100.0 * o->between_run_sd);
    else if (r->widening_count[CB_WIDEN_DEFAULT])
        fprintf(
            f,
            "- Assumed a default between-run spread at %d point%s (%g%% per run below %.3g us, "
            "%g%% to %.3g us, %g%% above; measured on H200 A/A pairs): rounds or samples of one "
            "process cannot show how much another process differs. Replace it with this "
            "machine's: `cubench compare --calibrate A B -o FILE` on an A/A pair, then "
            "`--calibration FILE`.\n",
            r->widening_count[CB_WIDEN_DEFAULT],
            r->widening_count[CB_WIDEN_DEFAULT] == 1 ? "" : "s", 100.0 * CB_BETWEEN_SHORT_SD,
            1e6 * CB_BETWEEN_SHORT_S, 100.0 * CB_BETWEEN_MID_SD, 1e6 * CB_BETWEEN_MID_S,
            100.0 * CB_BETWEEN_LONG_SD);
    int rounds_only = r->basis_count[0][CB_BASIS_ROUNDS] + r->basis_count[1][CB_BASIS_ROUNDS];
    if (rounds_only && !o->calibration && o->between_run_sd == 0.0)
        fputs("- Rounds stand in for separate processes here (--between-run 0): a process-level "
              "offset that no round shows is not in the CIs (on the H200 such CIs held the truth "
              "at 44-53% of A/A points, not 99%).\n",
              f);
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

static void throttled(FILE *f, const cb_compare_result *r)
{
    if (r->throttled == 0) return;
    fprintf(f, "**Throttled** (clock-event reasons while sampling) at %d point%s:", r->throttled,
            r->throttled == 1 ? "" : "s");
    int shown = 0;
    for (int i = 0; i < r->n_rows && shown < CB_REPORT_MAX_THROTTLED; i++) {
        const cb_compare_row *row = &r->rows[i];
        if (!row->base_throttle && !row->new_throttle) continue;
        fputs(shown ? "; " : " ", f);
        cb_md_cell_text(f, row->benchmark);
        fputs(" [", f);
        cb_md_cell_text(f, row->axes);
        fputs("]", f);
        if (row->base_throttle) fputs(" BASE ", f), cb_md_cell_text(f, row->base_throttle);
        if (row->new_throttle) fputs(" NEW ", f), cb_md_cell_text(f, row->new_throttle);
        shown++;
    }
    if (r->throttled > shown) fprintf(f, "; and %d more", r->throttled - shown);
    fputs(".\n\n", f);
}

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
    const cb_compare_opts *o = in->opts;
    double level = 100.0 * (1.0 - o->alpha);
    fprintf(f,
            "Rules: *slower*/*faster*: NEW is more than %g%% slower/faster with %g%% confidence "
            "after the Benjamini–Hochberg correction over the %d tested points; *same*: the %g%% "
            "CI of NEW/BASE lies within ±%g%%; otherwise *inconclusive*. MDE: the smallest "
            "slowdown a point catches with probability %g at level %g (and at least the timer's "
            "floor: event timer %g µs, host clock %g µs, per run of a batch). Fewer than %d "
            "samples on a side: *inconclusive*.\n\n",
            100.0 * o->delta, level, in->result->tested, level, 100.0 * o->delta, o->power,
            o->alpha, 1e6 * o->event_res_s, 1e6 * o->host_res_s, o->min_samples);
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

bool cb_compare_write_markdown(FILE *f, const cb_report_input *in)
{
    const cb_compare_result *r = in->result;
    const cb_compare_opts *o = in->opts;
    char buf[96];
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
    knowledge(f, in);
    conditions(f, in);
    throttled(f, r);

    fprintf(f, "Overall geometric-mean NEW/BASE: **%s** (%g%% CI) over %d tested points.\n\n",
            fmt_geomean(&r->geomean, buf, sizeof buf), 100.0 * (1.0 - o->alpha), r->geomean.points);
    rules(f, in);
    groups(f, r, o);

    int changed = r->n_rows - r->counts[CB_VERDICT_SAME];
    if (changed > 0) {
        table_head(f, o);
        for (int i = 0; i < r->n_rows; i++)
            if (r->rows[i].verdict != CB_VERDICT_SAME) table_row(f, &r->rows[i]);
        fputs("\n", f);
    }
    if (r->counts[CB_VERDICT_SAME] > 0) {
        fprintf(f, "<details><summary>%d unchanged points (same)</summary>\n\n",
                r->counts[CB_VERDICT_SAME]);
        table_head(f, o);
        for (int i = 0; i < r->n_rows; i++)
            if (r->rows[i].verdict == CB_VERDICT_SAME) table_row(f, &r->rows[i]);
        fputs("\n</details>\n", f);
    }
    return !ferror(f);
}

/* A field, quoted when it holds a comma, quote or line break. */
static void csv_quoted(FILE *f, const char *s)
{
    if (!s) return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A field after the first: a comma, then the field (NULL: empty). */
static void csv_text(FILE *f, const char *s)
{
    fputc(',', f);
    csv_quoted(f, s);
}

static void csv_num(FILE *f, double v)
{
    fputc(',', f);
    if (isfinite(v)) fprintf(f, "%.9g", v);
}

bool cb_compare_write_csv(FILE *f, const cb_compare_result *r)
{
    fputs("benchmark,axes,verdict,ratio,ci_lo,ci_hi,p,q,mde,base_median_s,new_median_s,base_n,"
          "new_n,base_units,new_units,base_runs,new_runs,basis,df,between_run_sd,widening,floor_s,"
          "base_rel_iqr,new_rel_iqr,base_throttle,new_throttle,note\n",
          f);
    for (int i = 0; i < r->n_rows; i++) {
        const cb_compare_row *row = &r->rows[i];
        bool test = !isnan(row->p);
        char basis[32] = "";
        if (test)
            snprintf(basis, sizeof basis, "%s/%s", cb_basis_name(row->base.basis),
                     cb_basis_name(row->cand.basis));
        csv_quoted(f, row->benchmark); /* the first field: no comma before it */
        csv_text(f, row->axes);
        csv_text(f, cb_verdict_name(row->verdict));
        csv_num(f, row->ratio);
        csv_num(f, row->ci_lo);
        csv_num(f, row->ci_hi);
        csv_num(f, row->p);
        csv_num(f, row->q);
        csv_num(f, row->mde);
        csv_num(f, row->base.median_s);
        csv_num(f, row->cand.median_s);
        fprintf(f, ",%d,%d,%d,%d,%d,%d", row->base.n, row->cand.n, row->base.units, row->cand.units,
                row->base.runs, row->cand.runs);
        csv_text(f, basis);
        if (test && isinf(row->df))
            fputs(",inf", f); /* every part of the variance known exactly */
        else
            csv_num(f, test ? row->df : NAN);
        csv_num(f, test ? row->between_sd : NAN);
        csv_text(f, test ? cb_widening_name(row->widening) : "");
        csv_num(f, row->floor_s);
        csv_num(f, row->base.rel_iqr);
        csv_num(f, row->cand.rel_iqr);
        csv_text(f, row->base_throttle);
        csv_text(f, row->new_throttle);
        csv_text(f, row->note);
        fputc('\n', f);
    }
    return !ferror(f);
}
