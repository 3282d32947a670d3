/* compare_load.c - run directories into points with their sample times.
 *
 * samples.csv may hold hundreds of thousands of rows, so points are found by
 * an open-addressing hash of (benchmark, axes), with a one-entry cache in
 * front because a point's samples are written back to back.
 */
#include "compare_load.h"

#include "csv_reader.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
        free(run->points[i].benchmark);
        free(run->points[i].axes);
        free(run->points[i].reason);
        free(run->points[i].times);
    }
    free(run->points);
    free(run->index);
    memset(run, 0, sizeof *run);
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
        p->last_dir = run->n_dirs;
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
    p->timed = timed;
    p->last_dir = run->n_dirs;
    p->last_timed = timed;
    uint64_t h = identity_hash(benchmark, axes);
    run->index[find_slot(run, h, benchmark, axes)] = (cb_cmp_slot){h, run->n_points};
    run->n_points++;
    return p;
oom:
    cb_msg_set(err, "compare: out of memory");
    return NULL;
}

bool cb_cmp_point_add_time(cb_cmp_point *p, double t_s, cb_msg *err)
{
    if (p->n == p->cap) {
        int cap = p->cap ? p->cap * 2 : 32;
        double *t = cap > 0 ? realloc(p->times, (size_t)cap * sizeof *t) : NULL;
        if (!t) {
            cb_msg_set(err, "compare: out of memory");
            return false;
        }
        p->times = t;
        p->cap = cap;
    }
    p->times[p->n++] = t_s;
    return true;
}

/* The string value of the first "key": "..." at or after `from` (no JSON
 * parser: meta.json is only read for the report's header line). */
static bool json_string_value(const char *from, const char *key, char *out, size_t len)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *s = strstr(from, pat);
    if (!s) return false;
    s += strlen(pat);
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (*s++ != ':') return false;
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    if (*s++ != '"') return false;
    size_t o = 0;
    for (; *s && *s != '"' && o + 1 < len; s++) {
        if (*s == '\\' && s[1]) s++;
        out[o++] = *s;
    }
    out[o] = '\0';
    return true;
}

static void read_meta(cb_cmp_run *run, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    FILE *f = fopen(path, "rb");
    if (!f) return;
    char buf[65536];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    if (!run->git_sha[0]) json_string_value(buf, "git_sha", run->git_sha, sizeof run->git_sha);
    /* the first "device" key whose value is an object (not null, not a number) */
    for (const char *dev = strstr(buf, "\"device\""); dev && !run->device[0];
         dev = strstr(dev + 1, "\"device\"")) {
        const char *v = dev + strlen("\"device\"");
        while (*v == ' ' || *v == '\n' || *v == '\r' || *v == '\t')
            v++;
        if (*v++ != ':') continue;
        while (*v == ' ' || *v == '\n' || *v == '\r' || *v == '\t')
            v++;
        if (*v == '{') json_string_value(v, "name", run->device, sizeof run->device);
    }
}

static bool load_results(cb_cmp_run *run, const char *path, cb_msg *err)
{
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"schema_version", "benchmark", "axes", "status"};
    int col[4];
    bool ok = cb_csv_require(csv, need, 4, col, err);
    int reason_col = cb_csv_col(csv, "reason");
    for (int r = 0; ok && r < cb_csv_rows(csv); r++) {
        long line = cb_csv_line(csv, r);
        const char *version = cb_csv_get(csv, r, col[0]);
        const char *bench = cb_csv_get(csv, r, col[1]);
        const char *axes = cb_csv_get(csv, r, col[2]);
        const char *status = cb_csv_get(csv, r, col[3]);
        if (strcmp(version, "1") != 0) {
            cb_msg_set(err, "%s:%ld: schema_version is '%.20s'; this cubench reads version 1", path,
                       line, version);
            ok = false;
            break;
        }
        if (!*bench) {
            cb_msg_set(err, "%s:%ld: empty benchmark name", path, line);
            ok = false;
            break;
        }
        cb_cmp_point *p = cb_cmp_run_find(run, bench, axes);
        if (p && p->last_dir == run->n_dirs) {
            cb_msg_set(err, "%s:%ld: point %.60s [%.80s] is listed twice", path, line, bench, axes);
            ok = false;
            break;
        }
        cb_msg why;
        p = cb_cmp_run_add_point(run, bench, axes, status,
                                 reason_col >= 0 ? cb_csv_get(csv, r, reason_col) : "", &why);
        if (!p) {
            cb_msg_set(err, "%s:%ld: %s", path, line, why.text);
            ok = false;
        }
    }
    cb_csv_free(csv);
    return ok;
}

static bool load_samples(cb_cmp_run *run, const char *path, cb_msg *err)
{
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"benchmark", "axes", "time_s"};
    int col[3];
    bool ok = cb_csv_require(csv, need, 3, col, err);
    cb_cmp_point *last = NULL;
    for (int r = 0; ok && r < cb_csv_rows(csv); r++) {
        const char *bench = cb_csv_get(csv, r, col[0]);
        const char *axes = cb_csv_get(csv, r, col[1]);
        cb_cmp_point *p = last;
        if (!p || strcmp(p->benchmark, bench) != 0 || strcmp(p->axes, axes) != 0)
            p = cb_cmp_run_find(run, bench, axes);
        double t;
        if (!cb_csv_get_double(csv, r, col[2], &t, err)) {
            ok = false;
            break;
        }
        if (!(t > 0.0) || !isfinite(t)) {
            cb_msg_set(err, "%s:%ld: time_s '%.40s' is not a positive finite number", path,
                       cb_csv_line(csv, r), cb_csv_get(csv, r, col[2]));
            ok = false;
            break;
        }
        /* Samples of a point this directory's results.csv does not list (a
         * run stopped between the two writes) are counted, not used. */
        if (!p || p->last_dir != run->n_dirs) {
            run->orphan_samples++;
            continue;
        }
        last = p;
        if (!p->last_timed) continue;
        ok = cb_cmp_point_add_time(p, t, err);
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
    char path[4096];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (!load_results(run, path, err)) return false;
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    if (!load_samples(run, path, err)) return false;
    read_meta(run, dir);
    if (run->n_dirs == 0) snprintf(run->label, sizeof run->label, "%s", dir);
    run->n_dirs++;
    return true;
}
