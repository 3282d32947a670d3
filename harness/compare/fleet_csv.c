/* fleet_csv.c - the CSV rendering of a judged cb_fleet, through the one
 * CSV writer (csv_writer.h); columns in fleet_report.h. */
#include "fleet_report.h"

#include "csv_writer.h"

#include <math.h>
#include <string.h>

static const char *const header[] = {
    "model",
    "run",
    "task",
    "host",
    "device_uuid",
    "figure",
    "unit",
    "benchmark",
    "axes",
    "value",
    "fleet_median",
    "ratio",
    "ci_lo",
    "ci_hi",
    "p",
    "samples",
    "runs_timed",
    "verdict",
    "sm_clock_median_mhz",
    "fleet_sm_clock_median_mhz",
    "mem_clock_median_mhz",
    "power_mean_w",
    "temp_max_c",
    "throttle",
    "pcie",
    "detail",
    NULL,
};

static void csv_identity(cb_csv_row *r, const char *model, const char *run, const char *task,
                         const char *host, const char *uuid)
{
    cb_csv_str(r, model);
    cb_csv_str(r, run);
    cb_csv_str(r, task);
    cb_csv_str(r, host);
    cb_csv_str(r, uuid);
}

static const char *task_text(int task, char *buf, size_t len)
{
    if (task < 0) return NULL;
    snprintf(buf, len, "%d", task);
    return buf;
}

/* A problem row: identity, empty figure fields, verdict `problem`, detail. */
static void csv_problem(FILE *f, const char *model, const char *run, const char *task,
                        const char *host, const char *uuid, const char *pcie, const char *detail)
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

/* The reasons that count as throttling at the point; "none" when its
 * telemetry was read and none counted; empty without telemetry. */
static const char *throttle_words(const cb_cmp_point *p)
{
    if (!p) return NULL;
    if (p->throttle) return p->throttle;
    return isfinite(p->facts.sm_clock_median_mhz) ? "none" : NULL;
}

static void csv_cell(FILE *f, const cb_fleet *fl, const cb_fleet_group *grp,
                     const cb_fleet_member *m, int i)
{
    const cb_fleet_cell *c = &m->cells[i];
    const cb_fleet_ref *ref = &grp->refs[i];
    const cb_cmp_facts *in = c->point ? &c->point->facts : NULL;
    char pcie[64], ev[512], task[16];
    cb_fleet_pcie(m, pcie, sizeof pcie);
    cb_csv_row r;
    cb_csv_begin(&r, f);
    csv_identity(&r, grp->model, m->name, task_text(m->task, task, sizeof task), m->host, m->uuid);
    cb_csv_str(&r, fl->figures[i].name);
    cb_csv_str(&r, fl->figures[i].unit);
    cb_csv_str(&r, ref->benchmark);
    cb_csv_str(&r, ref->axes);
    const double numbers[] = {c->value, ref->median_value, c->ratio, c->ci_lo, c->ci_hi, c->p};
    for (int k = 0; k < CB_ARRAY_LEN(numbers); k++)
        cb_csv_num(&r, numbers[k]);
    cb_csv_int(&r, c->n);
    cb_csv_int(&r, ref->timed);
    cb_csv_str(&r, cb_fleet_verdict_name(c->verdict));
    cb_csv_num(&r, in ? in->sm_clock_median_mhz : NAN);
    cb_csv_num(&r, ref->median_sm_clock_mhz);
    cb_csv_num(&r, in ? in->mem_clock_median_mhz : NAN);
    cb_csv_num(&r, in ? in->power_mean_w : NAN);
    cb_csv_num(&r, in ? in->temp_max_c : NAN);
    cb_csv_str(&r, throttle_words(c->point));
    cb_csv_str(&r, pcie);
    cb_fleet_evidence(m, c, ref, ev, sizeof ev);
    cb_csv_str(&r, ev);
    cb_csv_end(&r);
}

static void csv_task_problem(FILE *f, const cb_fleet_task *tk, const cb_fleet_gap *gap)
{
    char task[32], what[96];
    if (gap) {
        snprintf(task, sizeof task, gap->first == gap->last ? "%d" : "%d-%d", gap->first,
                 gap->last);
        snprintf(what, sizeof what, "no record: %d task%s never started",
                 gap->last - gap->first + 1, gap->first == gap->last ? "" : "s");
        csv_problem(f, NULL, NULL, task, NULL, NULL, NULL, what);
        return;
    }
    const char *base = strrchr(tk->run_dir, '/');
    csv_problem(f, NULL, base ? base + 1 : tk->run_dir, task_text(tk->id, task, sizeof task),
                tk->node, NULL, NULL, tk->problem);
}

static void csv_problems(FILE *f, const cb_fleet *fl)
{
    char task[32], pcie[64];
    cb_fleet_each_task_problem(fl, f, csv_task_problem);
    for (int i = 0; i < fl->n_members; i++) {
        const cb_fleet_member *m = &fl->members[i];
        if (!m->problem) continue;
        cb_fleet_pcie(m, pcie, sizeof pcie);
        csv_problem(f, m->model, m->name, task_text(m->task, task, sizeof task), m->host, m->uuid,
                    pcie, m->detail);
    }
}

bool cb_fleet_write_csv(FILE *f, const cb_fleet *fl)
{
    cb_csv_header_line(f, header);
    for (int g = 0; g < fl->n_groups; g++) {
        const cb_fleet_group *grp = &fl->groups[g];
        for (int k = 0; k < grp->n; k++)
            for (int i = 0; i < fl->n_figures; i++)
                if (fl->members[grp->members[k]].cells[i].verdict != CB_FLEET_NA &&
                    grp->refs[i].benchmark)
                    csv_cell(f, fl, grp, &fl->members[grp->members[k]], i);
    }
    csv_problems(f, fl);
    return !ferror(f);
}
