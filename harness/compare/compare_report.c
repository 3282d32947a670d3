/* compare_report.c - markdown and CSV renderings of a cb_compare_result. */
#include "compare_report.h"

#include <math.h>
#include <string.h>

/* Table cells: '|' would end the cell, '<' could open an HTML tag, and a
 * newline would end the row. */
static void md_text(FILE *f, const char *s)
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

static void side_line(FILE *f, const char *name, const cb_cmp_run *run)
{
    fprintf(f, "%s `", name);
    md_text(f, run->label);
    fputc('`', f);
    if (run->n_dirs > 1)
        fprintf(f, " + %d more run%s", run->n_dirs - 1, run->n_dirs > 2 ? "s" : "");
    if (run->git_sha[0] || run->device[0]) {
        fputs(" (", f);
        if (run->git_sha[0]) fprintf(f, "git %s", run->git_sha);
        if (run->git_sha[0] && run->device[0]) fputs(", ", f);
        if (run->device[0]) md_text(f, run->device);
        fputc(')', f);
    }
}

static void table_head(FILE *f, const cb_compare_opts *o)
{
    fprintf(f,
            "| verdict | benchmark | axes | NEW/BASE | %g%% CI | q | BASE median | NEW median "
            "| n | rel IQR | note |\n",
            100.0 * (1.0 - o->alpha));
    fputs("|---|---|---|--:|---|--:|--:|--:|--:|--:|---|\n", f);
}

static void table_row(FILE *f, const cb_compare_row *row)
{
    char a[64], b[64], c[64], d[64];
    const char *v = cb_verdict_name(row->verdict);
    bool strong = row->verdict == CB_VERDICT_SLOWER || row->verdict == CB_VERDICT_FASTER;
    fprintf(f, strong ? "| **%s** | " : "| %s | ", v);
    md_text(f, row->benchmark);
    fputs(" | ", f);
    md_text(f, row->axes);
    fprintf(f, " | %s | ", fmt_ratio(row->ratio, a, sizeof a));
    if (!isnan(row->ci_lo) && isfinite(row->ci_hi))
        fprintf(f, "%.3f – %.3f", row->ci_lo, row->ci_hi);
    else
        fputs("-", f);
    if (isnan(row->q))
        fputs(" | - ", f);
    else
        fprintf(f, " | %.2g ", row->q);
    fprintf(f, "| %s | %s | %d/%d | ", fmt_time(row->base_median, b, sizeof b),
            fmt_time(row->new_median, c, sizeof c), row->base_n, row->new_n);
    fprintf(f, "%s", fmt_pct(row->base_rel_iqr, d, sizeof d));
    fprintf(f, " / %s | ", fmt_pct(row->new_rel_iqr, d, sizeof d));
    md_text(f, row->note);
    fputs(" |\n", f);
}

bool cb_compare_write_markdown(FILE *f, const cb_compare_result *r, const cb_compare_opts *o,
                               const cb_cmp_run *base, const cb_cmp_run *cand, const char *title)
{
    char buf[64];
    fprintf(f, "### %s: ", title && *title ? title : "cubench compare");
    bool any = false;
    for (int v = 0; v < CB_VERDICT_COUNT; v++) {
        if (!r->counts[v]) continue;
        fprintf(f, "%s%s%d %s%s", any ? ", " : "", v == CB_VERDICT_SLOWER ? "**" : "", r->counts[v],
                cb_verdict_name((cb_verdict)v), v == CB_VERDICT_SLOWER ? "**" : "");
        any = true;
    }
    if (!any) fputs("no points", f);
    fputs("\n\n", f);

    side_line(f, "BASE", base);
    fputs(" → ", f);
    side_line(f, "NEW", cand);
    fputs("\n\n", f);
    if (base->device[0] && cand->device[0] && strcmp(base->device, cand->device) != 0)
        fputs("> **Warning:** BASE and NEW ran on different devices.\n\n", f);

    fprintf(f, "Overall geometric-mean NEW/BASE: **%s** over %d points timed on both sides.\n\n",
            fmt_ratio(r->geomean, buf, sizeof buf), r->geomean_points);
    fprintf(f,
            "Rules: *slower*/*faster* need the %g%% CI of the Hodges-Lehmann ratio NEW/BASE to "
            "exclude 1, a change of at least %g%% and a Benjamini-Hochberg q <= %g; *same*: the "
            "CI lies within ±%g%%, or the medians are less than %g us apart (the timer's "
            "resolution); *noisy*: relative IQR above %g%% on a side; fewer than %d "
            "samples: *inconclusive*.\n\n",
            100.0 * (1.0 - o->alpha), 100.0 * o->delta, o->alpha, 100.0 * o->delta,
            1e6 * o->min_abs_delta, 100.0 * o->noise_limit, o->min_samples);

    if (r->n_groups > 1) {
        fputs("| benchmark | timed points | geomean NEW/BASE | slower | faster | same | other |\n",
              f);
        fputs("|---|--:|--:|--:|--:|--:|--:|\n", f);
        for (int g = 0; g < r->n_groups; g++) {
            const cb_compare_group *grp = &r->groups[g];
            int other = 0;
            for (int v = 0; v < CB_VERDICT_COUNT; v++)
                other += grp->counts[v];
            other -= grp->counts[CB_VERDICT_SLOWER] + grp->counts[CB_VERDICT_FASTER] +
                     grp->counts[CB_VERDICT_SAME];
            fputs("| ", f);
            md_text(f, grp->benchmark);
            fprintf(f, " | %d | %s | %d | %d | %d | %d |\n", grp->points,
                    fmt_ratio(grp->geomean, buf, sizeof buf), grp->counts[CB_VERDICT_SLOWER],
                    grp->counts[CB_VERDICT_FASTER], grp->counts[CB_VERDICT_SAME], other);
        }
        fputs("\n", f);
    }

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

static void csv_text(FILE *f, const char *s)
{
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

static void csv_num(FILE *f, double v)
{
    fputc(',', f);
    if (isfinite(v)) fprintf(f, "%.9g", v);
}

bool cb_compare_write_csv(FILE *f, const cb_compare_result *r)
{
    fputs("benchmark,axes,verdict,ratio,ci_lo,ci_hi,p,q,base_median_s,new_median_s,base_n,new_n,"
          "base_rel_iqr,new_rel_iqr,note\n",
          f);
    for (int i = 0; i < r->n_rows; i++) {
        const cb_compare_row *row = &r->rows[i];
        bool has_ci = !isnan(row->ci_lo) && isfinite(row->ci_hi);
        csv_text(f, row->benchmark);
        fputc(',', f);
        csv_text(f, row->axes);
        fprintf(f, ",%s", cb_verdict_name(row->verdict));
        csv_num(f, row->ratio);
        csv_num(f, has_ci ? row->ci_lo : NAN);
        csv_num(f, has_ci ? row->ci_hi : NAN);
        csv_num(f, row->p);
        csv_num(f, row->q);
        csv_num(f, row->base_median);
        csv_num(f, row->new_median);
        fprintf(f, ",%d,%d", row->base_n, row->new_n);
        csv_num(f, row->base_rel_iqr);
        csv_num(f, row->new_rel_iqr);
        fputc(',', f);
        csv_text(f, row->note);
        fputc('\n', f);
    }
    return !ferror(f);
}
