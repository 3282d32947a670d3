/* compare_geomean.c - geometric means with a run-wide offset term. */
#include "compare_geomean.h"

#include "compare_stats.h"

#include <math.h>
#include <stdlib.h>

static bool tested(const cb_compare_row *row)
{
    return !isnan(row->p);
}

/* One row's deviations per directory (NAN where it has none). */
static bool fill_row(const cb_compare_row *r, bool base_side, int n_dirs, cb_dir_value *dirs,
                     double *dev, cb_msg *err)
{
    for (int d = 0; d < n_dirs; d++)
        dev[d] = NAN;
    const cb_cmp_point *p = base_side ? r->base_point : r->new_point;
    if (!tested(r) || !p) return true;
    const cb_side_est *e = base_side ? &r->base : &r->cand;
    cb_side_est again;
    if (!cb_side_estimate_dirs(p, e->rho, &again, dirs, n_dirs, err)) return false;
    for (int d = 0; d < n_dirs; d++)
        if (dirs[d].units > 0) dev[d] = dirs[d].value - again.center;
    return true;
}

bool cb_offsets_fill(cb_offsets *off, const cb_compare_row *rows, int n, bool base_side,
                     const cb_cmp_run *run, cb_msg *err)
{
    off->dirs = 0;
    off->dev = NULL;
    if (run->n_dirs < CB_CMP_MIN_RUNS) return true;
    off->dirs = run->n_dirs;
    off->dev = malloc((size_t)(n > 0 ? n : 1) * (size_t)run->n_dirs * sizeof *off->dev);
    cb_dir_value *dirs = malloc((size_t)run->n_dirs * sizeof *dirs);
    bool ok = off->dev && dirs;
    if (!ok) cb_msg_set(err, "out of memory");
    for (int i = 0; ok && i < n; i++)
        ok = fill_row(&rows[i], base_side, run->n_dirs, dirs, &off->dev[(size_t)i * run->n_dirs],
                      err);
    free(dirs);
    if (!ok) cb_offsets_free(off);
    return ok;
}

void cb_offsets_free(cb_offsets *off)
{
    free(off->dev);
    off->dev = NULL;
    off->dirs = 0;
}

/* The run-wide offsets from the rows' spreads: each kind's own (its
 * largest run-wide part), weighted by its share of the points - the mean of
 * d over P points holds each kind's offset with weight P_k / P, and kinds
 * do not share one (a CPU's thread placement is not a GPU's clock). */
static void spread_offset(const cb_compare_row *rows, const int *idx, int k, bool base_side,
                          double *var, double *df)
{
    double part[CB_CMP_KINDS] = {0}, part_df[CB_CMP_KINDS] = {0};
    int count[CB_CMP_KINDS] = {0}, P = 0;
    for (int i = 0; i < k; i++) {
        const cb_compare_row *r = &rows[idx[i]];
        if (!tested(r)) continue;
        P++;
        count[r->kind]++;
        int runs = base_side ? r->base.runs : r->cand.runs;
        double run_sd = isfinite(r->spread.run_sd) ? r->spread.run_sd : r->spread.sd;
        double v = r->spread.sd > 0.0 ? run_sd * run_sd / runs : 0.0;
        if (v <= part[r->kind]) continue;
        part[r->kind] = v;
        part_df[r->kind] =
            isfinite(r->spread.run_sd) && r->spread.run_df > 0 ? r->spread.run_df : r->spread.df;
    }
    double den = 0.0;
    *var = 0.0;
    for (int c = 0; c < CB_CMP_KINDS && P > 0; c++) {
        double w = (double)count[c] / P, v = w * w * part[c];
        *var += v;
        if (v > 0.0 && isfinite(part_df[c])) den += v * v / part_df[c];
    }
    *df = den > 0.0 ? *var * *var / den : INFINITY;
}

/* The variance a side's run-wide offset adds to a mean over the rows, with
 * its df: from the data (s^2 of the runs' mean offsets / D) when the side
 * has >= CB_CMP_MIN_RUNS runs, else from the rows' spreads. */
static void side_offset(const cb_compare_row *rows, const int *idx, int k, bool base_side,
                        const cb_offsets *off, double *var, double *df)
{
    if (!off->dirs) {
        spread_offset(rows, idx, k, base_side, var, df);
        return;
    }
    *var = 0.0;
    *df = INFINITY;
    double sum2 = 0.0;
    int used = 0;
    for (int d = 0; d < off->dirs; d++) {
        double s = 0.0;
        int m = 0;
        for (int i = 0; i < k; i++) {
            double v = off->dev[(size_t)idx[i] * off->dirs + d];
            if (!isnan(v)) s += v, m++;
        }
        if (m) sum2 += (s / m) * (s / m), used++;
    }
    if (used < 2) return;
    *var = sum2 / (used - 1) / used;
    *df = used - 1;
}

/* The points' part of a mean's variance: the larger of their own
 * uncertainty, sum(var)/P^2 (Satterthwaite df), and their scatter as a
 * sample of the suite, s^2(d)/P (df P - 1). Also the mean and P. */
static void points_part(const cb_compare_row *rows, const int *idx, int k, double *mean,
                        int *points, double *var, double *df)
{
    double sum = 0.0, var_sum = 0.0, df_den = 0.0, ss = 0.0;
    int P = 0;
    for (int i = 0; i < k; i++) {
        const cb_compare_row *r = &rows[idx[i]];
        if (!tested(r)) continue;
        P++;
        sum += r->log_ratio;
        var_sum += r->var;
        if (r->var > 0.0 && isfinite(r->df)) df_den += r->var * r->var / r->df;
    }
    *points = P;
    *mean = P ? sum / P : NAN;
    for (int i = 0; i < k; i++)
        if (tested(&rows[idx[i]]))
            ss += (rows[idx[i]].log_ratio - *mean) * (rows[idx[i]].log_ratio - *mean);
    *var = P ? var_sum / ((double)P * P) : NAN;
    *df = df_den > 0.0 ? var_sum * var_sum / df_den : INFINITY;
    if (P >= 2 && ss / (P - 1) / P > *var) {
        *var = ss / (P - 1) / P;
        *df = P - 1;
    }
}

/* A variance part's contribution to a Satterthwaite denominator. */
static double df_part(double var, double df)
{
    return var > 0.0 && isfinite(df) ? var * var / df : 0.0;
}

cb_geomean cb_geomean_of(const cb_compare_row *rows, const int *idx, int k, const cb_offsets *ob,
                         const cb_offsets *on, const cb_compare_opts *o)
{
    cb_geomean g = {0, NAN, NAN, NAN, 0.0};
    double mean, var, df, vb, dfb, vn, dfn;
    points_part(rows, idx, k, &mean, &g.points, &var, &df);
    if (g.points == 0) return g;
    side_offset(rows, idx, k, true, ob, &vb, &dfb);
    side_offset(rows, idx, k, false, on, &vn, &dfn);
    g.offset_var = vb + vn;
    double total = var + vb + vn;
    double den = df_part(var, df) + df_part(vb, dfb) + df_part(vn, dfn);
    double t = cb_t_quantile(1.0 - o->alpha / 2.0, den > 0.0 ? total * total / den : INFINITY);
    g.ratio = exp(mean);
    g.ci_lo = exp(mean - t * sqrt(total));
    g.ci_hi = exp(mean + t * sqrt(total));
    return g;
}
