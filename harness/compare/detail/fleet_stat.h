/* fleet_stat.h - is one run outside the spread of the other runs of its
 * model? compare's statistics (compare_units.h, compare_stats.h) applied to
 * a fleet.
 *
 * Each run is one value at the reference point: its center c (the log of the
 * geometric mean of its rounds' median times, compare_units.h) with that
 * center's own variance v and degrees of freedom f. Run i is set against the
 * other k = n - 1 runs' centers, their mean m and sample variance s^2:
 *   d   = c_i - m                  the log of the time ratio i / others
 *   se^2 = s^2 (1 + 1/k) + v_i     the spread of a further run of the fleet
 *                                  around m (the prediction interval), plus
 *                                  the run's own measurement uncertainty
 *   df  Welch-Satterthwaite over (s^2 (1 + 1/k), k - 1) and (v_i, f_i)
 *   CI  d -+ t(1 - alpha/2, df) se;  p: two-sided t test of d = 0
 * This is the externally studentized residual: a run is compared with the
 * spread of the others, so an outlier does not widen its own yardstick, while
 * every other run carries the outlier in its s^2 (and is not flagged by it).
 * With two runs there is no spread to judge by (k - 1 = 0): no CI.
 *
 * Cost: one pass for the sums, then each leave-one-out mean and variance in
 * O(1) (centred sums, so no cancellation): linear in the number of runs.
 */
#ifndef CB_FLEET_STAT_H
#define CB_FLEET_STAT_H

#include "cb_common.h"

typedef struct cb_fleet_value {
    double center; /* log seconds                                          */
    double var;    /* variance of center (NAN: unknown, e.g. one sample)   */
    double df;     /* its degrees of freedom (INFINITY allowed)            */
} cb_fleet_value;

typedef struct cb_fleet_loo {
    double log_ratio;    /* d: log(time of this run / the others' mean)      */
    double se, df;       /* NAN without a CI                                  */
    double ci_lo, ci_hi; /* of d, log scale; NAN without a CI                */
    double p;            /* two-sided, NAN without a CI                      */
} cb_fleet_loo;

/* Every run of `v[0..n)` (n >= 2) against the others, into out[0..n). A run
 * gets no CI when n < 3 or its own variance is unknown. */
void cb_fleet_leave_one_out(const cb_fleet_value *v, int n, double alpha, cb_fleet_loo *out);

#endif
