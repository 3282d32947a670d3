/* compare_calib.h - the between-run spread of one machine, recorded once
 * from an A/A pair (two runs of one build) and passed to later comparisons
 * whose sides have fewer than CB_CMP_MIN_RUNS runs, where the data cannot
 * show it.
 *
 * From the pair, per point timed on both sides: the difference of the two
 * side centers d (log scale) and the variance v the sides' own data give it
 * (compare_units.h). Over a group of points, the between-run variance per
 * run is
 *     sigma^2 = max(0, sum(d^2 - v) / sum(1/D_A + 1/D_B))
 * (D = runs per side): the part of the disagreement the runs' own spread does
 * not explain, with df = the group's points. Groups: each benchmark at each
 * time scale (factor-4 buckets of the median: bucket b holds medians in
 * [4^b, 4^(b+1)) ns) with >= CB_CALIB_MIN_POINTS points, each benchmark over
 * all its sizes, and every point. A point is widened by the first group that
 * has it: its bucket, else the benchmark's nearest bucket, else the
 * benchmark, else every point.
 *
 * The file is CSV (docs/compare.md):
 *   calibration_version,benchmark,bucket,time_lo_s,time_hi_s,points,
 *   between_run_sd,df,basis,device
 * `bucket` and `benchmark` are `*` for the pooled rows; between_run_sd is
 * sigma (relative, per run); basis says what the pair's own spread was
 * (runs, rounds, samples: the widening adds to the same kind of spread). */
#ifndef CB_COMPARE_CALIB_H
#define CB_COMPARE_CALIB_H

#include "cb_common.h"

#include <stdio.h>

#define CB_CALIB_VERSION    1
#define CB_CALIB_MIN_POINTS 3
#define CB_CALIB_ANY_BUCKET (-1000) /* the `*` bucket */

typedef struct cb_calib_row {
    char *benchmark; /* "*": every point */
    int bucket;      /* CB_CALIB_ANY_BUCKET: every size */
    int points;
    double sd, df;
} cb_calib_row;

typedef struct cb_calibration {
    cb_calib_row *rows; /* sorted by (benchmark, bucket) */
    int n_rows;
    char basis[16];   /* runs, rounds, samples or mixed */
    char device[128]; /* the device of the pair, "" unknown */
    char path[512];   /* where it was read from ("" when built) */
} cb_calibration;

/* One point of the A/A pair. */
typedef struct cb_calib_obs {
    const char *benchmark;
    double median_s;  /* the first side's center, seconds */
    double excess;    /* d^2 - v */
    double run_share; /* 1/D_A + 1/D_B */
} cb_calib_obs;

/* The bucket of a median: floor(log4(median / 1 ns)). */
int cb_calib_bucket(double median_s);

/* Build the groups from the observations. False when out of memory. */
bool cb_calibration_build(const cb_calib_obs *obs, int n, const char *basis, const char *device,
                          cb_calibration *out, cb_msg *err);

/* Write it as CSV. False when writing fails. */
bool cb_calibration_write(FILE *f, const cb_calibration *c);

/* Read a file written by cb_calibration_write. False with `err` set
 * ("PATH:LINE: what") for anything else. */
bool cb_calibration_read(const char *path, cb_calibration *out, cb_msg *err);

/* The group that widens a point, or NULL when the calibration has none. */
const cb_calib_row *cb_calibration_lookup(const cb_calibration *c, const char *benchmark,
                                          double median_s);

void cb_calibration_free(cb_calibration *c);

#endif
