/* compare_load.h - the points of one side of a comparison, read from run
 * directories (results.csv + samples.csv, docs/schema.md).
 *
 * A point is identified by (benchmark, axes). results.csv gives the set of
 * points and each one's status; samples.csv gives the per-run times. One
 * side may pool several directories (repeated runs of the same revision):
 * the samples of a point are then concatenated, and the point counts as timed
 * when any directory timed it.
 */
#ifndef CB_COMPARE_LOAD_H
#define CB_COMPARE_LOAD_H

#include "cb_common.h"

typedef struct cb_cmp_point {
    char *benchmark;
    char *axes;
    bool timed;     /* status ok or noisy in at least one directory      */
    char status[8]; /* the status of the first directory that listed it  */
    char *reason;   /* the reason of the first untimed status, or ""     */
    double *times;  /* per-run sample times in seconds, all > 0          */
    int n, cap;
    int last_dir;    /* loader bookkeeping: last directory that listed it */
    bool last_timed; /* ... and whether that directory timed it           */
} cb_cmp_point;

typedef struct cb_cmp_slot cb_cmp_slot;

typedef struct cb_cmp_run {
    cb_cmp_point *points; /* in order of first appearance                  */
    int n_points, cap;
    cb_cmp_slot *index; /* hash of (benchmark, axes) -> point             */
    int index_cap;
    int n_dirs;
    char label[512];     /* the first directory loaded (n_dirs in all)     */
    char git_sha[64];    /* from the first meta.json that has one, or ""   */
    char device[128];    /* device name from the first meta.json, or ""    */
    long orphan_samples; /* samples.csv rows whose point results.csv lacks */
} cb_cmp_run;

/* An empty run; cb_cmp_run_free releases what the others add. */
void cb_cmp_run_init(cb_cmp_run *run);
void cb_cmp_run_free(cb_cmp_run *run);

/* The point with this identity, or NULL. */
cb_cmp_point *cb_cmp_run_find(const cb_cmp_run *run, const char *benchmark, const char *axes);

/* Add a point, or fold a status into the one already there (timed if either
 * is). `status` is "ok", "noisy", "skip" or "fail"; `reason` may be NULL.
 * NULL with `err` set when out of memory or for an unknown status. */
cb_cmp_point *cb_cmp_run_add_point(cb_cmp_run *run, const char *benchmark, const char *axes,
                                   const char *status, const char *reason, cb_msg *err);

/* Append one sample time (> 0, finite) to a point. False when out of memory. */
bool cb_cmp_point_add_time(cb_cmp_point *p, double t_s, cb_msg *err);

/* Read the run directory `dir` into `run`, pooling with what is there.
 * Errors (false, `err` says which file and line): a missing or unreadable
 * results.csv or samples.csv, a CSV syntax error, a missing column, a
 * schema_version other than 1, an unknown status, a point listed twice in
 * one results.csv, a time_s that is not a positive finite number. */
bool cb_cmp_run_load(cb_cmp_run *run, const char *dir, cb_msg *err);

#endif
