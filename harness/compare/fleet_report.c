/* fleet_report.c - the markdown rendering of a judged cb_fleet. */
#include "fleet_report.h"

#include "report_text.h"

#include <stdlib.h>
#include <string.h>

static const char *fmt_value(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.4g", v);
    return buf;
}

/* A ratio with three decimals, or three digits where that says nothing
 * (a CI of a fleet of three spans many decades). */
static const char *fmt_r(double r, char *buf, size_t len)
{
    snprintf(buf, len, r >= 0.001 && r < 1000 ? "%.3f" : "%.3g", r);
    return buf;
}

/* "0.982 [0.951, 1.010]", or the ratio alone without a CI. */
static const char *fmt_ratio_ci(const cb_fleet_cell *c, char *buf, size_t len)
{
    char r[24], lo[24], hi[24];
    if (isnan(c->ratio))
        snprintf(buf, len, "-");
    else if (isnan(c->ci_lo))
        snprintf(buf, len, "%s", fmt_r(c->ratio, r, sizeof r));
    else
        snprintf(buf, len, "%s [%s, %s]", fmt_r(c->ratio, r, sizeof r),
                 fmt_r(c->ci_lo, lo, sizeof lo), fmt_r(c->ci_hi, hi, sizeof hi));
    return buf;
}

static int count_complete(const cb_fleet *fl)
{
    int n = 0;
    for (int i = 0; i < fl->n_members; i++)
        n += fl->members[i].complete;
    return n;
}

static void task_cell(FILE *f, int task)
{
    if (task >= 0)
        fprintf(f, "%d", task);
    else
        fputs("-", f);
}

static bool flags(const cb_fleet_cell *c)
{
    return c->verdict == CB_FLEET_SLOW || c->verdict == CB_FLEET_FAST ||
           c->verdict == CB_FLEET_MISSING;
}

static void flagged_row(FILE *f, const cb_fleet *fl, const cb_fleet_group *grp,
                        const cb_fleet_member *m, int i)
{
    char a[64], b[64], c[96], ev[512];
    const cb_fleet_cell *cell = &m->cells[i];
    const cb_fleet_ref *ref = &grp->refs[i];
    fputs("| ", f);
    cb_md_cell_text(f, m->name);
    fputs(" | ", f);
    task_cell(f, m->task);
    fputs(" | ", f);
    cb_md_cell_text(f, grp->model);
    fputs(" | ", f);
    cb_md_cell_text(f, fl->figures[i].name);
    fprintf(f, " %s | `", fl->figures[i].unit);
    cb_md_cell_text(f, ref->benchmark);
    fputs(" ", f);
    cb_md_cell_text(f, ref->axes);
    cb_fleet_evidence(m, cell, ref, ev, sizeof ev);
    fprintf(f, "` | %s | %s | %s | **%s** | ", fmt_value(cell->value, a, sizeof a),
            fmt_value(ref->median_value, b, sizeof b), fmt_ratio_ci(cell, c, sizeof c),
            cb_fleet_verdict_name(cell->verdict));
    cb_md_cell_text(f, ev);
    fputs(" |\n", f);
}

static void write_flagged(FILE *f, const cb_fleet *fl, double level)
{
    fprintf(f, "## Flagged runs (%d)\n\n", fl->n_flagged);
    fprintf(f,
            "| run | task | model | figure | point | value | fleet median | ratio [%g%% CI] | "
            "verdict | evidence |\n",
            level);
    fputs("|---|--:|---|---|---|--:|--:|---|---|---|\n", f);
    for (int g = 0; g < fl->n_groups; g++) {
        const cb_fleet_group *grp = &fl->groups[g];
        for (int k = 0; k < grp->n; k++) {
            const cb_fleet_member *m = &fl->members[grp->members[k]];
            for (int i = 0; m->flagged && i < fl->n_figures; i++)
                if (flags(&m->cells[i])) flagged_row(f, fl, grp, m, i);
        }
    }
    fputs("\n", f);
}

static void task_problem_row(FILE *f, const cb_fleet_task *task, const cb_fleet_gap *gap)
{
    if (gap && gap->first == gap->last) {
        fprintf(f,
                "| %d | - | - | no record: the task never started (pending, cancelled, or its "
                "node failed before it ran) |\n",
                gap->first);
    } else if (gap) {
        fprintf(f,
                "| %d-%d | - | - | no record: %d tasks never started (pending, cancelled, or "
                "their nodes failed before they ran) |\n",
                gap->first, gap->last, gap->last - gap->first + 1);
    } else {
        fprintf(f, "| %d | ", task->id);
        cb_md_cell_text(f, task->node[0] ? task->node : "-");
        fputs(" | ", f);
        cb_md_cell_text(f, task->run_dir[0] ? task->run_dir : "-");
        fputs(" | ", f);
        cb_md_cell_text(f, task->problem);
        if (task->job[0]) fputs(" (job ", f), cb_md_cell_text(f, task->job), fputs(")", f);
        fputs(" |\n", f);
    }
}

static void write_problems(FILE *f, const cb_fleet *fl)
{
    fprintf(f, "## Problems (%d)\n\n| task | node | run | what |\n|--:|---|---|---|\n",
            fl->n_problems);
    cb_fleet_each_task_problem(fl, f, task_problem_row);
    for (int i = 0; i < fl->n_members; i++) {
        const cb_fleet_member *m = &fl->members[i];
        if (!m->problem) continue;
        fputs("| ", f);
        task_cell(f, m->task);
        fputs(" | ", f);
        cb_md_cell_text(f, m->host[0] ? m->host : "-");
        fputs(" | ", f);
        cb_md_cell_text(f, m->name);
        fputs(" | ", f);
        cb_md_cell_text(f, m->detail);
        fputs(" |\n", f);
    }
    fputs("\n", f);
}

/* The model's figures that some run measured, into figs; the others are
 * listed as unmeasured. Returns their number. */
static int write_refs(FILE *f, const cb_fleet *fl, const cb_fleet_group *g, int *figs)
{
    int n_figs = 0;
    char a[64];
    for (int i = 0; i < fl->n_figures; i++) {
        const cb_fleet_ref *ref = &g->refs[i];
        if (fl->figures[i].cpu != g->cpu_only) continue;
        if (!ref->benchmark) {
            fprintf(f, "- %s: no run of this model timed a matching point\n", fl->figures[i].name);
            continue;
        }
        figs[n_figs++] = i;
        fprintf(f, "- %s: `", fl->figures[i].name);
        cb_md_cell_text(f, ref->benchmark);
        fputs(" ", f);
        cb_md_cell_text(f, ref->axes);
        fprintf(f, "`, fleet median %s %s over %d run%s\n",
                fmt_value(ref->median_value, a, sizeof a), fl->figures[i].unit, ref->timed,
                cb_plural(ref->timed));
    }
    fputs("\n", f);
    return n_figs;
}

static void write_member_row(FILE *f, const cb_fleet_member *m, const int *figs, int n_figs)
{
    char a[64], b[96];
    const char *v = "ok"; /* the run's verdict: the worst of its figures */
    fputs("| ", f);
    cb_md_cell_text(f, m->name);
    fputs(" | ", f);
    task_cell(f, m->task);
    fputs(" |", f);
    for (int j = 0; j < n_figs; j++) {
        const cb_fleet_cell *c = &m->cells[figs[j]];
        bool bad = c->verdict == CB_FLEET_SLOW || c->verdict == CB_FLEET_FAST;
        if (c->verdict == CB_FLEET_MISSING)
            fputs(" **missing** |", f);
        else
            fprintf(f, bad ? " **%s (%s)** |" : " %s (%s) |", fmt_value(c->value, a, sizeof a),
                    fmt_ratio_ci(c, b, sizeof b));
        if (c->verdict == CB_FLEET_UNJUDGED) v = "unjudged";
    }
    fprintf(f, " %s |\n", m->flagged ? "**flagged**" : v);
}

static void write_group(FILE *f, const cb_fleet *fl, const cb_fleet_group *g, double level)
{
    fputs("## ", f);
    cb_md_cell_text(f, g->model);
    fprintf(f, " — %d run%s\n\n", g->n, cb_plural(g->n));
    int *figs = malloc((size_t)(fl->n_figures ? fl->n_figures : 1) * sizeof *figs);
    int n_figs = figs ? write_refs(f, fl, g, figs) : 0;
    if (n_figs > 0) {
        fputs("| run | task |", f);
        for (int j = 0; j < n_figs; j++)
            fprintf(f, " %s %s (ratio [%g%% CI]) |", fl->figures[figs[j]].name,
                    fl->figures[figs[j]].unit, level);
        fputs(" verdict |\n|---|--:|", f);
        for (int j = 0; j < n_figs; j++)
            fputs("--:|", f);
        fputs("---|\n", f);
        for (int k = 0; k < g->n; k++)
            write_member_row(f, &fl->members[g->members[k]], figs, n_figs);
        fputs("\n", f);
    }
    free(figs);
}

static void write_summary(FILE *f, const cb_fleet *fl)
{
    if (fl->n_flagged || fl->n_problems)
        fprintf(f, "**%d run%s flagged, %d problem%s.**", fl->n_flagged, cb_plural(fl->n_flagged),
                fl->n_problems, cb_plural(fl->n_problems));
    else
        fputs("**No run outside the fleet's spread, no problem.**", f);
    fprintf(f, " %d run%s (%d complete) in %d model%s under `", fl->n_members,
            cb_plural(fl->n_members), count_complete(fl), fl->n_groups, cb_plural(fl->n_groups));
    cb_md_cell_text(f, fl->dir);
    fputs("`", f);
    if (fl->expected >= 0)
        fprintf(f, "; %d array task%s expected", fl->expected, cb_plural(fl->expected));
    fputs(".\n\n", f);
    if (fl->undeclared)
        fprintf(f,
                "%d run%s declare no key figure (recorded before the families declared them: "
                "schema 1 or 2): judge them by the figures of that time with `--key-figures "
                "bench/legacy_key_figures.csv`.\n\n",
                fl->undeclared, fl->undeclared == 1 ? "" : "s");
}

bool cb_fleet_write_markdown(FILE *f, const cb_fleet *fl, const cb_fleet_opts *o, const char *title)
{
    double level = 100.0 * (1.0 - o->alpha);
    fputs("# ", f);
    cb_md_cell_text(f, title && *title ? title : "cubench fleet");
    fputs("\n\n", f);
    write_summary(f, fl);
    fprintf(f,
            "Each figure is one its runs' rows declare, measured at one reference point per "
            "model, listed above the model's table: by the figure's rule the best median over "
            "the model's runs, or the largest point (the CPU baselines). *ratio*: this run's "
            "throughput over the other runs' (geometric) mean, with the %g%% CI of a further run "
            "of the fleet (leave-one-out t interval, the run's own uncertainty added). "
            "**slow**/**fast**: the whole CI lies below %.3g or above %.3g (tolerance %g); "
            "**missing**: the run did not time the point; *unjudged*: fewer than %d runs timed "
            "it, or its own spread is unknown.\n\n",
            level, 1.0 / (1.0 + o->tolerance), 1.0 + o->tolerance, o->tolerance, o->min_runs);
    if (fl->n_flagged) write_flagged(f, fl, level);
    if (fl->n_problems) write_problems(f, fl);
    for (int g = 0; g < fl->n_groups; g++)
        write_group(f, fl, &fl->groups[g], level);
    return !ferror(f);
}
