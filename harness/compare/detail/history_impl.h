/* history_impl.h - what the history's files share: the open database, the
 * schema steps, the run identity, the kind of a point, and the change-point
 * detector that history_check runs on each series. */
#ifndef CB_HISTORY_IMPL_H
#define CB_HISTORY_IMPL_H

#include "compare_load.h"
#include "history.h"
#include "history_db.h"

struct cb_history {
    cb_hdb *db;
    int schema_found; /* before any migration; 0 for a new database */
    bool write;
};

/* Bring the database to CB_HIST_SCHEMA (write) or check that it is a
 * cubench history this cubench reads (read): each step from the version
 * found is one transaction. */
bool cb_hist_schema_prepare(cb_history *h, cb_msg *err);

/* The SQL of each step: steps[v - 1] takes version v - 1 to v (steps[0]
 * creates version 1). Tests build old databases from them. */
extern const char *const cb_hist_schema_steps[CB_HIST_SCHEMA];

/* Apply steps `from` + 1 .. `to` (one transaction each). */
bool cb_hist_schema_migrate(cb_history *h, int from, int to, cb_msg *err);

/* Store one loaded run (its first directory's meta.json gives the
 * identity; `dir` is the path recorded) inside the caller's write
 * transaction: cb_history_add's work without the loading. */
bool cb_hist_store_run(cb_hdb *db, const cb_cmp_run *run, const char *dir,
                       const cb_hist_add_opts *o, cb_hist_added *out, cb_msg *err);

/* A run's points (upserted; ids[i] receives point i's id) and its results
 * (history_store.c), inside the caller's write transaction. kill_after >= 0:
 * the test hook of history_add.c. */
bool cb_hist_store_points(cb_hdb *db, const cb_cmp_run *run, long long *ids, cb_msg *err);
bool cb_hist_store_results(cb_hdb *db, const char *run_id, const cb_cmp_run *run,
                           const long long *ids, bool with_samples, long kill_after, cb_msg *err);

/* ---- text that grows (conditions as JSON, replicate medians, samples) ---- */

typedef struct cb_hist_text {
    char *s;
    size_t len, cap;
    bool failed; /* out of memory once: everything after is dropped */
} cb_hist_text;

void cb_hist_text_add(cb_hist_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* `s` as a JSON string literal (quotes and escapes). */
void cb_hist_text_json(cb_hist_text *t, const char *s);
void cb_hist_text_free(cb_hist_text *t);
/* `s` as a JSON string literal on a stream. */
void cb_hist_json_string(FILE *f, const char *s);

/* ---- change points on one segment of one series ---- */

typedef struct cb_cpd_opts {
    double p_split, p_merge;
    int window, min_seg;
    bool student;     /* hunter's Student's t, no floor; else ours, floored */
    double floor_rel; /* the smallest spread per run the test assumes         */
} cb_cpd_opts;

typedef struct cb_cpd_step {
    int at;              /* first index after the change                 */
    int lo, hi;          /* the segments compared: [lo, at) and [at, hi) */
    double d, se, df, p; /* mean after - mean before (log), its test      */
} cb_cpd_step;

/* The robust spread per run of x[0..n): 1.4826 median |x[i+1] - x[i]| / sqrt 2
 * (a step moves one difference; the median ignores it), 0 when n < 3. */
double cb_cpd_noise(const double *x, int n);

/* The test of a step at `at` between [lo, at) and [at, hi) of x, each side's
 * variance at least floor_sd^2 (none with `student`). */
void cb_cpd_test(const double *x, int lo, int at, int hi, double floor_sd, bool student,
                 cb_cpd_step *out);

/* The change points of x[0..n), in order, into out (room for n entries).
 * Returns their number, or -1 when out of memory. */
int cb_cpd_detect(const double *x, int n, const cb_cpd_opts *o, cb_cpd_step *out);

#endif
