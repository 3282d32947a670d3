/* compare_point.c - one point: widen, test, interval, MDE, floor. */
#include "compare_point.h"

#include "compare_between.h"
#include "compare_stats.h"

#include <math.h>
#include <string.h>

double cb_compare_floor(const cb_cmp_point *p, const cb_compare_opts *o)
{
    double res = o->event_res_s; /* unknown timers are taken as the default, events */
    if (strcmp(p->timer, "host") == 0)
        res = o->host_res_s;
    else if (strcmp(p->timer, "cupti") == 0)
        res = 0.0;
    return res / (p->batch > 0 ? p->batch : 1);
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
    if (e->basis == CB_BASIS_RUNS || row->widening == CB_WIDEN_NONE) return 0.0;
    return row->between_sd * row->between_sd / e->runs;
}

void cb_compare_point_test(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c,
                           const cb_compare_opts *o)
{
    const cb_side_est *eb = &row->base, *ec = &row->cand;
    double fb = cb_compare_floor(b, o), fc = cb_compare_floor(c, o);
    row->floor_s = fb > fc ? fb : fc;
    row->log_ratio = ec->center - eb->center;
    row->ratio = exp(row->log_ratio);

    /* Widening: the calibration's group for this point, else the default
     * (--between-run, or the built-in table by the BASE median) for sides of
     * rounds or samples; sides with runs need none. */
    row->widening = CB_WIDEN_NONE;
    row->between_sd = 0.0;
    double cal_df = INFINITY;
    bool needs = eb->basis != CB_BASIS_RUNS || ec->basis != CB_BASIS_RUNS;
    const cb_calib_row *cal =
        needs && o->calibration ? cb_calibration_lookup(o->calibration, b->benchmark, eb->median_s)
                                : NULL;
    if (cal) {
        row->widening = CB_WIDEN_CALIBRATION;
        row->between_sd = cal->sd;
        cal_df = cal->df;
    } else if (needs && o->between_run_sd != 0.0) {
        row->widening = CB_WIDEN_DEFAULT;
        row->between_sd =
            o->between_run_sd > 0.0 ? o->between_run_sd : cb_between_run_default(eb->median_s);
    }
    var_sum s = {0};
    add_part(&s, eb->var, eb->df);
    add_part(&s, ec->var, ec->df);
    /* one estimate of sigma serves both sides: one part, one df */
    add_part(&s, side_widening(eb, row) + side_widening(ec, row), cal_df);
    row->var = s.var;
    row->df = s.df_den > 0.0 ? s.var * s.var / s.df_den : INFINITY;
    if (isnan(row->var) || isnan(row->df)) {
        row->var = NAN;
        return;
    }

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
    row->mde = expm1(by_test > by_floor ? by_test : by_floor);
}
