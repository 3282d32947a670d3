/* compare_load.c - run directories into points with their sample times.
 *
 * samples.csv may hold hundreds of thousands of rows, so points are found by
 * an open-addressing hash of (benchmark, axes), with a one-entry cache in
 * front because a point's samples are written back to back. Every step is
 * linear in the input (a hostile header of 100 000 columns, or 50 000
 * benchmark names, must not take minutes).
 */
#include "compare_load.h"

#include "csv_reader.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest replicate index accepted (a run of more rounds is absurd). */
#define CB_CMP_MAX_REPLICATE 1000000

struct cb_cmp_slot {
    uint64_t hash;
    int point; /* index into points, -1 for an empty slot */
};

void cb_cmp_run_init(cb_cmp_run *run)
{
    memset(run, 0, sizeof *run);
}

void cb_cmp_run_free(cb_cmp_run *run)
{
    for (int i = 0; i < run->n_points; i++) {
        cb_cmp_point *p = &run->points[i];
        free(p->benchmark), free(p->axes), free(p->reason), free(p->throttle);
        free(p->times), free(p->dir), free(p->replicate);
    }
    for (int d = 0; d < run->n_dirs; d++) {
        free(run->dirs[d].path);
        cb_cmp_meta_free(&run->dirs[d].meta);
    }
    free(run->dirs);
    free(run->points);
    free(run->index);
    memset(run, 0, sizeof *run);
}

bool cb_cmp_run_begin_dir(cb_cmp_run *run, const char *path, cb_msg *err)
{
    cb_cmp_dir *dirs = realloc(run->dirs, (size_t)(run->n_dirs + 1) * sizeof *dirs);
    if (!dirs) goto oom;
    run->dirs = dirs;
    cb_cmp_dir *d = &dirs[run->n_dirs];
    memset(d, 0, sizeof *d);
    d->path = strdup(path ? path : "");
    if (!d->path) goto oom;
    d->schema = CB_CMP_SCHEMA_MAX;
    d->rounds = 1;
    if (run->n_dirs == 0) snprintf(run->label, sizeof run->label, "%s", d->path);
    run->n_dirs++;
    return true;
oom:
    cb_msg_set(err, "compare: out of memory");
    return false;
}

/* FNV-1a over benchmark, a separator no name contains, and axes. */
static uint64_t identity_hash(const char *benchmark, const char *axes)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *s = benchmark; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    h = (h ^ 0x1fu) * 0x100000001b3ull;
    for (const char *s = axes; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static int find_slot(const cb_cmp_run *run, uint64_t h, const char *benchmark, const char *axes)
{
    size_t mask = (size_t)run->index_cap - 1;
    for (size_t s = (size_t)h & mask;; s = (s + 1) & mask) {
        const cb_cmp_slot *slot = &run->index[s];
        if (slot->point < 0) return (int)s;
        const cb_cmp_point *p = &run->points[slot->point];
        if (slot->hash == h && strcmp(p->benchmark, benchmark) == 0 && strcmp(p->axes, axes) == 0)
            return (int)s;
    }
}

cb_cmp_point *cb_cmp_run_find(const cb_cmp_run *run, const char *benchmark, const char *axes)
{
    if (run->index_cap == 0) return NULL;
    int s = find_slot(run, identity_hash(benchmark, axes), benchmark, axes);
    return run->index[s].point < 0 ? NULL : &run->points[run->index[s].point];
}

/* Keep the table at most half full. */
static bool grow_index(cb_cmp_run *run)
{
    if ((int64_t)(run->n_points + 1) * 2 <= run->index_cap) return true;
    int cap = run->index_cap ? run->index_cap * 2 : 64;
    if (cap <= 0 || cap > (1 << 28)) return false;
    cb_cmp_slot *slots = malloc((size_t)cap * sizeof *slots);
    if (!slots) return false;
    for (int i = 0; i < cap; i++)
        slots[i] = (cb_cmp_slot){0, -1};
    free(run->index);
    run->index = slots;
    run->index_cap = cap;
    for (int i = 0; i < run->n_points; i++) {
        const cb_cmp_point *p = &run->points[i];
        uint64_t h = identity_hash(p->benchmark, p->axes);
        int s = find_slot(run, h, p->benchmark, p->axes);
        run->index[s] = (cb_cmp_slot){h, i};
    }
    return true;
}

static bool is_timed_status(const char *status, bool *timed)
{
    if (strcmp(status, "ok") == 0 || strcmp(status, "noisy") == 0) {
        *timed = true;
        return true;
    }
    if (strcmp(status, "skip") == 0 || strcmp(status, "fail") == 0) {
        *timed = false;
        return true;
    }
    return false;
}

cb_cmp_point *cb_cmp_run_add_point(cb_cmp_run *run, const char *benchmark, const char *axes,
                                   const char *status, const char *reason, cb_msg *err)
{
    bool timed;
    if (!is_timed_status(status, &timed)) {
        cb_msg_set(err, "unknown status '%.32s' (expected ok, noisy, skip or fail)", status);
        return NULL;
    }
    if (run->n_dirs == 0 && !cb_cmp_run_begin_dir(run, "", err)) return NULL;
    int dir = run->n_dirs - 1;
    if (!reason) reason = "";
    cb_cmp_point *p = cb_cmp_run_find(run, benchmark, axes);
    if (p) {
        if (!timed && !p->timed && !*p->reason && *reason) {
            char *r = strdup(reason);
            if (!r) goto oom;
            free(p->reason);
            p->reason = r;
        }
        p->timed = p->timed || timed;
        p->last_dir = dir;
        p->last_timed = timed;
        return p;
    }
    if (!grow_index(run)) goto oom;
    if (run->n_points == run->cap) {
        int cap = run->cap ? run->cap * 2 : 64;
        cb_cmp_point *pts = cap > 0 ? realloc(run->points, (size_t)cap * sizeof *pts) : NULL;
        if (!pts) goto oom;
        run->points = pts;
        run->cap = cap;
    }
    p = &run->points[run->n_points];
    memset(p, 0, sizeof *p);
    p->benchmark = strdup(benchmark);
    p->axes = strdup(axes);
    p->reason = strdup(timed ? "" : reason);
    if (!p->benchmark || !p->axes || !p->reason) {
        free(p->benchmark), free(p->axes), free(p->reason);
        goto oom;
    }
    snprintf(p->status, sizeof p->status, "%s", status);
    p->median_s = p->ci_lo_s = p->ci_hi_s = NAN;
    p->sm_clock_mhz = p->power_w = p->temp_c = NAN;
    p->timed = timed;
    p->last_dir = dir;
    p->last_timed = timed;
    uint64_t h = identity_hash(benchmark, axes);
    run->index[find_slot(run, h, benchmark, axes)] = (cb_cmp_slot){h, run->n_points};
    run->n_points++;
    return p;
oom:
    cb_msg_set(err, "compare: out of memory");
    return NULL;
}

bool cb_cmp_point_add_time(cb_cmp_point *p, double t_s, int replicate, cb_msg *err)
{
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 32;
        double *t = cap > 0 ? realloc(p->times, (size_t)cap * sizeof *t) : NULL;
        if (t) p->times = t;
        int *d = t ? realloc(p->dir, (size_t)cap * sizeof *d) : NULL;
        if (d) p->dir = d;
        int *r = d ? realloc(p->replicate, (size_t)cap * sizeof *r) : NULL;
        if (r) p->replicate = r;
        if (!r) {
            cb_msg_set(err, "compare: out of memory");
            return false;
        }
        p->cap = cap;
    }
    p->times[p->n] = t_s;
    p->dir[p->n] = p->last_dir;
    p->replicate[p->n] = replicate;
    p->n++;
    return true;
}

/* The words of a `throttle` cell that count as throttling, joined by '+'
 * into `out` (empty when none do). `none`, and the reasons that are no
 * throttling (docs/schema.md: gpu_idle, applications_clocks_setting,
 * display_clock_setting), are left out. */
static void throttling_words(const char *cell, char *out, size_t len)
{
    static const char *const benign[] = {"none", "gpu_idle", "applications_clocks_setting",
                                         "display_clock_setting"};
    size_t used = 0;
    out[0] = '\0';
    for (const char *w = cell; *w;) {
        size_t n = strcspn(w, "+");
        bool keep = n > 0;
        for (int i = 0; keep && i < CB_ARRAY_LEN(benign); i++)
            keep = !(strlen(benign[i]) == n && strncmp(w, benign[i], n) == 0);
        if (keep && used + n + 2 < len) {
            used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? "+" : "", (int)n, w);
        }
        w += n + (w[n] == '+');
    }
}

/* The per-directory facts of a timed row: timer, batch, throttle words. */
static bool note_row_facts(cb_cmp_point *p, const char *timer, const char *batch,
                           const char *throttle, cb_msg *err)
{
    if (!p->timer[0] && *timer) snprintf(p->timer, sizeof p->timer, "%s", timer);
    char *end = NULL;
    long b = strtol(batch, &end, 10);
    if (*batch && end && !*end && b >= 1 && b < (1L << 30) && (p->batch == 0 || b < p->batch))
        p->batch = (int)b;
    char words[256];
    throttling_words(throttle, words, sizeof words);
    if (!p->throttle && words[0]) {
        p->throttle = strdup(words);
        if (!p->throttle) {
            cb_msg_set(err, "compare: out of memory");
            return false;
        }
    }
    return true;
}

/* An optional column's text in row r, "" when the column is absent. */
static const char *optional(const cb_csv *csv, int r, int col)
{
    return col >= 0 ? cb_csv_get(csv, r, col) : "";
}

/* results.csv's own summary columns, all optional (docs/schema.md). */
static const char *const summary_cols[] = {
    "median_s", "ci_lo_s", "ci_hi_s", "sm_clock_median_mhz", "power_mean_w", "temp_max_c"};
#define CB_SUMMARY_COLS 6

/* The summary figures of a timed row into the point that has none yet (the
 * first directory that timed it): NAN for an absent column or empty cell;
 * a cell that is not a number is an error. */
static bool note_row_summary(cb_cmp_point *p, const cb_csv *csv, int r, const int *cols,
                             int kind_col, cb_msg *err)
{
    if (!isnan(p->median_s)) return true;
    double *dst[CB_SUMMARY_COLS] = {&p->median_s,     &p->ci_lo_s, &p->ci_hi_s,
                                    &p->sm_clock_mhz, &p->power_w, &p->temp_c};
    for (int i = 0; i < CB_SUMMARY_COLS; i++) {
        *dst[i] = NAN;
        if (cols[i] >= 0 && *cb_csv_get(csv, r, cols[i]) &&
            !cb_csv_get_double(csv, r, cols[i], dst[i], err))
            return false;
    }
    snprintf(p->kind, sizeof p->kind, "%s", optional(csv, r, kind_col));
    return true;
}

static bool load_results(cb_cmp_run *run, const char *path, cb_msg *err)
{
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"schema_version", "benchmark", "axes", "status"};
    int col[4];
    bool ok = cb_csv_require(csv, need, 4, col, err);
    int reason_col = cb_csv_col(csv, "reason"), timer_col = cb_csv_col(csv, "timer");
    int batch_col = cb_csv_col(csv, "batch"), throttle_col = cb_csv_col(csv, "throttle");
    int summary[CB_SUMMARY_COLS], kind_col = cb_csv_col(csv, "kind");
    for (int i = 0; i < CB_SUMMARY_COLS; i++)
        summary[i] = cb_csv_col(csv, summary_cols[i]);
    cb_cmp_dir *dir = &run->dirs[run->n_dirs - 1];
    dir->has_throttle = throttle_col >= 0;
    for (int r = 0; ok && r < cb_csv_rows(csv); r++) {
        long line = cb_csv_line(csv, r);
        const char *version = cb_csv_get(csv, r, col[0]);
        const char *bench = cb_csv_get(csv, r, col[1]);
        const char *axes = cb_csv_get(csv, r, col[2]);
        const char *status = cb_csv_get(csv, r, col[3]);
        if (strcmp(version, "1") != 0 && strcmp(version, "2") != 0) {
            cb_msg_set(err,
                       "%s:%ld: schema_version is '%.20s'; this cubench reads versions 1 and 2",
                       path, line, version);
            ok = false;
            break;
        }
        if (r == 0 || version[0] - '0' < dir->schema) dir->schema = version[0] - '0';
        if (!*bench) {
            cb_msg_set(err, "%s:%ld: empty benchmark name", path, line);
            ok = false;
            break;
        }
        cb_cmp_point *p = cb_cmp_run_find(run, bench, axes);
        if (p && p->last_dir == run->n_dirs - 1) {
            cb_msg_set(err, "%s:%ld: point %.60s [%.80s] is listed twice", path, line, bench, axes);
            ok = false;
            break;
        }
        cb_msg why;
        p = cb_cmp_run_add_point(run, bench, axes, status, optional(csv, r, reason_col), &why);
        if (!p) {
            cb_msg_set(err, "%s:%ld: %s", path, line, why.text);
            ok = false;
        } else if (p->last_timed) {
            ok = note_row_facts(p, optional(csv, r, timer_col), optional(csv, r, batch_col),
                                optional(csv, r, throttle_col), err) &&
                 note_row_summary(p, csv, r, summary, kind_col, err);
        }
    }
    cb_csv_free(csv);
    return ok;
}

/* The replicate of row r: "" is round 0 (a v1 row), else a whole number. */
static bool parse_replicate(const cb_csv *csv, int r, int col, const char *path, int *out,
                            cb_msg *err)
{
    *out = 0;
    if (col < 0) return true;
    const char *text = cb_csv_get(csv, r, col);
    if (!*text) return true;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || *end || v < 0 || v > CB_CMP_MAX_REPLICATE) {
        cb_msg_set(err, "%s:%ld: replicate '%.40s' is not a whole number in [0, %d]", path,
                   cb_csv_line(csv, r), text, CB_CMP_MAX_REPLICATE);
        return false;
    }
    *out = (int)v;
    return true;
}

bool cb_cmp_sample_row(const cb_csv *csv, int r, int time_col, int rep_col, const char *path,
                       double *t, int *replicate, cb_msg *err)
{
    if (!cb_csv_get_double(csv, r, time_col, t, err) ||
        !parse_replicate(csv, r, rep_col, path, replicate, err))
        return false;
    if (!(*t > 0.0) || !isfinite(*t)) {
        cb_msg_set(err, "%s:%ld: time_s '%.40s' is not a positive finite number", path,
                   cb_csv_line(csv, r), cb_csv_get(csv, r, time_col));
        return false;
    }
    return true;
}

static bool load_samples(cb_cmp_run *run, const char *path, cb_msg *err)
{
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"benchmark", "axes", "time_s"};
    int col[3];
    bool ok = cb_csv_require(csv, need, 3, col, err);
    int rep_col = cb_csv_col(csv, "replicate");
    cb_cmp_dir *dir = &run->dirs[run->n_dirs - 1];
    dir->has_replicates = rep_col >= 0;
    cb_cmp_point *last = NULL;
    for (int r = 0; ok && r < cb_csv_rows(csv); r++) {
        const char *bench = cb_csv_get(csv, r, col[0]);
        const char *axes = cb_csv_get(csv, r, col[1]);
        cb_cmp_point *p = last;
        if (!p || strcmp(p->benchmark, bench) != 0 || strcmp(p->axes, axes) != 0)
            p = cb_cmp_run_find(run, bench, axes);
        double t;
        int rep;
        if (!cb_cmp_sample_row(csv, r, col[2], rep_col, path, &t, &rep, err)) {
            ok = false;
            break;
        }
        /* Samples of a point this directory's results.csv does not list (a
         * run stopped between the two writes) are counted, not used. */
        if (!p || p->last_dir != run->n_dirs - 1) {
            run->orphan_samples++;
            continue;
        }
        last = p;
        if (!p->last_timed) continue;
        if (rep + 1 > dir->rounds) dir->rounds = rep + 1;
        ok = cb_cmp_point_add_time(p, t, rep, err);
    }
    cb_csv_free(csv);
    return ok;
}

bool cb_cmp_run_load(cb_cmp_run *run, const char *dir, cb_msg *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        cb_msg_set(err, "%s: %s", dir, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        cb_msg_set(err, "%s: not a directory (expected a cubench run directory)", dir);
        return false;
    }
    if (!cb_cmp_run_begin_dir(run, dir, err)) return false;
    char path[4096];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (!load_results(run, path, err)) return false;
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    struct stat sst;
    bool skip_samples = run->samples_optional && stat(path, &sst) != 0 && errno == ENOENT;
    if (!skip_samples && !load_samples(run, path, err)) return false;
    run->dirs[run->n_dirs - 1].has_samples = !skip_samples;
    snprintf(path, sizeof path, "%s/meta.json", dir);
    cb_cmp_meta *meta = &run->dirs[run->n_dirs - 1].meta;
    if (!cb_cmp_meta_read(path, meta, err)) return false;
    if (!run->git_sha[0]) snprintf(run->git_sha, sizeof run->git_sha, "%s", meta->git_sha);
    if (!run->device[0]) snprintf(run->device, sizeof run->device, "%s", meta->device);
    return true;
}
