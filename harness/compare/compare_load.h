/* compare_load.h - the points of one side of a comparison, read from run
 * directories (results.csv + samples.csv + meta.json, docs/schema.md).
 *
 * A point is identified by (benchmark, axes). results.csv gives the set of
 * points, each one's status, timer, batch and (schema 2) throttle words;
 * samples.csv gives the per-run times and (schema 2) the replicate each came
 * from. One side may hold several directories (separate processes of the
 * same revision): every sample keeps its directory and replicate, the units
 * that compare_units.h turns into the side's estimate. Schema versions 1 and
 * 2 are read; a version-1 run has no replicate, throttle or telemetry, and
 * the loader records that so the report can say what it could not use.
 */
#ifndef CB_COMPARE_LOAD_H
#define CB_COMPARE_LOAD_H

#include "cb_common.h"
#include "compare_meta.h"
#include "csv_reader.h"

/* The newest results.csv schema_version this reader knows. */
#define CB_CMP_SCHEMA_MAX 2

typedef struct cb_cmp_point {
    char *benchmark;
    char *axes;
    bool timed;     /* status ok or noisy in at least one directory      */
    char status[8]; /* the status of the first directory that listed it  */
    char *reason;   /* the reason of the first untimed status, or ""     */
    char timer[8];  /* event, host or cupti: first directory that timed it ("" unknown) */
    int batch;      /* runs per sample, the smallest over directories (>= 1) */
    char *throttle; /* throttling words of `throttle` (not none, gpu_idle,
                     * applications_clocks_setting, display_clock_setting),
                     * the first directory's that has any; NULL if none */
    /* every sample: its per-run time (s, > 0), directory and replicate */
    double *times;
    int *dir, *replicate;
    int n, cap;
    /* results.csv's own figures of the first directory that timed it (the
     * run's summary as written; NAN where the column is absent or empty):
     * median and 95% CI in seconds, SM clock median (MHz), mean power (W),
     * highest temperature (C); `kind` the column's text ("" before it). */
    double median_s, ci_lo_s, ci_hi_s;
    double sm_clock_mhz, power_w, temp_c;
    char kind[16];
    int last_dir;    /* loader bookkeeping: last directory that listed it */
    bool last_timed; /* ... and whether that directory timed it           */
} cb_cmp_point;

/* What one directory of a side was. */
typedef struct cb_cmp_dir {
    char *path;
    int schema;          /* results.csv schema_version: 1 or 2             */
    bool has_replicates; /* samples.csv has a `replicate` column           */
    int rounds;          /* 1 + the largest replicate seen, at least 1     */
    bool has_throttle;   /* results.csv has a `throttle` column            */
    bool has_samples;    /* a samples.csv was read (see samples_optional)  */
    cb_cmp_meta meta;
} cb_cmp_dir;

typedef struct cb_cmp_slot cb_cmp_slot;

typedef struct cb_cmp_run {
    cb_cmp_point *points; /* in order of first appearance                  */
    int n_points, cap;
    cb_cmp_slot *index; /* hash of (benchmark, axes) -> point             */
    int index_cap;
    cb_cmp_dir *dirs; /* one per directory loaded (n_dirs)                */
    int n_dirs;
    char label[512];       /* the first directory loaded                     */
    char git_sha[64];      /* from the first meta.json that has one, or ""   */
    char device[128];      /* device name from the first meta.json, or ""    */
    long orphan_samples;   /* samples.csv rows whose point results.csv lacks */
    bool samples_optional; /* set before loading: a directory without a
                            * samples.csv is read from results.csv alone
                            * (its points have no times); compare leaves it
                            * false, the history (whose series are the runs'
                            * medians) sets it */
} cb_cmp_run;

/* An empty run; cb_cmp_run_free releases what the others add. */
void cb_cmp_run_init(cb_cmp_run *run);
void cb_cmp_run_free(cb_cmp_run *run);

/* Start a new directory (the loader calls it; tests that build runs in
 * memory call it to add a second process). False when out of memory. */
bool cb_cmp_run_begin_dir(cb_cmp_run *run, const char *path, cb_msg *err);

/* The point with this identity, or NULL. */
cb_cmp_point *cb_cmp_run_find(const cb_cmp_run *run, const char *benchmark, const char *axes);

/* Add a point to the current directory (one is begun if none is), or fold a
 * status into the one already there (timed if either is). `status` is "ok",
 * "noisy", "skip" or "fail"; `reason` may be NULL. NULL with `err` set when
 * out of memory or for an unknown status. */
cb_cmp_point *cb_cmp_run_add_point(cb_cmp_run *run, const char *benchmark, const char *axes,
                                   const char *status, const char *reason, cb_msg *err);

/* Row `r` of a samples.csv: its time_s (column `time_col`: > 0, finite) and
 * its round (column `rep_col`, -1 without one: 0; a whole number in [0,
 * CB_CMP_MAX_REPLICATE]). False with `path:line` and the reason in `err`.
 * compare and fleet read samples by this one rule. */
bool cb_cmp_sample_row(const cb_csv *csv, int r, int time_col, int rep_col, const char *path,
                       double *t, int *replicate, cb_msg *err);

/* Append one sample time (> 0, finite) of `replicate` (>= 0) to a point, in
 * the directory that last listed it. False when out of memory. */
bool cb_cmp_point_add_time(cb_cmp_point *p, double t_s, int replicate, cb_msg *err);

/* Read the run directory `dir` into `run` as one more directory of the side.
 * Errors (false, `err` says which file and line): a missing or unreadable
 * results.csv or samples.csv (a missing samples.csv is no error when
 * run->samples_optional), a CSV syntax error, a missing column, a
 * schema_version other than 1 or 2, an unknown status, a point listed twice
 * in one results.csv, a time_s that is not a positive finite number, a
 * replicate that is not a whole number in [0, 1e6], a summary figure
 * (median_s, ci_lo_s, ci_hi_s, sm_clock_median_mhz, power_mean_w,
 * temp_max_c) that is not a number, a meta.json that is not valid JSON
 * (compare_meta.h). */
bool cb_cmp_run_load(cb_cmp_run *run, const char *dir, cb_msg *err);

#endif
