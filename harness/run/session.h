/* session.h - one run, from a request to a finished run directory.
 *
 * The session is the engine's: it resolves the devices, plans the points
 * (one plan per device), opens the run directory, starts NVML telemetry,
 * NVTX and CUPTI, writes meta.json at the start and at the end, runs every
 * pass, writes the per-run files derived from the rows (fits.csv, each
 * family's own) and returns the directory and the totals. Front ends (the
 * CLI, libcubench.so behind the Python package, tests) fill a request, call
 * cb_session_run and print; they never open sinks or write meta themselves.
 * A front end adds its own files through the `write_meta` hook (the Python
 * package's python.json), called at the same two moments as meta.json. */
#ifndef CB_SESSION_H
#define CB_SESSION_H

#include "plan.h"
#include "telemetry.h"

#include <limits.h>

typedef struct cb_session_request {
    const char *const *globs; /* benchmark globs; none: the default suite   */
    int n_globs;
    const cb_axis_override *overrides;
    int n_overrides;
    const char *out_dir;     /* NULL: results/<UTC time>-<host>              */
    const char *device_spec; /* NULL: device 0 when there is one; "all"; "0,2" */
    cb_run_config cfg;       /* from cb_run_config_defaults + the options    */
    cb_telemetry_options telemetry;
    int argc; /* the command line as typed, for meta.json */
    char **argv;
    bool dry_run; /* plan and list the points through list_point; run nothing */
    /* --metrics: presets and metric names (counters.h), checked on the
     * devices' chips before anything runs (a bad name: exit 2); NULL: none. */
    const char *metrics;
    /* The first SIGINT/SIGTERM also reaches the handler that was installed
     * before the run (the Python interpreter's), so code of the front end
     * that is blocked in a hook sees it too. */
    bool chain_signals;
    /* Front-end hooks, each optional; ctx is handed back. */
    void *ctx;
    /* A line of information for the user ("no CUDA device ...", the banner,
     * the profiler command lines); default: "cubench: TEXT" on stderr. */
    void (*notice)(void *ctx, const char *text);
    /* --dry-run: one call per point; device < 0 when the run has one device. */
    void (*list_point)(void *ctx, int device, const cb_planned_point *pp, const char *skip_why);
    /* The front end's own meta file, written into `dir` after meta.json at
     * the start (final false) and the end (final true). CB_FAIL stops the
     * run like any failed write. */
    cb_status (*write_meta)(void *ctx, const char *dir, bool final, cb_msg *why);
} cb_session_request;

typedef struct cb_session_result {
    char dir[PATH_MAX]; /* the run directory; "" when none was made */
    cb_run_totals totals;
    int n_points;  /* planned points over every device            */
    bool complete; /* meta.json says complete                      */
    bool written;  /* every file of the run was written            */
} cb_session_result;

/* Run the request. Returns the exit code `cubench run` gives (cb_common.h):
 * 0 every point ran, 1 a point failed or a file could not be written,
 * 2 the request was refused before anything ran (the message in *why),
 * 130 interrupted. *result is filled in every case. */
int cb_session_run(const cb_session_request *req, cb_session_result *result, cb_msg *why);

#endif
