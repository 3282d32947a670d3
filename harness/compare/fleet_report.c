/* fleet_report.c - markdown and CSV renderings of a judged cb_fleet. */
#include "fleet_report.h"

#include "compare_report.h"

#include "csv_writer.h"

#include <stdarg.h>
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

static void append(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t len, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static void fmt_pcie(const cb_fleet_member *m, char *buf, size_t len)
{
    buf[0] = '\0';
    if (m->cpu_only || !m->pcie_gen) return;
    snprintf(buf, len, "gen %d x%d", m->pcie_gen, m->pcie_width);
    if (m->pcie_max_gen && (m->pcie_gen < m->pcie_max_gen || m->pcie_width < m->pcie_max_width))
        append(buf, len, " (max gen %d x%d)", m->pcie_max_gen, m->pcie_max_width);
}

/* What the run recorded about the figure's point: telemetry, link, status. */
static void evidence(const cb_fleet_member *m, const cb_fleet_cell *c, const cb_fleet_ref *ref,
                     char *buf, size_t len)
{
    buf[0] = '\0';
    if (c->verdict == CB_FLEET_MISSING) {
        if (c->point < 0) {
            snprintf(buf, len, "point not in results.csv");
        } else {
            const cb_cmp_point *p = &m->run.points[c->point];
            snprintf(buf, len, "status %s%s%.160s", p->status, p->reason[0] ? ": " : "", p->reason);
        }
        return;
    }
    const cb_fleet_point_info *in = &m->info[c->point];
    if (!isnan(in->sm_clock_median_mhz)) {
        append(buf, len, "SM clock %.0f MHz", in->sm_clock_median_mhz);
        if (!isnan(in->sm_clock_min_mhz) && !isnan(in->sm_clock_max_mhz))
            append(buf, len, " (%.0f-%.0f)", in->sm_clock_min_mhz, in->sm_clock_max_mhz);
        if (!isnan(ref->median_sm_clock_mhz))
            append(buf, len, ", fleet %.0f MHz", ref->median_sm_clock_mhz);
        append(buf, len, "; ");
    }
    if (!isnan(in->mem_clock_median_mhz))
        append(buf, len, "mem clock %.0f MHz; ", in->mem_clock_median_mhz);
    if (!isnan(in->power_mean_w)) append(buf, len, "power %.0f W; ", in->power_mean_w);
    if (!isnan(in->temp_max_c)) append(buf, len, "max %.0f C; ", in->temp_max_c);
    if (in->throttle) append(buf, len, "throttle %s; ", in->throttle);
    if (!buf[0] && !m->cpu_only) append(buf, len, "no telemetry columns (schema 1); ");
    char pcie[64];
    fmt_pcie(m, pcie, sizeof pcie);
    if (pcie[0]) append(buf, len, "PCIe %s; ", pcie);
    if (m->cpu_only && m->host[0]) append(buf, len, "host %s; ", m->host);
    append(buf, len, "%d samples", c->n);
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

static void write_flagged(FILE *f, const cb_fleet *fl, double level)
{
    fprintf(f, "## Flagged runs (%d)\n\n", fl->n_flagged);
    fprintf(f,
            "| run | task | model | figure | point | value | fleet median | ratio [%g%% CI] | "
            "verdict | evidence |\n",
            level);
    fputs("|---|--:|---|---|---|--:|--:|---|---|---|\n", f);
    char a[64], b[64], c[96], ev[512];
    for (int g = 0; g < fl->n_groups; g++) {
        const cb_fleet_group *grp = &fl->groups[g];
        for (int k = 0; k < grp->n; k++) {
            const cb_fleet_member *m = &fl->members[grp->members[k]];
            for (int i = 0; m->flagged && i < CB_FLEET_FIGURES; i++) {
                const cb_fleet_cell *cell = &m->cells[i];
                if (cell->verdict != CB_FLEET_SLOW && cell->verdict != CB_FLEET_FAST &&
                    cell->verdict != CB_FLEET_MISSING)
                    continue;
                const cb_fleet_ref *ref = &grp->refs[i];
                fputs("| ", f);
                cb_md_cell_text(f, m->name);
                fputs(" | ", f);
                task_cell(f, m->task);
                fputs(" | ", f);
                cb_md_cell_text(f, grp->model);
                fprintf(f, " | %s %s | `", cb_fleet_figures[i].name, cb_fleet_figures[i].unit);
                cb_md_cell_text(f, ref->benchmark);
                fputs(" ", f);
                cb_md_cell_text(f, ref->axes);
                evidence(m, cell, ref, ev, sizeof ev);
                fprintf(f, "` | %s | %s | %s | **%s** | ", fmt_value(cell->value, a, sizeof a),
                        fmt_value(ref->median_value, b, sizeof b), fmt_ratio_ci(cell, c, sizeof c),
                        cb_fleet_verdict_name(cell->verdict));
                cb_md_cell_text(f, ev);
                fputs(" |\n", f);
            }
        }
    }
    fputs("\n", f);
}

static void write_problems(FILE *f, const cb_fleet *fl)
{
    fprintf(f, "## Problems (%d)\n\n| task | node | run | what |\n|--:|---|---|---|\n",
            fl->n_problems);
    for (int t = 0; t < fl->n_tasks; t++) {
        const cb_fleet_task *task = &fl->tasks[t];
        if (!task->problem[0]) continue;
        fprintf(f, "| %d | ", task->id);
        cb_md_cell_text(f, task->node[0] ? task->node : "-");
        fputs(" | ", f);
        cb_md_cell_text(f, task->run_dir[0] ? task->run_dir : "-");
        fputs(" | ", f);
        cb_md_cell_text(f, task->problem);
        if (task->job[0]) {
            fputs(" (job ", f);
            cb_md_cell_text(f, task->job);
            fputs(")", f);
        }
        fputs(" |\n", f);
    }
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

static void write_group(FILE *f, const cb_fleet *fl, const cb_fleet_group *g, double level)
{
    fputs("## ", f);
    cb_md_cell_text(f, g->model);
    fprintf(f, " — %d run%s\n\n", g->n, g->n == 1 ? "" : "s");
    int figs[CB_FLEET_FIGURES], n_figs = 0;
    char a[64], b[96];
    for (int i = 0; i < CB_FLEET_FIGURES; i++) {
        const cb_fleet_ref *ref = &g->refs[i];
        if (cb_fleet_figures[i].cpu != g->cpu_only) continue;
        if (!ref->benchmark) {
            fprintf(f, "- %s: no run of this model timed a matching point\n",
                    cb_fleet_figures[i].name);
            continue;
        }
        figs[n_figs++] = i;
        fprintf(f, "- %s: `", cb_fleet_figures[i].name);
        cb_md_cell_text(f, ref->benchmark);
        fputs(" ", f);
        cb_md_cell_text(f, ref->axes);
        fprintf(f, "`, fleet median %s %s over %d run%s\n",
                fmt_value(ref->median_value, a, sizeof a), cb_fleet_figures[i].unit, ref->timed,
                ref->timed == 1 ? "" : "s");
    }
    fputs("\n", f);
    if (n_figs == 0) return;
    fputs("| run | task |", f);
    for (int j = 0; j < n_figs; j++)
        fprintf(f, " %s %s (ratio [%g%% CI]) |", cb_fleet_figures[figs[j]].name,
                cb_fleet_figures[figs[j]].unit, level);
    fputs(" verdict |\n|---|--:|", f);
    for (int j = 0; j < n_figs; j++)
        fputs("--:|", f);
    fputs("---|\n", f);
    for (int k = 0; k < g->n; k++) {
        const cb_fleet_member *m = &fl->members[g->members[k]];
        fputs("| ", f);
        cb_md_cell_text(f, m->name);
        fputs(" | ", f);
        task_cell(f, m->task);
        fputs(" |", f);
        for (int j = 0; j < n_figs; j++) {
            const cb_fleet_cell *c = &m->cells[figs[j]];
            bool bad = c->verdict == CB_FLEET_SLOW || c->verdict == CB_FLEET_FAST ||
                       c->verdict == CB_FLEET_MISSING;
            if (c->verdict == CB_FLEET_MISSING)
                fputs(" **missing** |", f);
            else
                fprintf(f, bad ? " **%s (%s)** |" : " %s (%s) |", fmt_value(c->value, a, sizeof a),
                        fmt_ratio_ci(c, b, sizeof b));
        }
        /* The run's verdict: the worst of its figures. */
        const char *v = "ok";
        for (int j = 0; j < n_figs; j++) {
            cb_fleet_verdict cv = m->cells[figs[j]].verdict;
            if (cv == CB_FLEET_UNJUDGED && strcmp(v, "ok") == 0) v = "unjudged";
        }
        fprintf(f, " %s |\n", m->flagged ? "**flagged**" : v);
    }
    fputs("\n", f);
}

bool cb_fleet_write_markdown(FILE *f, const cb_fleet *fl, const cb_fleet_opts *o, const char *title)
{
    double level = 100.0 * (1.0 - o->alpha);
    fputs("# ", f);
    cb_md_cell_text(f, title && *title ? title : "cubench fleet");
    fputs("\n\n", f);
    if (fl->n_flagged || fl->n_problems)
        fprintf(f, "**%d run%s flagged, %d problem%s.**", fl->n_flagged,
                fl->n_flagged == 1 ? "" : "s", fl->n_problems, fl->n_problems == 1 ? "" : "s");
    else
        fputs("**No run outside the fleet's spread, no problem.**", f);
    fprintf(f, " %d run%s (%d complete) in %d model%s under `", fl->n_members,
            fl->n_members == 1 ? "" : "s", count_complete(fl), fl->n_groups,
            fl->n_groups == 1 ? "" : "s");
    cb_md_cell_text(f, fl->dir);
    fputs("`", f);
    if (fl->expected >= 0)
        fprintf(f, "; %d array task%s expected", fl->expected, fl->expected == 1 ? "" : "s");
    fputs(".\n\n", f);
    fprintf(f,
            "Each figure is measured at one reference point per model, listed above the model's "
            "table: for GPU figures the best median over the model's runs, for the host "
            "baselines the largest point. *ratio*: this run's throughput over the other runs' "
            "(geometric) mean, with the %g%% CI of a further run of the fleet (leave-one-out t "
            "interval, the run's own uncertainty added). **slow**/**fast**: the whole CI lies "
            "below %.3g or above %.3g (tolerance %g); **missing**: the run did not time the "
            "point; *unjudged*: fewer than %d runs timed it, or its own spread is unknown.\n\n",
            level, 1.0 / (1.0 + o->tolerance), 1.0 + o->tolerance, o->tolerance, o->min_runs);
    if (fl->n_flagged) write_flagged(f, fl, level);
    if (fl->n_problems) write_problems(f, fl);
    for (int g = 0; g < fl->n_groups; g++)
        write_group(f, fl, &fl->groups[g], level);
    return !ferror(f);
}

/* ---- CSV ------------------------------------------------------------------ */

static void csv_identity(cb_csv_row *r, const char *model, const char *run, int task,
                         const char *host, const char *uuid)
{
    cb_csv_str(r, model);
    cb_csv_str(r, run);
    if (task >= 0)
        cb_csv_int(r, task);
    else
        cb_csv_str(r, NULL);
    cb_csv_str(r, host);
    cb_csv_str(r, uuid);
}

/* A problem row: identity, empty figure fields, verdict `problem`, detail. */
static void csv_problem(FILE *f, const char *model, const char *run, int task, const char *host,
                        const char *uuid, const char *pcie, const char *detail)
{
    cb_csv_row r;
    cb_csv_begin(&r, f);
    csv_identity(&r, model, run, task, host, uuid);
    for (int i = 0; i < 12; i++) /* figure .. runs_timed */
        cb_csv_str(&r, NULL);
    cb_csv_str(&r, "problem");
    for (int i = 0; i < 6; i++) /* telemetry */
        cb_csv_str(&r, NULL);
    cb_csv_str(&r, pcie);
    cb_csv_str(&r, detail);
    cb_csv_end(&r);
}

bool cb_fleet_write_csv(FILE *f, const cb_fleet *fl)
{
    fputs("model,run,task,host,device_uuid,figure,unit,benchmark,axes,value,fleet_median,ratio,"
          "ci_lo,ci_hi,p,samples,runs_timed,verdict,sm_clock_median_mhz,"
          "fleet_sm_clock_median_mhz,mem_clock_median_mhz,power_mean_w,temp_max_c,throttle,"
          "pcie,detail\n",
          f);
    char pcie[64], ev[512];
    for (int g = 0; g < fl->n_groups; g++) {
        const cb_fleet_group *grp = &fl->groups[g];
        for (int k = 0; k < grp->n; k++) {
            const cb_fleet_member *m = &fl->members[grp->members[k]];
            fmt_pcie(m, pcie, sizeof pcie);
            for (int i = 0; i < CB_FLEET_FIGURES; i++) {
                const cb_fleet_cell *c = &m->cells[i];
                const cb_fleet_ref *ref = &grp->refs[i];
                if (c->verdict == CB_FLEET_NA || !ref->benchmark) continue;
                const cb_fleet_point_info *in = c->point >= 0 ? &m->info[c->point] : NULL;
                cb_csv_row r;
                cb_csv_begin(&r, f);
                csv_identity(&r, grp->model, m->name, m->task, m->host, m->uuid);
                cb_csv_str(&r, cb_fleet_figures[i].name);
                cb_csv_str(&r, cb_fleet_figures[i].unit);
                cb_csv_str(&r, ref->benchmark);
                cb_csv_str(&r, ref->axes);
                cb_csv_num(&r, c->value);
                cb_csv_num(&r, ref->median_value);
                cb_csv_num(&r, c->ratio);
                cb_csv_num(&r, c->ci_lo);
                cb_csv_num(&r, c->ci_hi);
                cb_csv_num(&r, c->p);
                cb_csv_int(&r, c->n);
                cb_csv_int(&r, ref->timed);
                cb_csv_str(&r, cb_fleet_verdict_name(c->verdict));
                cb_csv_num(&r, in ? in->sm_clock_median_mhz : NAN);
                cb_csv_num(&r, ref->median_sm_clock_mhz);
                cb_csv_num(&r, in ? in->mem_clock_median_mhz : NAN);
                cb_csv_num(&r, in ? in->power_mean_w : NAN);
                cb_csv_num(&r, in ? in->temp_max_c : NAN);
                cb_csv_str(&r, in ? in->throttle : NULL);
                cb_csv_str(&r, pcie);
                evidence(m, c, ref, ev, sizeof ev);
                cb_csv_str(&r, ev);
                cb_csv_end(&r);
            }
        }
    }
    for (int t = 0; t < fl->n_tasks; t++) {
        const cb_fleet_task *task = &fl->tasks[t];
        if (!task->problem[0]) continue;
        const char *base = strrchr(task->run_dir, '/');
        csv_problem(f, NULL, base ? base + 1 : task->run_dir, task->id, task->node, NULL, NULL,
                    task->problem);
    }
    for (int i = 0; i < fl->n_members; i++) {
        const cb_fleet_member *m = &fl->members[i];
        if (!m->problem) continue;
        fmt_pcie(m, pcie, sizeof pcie);
        csv_problem(f, m->model, m->name, m->task, m->host, m->uuid, pcie, m->detail);
    }
    return !ferror(f);
}
