/* fleet_stat.c - each run of a model against the others (the statistic is
 * explained in fleet_stat.h). */
#include "fleet_stat.h"

#include "compare_stats.h"

#include <math.h>

void cb_fleet_leave_one_out(const cb_fleet_value *v, int n, double alpha, cb_fleet_loo *out)
{
    double mu = 0.0;
    for (int i = 0; i < n; i++)
        mu += v[i].center / n;
    double ss = 0.0; /* sum of squares about mu, over all runs */
    for (int i = 0; i < n; i++)
        ss += (v[i].center - mu) * (v[i].center - mu);
    int k = n - 1;
    for (int i = 0; i < n; i++) {
        cb_fleet_loo *o = &out[i];
        /* The others, about mu: their deviations sum to -x, so their mean is
         * mu - x/k, and their sum of squares about that mean is
         * ss - x^2 - x^2/k. */
        double x = v[i].center - mu;
        double mean = mu - x / k;
        o->log_ratio = v[i].center - mean;
        o->se = o->df = o->ci_lo = o->ci_hi = o->p = NAN;
        if (k < 2 || !isfinite(v[i].var)) continue;
        double ss_others = ss - x * x - x * x / k;
        double s2 = (ss_others > 0.0 ? ss_others : 0.0) / (k - 1);
        double a = s2 * (1.0 + 1.0 / k), b = v[i].var;
        o->se = sqrt(a + b);
        double den = (a > 0.0 ? a * a / (k - 1) : 0.0) +
                     (b > 0.0 && isfinite(v[i].df) ? b * b / v[i].df : 0.0);
        o->df = den > 0.0 ? (a + b) * (a + b) / den : INFINITY;
        double t = cb_t_quantile(1.0 - alpha / 2.0, o->df);
        o->ci_lo = o->log_ratio - t * o->se;
        o->ci_hi = o->log_ratio + t * o->se;
        if (o->se > 0.0)
            o->p = 2.0 * cb_t_cdf(-fabs(o->log_ratio) / o->se, o->df);
        else
            o->p = o->log_ratio == 0.0 ? 1.0 : 0.0;
    }
}
