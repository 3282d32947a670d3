/* metrics_csv.h - the counters in the run's files: the long-format
 * metrics.csv (one row per point and metric: benchmark, axes, device,
 * metric, value, unit) and the counters cells of results.csv.
 * docs/schema.md documents both; docs/counters.md what the metrics mean. */
#ifndef CB_METRICS_CSV_H
#define CB_METRICS_CSV_H

#include "csv_writer.h"
#include "results.h"

#include <stdio.h>

/* The columns results.csv gains from the counters, in the order
 * cb_metrics_csv_result_cells writes them. Units: *_pct are % of the
 * unit's peak as CUPTI defines it; dram_bytes bytes; measured_flops
 * floating-point operations; metrics_wall_s seconds. */
#define CB_COUNTERS_RESULT_COLUMNS                                                                 \
    "sol_dram_pct", "sol_l2_pct", "sol_l1_pct", "sol_sm_pct", "sol_tensor_pct", "dram_bytes",      \
        "measured_flops", "metrics_status", "metrics_reason", "metrics_passes", "metrics_wall_s"

/* metrics.csv's header, NULL-terminated. */
extern const char *const cb_metrics_columns[];

/* Write the header line to f. */
void cb_metrics_csv_header(FILE *f);

/* True when the point has metric rows: its metric pass collected values. */
bool cb_metrics_csv_has_rows(const cb_result *r);

/* Write the point's metric rows to f (none when it has none). */
void cb_metrics_csv_rows(FILE *f, const cb_result *r);

/* Append the CB_COUNTERS_RESULT_COLUMNS cells of r to a results.csv row:
 * all empty when the point had no metric pass (no --metrics, a host or
 * multi-GPU point). */
void cb_metrics_csv_result_cells(cb_csv_row *row, const cb_result *r);

#endif
