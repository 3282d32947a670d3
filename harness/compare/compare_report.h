/* compare_report.h - the comparison as markdown (a PR comment or a CI job
 * summary) and as CSV (for scripts). Neither computes anything.
 *
 * CSV columns, in this order (docs/compare.md):
 *   benchmark, axes, verdict, ratio, ci_lo, ci_hi, p, q, base_median_s,
 *   new_median_s, base_n, new_n, base_rel_iqr, new_rel_iqr, note
 * Numbers as %.9g; an empty field means "not applicable" (no CI, a side
 * without times). Rows in the result's order (slower first).
 */
#ifndef CB_COMPARE_REPORT_H
#define CB_COMPARE_REPORT_H

#include "compare.h"

#include <stdio.h>

/* The markdown report: a heading (`title`, or "cubench compare"), verdict
 * counts and the overall geometric-mean ratio, the two sides, the rules in
 * one line, the per-benchmark geomeans, then one table row per point with
 * the unchanged (`same`) points folded into a <details> block. False when
 * writing fails. */
bool cb_compare_write_markdown(FILE *f, const cb_compare_result *r, const cb_compare_opts *o,
                               const cb_cmp_run *base, const cb_cmp_run *cand, const char *title);

/* The CSV (RFC 4180, header first). False when writing fails. */
bool cb_compare_write_csv(FILE *f, const cb_compare_result *r);

#endif
