/* fleet_report.h - a judged fleet as markdown (a ticket or a CI summary) and
 * as CSV (for scripts and the reports package). Neither computes anything.
 *
 * CSV columns, in this order (docs/fleet.md):
 *   model, run, task, host, device_uuid, figure, unit, benchmark, axes, value,
 *   fleet_median, ratio, ci_lo, ci_hi, p, samples, runs_timed, verdict,
 *   sm_clock_median_mhz, fleet_sm_clock_median_mhz, mem_clock_median_mhz,
 *   power_mean_w, temp_max_c, throttle, pcie, detail
 * One row per run and figure of its kind that some run of its model
 * measured, then one row per problem (verdict `problem`: a task that failed
 * or left no record - a range of tasks without a record is one row, its
 * `task` cell "FIRST-LAST" -, an incomplete run, a run with failed points)
 * with the figure fields empty. Numbers %.9g, empty = not applicable.
 */
#ifndef CB_FLEET_REPORT_H
#define CB_FLEET_REPORT_H

#include "fleet_model.h"

#include <stdio.h>

/* The markdown report: a heading (`title`, or "cubench fleet"), the counts
 * and the rules, the flagged runs with their evidence, the problems, then
 * one table per model with every run's figures. False when writing fails. */
bool cb_fleet_write_markdown(FILE *f, const cb_fleet *fl, const cb_fleet_opts *o,
                             const char *title);

/* The CSV described above. False when writing fails. */
bool cb_fleet_write_csv(FILE *f, const cb_fleet *fl);

/* What the run recorded about a figure's point: telemetry, link, status. */
void cb_fleet_evidence(const cb_fleet_member *m, const cb_fleet_cell *c, const cb_fleet_ref *ref,
                       char *buf, size_t len);

/* Call `fn` for each task problem in id order: a record with a problem
 * (gap NULL) or a range of expected tasks without a record (task NULL). */
void cb_fleet_each_task_problem(const cb_fleet *fl, FILE *f,
                                void (*fn)(FILE *f, const cb_fleet_task *task,
                                           const cb_fleet_gap *gap));

/* "gen 5 x16", with "(max gen 5 x16)" when it runs below its maximum. */
void cb_fleet_pcie(const cb_fleet_member *m, char *buf, size_t len);

#endif
