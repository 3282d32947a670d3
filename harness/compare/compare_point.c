/* compare_point.c - one point: widen, test, interval, MDE, floor. */
#include "compare_point.h"

#include "compare_defaults.h"
#include "compare_stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double cb_compare_floor(const cb_cmp_point *p, const cb_side_est *e, const cb_compare_opts *o)
{
    double per_run = 1.0 / (p->batch > 0 ? p->batch : 1);
    if (strcmp(p->timer, "host") == 0) return o->host_res_s * per_run;
    if (strcmp(p->timer, "cupti") == 0) return 0.0;
    /* Events, and unknown timers taken as events: as given, else the grid
     * the side's own samples sit on (already per run), never coarser than
     * CUDA documents for an event pair. */
    if (!isnan(o->event_res_s)) return o->event_res_s * per_run;
    double documented = CB_EVENT_RES_DOCUMENTED_S * per_run;
    return e && e->grid_s > 0.0 && e->grid_s < documented ? e->grid_s : documented;
}

/* Add a variance part with its df to a Satterthwaite sum. */
typedef struct var_sum {
    double var, df_den; /* sum of parts; sum of part^2 / df */
} var_sum;

static void add_part(var_sum *s, double var, double df)
{
    s->var += var;
    if (var > 0.0 && isfinite(df)) s->df_den += var * var / df;
}

/* The between-run widening of one side: sigma^2 / D for a side with rounds
 * or samples of fewer than CB_CMP_MIN_RUNS runs, 0 for a side of runs. */
static double side_widening(const cb_side_est *e, const cb_compare_row *row)
{
    if (e->basis == CB_BASIS_RUNS || row->spread.sd <= 0.0) return 0.0;
    return row->spread.sd * row->spread.sd / e->runs;
}

/* The spread of a point some side of which needs one (compare_spread.h). */
static void choose_spread(cb_compare_row *row, const cb_spread_query *q, const cb_compare_opts *o)
{
    for (int i = 0; i < o->n_sources; i++) {
        const cb_spread_source *s = &o->sources[i];
        if (s->lookup && s->lookup(s->ctx, q, &row->spread)) {
            row->widening = CB_WIDEN_SOURCE;
            row->source = i;
            return;
        }
    }
    if (o->between_run_sd >= 0.0) {
        row->widening = o->between_run_sd > 0.0 ? CB_WIDEN_DEFAULT : CB_WIDEN_NONE;
        row->spread =
            (cb_spread){o->between_run_sd, INFINITY, o->between_run_sd, INFINITY, "--between-run"};
        return;
    }
    const char *why = NULL;
    if (cb_kind_default_spread(q->kind, q->median_s, &row->spread, &why)) {
        row->widening = CB_WIDEN_DEFAULT;
        return;
    }
    row->widening = CB_WIDEN_UNKNOWN;
    snprintf(row->note, sizeof row->note,
             "%s points: %s; from one run per side their between-run spread is unknown (give 3 "
             "runs per side, a calibration or a history)",
             cb_cmp_kind_name(q->kind), why ? why : "no default between-run spread");
}

static cb_basis coarser(cb_basis a, cb_basis b)
{
    return a > b ? a : b;
}

/* p, CI and MDE from d, var and df. */
static void finish_test(cb_compare_row *row, const cb_compare_opts *o)
{
    const cb_side_est *eb = &row->base;
    double L = log1p(o->delta), se = sqrt(row->var);
    double t_ci = cb_t_quantile(1.0 - o->alpha / 2.0, row->df);
    double t_pow = cb_t_quantile(o->power, row->df);
    if (se > 0.0) {
        double p_up = cb_t_cdf(-(row->log_ratio - L) / se, row->df);
        double p_down = cb_t_cdf((row->log_ratio + L) / se, row->df);
        double p = 2.0 * (p_up < p_down ? p_up : p_down);
        row->p = p < 1.0 ? p : 1.0;
    } else { /* every unit identical on both sides: the change is exact */
        row->p = fabs(row->log_ratio) > L ? 0.0 : 1.0;
    }
    row->ci_lo = exp(row->log_ratio - t_ci * se);
    row->ci_hi = exp(row->log_ratio + t_ci * se);
    /* Caught needs both: the CI beyond L, and the estimated change at least
     * the floor (a change exactly at the floor is seen below it half the
     * time, so the floor too is cleared by t(power) standard errors). */
    double floor_rel = eb->median_s > 0.0 ? row->floor_s / eb->median_s : 0.0;
    double by_test = L + (t_ci + t_pow) * se;
    double by_floor = floor_rel > 0.0 ? log1p(floor_rel) + t_pow * se : 0.0;
    row->mde_bound = by_floor > by_test ? CB_MDE_FLOOR : CB_MDE_SPREAD;
    row->mde = expm1(by_test > by_floor ? by_test : by_floor);
}

void cb_compare_point_test(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c,
                           const char *device_name, const cb_compare_opts *o)
{
    const cb_side_est *eb = &row->base, *ec = &row->cand;
    double fb = cb_compare_floor(b, eb, o), fc = cb_compare_floor(c, ec, o);
    row->floor_s = fb > fc ? fb : fc;
    row->log_ratio = ec->center - eb->center;
    row->ratio = exp(row->log_ratio);
    row->widening = CB_WIDEN_NONE;
    row->spread = (cb_spread){0.0, INFINITY, NAN, 0.0, ""};
    if (eb->basis != CB_BASIS_RUNS || ec->basis != CB_BASIS_RUNS) {
        cb_spread_query q = {b->benchmark,
                             b->axes,
                             b->device,
                             device_name,
                             row->kind,
                             eb->median_s,
                             coarser(eb->basis, ec->basis)};
        choose_spread(row, &q, o);
    }
    if (row->widening == CB_WIDEN_UNKNOWN) {
        row->var = NAN;
        return;
    }
    var_sum s = {0};
    add_part(&s, eb->var, eb->df);
    add_part(&s, ec->var, ec->df);
    /* one estimate of sigma serves both sides: one part, one df */
    add_part(&s, side_widening(eb, row) + side_widening(ec, row), row->spread.df);
    row->var = s.var;
    row->df = s.df_den > 0.0 ? s.var * s.var / s.df_den : INFINITY;
    if (isnan(row->var) || isnan(row->df)) {
        row->var = NAN;
        return;
    }
    finish_test(row, o);
}
