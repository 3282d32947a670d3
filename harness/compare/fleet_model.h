/* fleet_model.h - what `cubench fleet DIR` knows about a fleet: many runs
 * of one selection, one per GPU (or per CPU-only node), set against each
 * other (docs/fleet.md). The types only, and their life cycle; reading
 * (fleet_load.h), the key figures (fleet_figures.h), judging
 * (fleet_judge.h) and reporting (fleet_report.h) fill and read them.
 *
 * DIR holds one run directory per GPU or node (named HOST_UUID by
 * scripts/slurm/, but any name works) and, when the runs came from
 * scripts/slurm/, a _fleet/ folder with the task records: `expected` (the
 * array size) and one task-ID.csv per array task (task, job, node, run_dir,
 * state, exit_code, reason). Names starting with '.' or '_' are never runs.
 * A run of several devices (`cubench run --device all`: rows carry
 * `device`) gives one member per device, named DIR_NAME/gpuN; its host rows
 * (no device) belong to none of them. Runs are read by compare's loader
 * (compare_load.h): one reader of run directories in the judge.
 *
 * Runs are grouped by model: the device name of meta.json, or "CPU: " and
 * the host's CPU model for a run without a GPU. The figures judged are the
 * key figures the runs' rows declare (results.csv `key_figure`, `key_rule`,
 * schema 3): the judge names no benchmark. The figure's point is chosen
 * once per model (its reference point), so that every run of the model is
 * measured at the same point with its own samples: by rule `best` the
 * highest median throughput over the model's runs, by `largest` the most
 * work (CPU figures: their best points fit in one core's L1 and take a
 * microsecond, which says little about a node, while the largest measure
 * DRAM and all cores). Only points that at least half of the model's runs
 * timed are candidates. A figure whose candidates are CPU points (kind
 * `host`) is judged on CPU-only models, the others on GPU models.
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
#ifndef CB_FLEET_MODEL_H
#define CB_FLEET_MODEL_H

#include "compare_load.h"

#include <math.h>

/* One key figure some run declares. */
typedef struct cb_fleet_figure {
    char *name;           /* "vecadd", "pinned H2D", ...: a table column      */
    const char *unit;     /* "GB/s" (bytes / time) or "TFLOP/s" (flops / time) */
    bool flops;           /* throughput from flops (every candidate has more
                           * flops than bytes: a compute-bound work model)   */
    bool cpu;             /* its candidates are CPU points (kind host)        */
    cb_cmp_key_rule rule; /* best or largest                                  */
} cb_fleet_figure;

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
    const cb_cmp_point *point;     /* the reference point in the run, or NULL   */
    int n;                         /* its samples                                */
    double value;                  /* GB/s or TFLOP/s at the median time; NAN    */
    double ratio, ci_lo, ci_hi, p; /* throughput vs the other runs; NAN: none    */
    cb_fleet_verdict verdict;
} cb_fleet_cell;

typedef struct cb_fleet_member {
    char *name;                     /* the directory name, or DIR_NAME/gpuN for one device of a
                                     * multi-device run                                        */
    int dir;                        /* index into cb_fleet.dirs                                */
    char device[CB_CMP_DEVICE_LEN]; /* its points' `device`, "" for a one-device run */
    int task;                       /* the array task that wrote it, -1 when unknown           */
    bool complete;                  /* meta.json "complete": true, and its CSVs were read      */
    bool problem;                   /* incomplete, or complete with failed points              */
    char detail[160];               /* what the problem is                                    */
    bool cpu_only;                  /* meta.json "device": null                               */
    char model[160];                /* device name, or "CPU: " + host CPU                     */
    char host[128], uuid[96];
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width; /* 0: unknown */
    long failed_points;                                     /* its `fail` rows      */
    int group;            /* index into cb_fleet.groups, -1 if incomplete */
    cb_fleet_cell *cells; /* one per figure                               */
    bool flagged;
} cb_fleet_member;

/* One array task's record (_fleet/task-ID.csv). */
typedef struct cb_fleet_task {
    int id;
    char state[16];     /* running, done, reused, failed                  */
    char exit_code[24]; /* as recorded ("" when not): a whole number, else
                         * shown as text, never cast                      */
    char *run_dir;      /* as recorded, any length                        */
    char node[96], job[32];
    char reason[120];  /* the task script's one-line reason of a failure    */
    char problem[256]; /* what the report says about it; "" when fine    */
} cb_fleet_task;

/* Tasks of the array (ids below `expected`) that left no record: first to
 * last, one problem line however many they are. */
typedef struct cb_fleet_gap {
    int first, last;
} cb_fleet_gap;

/* One directory under DIR: its members are members[first .. first+count). */
typedef struct cb_fleet_dir {
    char *name;
    cb_cmp_run run; /* read when complete (one directory)             */
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
    cb_fleet_ref *refs; /* one per figure */
} cb_fleet_group;

typedef struct cb_fleet {
    char dir[1024];
    cb_fleet_dir *dirs; /* every directory under dir, in name order */
    int n_dirs;
    cb_fleet_member *members; /* by directory, then device */
    int n_members, cap_members;
    cb_fleet_task *tasks; /* the records, by id */
    int n_tasks;
    int expected;       /* _fleet/expected, or -1 */
    cb_fleet_gap *gaps; /* expected tasks without a record (not without `expected`) */
    int n_gaps;
    cb_fleet_figure *figures;
    int n_figures;
    int undeclared; /* complete runs whose rows declare no key figure */
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

/* The point of member m with this benchmark and axes, or NULL. */
const cb_cmp_point *cb_fleet_point(const cb_fleet *f, const cb_fleet_member *m,
                                   const char *benchmark, const char *axes);

#endif
