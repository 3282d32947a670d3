/* compare_units.c - units (directory, replicate) -> a side's estimate. */
#include "compare_units.h"

#include "compare_stats.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *cb_basis_name(cb_basis b)
{
    switch (b) {
    case CB_BASIS_RUNS:
        return "runs";
    case CB_BASIS_ROUNDS:
        return "rounds";
    case CB_BASIS_SAMPLES:
        break;
    }
    return "samples";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct sample_ref {
    int dir, replicate, at; /* `at`: position in the point's arrays (time order) */
} sample_ref;

static int cmp_sample_ref(const void *a, const void *b)
{
    const sample_ref *x = a, *y = b;
    if (x->dir != y->dir) return (x->dir > y->dir) - (x->dir < y->dir);
    if (x->replicate != y->replicate)
        return (x->replicate > y->replicate) - (x->replicate < y->replicate);
    return (x->at > y->at) - (x->at < y->at);
}

/* One unit: log median, and the sampling variance of it with its df. */
typedef struct unit_value {
    double value, var, df;
} unit_value;

/* `logs` in time order (n >= 1), `buf` room for n. */
static unit_value unit_of(const double *logs, int n, double *buf)
{
    double n_eff = n;
    cb_stats_autocorr(logs, n, &n_eff);
    memcpy(buf, logs, (size_t)n * sizeof *buf);
    qsort(buf, (size_t)n, sizeof *buf, cmp_double);
    unit_value u = {cb_cmp_quantile(buf, n, 0.5), NAN, NAN};
    if (n >= 2) {
        double h = 0.5 / sqrt(n_eff < 1.0 ? 1.0 : n_eff);
        double lo = cb_cmp_quantile(buf, n, 0.5 - h), hi = cb_cmp_quantile(buf, n, 0.5 + h);
        u.var = 0.25 * (hi - lo) * (hi - lo);
        u.df = n_eff > 2.0 ? n_eff - 1.0 : 1.0;
    }
    return u;
}

/* Mean and sample variance of v[0..n). */
static void mean_var(const double *v, int n, double *mean, double *var)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    *mean = s / n;
    double ss = 0.0;
    for (int i = 0; i < n; i++)
        ss += (v[i] - *mean) * (v[i] - *mean);
    *var = n > 1 ? ss / (n - 1) : NAN;
}

/* The variance of a mean of k values whose spread is `spread` (df k - 1),
 * or at least `floor_var` (the mean variance the level below implies, with
 * `floor_df`): whichever is larger, with its df. */
static void level_variance(double spread, int k, double floor_var, double floor_df, double *var,
                           double *df)
{
    if (k >= 2 && !(spread < floor_var)) {
        *var = spread / k;
        *df = k - 1;
    } else {
        *var = floor_var / k;
        *df = floor_df;
    }
}

typedef struct dir_value {
    double value, var, df;
    int units;
} dir_value;

bool cb_side_estimate(const cb_cmp_point *p, cb_side_est *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    out->center = out->median_s = out->var = out->df = out->rel_iqr = NAN;
    int n = p->n;
    out->n = n;
    if (n < 1) return true;
    sample_ref *refs = malloc((size_t)n * sizeof *refs);
    double *logs = malloc((size_t)n * sizeof *logs);
    double *buf = malloc((size_t)n * sizeof *buf);
    unit_value *units = malloc((size_t)n * sizeof *units);
    dir_value *dirs = malloc((size_t)n * sizeof *dirs);
    double *vals = malloc((size_t)n * sizeof *vals);
    bool ok = refs && logs && buf && units && dirs && vals;
    if (!ok) {
        cb_msg_set(err, "compare: out of memory");
        goto done;
    }
    /* Group by (directory, replicate), keeping time order inside a group;
     * the loader's order is usually grouped already, and then no sort. */
    bool grouped = true;
    for (int i = 0; i < n; i++) {
        refs[i] = (sample_ref){p->dir[i], p->replicate[i], i};
        if (i > 0 && cmp_sample_ref(&refs[i - 1], &refs[i]) > 0) grouped = false;
    }
    if (!grouped) qsort(refs, (size_t)n, sizeof *refs, cmp_sample_ref);

    int n_dirs = 0;
    for (int start = 0; start < n;) {
        int dir_end = start;
        while (dir_end < n && refs[dir_end].dir == refs[start].dir)
            dir_end++;
        /* the units of this directory */
        int n_units = 0;
        for (int u = start; u < dir_end;) {
            int end = u;
            while (end < dir_end && refs[end].replicate == refs[u].replicate)
                end++;
            for (int i = u; i < end; i++)
                logs[i - u] = log(p->times[refs[i].at]);
            units[n_units++] = unit_of(logs, end - u, buf);
            u = end;
        }
        /* the directory's value: mean of its units; spread of its rounds,
         * at least the mean sampling variance of one unit */
        double floor_var = 0.0, floor_df = 0.0;
        bool floor_known = true;
        for (int u = 0; u < n_units; u++) {
            vals[u] = units[u].value;
            floor_known = floor_known && !isnan(units[u].var);
            floor_var += units[u].var / n_units;
            floor_df += units[u].df;
        }
        dir_value *d = &dirs[n_dirs++];
        double spread;
        mean_var(vals, n_units, &d->value, &spread);
        d->units = n_units;
        if (!floor_known) floor_var = NAN, floor_df = NAN;
        if (n_units >= 2 && isnan(floor_var)) floor_var = 0.0, floor_df = INFINITY;
        level_variance(spread, n_units, floor_var, floor_df, &d->var, &d->df);
        out->units += n_units;
        start = dir_end;
    }

    out->runs = n_dirs;
    double var_sum = 0.0, df_den = 0.0, floor_df = 0.0;
    bool all_rounds = true;
    for (int d = 0; d < n_dirs; d++) {
        vals[d] = dirs[d].value;
        var_sum += dirs[d].var;
        df_den += dirs[d].var * dirs[d].var / dirs[d].df;
        floor_df += dirs[d].df;
        all_rounds = all_rounds && dirs[d].units >= 2;
    }
    double spread;
    mean_var(vals, n_dirs, &out->center, &spread);
    if (n_dirs >= CB_CMP_MIN_RUNS) {
        out->basis = CB_BASIS_RUNS;
        level_variance(spread, n_dirs, var_sum / n_dirs, floor_df, &out->var, &out->df);
    } else {
        out->basis = all_rounds ? CB_BASIS_ROUNDS : CB_BASIS_SAMPLES;
        out->var = var_sum / ((double)n_dirs * n_dirs);
        out->df = df_den > 0.0 ? var_sum * var_sum / df_den : INFINITY;
    }
    out->median_s = exp(out->center);
    for (int i = 0; i < n; i++)
        buf[i] = p->times[i];
    qsort(buf, (size_t)n, sizeof *buf, cmp_double);
    out->rel_iqr = cb_cmp_rel_iqr(buf, n);
done:
    free(refs), free(logs), free(buf), free(units), free(dirs), free(vals);
    return ok;
}
