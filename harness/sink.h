/* sink.h - the output directory of one run: results.csv and samples.csv.
 *
 * Every row is flushed and fsync'd as soon as its point finishes, so an
 * interrupted run leaves valid files holding every finished point. The sink
 * never computes anything: it writes what the runner measured. */
#ifndef CB_SINK_H
#define CB_SINK_H

#include "results.h"

#include <limits.h>
#include <stdio.h>

typedef struct cb_sink {
    char dir[PATH_MAX];
    FILE *results;
    FILE *samples;
} cb_sink;

/* Create the run directory and write both CSV headers. With dir == NULL a new
 * directory results/<UTC timestamp>-<host> is made (suffixed -2, -3, ... if
 * taken). An existing directory is used only when empty: a run never
 * overwrites another. False with a message when the directory cannot be made
 * or written. */
bool cb_sink_open(cb_sink *s, const char *dir, cb_msg *err);

/* Append the raw samples of a point (per-run seconds; `cupti_s` may be NULL). */
void cb_sink_write_samples(cb_sink *s, const cb_result *r, const double *time_s,
                           const double *cupti_s, int n);

/* Append the point's row. */
void cb_sink_write_result(cb_sink *s, const cb_result *r);

void cb_sink_close(cb_sink *s);

/* Column names of results.csv and samples.csv, NULL-terminated (for tests
 * and readers that check a header). */
extern const char *const cb_results_columns[];
extern const char *const cb_samples_columns[];

#endif
