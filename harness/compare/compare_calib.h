/* compare_calib.h - the between-run spread of one machine, recorded from
 * an A/A set - at least CB_CALIB_MIN_RUNS runs (processes) of one build -
 * and passed to later comparisons as a spread source (compare_spread.h).
 *
 * From the runs, per point timed in >= 3 of them: each run's value M_k
 * (compare_units.h) and the variance v_k its own units give it. Per group
 * of points (below), in the manner of a two-way layout (points x runs):
 *   the between-run variance per run, over the group's points p with K_p
 *   runs:  sigma^2 = sum (K_p - 1)(s_p^2 - mean v_p) / sum (K_p - 1)
 *   (s_p^2: the sample variance of the point's run values: the part of their
 *   disagreement the runs' own spread does not explain);
 *   its run-wide part: each run's mean offset over the points every run
 *   timed, o_k; r^2 = s^2(o) - mean s_p^2 / P (what a mean of P points
 *   leaves of the points' own spread), at most sigma^2;
 *   degrees of freedom: the run-wide part has K - 1 (runs, not points,
 *   estimate what every point of a run shares), the rest sum (K_p - 1) -
 *   (K - 1); sigma^2's df by Welch-Satterthwaite over the two parts. Four
 *   points of three runs give df between 2 and 8, never "4 points";
 *   a floor: sigma is at least the spread one run's own units give its
 *   value (sqrt(mean v)): a between-run spread smaller than what a run can
 *   resolve is not measured, and sigma = 0 would claim exact knowledge.
 * Groups, each needing >= CB_CALIB_MIN_POINTS points: each path at each
 * time scale (factor-4 buckets of the median: bucket b holds medians in
 * [4^b, 4^(b+1)) ns), each path over all its sizes, and every point of a
 * kind (compare_kind.h). A path is a benchmark with the values of its axes
 * that are words (cb_calib_path: memory=pageable, direction=h2d,
 * config=auto): a pageable copy and a pinned one of one benchmark differ
 * between processes by 24% and 0.2%, and one group of both gave the pinned
 * ones a spread too wide and the pageable ones one too narrow (an A/A pair
 * on the H200 called a pageable copy 26% faster). A point is widened by
 * the first group that has it: its bucket, else its path's nearest bucket,
 * else its path, else (a version-2 file, grouped by benchmark) the same by
 * benchmark, else its kind; never by another kind's.
 *
 * The file is CSV (docs/compare.md):
 *   calibration_version,kind,benchmark,bucket,time_lo_s,time_hi_s,points,
 *   runs,between_run_sd,df,run_sd,run_df,basis,device
 * `benchmark` holds the path (version 3) or the benchmark (version 2, read
 * too); `bucket` and `benchmark` are `*` for the pooled rows; between_run_sd is
 * sigma (relative, per run); basis says what the runs' own spread was
 * (runs... rounds, samples: the widening adds to the same kind of spread).
 * Version 1 files (one A/A pair, df counting points) are refused with the
 * advice to record again. */
#ifndef CB_COMPARE_CALIB_H
#define CB_COMPARE_CALIB_H

#include "cb_common.h"
#include "compare_load.h"
#include "compare_spread.h"

#include <stdio.h>

#define CB_CALIB_VERSION    3
#define CB_CALIB_PATH_LEN   256
#define CB_CALIB_MIN_RUNS   3
#define CB_CALIB_MIN_POINTS 3
#define CB_CALIB_ANY_BUCKET (-1000) /* the `*` bucket */

typedef struct cb_calib_row {
    cb_cmp_kind kind;
    char *benchmark; /* the path (or a v2 benchmark); "*": the kind */
    int bucket;      /* CB_CALIB_ANY_BUCKET: every size */
    int points, runs;
    double sd, df;         /* sigma and its df                        */
    double run_sd, run_df; /* the run-wide part (NAN, 0: not measured) */
} cb_calib_row;

typedef struct cb_calibration {
    cb_calib_row *rows; /* sorted by (kind, benchmark, bucket) */
    int n_rows;
    char basis[16];   /* rounds, samples or mixed */
    char device[128]; /* the device of the runs, "" unknown */
    char path[512];   /* where it was read from ("" when built) */
} cb_calibration;

/* One point of one run of the A/A set. */
typedef struct cb_calib_obs {
    const cb_cmp_point *point; /* identity and kind (borrowed)           */
    int run;                   /* which run (0 .. runs - 1)              */
    double value, var;         /* M_k and the variance of it (log)       */
    double median_s;           /* the point's mean over runs, seconds    */
} cb_calib_obs;

/* A point's path: `benchmark`, then ";name=value" for each of `axes`
 * ("n=1;memory=pinned") whose value is not a number, in their order;
 * truncated to `len`. */
void cb_calib_path(const char *benchmark, const char *axes, char *out, size_t len);

/* The bucket of a median: floor(log4(median / 1 ns)). */
int cb_calib_bucket(double median_s);

/* Build the groups from observations grouped by point (every observation
 * of a point consecutive, >= 3 runs each; `runs` runs in all). False when
 * out of memory. */
bool cb_calibration_build(const cb_calib_obs *obs, int n, int runs, const char *basis,
                          const char *device, cb_calibration *out, cb_msg *err);

/* Record a calibration from the runs of `set` (one directory per run):
 * every point timed in >= 3 runs with >= min_samples samples each is
 * observed. *points receives their number. False with `err` set when out of
 * memory, or when `set` holds fewer than CB_CALIB_MIN_RUNS runs. */
bool cb_calibration_record(const cb_cmp_run *set, int min_samples, cb_calibration *out, int *points,
                           cb_msg *err);

/* Write it as CSV. False when writing fails. */
bool cb_calibration_write(FILE *f, const cb_calibration *c);

/* Read a file written by cb_calibration_write. False with `err` set
 * ("PATH:LINE: what") for anything else. */
bool cb_calibration_read(const char *path, cb_calibration *out, cb_msg *err);

/* The group that widens a point (`axes` NULL: the benchmark is the path),
 * or NULL when the calibration has none. */
const cb_calib_row *cb_calibration_lookup(const cb_calibration *c, cb_cmp_kind kind,
                                          const char *benchmark, const char *axes, double median_s);

/* The calibration as a spread source (its lifetime is c's). */
cb_spread_source cb_calibration_source(const cb_calibration *c);

void cb_calibration_free(cb_calibration *c);

#endif
