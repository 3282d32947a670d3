/* history_report.c - what `cubench history show` and `history check` print:
 * markdown tables, times in the unit that suits them, changes as percent. */
#include "history_impl.h"
#include "report_text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A time in s, ms, us or ns with 4 significant digits; "-" when unknown. */
static const char *fmt_time(double s, char buf[32])
{
    if (!(s > 0.0) || !isfinite(s)) return "-";
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
    int u = 0;
    while (u < 3 && s < units[u].scale)
        u++;
    snprintf(buf, 32, "%.4g %s", s / units[u].scale, units[u].unit);
    return buf;
}

static const char *fmt_pct(double ratio, char buf[32])
{
    if (!isfinite(ratio)) return "-";
    snprintf(buf, 32, "%+.2f%%", (ratio - 1.0) * 100.0);
    return buf;
}

/* The first 12 characters of a commit (what meta.json records, or less). */
static const char *short_sha(const char *sha, char buf[16])
{
    snprintf(buf, 16, "%.12s", sha && *sha ? sha : "?");
    return buf;
}

/* Names and words from the runs go through cb_md_cell_text: a stored
 * benchmark, axes or machine name may hold a '|' or a newline. */
static void series_heading(FILE *f, const cb_hist_series *s)
{
    fputs("## ", f);
    cb_md_cell_text(f, s->benchmark);
    fputs(" [", f);
    cb_md_cell_text(f, s->axes);
    fputs("]", f);
    if (s->device[0]) fputs(" device ", f), cb_md_cell_text(f, s->device);
    fputs(" on ", f);
    cb_md_cell_text(f, s->machine);
    fprintf(f, " (%s)\n\n", s->kind[0] ? s->kind : "kind unknown");
}

static void series_row(FILE *f, const cb_hist_data *d, const cb_hist_value *v, double first)
{
    const cb_hist_run *r = &d->runs[v->run];
    char a[32], b[32], c[32], p[32], sha[16], clock[32] = "-";
    if (isfinite(v->sm_clock_mhz)) snprintf(clock, sizeof clock, "%.0f MHz", v->sm_clock_mhz);
    fprintf(f, "| %lld | ", r->id);
    cb_md_cell_text(f, r->started);
    fputs(" | ", f);
    cb_md_cell_text(f, short_sha(r->git_sha, sha));
    fputs(" | ", f);
    cb_md_cell_text(f, v->status);
    fprintf(f, " | %s | %s to %s | %s | %s | ", fmt_time(v->median_s, a), fmt_time(v->ci_lo_s, b),
            fmt_time(v->ci_hi_s, c), fmt_pct(v->median_s / first, p), clock);
    cb_md_cell_text(f, v->throttle ? v->throttle : "");
    fputs(" |\n", f);
}

bool cb_history_write_series(FILE *f, const cb_hist_data *d)
{
    if (d->n_series == 0) fprintf(f, "No stored point matches.\n");
    for (int i = 0; i < d->n_series; i++) {
        const cb_hist_series *s = &d->series[i];
        series_heading(f, s);
        fprintf(f, "| run | started (UTC) | commit | status | median | 95%% CI | vs first |"
                   " SM clock | throttle |\n|---|---|---|---|---|---|---|---|---|\n");
        double first = NAN;
        for (int k = 0; k < s->n && isnan(first); k++)
            if (s->v[k].median_s > 0.0) first = s->v[k].median_s;
        for (int k = 0; k < s->n; k++)
            series_row(f, d, &s->v[k], first);
        fprintf(f, "\n");
    }
    return !ferror(f);
}

/* "| point | machine | change | CI | runs | last good | first bad | commits
 * | throttled near | cause |" for one change. */
static void change_row(FILE *f, const cb_hist_data *d, const cb_hist_change *c)
{
    const cb_hist_series *s = &d->series[c->series];
    const cb_hist_run *good = &d->runs[s->v[c->before].run], *bad = &d->runs[s->v[c->after].run];
    char r[32], lo[32], hi[32], g[16], b[16];
    fputs("| ", f);
    cb_md_cell_text(f, s->benchmark);
    fputs(" [", f);
    cb_md_cell_text(f, s->axes);
    fputs("] | ", f);
    cb_md_cell_text(f, s->machine);
    fprintf(f, " | %s | %s to %s | %d / %d | %lld (", fmt_pct(c->ratio, r), fmt_pct(c->ci_lo, lo),
            fmt_pct(c->ci_hi, hi), c->n_before, c->n_after, good->id);
    cb_md_cell_text(f, good->started);
    fprintf(f, ") | %lld (", bad->id);
    cb_md_cell_text(f, bad->started);
    fputs(") | ", f);
    cb_md_cell_text(f, short_sha(good->git_sha, g));
    fputs("..", f);
    cb_md_cell_text(f, short_sha(bad->git_sha, b));
    fprintf(f, " | %d | %s |\n", c->throttled_near, cb_hist_cause_name(c->cause));
}

static void change_table(FILE *f, const cb_hist_data *d, const cb_hist_change *v, int n,
                         double level, int limit)
{
    fprintf(f,
            "| point | machine | change | %g%% CI | runs before / after | last good run |"
            " first bad run | commits | throttled runs near | cause |\n"
            "|---|---|---|---|---|---|---|---|---|---|\n",
            level * 100.0);
    for (int i = 0; i < n && i < limit; i++)
        change_row(f, d, &v[i]);
    if (n > limit) fprintf(f, "\n%d more (the JSON export has every one).\n", n - limit);
    fprintf(f, "\n");
}

static void summary(FILE *f, const cb_hist_data *d, const cb_hist_check *c,
                    const cb_hist_check_opts *o)
{
    fprintf(f, "# cubench history check\n\n");
    fprintf(f,
            "%d runs, %d series tested; change points by E-divisive means with %s "
            "(p <= %g), delta %g%%, CIs at %g%%.\n\n",
            d->n_runs, c->series,
            o->method == CB_HIST_METHOD_HUNTER ? "Student's t (hunter)"
                                               : "Student's t floored by the series' own spread",
            o->p_merge, o->delta * 100.0, (1.0 - o->alpha) * 100.0);
    if (c->n_outliers)
        fprintf(f,
                "%d outlier runs set aside (far off the runs on both sides, no throttle "
                "word).\n\n",
                c->n_outliers);
    if (c->regressions)
        fprintf(f,
                "**%d regression%s**: open, slower by more than %g%% with %g%% confidence, "
                "first bad run among the point's newest %d runs.\n\n",
                c->regressions, c->regressions == 1 ? "" : "s", o->delta * 100.0,
                (1.0 - o->alpha) * 100.0, o->recent);
    else
        fprintf(f, "No open regression larger than %g%%.\n\n", o->delta * 100.0);
}

bool cb_history_write_check(FILE *f, const cb_hist_data *d, const cb_hist_check *c,
                            const cb_hist_check_opts *o)
{
    summary(f, d, c, o);
    int regress = 0, open = 0;
    while (regress < c->n_changes && c->changes[regress].regression)
        regress++;
    while (regress + open < c->n_changes && c->changes[regress + open].open)
        open++;
    double level = 1.0 - o->alpha;
    if (regress) {
        fprintf(f, "## Regressions\n\n");
        change_table(f, d, c->changes, regress, level, 1000);
    }
    if (open) {
        fprintf(f, "## Other open changes (the newest of their series)\n\n");
        change_table(f, d, c->changes + regress, open, level, 200);
    }
    if (c->n_events) {
        fprintf(f, "## Changes of conditions\n\n| machine | first run | started (UTC) | change |\n"
                   "|---|---|---|---|\n");
        for (int i = 0; i < c->n_events; i++) {
            const cb_hist_run *r = &d->runs[c->events[i].run];
            fputs("| ", f);
            cb_md_cell_text(f, r->machine);
            fprintf(f, " | %lld | ", r->id);
            cb_md_cell_text(f, r->started);
            fputs(" | ", f);
            cb_md_cell_text(f, c->events[i].what);
            fputs(" |\n", f);
        }
        fprintf(f, "\n");
    }
    int rest = c->n_changes - regress - open;
    if (rest) {
        fprintf(f, "## Earlier change points (newest first)\n\n");
        change_table(f, d, c->changes + regress + open, rest, level, 200);
    }
    return !ferror(f);
}
