/* fleet_shift.h - one run's sample times against the median times of the
 * other runs of its model, with compare's statistics (compare_hl.h).
 *
 * BASE is the set of the other runs' medians (one value per run), NEW the
 * run's own samples; the result is the Hodges-Lehmann ratio NEW/BASE of the
 * times with its Moses CI and the Mann-Whitney p-value. One value per run
 * makes every run weigh the same, whatever its sample count (the stopping
 * rule gives a noisy point 100x the samples of a steady one), and puts the
 * fleet's run-to-run spread into the CI: a run is only outside the fleet when
 * its samples lie beyond the spread of the other runs' medians
 * (docs/fleet.md has the argument and the alternatives).
 *
 * Cost: with T runs, each comparison copies its BASE - the T - 1 others, or
 * `max_base` of them at evenly spaced ranks when T - 1 is larger - so a model
 * of T runs with N samples in all costs O(T max_base + N log N), linear in
 * the input for a fixed max_base. The exact Mann-Whitney distribution (for
 * m n <= CB_MWU_EXACT_MAX without ties) depends only on m and n, and m is the
 * same for every run of the model, so it is computed once per sample count.
 */
#ifndef CB_FLEET_SHIFT_H
#define CB_FLEET_SHIFT_H

#include "compare_hl.h"

typedef struct cb_fleet_base {
    double *log_medians; /* ascending, count of them                     */
    int count;
    int m;     /* BASE size of each comparison: min(count - 1, max_base) */
    double *x; /* scratch BASE, m values                                 */
    double *y; /* scratch NEW, grown as needed                           */
    int y_cap;
    double *d; /* scratch pairwise differences, up to CB_HL_SORT_MAX of them */
    int64_t d_cap;
    double **cdf; /* exact null cdf by NEW size, for m n <= CB_MWU_EXACT_MAX */
    int cdf_len;
} cb_fleet_base;

/* Prepare the comparisons of one model and figure: `medians` are the median
 * times of the runs that timed the point (count >= 2, all > 0; any order).
 * False with `err` set when out of memory. */
bool cb_fleet_base_init(cb_fleet_base *b, const double *medians, int count, int max_base,
                        cb_msg *err);
void cb_fleet_base_free(cb_fleet_base *b);

/* Compare the run whose median time is `own_median` (one of the medians
 * given to init; it is left out of BASE) through its sample times
 * times[0..n) (n >= 1, all > 0). `out` as cb_shift_estimate: ratio and CI of
 * NEW/BASE times. False with `err` set when out of memory. */
bool cb_fleet_base_compare(cb_fleet_base *b, double own_median, const double *times, int n,
                           double alpha, cb_shift *out, cb_msg *err);

#endif
