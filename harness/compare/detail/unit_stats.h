/* unit_stats.h - the statistics of one unit (the samples of one round of
 * one run, in time order, as logs): its value, its sampling variance with
 * autocorrelation, the timer-grid floor and the mode-switch test
 * (compare_units.h states the rules). */
#ifndef CB_UNIT_STATS_H
#define CB_UNIT_STATS_H

#include "cb_common.h"

/* A step of this many robust standard deviations is a mode switch. */
#define CB_BIMODAL_SDS 6.0

typedef struct cb_unit {
    double value; /* log median                                          */
    double var;   /* its sampling variance; NAN with one sample          */
    double df;    /* its degrees of freedom                              */
    bool bimodal; /* the samples step between two levels                 */
    double gap;   /* that step (log), NAN without one                    */
    bool tick;    /* the grid floor set var                              */
} cb_unit;

/* Scratch for cb_unit_of: room for n doubles in each of `a` and `b`. */
typedef struct cb_unit_scratch {
    double *a, *b;
} cb_unit_scratch;

/* The unit of `logs` (n >= 1, time order) with autocorrelation `rho` and
 * the relative timer tick `tick_rel` (0: none). */
cb_unit cb_unit_of(const double *logs, int n, double rho, double tick_rel, cb_unit_scratch *s);

/* Lag-1 sums of one unit about its own level (after a mode switch, about
 * each level): *num += sum (x_i - m)(x_{i+1} - m), *den += sum (x_i - m)^2.
 * tick_rel: the timer's grid (a switch must stand out from it). */
void cb_unit_lag1(const double *logs, int n, double tick_rel, cb_unit_scratch *s, double *num,
                  double *den);

/* The variance factor of the mean of n AR(1) samples: 1 + 2 sum_{k=1}^{n-1}
 * (1 - k/n) rho^k. */
double cb_ar1_factor(double rho, int n);

#endif
