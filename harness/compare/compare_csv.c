/* compare_csv.c - the CSV rendering of a cb_compare_result, through the
 * one CSV writer (csv_writer.h). */
#include "compare_report.h"

#include "csv_writer.h"

#include <math.h>
#include <stdio.h>

static const char *const header[] = {
    "benchmark",
    "axes",
    "verdict",
    "ratio",
    "ci_lo",
    "ci_hi",
    "p",
    "q",
    "mde",
    "base_median_s",
    "new_median_s",
    "base_n",
    "new_n",
    "base_units",
    "new_units",
    "base_runs",
    "new_runs",
    "basis",
    "df",
    "between_run_sd",
    "widening",
    "floor_s",
    "base_rel_iqr",
    "new_rel_iqr",
    "base_throttle",
    "new_throttle",
    "note",
    "device",
    "kind",
    "tested_verdict",
    "mde_bound",
    "spread_df",
    "run_sd",
    "bimodal",
    "base_throttled_samples",
    "new_throttled_samples",
    NULL,
};

/* `inf` for a df every part of which is known exactly. */
static void df_cell(cb_csv_row *w, double df, bool test)
{
    if (test && isinf(df))
        cb_csv_str(w, "inf");
    else
        cb_csv_num(w, test ? df : NAN);
}

static const char *throttle_cell(const cb_throttle_evidence *e)
{
    return e->throttled ? (e->reasons ? e->reasons : "sm_clock_moved") : NULL;
}

static void side_counts(cb_csv_row *w, const cb_compare_row *row)
{
    cb_csv_int(w, row->base.n);
    cb_csv_int(w, row->cand.n);
    cb_csv_int(w, row->base.units);
    cb_csv_int(w, row->cand.units);
    cb_csv_int(w, row->base.runs);
    cb_csv_int(w, row->cand.runs);
}

static void write_row(FILE *f, const cb_compare_row *row, const cb_compare_opts *o)
{
    bool test = !isnan(row->p);
    char basis[32] = "";
    if (test)
        snprintf(basis, sizeof basis, "%s/%s", cb_basis_name(row->base.basis),
                 cb_basis_name(row->cand.basis));
    cb_csv_row w;
    cb_csv_begin(&w, f);
    cb_csv_str(&w, row->benchmark);
    cb_csv_str(&w, row->axes);
    cb_csv_str(&w, cb_verdict_name(row->verdict));
    const double stats[] = {row->ratio, row->ci_lo, row->ci_hi,         row->p,
                            row->q,     row->mde,   row->base.median_s, row->cand.median_s};
    for (int i = 0; i < CB_ARRAY_LEN(stats); i++)
        cb_csv_num(&w, stats[i]);
    side_counts(&w, row);
    cb_csv_str(&w, basis);
    df_cell(&w, row->df, test);
    cb_csv_num(&w, test ? row->spread.sd : NAN);
    cb_csv_str(&w, test || row->widening == CB_WIDEN_UNKNOWN ? cb_widening_name(row, o) : "");
    cb_csv_num(&w, row->floor_s);
    cb_csv_num(&w, row->base.rel_iqr);
    cb_csv_num(&w, row->cand.rel_iqr);
    cb_csv_str(&w, throttle_cell(&row->base_throttle));
    cb_csv_str(&w, throttle_cell(&row->new_throttle));
    cb_csv_str(&w, row->note);
    cb_csv_str(&w, row->device);
    cb_csv_str(&w, cb_cmp_kind_name(row->kind));
    cb_csv_str(&w, cb_verdict_name(row->tested_verdict));
    cb_csv_str(&w, test ? (row->mde_bound == CB_MDE_FLOOR ? "floor" : "spread") : NULL);
    df_cell(&w, row->spread.df, test && row->spread.sd > 0.0);
    cb_csv_num(&w, test ? row->spread.run_sd : NAN);
    cb_csv_int(&w, row->base.bimodal || row->cand.bimodal);
    cb_csv_int(&w, row->base_throttle.samples);
    cb_csv_int(&w, row->new_throttle.samples);
    cb_csv_end(&w);
}

bool cb_compare_write_csv(FILE *f, const cb_compare_result *r, const cb_compare_opts *o)
{
    cb_csv_header_line(f, header);
    for (int i = 0; i < r->n_rows; i++)
        write_row(f, &r->rows[i], o);
    return !ferror(f);
}
