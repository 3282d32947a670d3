/* compare_units.h - one side's estimate of one point, on the right unit.
 *
 * The samples of a point in one replicate (round) of one directory (one
 * process) form a unit; its value is the log of the unit's median. Samples
 * inside a unit are not independent evidence about another process: on the
 * H200 a GPU mode lasting milliseconds holds a whole round at 46.1 or 47.6 us
 * (vecadd, 2^24), so 25 samples carried the information of about 2.
 *
 * A unit's own variance (the sampling variance of its log median):
 *   ((Q(1/2 + h) - Q(1/2 - h)) / 2)^2 (n - 1) / (n - f), h = 1 / (2 sqrt(n_eff)),
 * the quantile spacing that estimates 1 / (2 f(m) sqrt(n)), with the
 * samples' lag-1 autocorrelation rho taken into account exactly for n
 * samples: f = 1 + 2 sum_{k<n} (1 - k/n) rho^k (the variance of a mean of
 * n AR(1) samples over that of n independent ones), n_eff =
 * n (n - f) / ((n - 1) f), and (n - 1) / (n - f) undoing the shrinking of
 * the spread of correlated samples about their own center. rho is pooled
 * over every unit of the point, on both sides (cb_units_rho): one unit of
 * 10 samples cannot estimate it (the lag-1 estimate is biased by about
 * -(1 + 3 rho) / n and scattered by 1 / sqrt(n); the bias is corrected).
 * Its df is sqrt(n_eff) (the spacing rests on about that many samples
 * between the two quantiles), at most n_eff - 1, at least 1. Simulated
 * (tests/cpu/test_compare_units.c) the 95% CIs of AR(1) units cover
 * 0.95-0.99 from n = 10 and rho = 0 to 0.9; the lag-1 rule of the stopping
 * rule alone covered 0.80-0.88 at n <= 10, rho >= 0.8.
 *
 * Two floors:
 *   the timer's grid: samples on a grid of tick t (32 ns for the H200's
 *     events) tie; a unit's median is uncertain by up to half a tick however
 *     many samples tie, so its variance is at least (t / median)^2 / 12. t is
 *     the smallest gap between distinct sample times of the point;
 *   a mode switch: a unit whose samples step from one level to another
 *     (the best split of its time series into two runs of >= max(3, n/5)
 *     samples leaves a gap of >= 6 robust standard deviations of the
 *     samples about their own level) is `bimodal`: its variance is the
 *     within-level one plus gap^2 / 4 (a later run may sit in either
 *     mode), its df that of the within-level part and at least 2 - not the
 *     df of 1 that the step's autocorrelation would give.
 *
 * The side is summarised by
 *   center  mean over directories of M_d, where M_d is the mean of the
 *           directory's unit values (the log of a geometric mean of medians);
 *   var     the variance of center, and its degrees of freedom, from the
 *           richest level the data have (`basis`):
 *     runs     >= CB_CMP_MIN_RUNS directories: var = s^2(M_d) / D, df D - 1
 *              (everything between processes is in it);
 *     rounds   fewer directories, each with >= 2 rounds: var(M_d) is the
 *              spread of its rounds, s^2 / R with df R - 1, combined over the
 *              directories by Welch-Satterthwaite;
 *     samples  a directory with one unit: the unit's variance above.
 * A spread can be small by chance (five rounds that all landed in one mode),
 * so each level's variance is at least what the level below it implies: the
 * rounds' at least their samples', the runs' at least their rounds'. A run
 * whose rounds fall into two groups >= 6 of their own standard errors apart
 * is `bimodal` too (its rounds' spread then holds the modes). Between-run
 * spread that the data cannot show (rounds or samples of one process) is
 * added by compare from a spread source or a default (compare_spread.h). */
#ifndef CB_COMPARE_UNITS_H
#define CB_COMPARE_UNITS_H

#include "compare_load.h"
#include "compare_spread.h"

/* With this many directories (processes) per side, the spread of their
 * values is the measure of between-run noise (df >= 2 per side). */
#define CB_CMP_MIN_RUNS 3

typedef struct cb_side_est {
    int n;           /* samples                                        */
    int runs;        /* directories with samples (D)                   */
    int units;       /* replicates with samples, over all directories  */
    cb_basis basis;  /* where var comes from                           */
    double center;   /* log scale, as above                            */
    double median_s; /* exp(center): a geometric mean of unit medians  */
    double var, df;  /* variance of center and its degrees of freedom  */
    double rel_iqr;  /* (q3 - q1) / median of the pooled samples       */
    double rho;      /* the autocorrelation used                       */
    bool bimodal;    /* a unit switched modes, or a run's rounds split  */
    double mode_gap; /* the largest such gap, relative; NAN: none       */
    bool tick_floor; /* the timer's grid set a unit's variance          */
    double grid_s;   /* smallest gap between distinct sample times, s per
                      * run (the timer's grid); NAN: fewer than 2 values */
} cb_side_est;

/* A directory's value M_d and the variance of it its own units give. */
typedef struct cb_dir_value {
    double value, var, df;
    int units; /* 0: the directory has no samples of the point */
} cb_dir_value;

/* The lag-1 autocorrelation of the samples inside the units of the given
 * points (NULLs skipped), pooled, bias-corrected and clipped to [0, 0.95];
 * 0 when no unit has 3 samples. */
double cb_units_rho(const cb_cmp_point *const *points, int n);

/* Estimate a point's side from its samples (n >= 1) with autocorrelation
 * `rho` (cb_units_rho; NAN: from this point alone). False with `err` set
 * when out of memory. */
bool cb_side_estimate(const cb_cmp_point *p, double rho, cb_side_est *out, cb_msg *err);

/* The same, and each directory's value into dirs[0 .. n_dirs) (indexed by
 * directory; directories without samples of the point get units 0). */
bool cb_side_estimate_dirs(const cb_cmp_point *p, double rho, cb_side_est *out, cb_dir_value *dirs,
                           int n_dirs, cb_msg *err);

#endif
