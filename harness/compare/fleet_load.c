/* fleet_load.c - a fleet directory into runs and task records.
 *
 * Each directory under DIR is one run: its meta.json is read through
 * fleet_json (complete or not, host, devices), a complete run's CSV files
 * through fleet_read.c (one member per device). A run that did not finish is
 * not parsed: a task killed mid-write may leave a truncated last line, and
 * the report only needs to say that the run is incomplete.
 *
 * Sizes: directory entries are sorted once (n log n); tasks are indexed by id
 * and joined to directories by binary search on the sorted names.
 */
#include "fleet.h"

#include "csv_reader.h"
#include "fleet_json.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Larger meta.json files are not ours (ours are about 3 KB). */
#define META_MAX_BYTES (1 << 20)
/* More array tasks than any Slurm allows (MaxArraySize is at most 4000001). */
#define TASKS_MAX 4000001

void cb_fleet_opts_default(cb_fleet_opts *o)
{
    o->tolerance = 0.05;
    o->alpha = 0.05;
    o->min_runs = 3;
}

void cb_fleet_init(cb_fleet *f)
{
    memset(f, 0, sizeof *f);
    f->expected = -1;
}

void cb_fleet_free(cb_fleet *f)
{
    for (int i = 0; i < f->n_members; i++) {
        cb_fleet_member *m = &f->members[i];
        if (m->info)
            for (int p = 0; p < m->run.n_points; p++)
                free(m->info[p].throttle);
        free(m->info);
        free(m->name);
        cb_cmp_run_free(&m->run);
    }
    free(f->members);
    for (int d = 0; d < f->n_dirs; d++)
        free(f->dirs[d].name);
    free(f->dirs);
    free(f->tasks);
    for (int g = 0; g < f->n_groups; g++) {
        free(f->groups[g].model);
        free(f->groups[g].members);
    }
    free(f->groups);
    cb_fleet_init(f);
}

/* dir + "/" + name into out; false (err set) when it does not fit. */
static bool join(char *out, size_t len, const char *dir, const char *name, cb_msg *err)
{
    int n = snprintf(out, len, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= len) {
        cb_msg_set(err, "%.100s/%.60s: path too long", dir, name);
        return false;
    }
    return true;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The whole file, NUL-terminated, or NULL (err set) when unreadable/too big. */
static char *read_text(const char *path, long max, cb_msg *err)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        cb_msg_set(err, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc((size_t)max + 1);
    size_t got = buf ? fread(buf, 1, (size_t)max + 1, fp) : 0;
    bool bad = !buf || ferror(fp);
    fclose(fp);
    if (bad || got > (size_t)max) {
        cb_msg_set(err, "%s: %s", path, !buf ? "out of memory" : bad ? "read error" : "too large");
        free(buf);
        return NULL;
    }
    buf[got] = '\0';
    return buf;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names of the entries of `dir` that may be runs (directories not starting
 * with '.' or '_'), sorted. NULL with err set when unreadable. */
static char **list_run_dirs(const char *dir, int *count, cb_msg *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        cb_msg_set(err, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    char **names = NULL;
    int n = 0, cap = 0;
    bool ok = true;
    char path[PATH_MAX];
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_') continue;
        if (!join(path, sizeof path, dir, e->d_name, NULL) || !is_dir(path)) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **grown = cap > 0 ? realloc(names, (size_t)cap * sizeof *names) : NULL;
            if (!grown) {
                ok = false;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name)))
            ok = false;
        else
            n++;
    }
    closedir(d);
    if (!ok) {
        for (int i = 0; i < n; i++)
            free(names[i]);
        free(names);
        cb_msg_set(err, "fleet: out of memory listing %s", dir);
        return NULL;
    }
    if (n) qsort(names, (size_t)n, sizeof *names, cmp_name);
    *count = n;
    if (!names) names = malloc(sizeof *names); /* an empty, non-NULL list */
    if (!names) cb_msg_set(err, "fleet: out of memory");
    return names;
}

cb_fleet_member *cb_fleet_add_member(cb_fleet *f, int dir, cb_msg *err)
{
    if (f->n_members == f->cap_members) {
        int cap = f->cap_members ? 2 * f->cap_members : 64;
        cb_fleet_member *grown = realloc(f->members, (size_t)cap * sizeof *grown);
        if (!grown) {
            cb_msg_set(err, "fleet: out of memory");
            return NULL;
        }
        f->members = grown;
        f->cap_members = cap;
    }
    cb_fleet_member *m = &f->members[f->n_members++];
    memset(m, 0, sizeof *m);
    cb_cmp_run_init(&m->run);
    m->dir = dir;
    m->task = -1;
    m->group = -1;
    if (f->dirs[dir].count++ == 0) f->dirs[dir].first = f->n_members - 1;
    return m;
}

/* An incomplete run: one member named by its directory, with what meta.json
 * says about the host and the (first) device, and why it is incomplete. */
static bool add_incomplete(cb_fleet *f, int dir, const char *meta, const char *why, cb_msg *err)
{
    cb_fleet_member *m = cb_fleet_add_member(f, dir, err);
    if (!m) return false;
    m->name = strdup(f->dirs[dir].name);
    if (!m->name) {
        cb_msg_set(err, "fleet: out of memory");
        return false;
    }
    snprintf(m->detail, sizeof m->detail, "%s", why);
    if (!meta) return true;
    cb_fleet_json_string(meta, "host.hostname", m->host, sizeof m->host);
    if (!cb_fleet_json_string(meta, "device.name", m->model, sizeof m->model)) {
        char cpu[128] = "";
        cb_fleet_json_string(meta, "host.cpu", cpu, sizeof cpu);
        snprintf(m->model, sizeof m->model, "CPU: %s", cpu[0] ? cpu : "unknown CPU");
        m->cpu_only = true;
    }
    return true;
}

/* Read directory `dir` of the fleet. */
static bool load_dir(cb_fleet *f, int dir, const char *fleet_dir, cb_msg *err)
{
    char run_path[PATH_MAX], path[PATH_MAX];
    if (!join(run_path, sizeof run_path, fleet_dir, f->dirs[dir].name, err) ||
        !join(path, sizeof path, run_path, "meta.json", err))
        return false;
    if (!is_file(path))
        return add_incomplete(f, dir, NULL, "no meta.json: the run never started", err);
    char *meta = read_text(path, META_MAX_BYTES, err);
    if (!meta) return false;
    int complete = cb_fleet_json_bool(meta, "complete");
    bool ok;
    if (complete != 1)
        ok = add_incomplete(f, dir, meta,
                            complete == 0 ? "meta.json says complete: false (interrupted, killed "
                                            "or still running)"
                                          : "meta.json has no complete: true/false",
                            err);
    else
        ok = cb_fleet_read_run(f, dir, run_path, meta, err);
    free(meta);
    return ok;
}

/* ---- task records ------------------------------------------------------- */

static bool read_expected(cb_fleet *f, const char *fleet_dir, cb_msg *err)
{
    char path[PATH_MAX];
    if (!join(path, sizeof path, fleet_dir, "expected", err)) return false;
    if (!is_file(path)) return true;
    char *text = read_text(path, 64, err);
    if (!text) return false;
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    while (end && (*end == '\n' || *end == ' ' || *end == '\r'))
        end++;
    bool ok = end && end != text && !*end && !errno && v >= 0 && v <= TASKS_MAX;
    free(text);
    if (!ok) {
        cb_msg_set(err, "%s: expected a task count (0 to %d)", path, TASKS_MAX);
        return false;
    }
    f->expected = (int)v;
    return true;
}

static bool ensure_tasks(cb_fleet *f, int n, cb_msg *err)
{
    if (n <= f->n_tasks) return true;
    int cap = f->n_tasks ? f->n_tasks : 16;
    while (cap < n)
        cap *= 2;
    cb_fleet_task *t = realloc(f->tasks, (size_t)cap * sizeof *t);
    if (!t) {
        cb_msg_set(err, "fleet: out of memory");
        return false;
    }
    for (int i = f->n_tasks; i < cap; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].id = i;
        t[i].exit_code = -1;
    }
    f->tasks = t;
    f->n_tasks = n; /* ids beyond n are unused until a record claims them */
    return true;
}

static void copy_field(const cb_csv *csv, int col, char *out, size_t len)
{
    snprintf(out, len, "%s", col >= 0 ? cb_csv_get(csv, 0, col) : "");
}

/* One _fleet/task-ID.csv: a header and one row. */
static bool read_task(cb_fleet *f, const char *path, cb_msg *err)
{
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"task", "state"};
    int col[2];
    bool ok = cb_csv_require(csv, need, 2, col, err);
    if (ok && cb_csv_rows(csv) != 1) {
        cb_msg_set(err, "%s: expected one task row, found %d", path, cb_csv_rows(csv));
        ok = false;
    }
    double id = -1;
    if (ok) ok = cb_csv_get_double(csv, 0, col[0], &id, err);
    if (ok && !(id >= 0 && id < TASKS_MAX && id == (int)id)) {
        cb_msg_set(err, "%s: task '%s' is not a task id", path, cb_csv_get(csv, 0, col[0]));
        ok = false;
    }
    if (ok) ok = ensure_tasks(f, (int)id + 1, err);
    if (ok) {
        cb_fleet_task *t = &f->tasks[(int)id];
        copy_field(csv, col[1], t->state, sizeof t->state);
        if (!t->state[0]) snprintf(t->state, sizeof t->state, "?");
        copy_field(csv, cb_csv_col(csv, "run_dir"), t->run_dir, sizeof t->run_dir);
        copy_field(csv, cb_csv_col(csv, "node"), t->node, sizeof t->node);
        copy_field(csv, cb_csv_col(csv, "job"), t->job, sizeof t->job);
        copy_field(csv, cb_csv_col(csv, "reason"), t->reason, sizeof t->reason);
        int ec = cb_csv_col(csv, "exit_code");
        double code;
        cb_msg ignore;
        if (ec >= 0 && *cb_csv_get(csv, 0, ec) && cb_csv_get_double(csv, 0, ec, &code, &ignore))
            t->exit_code = (int)code;
    }
    cb_csv_free(csv);
    return ok;
}

static bool read_tasks(cb_fleet *f, const char *dir, cb_msg *err)
{
    char fleet_dir[PATH_MAX];
    if (!join(fleet_dir, sizeof fleet_dir, dir, "_fleet", err)) return false;
    if (!is_dir(fleet_dir)) return true;
    if (!read_expected(f, fleet_dir, err)) return false;
    if (f->expected > 0 && !ensure_tasks(f, f->expected, err)) return false;
    DIR *d = opendir(fleet_dir);
    if (!d) {
        cb_msg_set(err, "%s: %s", fleet_dir, strerror(errno));
        return false;
    }
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        int id, used = 0;
        if (sscanf(e->d_name, "task-%d.csv%n", &id, &used) != 1 || e->d_name[used] != '\0')
            continue;
        char path[PATH_MAX];
        ok = join(path, sizeof path, fleet_dir, e->d_name, err) && read_task(f, path, err);
    }
    closedir(d);
    return ok;
}

/* ---- the whole directory ------------------------------------------------ */

int cb_fleet_find_dir(const cb_fleet *f, const char *run_dir)
{
    const char *name = strrchr(run_dir, '/');
    name = name ? name + 1 : run_dir;
    if (!*name) return -1;
    int lo = 0, hi = f->n_dirs;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        int c = strcmp(f->dirs[mid].name, name);
        if (c == 0) return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

bool cb_fleet_load(cb_fleet *f, const char *dir, cb_msg *err)
{
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    if (!is_dir(dir)) {
        struct stat st;
        cb_msg_set(err, "%s: %s", dir, stat(dir, &st) == 0 ? "not a directory" : strerror(errno));
        return false;
    }
    char probe[PATH_MAX];
    if (!join(probe, sizeof probe, dir, "results.csv", err)) return false;
    if (is_file(probe)) {
        cb_msg_set(err, "%s is one run directory; give the directory that holds the runs", dir);
        return false;
    }
    int n = 0;
    char **names = list_run_dirs(dir, &n, err);
    if (!names) return false;
    f->dirs = calloc((size_t)n + 1, sizeof *f->dirs);
    if (!f->dirs) {
        for (int i = 0; i < n; i++)
            free(names[i]);
        free(names);
        cb_msg_set(err, "fleet: out of memory");
        return false;
    }
    for (int i = 0; i < n; i++)
        f->dirs[i] = (cb_fleet_dir){names[i], 0, 0, -1}; /* the name is the dir's now */
    free(names);
    f->n_dirs = n;
    for (int i = 0; i < n; i++)
        if (!load_dir(f, i, dir, err)) return false;
    if (!read_tasks(f, dir, err)) return false;
    if (f->n_dirs == 0 && f->n_tasks == 0) {
        cb_msg_set(err, "%s: no run directories and no _fleet/ task records", dir);
        return false;
    }
    /* Join tasks to runs by the run directory's name (the first task wins). */
    for (int t = 0; t < f->n_tasks; t++) {
        int d = cb_fleet_find_dir(f, f->tasks[t].run_dir);
        if (d < 0 || f->dirs[d].task >= 0) continue;
        f->dirs[d].task = t;
        for (int k = 0; k < f->dirs[d].count; k++)
            f->members[f->dirs[d].first + k].task = t;
    }
    return true;
}
