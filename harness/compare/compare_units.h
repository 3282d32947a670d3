/* compare_units.h - one side's estimate of one point, on the right unit.
 *
 * The samples of a point in one replicate (round) of one directory (one
 * process) form a unit; its value is the log of the unit's median. Samples
 * inside a unit are not independent evidence about another process: on the
 * H200 a GPU mode lasting milliseconds holds a whole round at 46.1 or 47.6 us
 * (vecadd, 2^24), so 25 samples carried the information of about 2. The side
 * is summarised by
 *   center  mean over directories of M_d, where M_d is the mean of the
 *           directory's unit values (the log of a geometric mean of medians);
 *   var     the variance of center, and its degrees of freedom, from the
 *           richest level the data have (`basis`):
 *     runs     >= CB_CMP_MIN_RUNS directories: var = s^2(M_d) / D, df D - 1
 *              (everything between processes is in it);
 *     rounds   fewer directories, each with >= 2 rounds: var(M_d) is the
 *              spread of its rounds, s^2 / R with df R - 1, combined over the
 *              directories by Welch-Satterthwaite;
 *     samples  a directory with one unit: var(M_d) is the sampling variance
 *              of the log median, (Q(1/2 + h) - Q(1/2 - h))^2 / 4 with
 *              h = 1 / (2 sqrt(n_eff)) (the quantile spacing that estimates
 *              1 / (2 f(m) sqrt(n))), n_eff from the lag-1 autocorrelation
 *              (stats.h), df n_eff - 1.
 * A spread can be small by chance (five rounds that all landed in one mode),
 * so each level's variance is at least what the level below it implies: the
 * rounds' at least their samples', the runs' at least their rounds'.
 * Between-run spread that the data cannot show (rounds or samples of one
 * process) is added by compare.c from a calibration or a default. */
#ifndef CB_COMPARE_UNITS_H
#define CB_COMPARE_UNITS_H

#include "compare_load.h"

/* With this many directories (processes) per side, the spread of their
 * values is the measure of between-run noise (df >= 2 per side). */
#define CB_CMP_MIN_RUNS 3

typedef enum cb_basis {
    CB_BASIS_RUNS,
    CB_BASIS_ROUNDS,
    CB_BASIS_SAMPLES,
} cb_basis;

/* "runs", "rounds", "samples". */
const char *cb_basis_name(cb_basis b);

typedef struct cb_side_est {
    int n;           /* samples                                        */
    int runs;        /* directories with samples (D)                   */
    int units;       /* replicates with samples, over all directories  */
    cb_basis basis;  /* where var comes from                           */
    double center;   /* log scale, as above                            */
    double median_s; /* exp(center): a geometric mean of unit medians  */
    double var, df;  /* variance of center and its degrees of freedom  */
    double rel_iqr;  /* (q3 - q1) / median of the pooled samples       */
} cb_side_est;

/* Estimate a point's side from its samples (n >= 1). False with `err` set
 * when out of memory. */
bool cb_side_estimate(const cb_cmp_point *p, cb_side_est *out, cb_msg *err);

#endif
