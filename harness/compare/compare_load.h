/* compare_load.h - the one reader of run directories in the judge
 * (results.csv + samples.csv or samples.csv.xz + meta.json + python.json,
 * docs/schema.md): compare's sides and fleet's runs are read here.
 *
 * A point is identified by (benchmark, axes, device): `device` is the row's
 * device in a directory that measured several (`cubench run --device all`,
 * where one point appears once per device), and "" otherwise, so that runs
 * of one device match whichever ordinal they used (the conditions say when
 * the GPUs differ). results.csv gives the set of points, each one's status,
 * timer, batch, kind, key figure, work, telemetry and throttle columns;
 * samples.csv gives the per-run times, the round each came from and (v2)
 * the throttle reasons of each sample. One side may hold several
 * directories (separate processes of the same revision): every sample keeps
 * its directory and replicate, the units that compare_units.h turns into
 * the side's estimate. Schema versions 1 to 3 are read; what an older run
 * lacks is recorded so the report can say so.
 *
 * A directory that is the same run as one already loaded - the same real
 * path (given twice, or through a symlink), the same identity in meta.json
 * (a copy), or byte-identical samples - is not loaded again: it is listed
 * in `duplicates`, and the caller warns. Counted twice it would pass for
 * independent evidence.
 */
#ifndef CB_COMPARE_LOAD_H
#define CB_COMPARE_LOAD_H

#include "cb_common.h"
#include "compare_kind.h"
#include "compare_meta.h"
#include "csv_reader.h"

/* The newest results.csv schema_version this reader knows. */
#define CB_CMP_SCHEMA_MAX 3

/* A device value longer than this is not an ordinal. */
#define CB_CMP_DEVICE_LEN 16

/* How a key figure picks among its candidates (results.csv `key_rule`). */
typedef enum cb_cmp_key_rule {
    CB_CMP_KEY_BEST,    /* the highest GB/s or TFLOP/s     */
    CB_CMP_KEY_LARGEST, /* the most work (bytes or flops)  */
} cb_cmp_key_rule;

/* The results.csv numbers of a point beside its samples: NAN where the
 * column is absent or empty (schema 1 has no telemetry, schema 2 no phase
 * times). Taken from the first directory that timed the point. */
typedef struct cb_cmp_facts {
    double bytes, flops;
    double sm_clock_min_mhz, sm_clock_median_mhz, sm_clock_max_mhz;
    double mem_clock_median_mhz, power_mean_w, temp_max_c;
    double setup_s, verify_s, warmup_s, sampling_s, teardown_s;
    double throttled_samples;          /* samples the runner set aside (v3)          */
    double throttle_wait_s;            /* seconds it waited for the clock (v3)       */
    double median_s, ci_lo_s, ci_hi_s; /* the row's own median and 95% CI   */
} cb_cmp_facts;

typedef struct cb_cmp_point {
    char *benchmark;
    char *axes;
    char device[CB_CMP_DEVICE_LEN]; /* identity: see above                   */
    bool timed;                     /* status ok or noisy in at least one directory      */
    char status[8];                 /* the status of the first directory that listed it  */
    char *reason;                   /* the reason of the first untimed status, or ""     */
    char timer[8];      /* event, host or cupti: first directory that timed it ("" unknown) */
    int batch;          /* runs per sample, the smallest over directories (>= 1) */
    cb_cmp_kind kind;   /* declared (v3) or inferred (compare_kind.h)    */
    bool kind_declared; /* from the `kind` column                        */
    char *key_figure;   /* v3 `key_figure`; NULL: not a candidate         */
    cb_cmp_key_rule key_rule;
    char *throttle;            /* throttling words of `throttle` (those the run counts,
                                * else all but none, gpu_idle, applications_clocks_setting,
                                * display_clock_setting), the first directory's that has
                                * any; NULL if none */
    int throttled_n;           /* kept samples whose own `throttle` names such a word */
    double clock_lo, clock_hi; /* the kept samples' own SM clock (v2
                                * `sm_clock_mhz`), lowest and highest; NAN */
    cb_cmp_facts facts;
    /* every sample: its per-run time (s, > 0), directory and replicate */
    double *times;
    int *dir, *replicate;
    int n, cap;
    int last_dir;         /* loader bookkeeping: last directory that listed it */
    bool last_timed;      /* ... and whether that directory timed it           */
    bool described;       /* ... and whether a timed row gave timer and facts  */
    int seq_dir;          /* ... the directory of the last sample row read (-1: none), */
    int seq_rep;          /*     its replicate                                         */
    long long seq_sample; /* and its `sample` index (-1: no such column) */
} cb_cmp_point;

/* What one directory of a side was. */
typedef struct cb_cmp_dir {
    char *path;
    char *real_path;                    /* realpath(path), or path when it cannot be had  */
    int schema;                         /* results.csv schema_version: 1 to 3             */
    bool has_replicates;                /* samples.csv has a `replicate` column           */
    int rounds;                         /* 1 + the largest replicate seen, at least 1     */
    bool has_throttle;                  /* results.csv has a `throttle` column            */
    bool has_sample_throttle;           /* samples.csv has a per-sample `throttle`   */
    bool has_kind;                      /* results.csv has a `kind` column (v3)           */
    bool has_key_figures;               /* results.csv has `key_figure` (v3)             */
    int n_devices;                      /* distinct `device` values of its rows (0: none) */
    char devices[4][CB_CMP_DEVICE_LEN]; /* the first few of them            */
    char uuids[4][96];                  /* their `device_uuid` (first row of each)        */
    uint64_t samples_hash;              /* of samples.csv's bytes                       */
    cb_cmp_meta meta;
} cb_cmp_dir;

/* A directory not loaded because it is a run already loaded. */
typedef struct cb_cmp_duplicate {
    char *path;
    char why[200];
} cb_cmp_duplicate;

typedef struct cb_cmp_slot cb_cmp_slot;

typedef struct cb_cmp_run {
    cb_cmp_point *points; /* in order of first appearance                  */
    int n_points, cap;
    cb_cmp_slot *index; /* hash of (benchmark, axes, device) -> point    */
    int index_cap;
    cb_cmp_dir *dirs; /* one per directory loaded (n_dirs)                */
    int n_dirs;
    cb_cmp_duplicate *duplicates; /* directories skipped as copies       */
    int n_duplicates;
    char label[512];       /* the first directory loaded                     */
    char git_sha[64];      /* from the first meta.json that has one, or ""   */
    char device[128];      /* device name from the first meta.json, or ""    */
    long orphan_samples;   /* samples.csv rows whose point results.csv lacks */
    bool samples_optional; /* set before loading: a directory without a
                            * samples.csv (nor .xz) is read from results.csv
                            * alone, its points without times; compare leaves
                            * it false, the history (whose series are the
                            * runs' medians) sets it */
} cb_cmp_run;

/* An empty run; cb_cmp_run_free releases what the others add. */
void cb_cmp_run_init(cb_cmp_run *run);
void cb_cmp_run_free(cb_cmp_run *run);

/* Start a new directory (the loader calls it; tests that build runs in
 * memory call it to add a second process). False when out of memory. */
bool cb_cmp_run_begin_dir(cb_cmp_run *run, const char *path, cb_msg *err);

/* The point with this identity, or NULL. `device` NULL means "". */
cb_cmp_point *cb_cmp_run_find(const cb_cmp_run *run, const char *benchmark, const char *axes,
                              const char *device);

/* Add a point (device "") to the current directory (one is begun if none
 * is), or fold a status into the one already there (timed if either is).
 * `status` is "ok", "noisy", "skip" or "fail"; `reason` may be NULL. NULL
 * with `err` set when out of memory or for an unknown status. The point's
 * kind starts as `device`. */
cb_cmp_point *cb_cmp_run_add_point(cb_cmp_run *run, const char *benchmark, const char *axes,
                                   const char *status, const char *reason, cb_msg *err);

/* The same with a device (a run of several devices). */
cb_cmp_point *cb_cmp_run_add_device_point(cb_cmp_run *run, const char *benchmark, const char *axes,
                                          const char *device, const char *status,
                                          const char *reason, cb_msg *err);

/* Append one sample time (> 0, finite) of `replicate` (>= 0) to a point, in
 * the directory that last listed it. False when out of memory. */
bool cb_cmp_point_add_time(cb_cmp_point *p, double t_s, int replicate, cb_msg *err);

/* Read the run directory `dir` into `run` as one more directory of the
 * side. A directory that is a run already in `run` is skipped and listed in
 * run->duplicates (true). Errors (false, `err` says which file and line): a
 * missing or unreadable directory, results.csv, or samples.csv (nor .xz:
 * no error when run->samples_optional); a
 * CSV syntax error; a missing column; a schema_version outside 1 to 3; an
 * unknown status or kind; a point listed twice (per device) in one
 * results.csv; a time_s that is not a positive finite number; a replicate
 * that is not a whole number in [0, 1e6]; a meta.json or python.json that
 * is not valid JSON (compare_meta.h). */
bool cb_cmp_run_load(cb_cmp_run *run, const char *dir, cb_msg *err);

/* Does `word` (len bytes) of a throttle cell count as throttling in
 * directory `d` (its meta.json's list, else all but the benign words)? */
bool cb_cmp_throttling_word(const cb_cmp_dir *d, const char *word, size_t len);

#endif
