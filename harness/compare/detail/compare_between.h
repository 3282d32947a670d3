/* compare_between.h - the built-in between-run spread: what `cubench
 * compare` assumes a second process adds to a point's time when a side has
 * fewer than CB_CMP_MIN_RUNS runs and no --calibration says it.
 *
 * Rounds (--replicates) of one process do not show it: on the H200 five A/A
 * pairs at --replicates 5 (tests/data/h200-aa-r2) had the rounds-only 99% CI
 * of the ratio hold 1 at 43.6% of points, and a calibration from pair 1 put
 * the spread the rounds miss at 1.5% per run over all points, 1.5-1.7% below
 * 16 us and under 0.1% above. The four recorded H200 A/A pairs (aa-r2 pair 1,
 * aa1, aa2, aa3) give, pooled over benchmarks per time bucket (4^b ns):
 *   < 16.4 us    0.53-1.71% (up to 3.2% for one kernel class of 7 points)
 *   16.4-65.5 us 0.08-0.81%
 *   >= 65.5 us   0.00-0.19%
 * The table takes the largest of them rounded up to a quarter percent: a
 * default should err towards wide CIs (an unneeded `inconclusive` costs a
 * re-run; a false `slower` costs a hunt), and longer kernels keep some room
 * for machines noisier than this one. A calibration of the machine in use
 * replaces it (docs/compare.md). */
#ifndef CB_COMPARE_BETWEEN_H
#define CB_COMPARE_BETWEEN_H

/* Below this median a point is launch- and clock-ramp-bound (bucket <= 6). */
#define CB_BETWEEN_SHORT_S 16.384e-6
/* Below this median, bucket 7 (16.4-65.5 us). */
#define CB_BETWEEN_MID_S 65.536e-6

#define CB_BETWEEN_SHORT_SD 0.0175 /* measured up to 1.71% */
#define CB_BETWEEN_MID_SD   0.0100 /* measured up to 0.81% */
#define CB_BETWEEN_LONG_SD  0.0025 /* measured up to 0.19% */

/* The built-in between-run spread per run (relative) of a point whose BASE
 * median is `median_s`. */
double cb_between_run_default(double median_s);

#endif
