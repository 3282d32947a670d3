/* history.h - the performance history: every run in one database, each
 * point's series on a machine, its change points, and the between-run spread
 * it has shown (docs/history.md).
 *
 * A database is one SQLite file (the default, `results/history.db`, or
 * $CUBENCH_HISTORY) or a PostgreSQL database (`postgresql://...`), holding
 * the same schema (version CB_HIST_SCHEMA; older ones are migrated when
 * opened for writing, a newer one is refused). Runs are read with compare's
 * loader (compare_load.h) and stored as
 *   machine  a name: `--machine NAME`, else "<host>/<GPU name>" (a CI
 *            runner's label names one machine across GPU swaps);
 *   run      its identity (meta.json: git SHA, build, start time, host, GPU
 *            UUID, command line) and a digest of its content: adding it again adds
 *            nothing, adding another run under the same identity is refused;
 *            its conditions (GPU, driver, runtime, clocks, settings);
 *   point    benchmark + axes + device (the row's device ordinal in a run of
 *            several devices, else ""), and its kind (device, host_copy,
 *            host, python, multi_gpu: compare_kind.h, declared or inferred);
 *   result   per run and point: status, results.csv's median and 95% CI,
 *            the telemetry summary and throttle words, compare's estimate
 *            of the point (compare_units.h) and the replicate medians when
 *            the run has samples, and the samples themselves on request.
 * One add is one transaction: a failed or killed add leaves nothing.
 *
 * A series is one point's results on one machine in the order the runs
 * started; its values are the log medians of the timed, unthrottled runs.
 * history_check (cb_history_check) finds its change points.
 */
#ifndef CB_HISTORY_H
#define CB_HISTORY_H

#include "cb_common.h"
#include "compare_spread.h"

#include <stdio.h>

/* The schema this cubench writes (and the newest it reads). */
#define CB_HIST_SCHEMA 3
/* The environment variable naming the default database. */
#define CB_HIST_ENV "CUBENCH_HISTORY"
/* The default database without --db or $CUBENCH_HISTORY. */
#define CB_HIST_DEFAULT_PATH "results/history.db"

typedef struct cb_history cb_history;

typedef struct cb_hist_open_opts {
    bool write;            /* create or migrate it; else it must exist     */
    double lock_timeout_s; /* wait at most this long for another writer (30) */
} cb_hist_open_opts;

void cb_hist_open_opts_default(cb_hist_open_opts *o);

/* $CUBENCH_HISTORY when set and not empty, else CB_HIST_DEFAULT_PATH. */
const char *cb_history_default_url(void);

/* Whether this build can open postgresql:// databases (libpq). */
bool cb_history_has_postgresql(void);

/* Open the database `url`: a file path or `sqlite:PATH` (SQLite), or
 * `postgresql://...` / `postgres://...` (libpq's URI syntax, connect
 * timeout 10 s unless the URI sets one). Errors (false, `err` says why):
 * a missing file or database opened for reading, a file that is not a
 * cubench history, a schema newer than this cubench reads, a locked SQLite
 * file or a PostgreSQL lock not granted within lock_timeout_s, an
 * unreachable server, a build without libpq. */
bool cb_history_open(const char *url, const cb_hist_open_opts *o, cb_history **out, cb_msg *err);
void cb_history_close(cb_history *h);

/* "sqlite" or "postgresql". */
const char *cb_history_backend(const cb_history *h);
/* The schema version the database had when opened (before a migration). */
int cb_history_schema_found(const cb_history *h);

/* ---- adding runs ---- */

typedef struct cb_hist_add_opts {
    const char *machine; /* NULL: "<host>/<GPU name>" from meta.json   */
    bool samples;        /* store every sample's time as well          */
} cb_hist_add_opts;

typedef struct cb_hist_added {
    bool already;      /* the same run was stored before: nothing added */
    long long run_id;  /* its id in the database                        */
    int points;        /* points stored (or stored before)              */
    char machine[160]; /* the machine it is stored under                */
} cb_hist_added;

/* Store the run directory `run_dir` in one transaction. Errors (false,
 * `err` names the file and the reason; the database is unchanged): what
 * compare's loader refuses (samples.csv may be absent), a meta.json without
 * the run's identity, another run already stored under the same identity,
 * a database error. */
bool cb_history_add(cb_history *h, const char *run_dir, const cb_hist_add_opts *o,
                    cb_hist_added *out, cb_msg *err);

/* The same for n directories in one transaction: all are stored, or (false)
 * none; out[i] describes dirs[i]. */
bool cb_history_add_many(cb_history *h, const char *const *dirs, int n, const cb_hist_add_opts *o,
                         cb_hist_added *out, cb_msg *err);

/* The default machine name of a run: "<host>/<GPU name>" ("<host>/no GPU"). */
void cb_history_machine_name(const char *host, const char *gpu, char *out, size_t len);

/* ---- reading series ---- */

typedef struct cb_hist_run {
    long long id;
    char started[40]; /* UTC, ISO 8601                              */
    char git_sha[64];
    char machine[160];
    char gpu_name[128], gpu_uuid[80];
    char driver[48];                  /* the NVIDIA driver (telemetry), "" unknown   */
    char driver_api[16], runtime[16]; /* CUDA driver API and runtime   */
    char host[128];
    bool complete;
} cb_hist_run;

typedef struct cb_hist_value {
    int run; /* index into cb_hist_data.runs */
    char status[8];
    double median_s, ci_lo_s, ci_hi_s; /* NAN when untimed or not recorded */
    double sm_clock_mhz, power_w, temp_c;
    char *throttle; /* the throttling words, NULL when none */
} cb_hist_value;

typedef struct cb_hist_series {
    char *benchmark, *axes;
    char device[16]; /* "" unless the runs measured several devices */
    char kind[16];
    const char *machine; /* the runs' machine (borrowed from runs)      */
    cb_hist_value *v;    /* in run order                                */
    int n;
} cb_hist_series;

typedef struct cb_hist_data {
    cb_hist_run *runs; /* by machine, then start time                    */
    int n_runs;
    cb_hist_series *series; /* by machine, benchmark, axes                */
    int n_series;
} cb_hist_data;

typedef struct cb_hist_filter {
    const char *machine;     /* NULL: every machine                       */
    const char *benchmark;   /* a shell glob, NULL: every benchmark        */
    const char *const *axes; /* NAME=VALUE items each point's axes must hold */
    int n_axes;
    /* one point by its exact identity (benchmark and axes set; device NULL
     * means ""), else NULL */
    const char *point_benchmark, *point_axes, *point_device;
} cb_hist_filter;

/* Read the series the filter selects. False with `err` on a database error
 * or when out of memory. */
bool cb_history_load(cb_history *h, const cb_hist_filter *f, cb_hist_data *out, cb_msg *err);
void cb_hist_data_free(cb_hist_data *d);

/* Does `axes` ("a=1;b=2") hold every NAME=VALUE of `items`? */
bool cb_hist_axes_match(const char *axes, const char *const *items, int n);

/* ---- change points ---- */

typedef enum cb_hist_method {
    CB_HIST_METHOD_CUBENCH, /* E-divisive + Student's t with the series'
                             * own spread as a floor (history_detect.c)     */
    CB_HIST_METHOD_HUNTER,  /* E-divisive + Student's t as hunter does it    */
} cb_hist_method;

typedef struct cb_hist_check_opts {
    double delta;   /* an open slowdown whose CI lies above 1 + delta fails (0.03) */
    double alpha;   /* CIs at 1 - alpha (0.01)                              */
    double p_split; /* a candidate split is kept at p <= p_split (0.01)      */
    double p_merge; /* every change point finally has p <= p_merge (0.001)   */
    int window;     /* E-divisive runs on windows of this many runs (50)     */
    int min_runs;   /* runs on each side of a change point at least (2): one
                     * run alone cannot tell a change from an outlier   */
    int recent;     /* open regressions whose first bad run is among the
                     * point's newest `recent` runs set the exit code (5)    */
    cb_hist_method method;
} cb_hist_check_opts;

void cb_hist_check_opts_default(cb_hist_check_opts *o);

/* What a step coincides with. */
typedef enum cb_hist_cause {
    CB_HIST_CAUSE_CODE,    /* none of the below: a commit range            */
    CB_HIST_CAUSE_MACHINE, /* another GPU (name or UUID) under the machine */
    CB_HIST_CAUSE_DRIVER,  /* another NVIDIA driver or CUDA driver API     */
    CB_HIST_CAUSE_RUNTIME, /* another CUDA runtime                         */
} cb_hist_cause;

/* "code", "machine", "driver", "runtime". */
const char *cb_hist_cause_name(cb_hist_cause c);

typedef struct cb_hist_change {
    int series;            /* index into cb_hist_data.series                 */
    int run;               /* the first bad run (cb_hist_data.runs)           */
    int before, after;     /* indexes into the series' values: the last good
                            * and the first bad run                           */
    double ratio;          /* geometric mean after / before                   */
    double ci_lo, ci_hi;   /* its 1 - alpha CI                               */
    double p;              /* the test of the step (floored Welch, or Student) */
    int n_before, n_after; /* runs on each side that the step compares    */
    int throttled_near;    /* throttled runs set aside within 2 runs of it   */
    cb_hist_cause cause;
    bool open;       /* the last change of its series                       */
    bool regression; /* open, slower with its CI above 1 + delta, and its
                      * first bad run among the point's newest runs         */
} cb_hist_change;

/* A change of conditions between two consecutive runs of a machine. */
typedef struct cb_hist_event {
    int run; /* the first run under the new conditions (cb_hist_data.runs) */
    cb_hist_cause cause;
    char what[200]; /* e.g. "driver 580.95.05 -> 580.159.04"             */
} cb_hist_event;

/* A run set aside as an outlier (cubench's method): value `value` of series
 * `series`, far off the runs on both sides of it with no throttle word. */
typedef struct cb_hist_outlier {
    int series, value;
} cb_hist_outlier;

typedef struct cb_hist_check {
    cb_hist_change *changes; /* regressions, other open changes, then the
                              * rest; newest first within each           */
    int n_changes;
    cb_hist_event *events;
    int n_events;
    cb_hist_outlier *outliers;
    int n_outliers;
    int series;      /* series with enough runs to test                  */
    int regressions; /* changes with `regression` set                    */
} cb_hist_check;

/* Find the change points of every series of `d`. False when out of memory. */
bool cb_history_check(const cb_hist_data *d, const cb_hist_check_opts *o, cb_hist_check *out,
                      cb_msg *err);
void cb_hist_check_free(cb_hist_check *c);

/* ---- the between-run spread of a point ---- */

/* What compare adds for a side with fewer than 3 runs (compare.h): the
 * spread per run of the point's log medians around their segment means
 * (between its change points and changes of conditions), pooled over the
 * newest CB_HIST_SPREAD_RUNS timed, unthrottled runs, less the runs' own
 * sampling variance (results.csv's CI), at least CB_HIST_SPREAD_FLOOR. */
#define CB_HIST_SPREAD_RUNS  50
#define CB_HIST_SPREAD_FLOOR 0.0005 /* relative; the quietest H200 point showed 0.07% */

typedef struct cb_hist_spread {
    double sd; /* relative, per run                          */
    double df; /* runs - segments; 0 when there is no spread */
    int runs;  /* runs it was learned from                   */
} cb_hist_spread;

/* The spread of one series (in memory). out->df == 0 when it has fewer
 * than 3 usable runs. False when out of memory. */
bool cb_hist_series_spread(const cb_hist_data *d, int series, const cb_hist_check_opts *o,
                           cb_hist_spread *out, cb_msg *err);

/* The spread of point (benchmark, axes, device: NULL for "") on `machine`,
 * learned from its own past runs in the database. out->df == 0 when the
 * history has fewer than 3 usable runs of it. False with `err` on a
 * database error. */
bool cb_history_point_spread(cb_history *h, const char *machine, const char *benchmark,
                             const char *axes, const char *device, cb_hist_spread *out,
                             cb_msg *err);

/* Every series' spread on `machine` (not NULL) at once, for compare over a
 * whole run. */
typedef struct cb_hist_spread_table {
    cb_hist_data data;
    cb_hist_spread *spread; /* per series of data */
} cb_hist_spread_table;

bool cb_history_spread_table(cb_history *h, const char *machine, cb_hist_spread_table *out,
                             cb_msg *err);
/* The spread of a point (device NULL for ""), NULL when the machine's
 * history lacks it. */
const cb_hist_spread *cb_hist_spread_find(const cb_hist_spread_table *t, const char *benchmark,
                                          const char *axes, const char *device);
void cb_hist_spread_table_free(cb_hist_spread_table *t);

/* The table as a spread source for compare (compare_spread.h): a point the
 * history knows with 3 usable runs or more gets its spread and degrees of
 * freedom; others are left to the next source. `label` names the database
 * in the report. The table must outlive the comparison. */
cb_spread_source cb_history_spread_source(const cb_hist_spread_table *t, const char *label);

/* ---- output ---- */

/* `history show`: one table per series (run, start, commit, status, median,
 * CI, change from the first, SM clock, throttle). */
bool cb_history_write_series(FILE *f, const cb_hist_data *d);

/* `history check`: markdown, regressions and open changes first, then the
 * changes of conditions and the other change points. */
bool cb_history_write_check(FILE *f, const cb_hist_data *d, const cb_hist_check *c,
                            const cb_hist_check_opts *o);

/* The whole of `d` and `c` as JSON for the dashboard (docs/history.md). */
bool cb_history_write_json(FILE *f, const cb_hist_data *d, const cb_hist_check *c,
                           const cb_hist_check_opts *o);

#endif
