/* fleet.h - `cubench fleet DIR`: many runs of one selection, one per GPU (or
 * per CPU-only node), set against each other (docs/fleet.md).
 *
 * DIR holds one run directory per GPU or node (named HOST_UUID by
 * scripts/slurm/, but any name works) and, when the runs came from
 * scripts/slurm/, a _fleet/ folder with the task records: `expected` (the
 * array size) and one task-ID.csv per array task (task, job, node, run_dir,
 * state, exit_code, reason). Names starting with '.' or '_' are never runs.
 * A run of several devices (`cubench run --device all`, schema 2: rows carry
 * `device`) gives one member per device, named DIR_NAME/gpuN; its host rows
 * (no device) belong to none of them.
 *
 * Runs are grouped by model: the device name of meta.json, or "CPU: " and the
 * host's CPU model for a run without a GPU. Each run gets the key figures of
 * its kind (cb_fleet_figures): GPU runs the best vecadd GB/s, pinned H2D and
 * D2H GB/s, cuBLAS FP32 and the ladder's best TFLOP/s; CPU-only runs the host
 * baselines. The figure's point is chosen once per model (its reference
 * point), so that every run of the model is measured at the same point with
 * its own samples: for the GPU figures the best - the highest median
 * throughput over the model's runs -, for the host baselines the largest (the
 * most bytes or flops): their best points fit in one core's L1 and take a
 * microsecond, which says little about a node and is at the mercy of a
 * neighbour's cache traffic, while the largest measure DRAM and all cores.
 * Either way only points that at least half of the model's runs timed are
 * candidates.
 *
 * At the reference point each run is one value, compare's estimate of its
 * center (compare_units.h), set against the other runs' values
 * (fleet_stat.h: the leave-one-out t interval), turned into a throughput
 * ratio (> 1 = faster than the rest of the fleet). Verdicts (first that
 * applies):
 *   missing   the run did not time the reference point (skip, fail, absent)
 *   unjudged  fewer than min_runs runs of the model timed it, or the run's
 *             own spread is unknown (a single sample)
 *   slow      the whole CI lies below 1 / (1 + tolerance)
 *   fast      the whole CI lies above 1 + tolerance
 *   ok        anything else
 * A run is flagged when any of its figures is slow, fast or missing.
 */
#ifndef CB_FLEET_H
#define CB_FLEET_H

#include "compare_load.h"

#include <math.h>

/* ---- the key figures ---------------------------------------------------- */

#define CB_FLEET_FIGURES 7

typedef struct cb_fleet_figure {
    const char *name; /* "vecadd", "pinned H2D", ...: a table column        */
    const char *unit; /* "GB/s" (bytes / time) or "TFLOP/s" (flops / time)  */
    bool cpu;         /* a figure of CPU-only runs (else of GPU runs)       */
    bool flops;       /* throughput from the flops column (else bytes)      */
    bool largest;     /* reference: the point with the most work, not the best */
    bool (*match)(const char *benchmark, const char *axes);
} cb_fleet_figure;

extern const cb_fleet_figure cb_fleet_figures[CB_FLEET_FIGURES];

/* ---- what is read --------------------------------------------------------- */

/* The results.csv columns of one point that the samples do not carry. NAN
 * (or NULL) when the column is absent or empty: schema 1 has no telemetry. */
typedef struct cb_fleet_point_info {
    double bytes, flops;
    double sm_clock_min_mhz, sm_clock_median_mhz, sm_clock_max_mhz;
    double mem_clock_median_mhz, power_mean_w, temp_max_c;
    char *throttle;
} cb_fleet_point_info;

typedef enum cb_fleet_verdict {
    CB_FLEET_NA, /* not a figure of this run's kind, or no run timed it */
    CB_FLEET_OK,
    CB_FLEET_SLOW,
    CB_FLEET_FAST,
    CB_FLEET_MISSING,
    CB_FLEET_UNJUDGED,
} cb_fleet_verdict;

/* "", "ok", "slow", "fast", "missing", "unjudged". */
const char *cb_fleet_verdict_name(cb_fleet_verdict v);

/* One figure of one run. */
typedef struct cb_fleet_cell {
    int point;                     /* the reference point in run.points, or -1 */
    int n;                         /* its samples                                */
    double value;                  /* GB/s or TFLOP/s at the median time; NAN    */
    double ratio, ci_lo, ci_hi, p; /* throughput vs the other runs; NAN: none    */
    cb_fleet_verdict verdict;
} cb_fleet_cell;

typedef struct cb_fleet_member {
    char *name;       /* the directory name, or DIR_NAME/gpuN for one device of
                       * a multi-device run                                     */
    int dir;          /* index into cb_fleet.dirs                               */
    char device[16];  /* the rows' `device` value, "" for a one-device run      */
    int task;         /* the array task that wrote it, -1 when unknown          */
    bool complete;    /* meta.json "complete": true, and its CSVs were read     */
    bool problem;     /* incomplete, or complete with failed points             */
    char detail[160]; /* what the problem is                                    */
    bool cpu_only;    /* meta.json "device": null                              */
    char model[160];  /* device name, or "CPU: " + host CPU                    */
    char host[128], uuid[96];
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width; /* 0: unknown */
    long failed_points;                                     /* its `fail` rows      */
    cb_cmp_run run;
    cb_fleet_point_info *info; /* one per run.points */
    int group;                 /* index into cb_fleet.groups, -1 if incomplete */
    cb_fleet_cell cells[CB_FLEET_FIGURES];
    bool flagged;
} cb_fleet_member;

/* One array task's record (_fleet/task-ID.csv), or a task that left none. */
typedef struct cb_fleet_task {
    int id;
    char state[16]; /* running, done, reused, failed; "" when no record */
    int exit_code;  /* -1 when not recorded                              */
    char run_dir[160], node[96], job[32];
    char reason[120];  /* the task script's one-line reason of a failure    */
    char problem[256]; /* what the report says about it; "" when fine    */
} cb_fleet_task;

/* One directory under DIR: its members are members[first .. first+count). */
typedef struct cb_fleet_dir {
    char *name;
    int first, count;
    int task; /* the first task whose record names it, -1 when none */
} cb_fleet_dir;

/* The reference point of one figure in one model. */
typedef struct cb_fleet_ref {
    const char *benchmark, *axes; /* borrowed from a member's run; NULL: none */
    int timed;                    /* runs of the model that timed it          */
    double median_value;          /* median over those runs of their value    */
    double median_sm_clock_mhz;   /* median of their sm_clock_median; NAN     */
} cb_fleet_ref;

typedef struct cb_fleet_group {
    char *model;
    bool cpu_only;
    int *members; /* complete runs of this model, in name order */
    int n;
    cb_fleet_ref refs[CB_FLEET_FIGURES];
} cb_fleet_group;

typedef struct cb_fleet {
    char dir[1024];
    cb_fleet_dir *dirs; /* every directory under dir, in name order */
    int n_dirs;
    cb_fleet_member *members; /* by directory, then device */
    int n_members, cap_members;
    cb_fleet_task *tasks; /* by id */
    int n_tasks;
    int expected; /* _fleet/expected, or -1 */
    cb_fleet_group *groups;
    int n_groups;
    int n_flagged;  /* complete runs with a slow, fast or missing figure */
    int n_problems; /* incomplete runs + tasks with a problem            */
} cb_fleet;

typedef struct cb_fleet_opts {
    double tolerance; /* relative distance from the fleet that matters (0.05)  */
    double alpha;     /* CIs at 1 - alpha (0.05)                                */
    int min_runs;     /* runs of a model that must time a point to judge it (3) */
} cb_fleet_opts;

void cb_fleet_opts_default(cb_fleet_opts *o);

void cb_fleet_init(cb_fleet *f);
void cb_fleet_free(cb_fleet *f);

/* Read DIR (fleet_load.c). False with `err` set when DIR is missing or not a
 * directory, holds neither a run nor a task record, is itself a run
 * directory, or a complete run's files are unreadable or malformed.
 * Incomplete runs (no meta.json, "complete": false) are kept, unread, with a
 * detail line. */
bool cb_fleet_load(cb_fleet *f, const char *dir, cb_msg *err);

/* A new member at the end of f->members for directory `dir` (zeroed, its
 * run initialised, cells empty); NULL with `err` set when out of memory. */
cb_fleet_member *cb_fleet_add_member(cb_fleet *f, int dir, cb_msg *err);

/* The directory named like the last component of `run_dir`, or -1. */
int cb_fleet_find_dir(const cb_fleet *f, const char *run_dir);

/* Read the complete run at `path` (directory `dir` of the fleet, meta.json
 * text `meta`) into one member per device (fleet_read.c). False with `err`
 * set for an unreadable or malformed file. */
bool cb_fleet_read_run(cb_fleet *f, int dir, const char *path, const char *meta, cb_msg *err);

/* Group, choose the reference points, compare, give verdicts and count the
 * flagged runs and the problems (fleet_judge.c). False when out of memory. */
bool cb_fleet_judge(cb_fleet *f, const cb_fleet_opts *o, cb_msg *err);

#endif
