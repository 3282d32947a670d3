/* fleet_evidence.c - what a run recorded about a figure's point, as the
 * markdown and the CSV reports both say it (fleet_report.h). */
#include "fleet_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

void cb_fleet_pcie(const cb_fleet_member *m, char *buf, size_t len)
{
    buf[0] = '\0';
    if (m->cpu_only || !m->pcie_gen) return;
    snprintf(buf, len, "gen %d x%d", m->pcie_gen, m->pcie_width);
    if (m->pcie_max_gen && (m->pcie_gen < m->pcie_max_gen || m->pcie_width < m->pcie_max_width))
        append(buf, len, " (max gen %d x%d)", m->pcie_max_gen, m->pcie_max_width);
}

static void clocks(const cb_cmp_facts *in, const cb_fleet_ref *ref, char *buf, size_t len)
{
    if (isnan(in->sm_clock_median_mhz)) return;
    append(buf, len, "SM clock %.0f MHz", in->sm_clock_median_mhz);
    if (!isnan(in->sm_clock_min_mhz) && !isnan(in->sm_clock_max_mhz))
        append(buf, len, " (%.0f-%.0f)", in->sm_clock_min_mhz, in->sm_clock_max_mhz);
    if (!isnan(ref->median_sm_clock_mhz))
        append(buf, len, ", fleet %.0f MHz", ref->median_sm_clock_mhz);
    append(buf, len, "; ");
}

void cb_fleet_evidence(const cb_fleet_member *m, const cb_fleet_cell *c, const cb_fleet_ref *ref,
                       char *buf, size_t len)
{
    buf[0] = '\0';
    if (c->verdict == CB_FLEET_MISSING) {
        if (!c->point)
            snprintf(buf, len, "point not in results.csv");
        else
            snprintf(buf, len, "status %s%s%.160s", c->point->status,
                     c->point->reason[0] ? ": " : "", c->point->reason);
        return;
    }
    const cb_cmp_facts *in = &c->point->facts;
    clocks(in, ref, buf, len);
    if (!isnan(in->mem_clock_median_mhz))
        append(buf, len, "mem clock %.0f MHz; ", in->mem_clock_median_mhz);
    if (!isnan(in->power_mean_w)) append(buf, len, "power %.0f W; ", in->power_mean_w);
    if (!isnan(in->temp_max_c)) append(buf, len, "max %.0f C; ", in->temp_max_c);
    if (c->point->throttle) append(buf, len, "throttle %s; ", c->point->throttle);
    if (!buf[0] && !m->cpu_only) append(buf, len, "no telemetry columns (schema 1); ");
    char pcie[64];
    cb_fleet_pcie(m, pcie, sizeof pcie);
    if (pcie[0]) append(buf, len, "PCIe %s; ", pcie);
    if (m->cpu_only && m->host[0]) append(buf, len, "host %s; ", m->host);
    append(buf, len, "%d samples", c->n);
}

void cb_fleet_each_task_problem(const cb_fleet *fl, FILE *f,
                                void (*fn)(FILE *f, const cb_fleet_task *task,
                                           const cb_fleet_gap *gap))
{
    int g = 0;
    for (int t = 0; t <= fl->n_tasks; t++) {
        const cb_fleet_task *task = t < fl->n_tasks ? &fl->tasks[t] : NULL;
        for (; g < fl->n_gaps && (!task || fl->gaps[g].first < task->id); g++)
            fn(f, NULL, &fl->gaps[g]);
        if (task && task->problem[0]) fn(f, task, NULL);
    }
}
