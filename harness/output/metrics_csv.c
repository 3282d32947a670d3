/* metrics_csv.c - metrics.csv rows and the counters cells of results.csv.
 *
 * Long format (a row per point and metric) because the metrics differ by
 * preset, by chip and by what the user named: a reader filters by `metric`
 * instead of guessing columns, and a run over two kinds of GPU holds each
 * chip's own names. Values are CUPTI's, in CUPTI's unit (the `unit` column,
 * e.g. byte, percent, nanosecond, instruction). */
#include "metrics_csv.h"

#include <math.h>

const char *const cb_metrics_columns[] = {"benchmark", "axes", "device", "metric",
                                          "value",     "unit", NULL};

void cb_metrics_csv_header(FILE *f)
{
    cb_csv_header_line(f, cb_metrics_columns);
}

bool cb_metrics_csv_has_rows(const cb_result *r)
{
    const cb_point_counters *pc = &r->counters;
    return pc->asked && pc->status == CB_OK && pc->values && pc->names && pc->n > 0;
}

void cb_metrics_csv_rows(FILE *f, const cb_result *r)
{
    if (!cb_metrics_csv_has_rows(r)) return;
    const cb_point_counters *pc = &r->counters;
    for (int i = 0; i < pc->n; i++) {
        cb_csv_row row;
        cb_csv_begin(&row, f);
        cb_csv_str(&row, r->bench->name);
        cb_csv_str(&row, r->axes);
        if (r->device >= 0)
            cb_csv_int(&row, r->device);
        else
            cb_csv_str(&row, NULL);
        cb_csv_str(&row, pc->names[i]);
        cb_csv_num(&row, pc->values[i]);
        cb_csv_str(&row, pc->units ? pc->units[i] : NULL);
        cb_csv_end(&row);
    }
}

/* A figure of a collected pass: empty otherwise. */
static void figure_cell(cb_csv_row *row, const cb_result *r, double v)
{
    const cb_point_counters *pc = &r->counters;
    cb_csv_num(row, pc->asked && pc->status == CB_OK ? v : NAN);
}

/* The figures' cells, each one field of the point's counters. */
#define FIGURE_CELL(column, field)                                                                 \
    void cb_metrics_cell_##column(cb_csv_row *row, const cb_result *r)                             \
    {                                                                                              \
        figure_cell(row, r, r->counters.field);                                                    \
    }
FIGURE_CELL(sol_dram, sol_dram_pct)
FIGURE_CELL(sol_l2, sol_l2_pct)
FIGURE_CELL(sol_l1, sol_l1_pct)
FIGURE_CELL(sol_sm, sol_sm_pct)
FIGURE_CELL(sol_tensor, sol_tensor_pct)
FIGURE_CELL(dram_bytes, dram_bytes)
FIGURE_CELL(measured_flops, measured_flops)
#undef FIGURE_CELL

void cb_metrics_cell_status(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->counters.asked ? cb_status_name(r->counters.status) : NULL);
}
void cb_metrics_cell_reason(cb_csv_row *row, const cb_result *r)
{
    cb_csv_str(row, r->counters.asked ? r->counters.reason : NULL);
}
/* Kernels the figures combine: empty unless collected, or when not known
 * (too many kernels for a range each: the reason says so). */
void cb_metrics_cell_kernels(cb_csv_row *row, const cb_result *r)
{
    const cb_point_counters *pc = &r->counters;
    if (pc->asked && pc->status == CB_OK && pc->kernels >= 0)
        cb_csv_int(row, pc->kernels);
    else
        cb_csv_str(row, NULL);
}
void cb_metrics_cell_passes(cb_csv_row *row, const cb_result *r)
{
    if (r->counters.asked)
        cb_csv_int(row, r->counters.passes);
    else
        cb_csv_str(row, NULL);
}
void cb_metrics_cell_wall(cb_csv_row *row, const cb_result *r)
{
    cb_csv_num(row, r->counters.asked ? r->counters.wall_s : NAN);
}
