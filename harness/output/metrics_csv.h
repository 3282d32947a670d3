/* metrics_csv.h - the counters in the run's files: the long-format
 * metrics.csv (one row per point and metric: benchmark, axes, device,
 * metric, value, unit) and the counters cells of results.csv.
 * docs/schema.md documents both; docs/counters.md what the metrics mean. */
#ifndef CB_METRICS_CSV_H
#define CB_METRICS_CSV_H

#include "csv_writer.h"
#include "results.h"

#include <stdio.h>

/* metrics.csv's header, NULL-terminated. */
extern const char *const cb_metrics_columns[];

/* Write the header line to f. */
void cb_metrics_csv_header(FILE *f);

/* True when the point has metric rows: its metric pass collected values. */
bool cb_metrics_csv_has_rows(const cb_result *r);

/* Write the point's metric rows to f (none when it has none). */
void cb_metrics_csv_rows(FILE *f, const cb_result *r);

/* The counters cells of results.csv, one writer per column (the rows of
 * results_columns.c's table). Empty when the point had no metric pass (no
 * --metrics, a host or multi-GPU point); the figures are empty unless the
 * pass collected. Units: sol_*_pct are % of the unit's peak as CUPTI
 * defines it; dram_bytes bytes; measured_flops floating-point operations;
 * metrics_kernels kernels of one run (0: none, one range around the run);
 * metrics_wall_s seconds. */
void cb_metrics_cell_sol_dram(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_sol_l2(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_sol_l1(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_sol_sm(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_sol_tensor(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_dram_bytes(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_measured_flops(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_status(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_reason(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_kernels(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_passes(cb_csv_row *row, const cb_result *r);
void cb_metrics_cell_wall(cb_csv_row *row, const cb_result *r);

#endif
