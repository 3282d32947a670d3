/* compare_report.h - the comparison as markdown (a PR comment or a CI job
 * summary) and as CSV (for scripts). Neither computes a statistic.
 *
 * CSV columns, in this order (docs/compare.md):
 *   benchmark, axes, verdict, ratio, ci_lo, ci_hi, p, q, mde, base_median_s,
 *   new_median_s, base_n, new_n, base_units, new_units, base_runs, new_runs,
 *   basis, df, between_run_sd, widening, floor_s, base_rel_iqr, new_rel_iqr,
 *   base_throttle, new_throttle, note, device, kind, tested_verdict,
 *   mde_bound, spread_df, run_sd, bimodal, base_throttled_samples,
 *   new_throttled_samples
 * Numbers as %.9g; an empty field means "not applicable" (no test, a side
 * without times). Rows in the result's order (slower first).
 */
#ifndef CB_COMPARE_REPORT_H
#define CB_COMPARE_REPORT_H

#include "compare.h"
#include "compare_conditions.h"

#include <stdio.h>

/* Everything the markdown report shows besides the result. */
typedef struct cb_report_input {
    const cb_compare_result *result;
    const cb_compare_opts *opts;
    const cb_cmp_run *base, *cand;
    const cb_cmp_conditions *conditions;
    const char *title; /* NULL: "cubench compare" */
} cb_report_input;

/* The markdown report: a heading with the verdict counts, the two sides,
 * what one comparison can see (how many points can detect a change of 2
 * delta at the stated power, and what would help the rest), what the
 * comparison can know (the unit and the between-run spread it used, what
 * an older schema lacks, copies left out, sides that mix devices), the
 * conditions that differ, throttled points, the geometric means with their
 * CIs, the rules, then one row per point with the unchanged (`same`) points
 * folded into a <details> block. False when writing fails. */
bool cb_compare_write_markdown(FILE *f, const cb_report_input *in);

/* The CSV (RFC 4180, header first). False when writing fails. */
bool cb_compare_write_csv(FILE *f, const cb_compare_result *r, const cb_compare_opts *o);

/* The widening's name: "none", the source's name ("calibration",
 * "history"), "default" (--between-run or the kind's) or "unknown". */
const char *cb_widening_name(const cb_compare_row *row, const cb_compare_opts *o);

#endif
