/* sink.h - the output directory of one run: results.csv and samples.csv
 * (and metrics.csv when --metrics collected counters: metrics_csv.h).
 *
 * Every row is flushed and fsync'd as soon as its point finishes, so an
 * interrupted run leaves valid files holding every finished point. The sink
 * never computes anything: it writes what the runner measured. */
#ifndef CB_SINK_H
#define CB_SINK_H

#include "results.h"

#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

typedef struct cb_sink_file {
    char path[PATH_MAX + 32];
    int fd;       /* -1 when closed                                 */
    off_t length; /* bytes of whole rows written: where a failed point is cut back to */
} cb_sink_file;

typedef struct cb_sink {
    char dir[PATH_MAX];
    size_t created_top_len; /* length of the topmost directory of `dir` cb_sink_open made
                             * (0: none): discard removes it and those below */
    bool failed;            /* a write failed: the run must stop                    */
    cb_sink_file results, samples;
    cb_sink_file metrics; /* metrics.csv, opened with the first point that has counters */
} cb_sink;

/* Create the run directory and write both CSV headers. With dir == NULL a new
 * directory results/<UTC timestamp>-<host> is made (suffixed -2, -3, ... if
 * taken). An existing directory is used only when empty: a run never
 * overwrites another. False with a message when the directory cannot be made
 * or written. */
bool cb_sink_open(cb_sink *s, const char *dir, cb_msg *err);

/* Append a finished point: its `n` raw samples (per-run seconds; `cupti_s`
 * and `extras` may be NULL) to samples.csv, then its row to results.csv,
 * each fsync'd. False with a message when a write fails: the files are cut
 * back to their last whole point and every later call fails too, so the
 * caller stops the run. */
bool cb_sink_write_point(cb_sink *s, const cb_result *r, const double *time_s,
                         const double *cupti_s, int n, const cb_sample_extras *extras, cb_msg *err);

/* Replace results.csv with `rows` (plan order, figures derived again):
 * written beside it and renamed over it, so a crash in between leaves the
 * rows written as points finished. The runner writes each row as soon as
 * its point is done, in the order points finish; this restores the plan's
 * order and fills what a row written before its reference lacked (pct_ref).
 * False with a message when it cannot: results.csv then stays as written. */
bool cb_sink_rewrite_results(cb_sink *s, const cb_result *rows, int n, cb_msg *err);

void cb_sink_close(cb_sink *s);

/* A run that could not start: close and remove what cb_sink_open made (the
 * CSV files, a meta.json written so far, the directory when it made it), so
 * that a retry into the same --out works. */
void cb_sink_discard(cb_sink *s);

/* Column names of samples.csv, NULL-terminated (for tests and readers that
 * check a header); results.csv's are in results_columns.h. */
extern const char *const cb_samples_columns[];

#endif
