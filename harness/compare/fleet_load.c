/* fleet_load.c - the run directories of a fleet (fleet_load.h).
 *
 * Sizes: directory entries are sorted once (n log n); tasks are joined to
 * directories by binary search on the sorted names. */
#include "fleet_load.h"
#include "fleet_util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Append a name to a growing list. */
static bool push_name(char ***names, int *n, int *cap, const char *name)
{
    char **grown = cb_grow_array(*names, *n, cap, 64, sizeof *grown);
    if (!grown) return false;
    *names = grown;
    return ((*names)[*n] = strdup(name)) != NULL && ++*n;
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
    char **names = NULL, path[PATH_MAX];
    int n = 0, cap = 0;
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || e->d_name[0] == '_') continue;
        if (cb_fleet_join(path, sizeof path, dir, e->d_name, NULL) && is_dir(path))
            ok = push_name(&names, &n, &cap, e->d_name);
    }
    closedir(d);
    if (!ok || (!names && !(names = malloc(sizeof *names)))) {
        free_names(names, n);
        cb_fleet_oom(err);
        return NULL;
    }
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    *count = n;
    return names;
}

static cb_fleet_member *add_member(cb_fleet *f, int dir, const char *name, const char *device,
                                   cb_msg *err)
{
    cb_fleet_member *grown =
        cb_grow_array(f->members, f->n_members, &f->cap_members, 64, sizeof *grown);
    if (!grown) return cb_fleet_oom(err), NULL;
    f->members = grown;
    cb_fleet_member *m = &f->members[f->n_members];
    memset(m, 0, sizeof *m);
    if (!(m->name = strdup(name))) return cb_fleet_oom(err), NULL;
    snprintf(m->device, sizeof m->device, "%s", device);
    m->dir = dir;
    m->task = -1;
    m->group = -1;
    if (f->dirs[dir].count++ == 0) f->dirs[dir].first = f->n_members;
    f->n_members++;
    return m;
}

/* Host, model, UUID and PCIe link of a member from its run's meta.json: the
 * block of its device's ordinal, else the first; "device": null or no block
 * at all: a CPU-only run. */
static void identity(cb_fleet_member *m, const cb_cmp_meta *meta, const char *uuid)
{
    snprintf(m->host, sizeof m->host, "%s", meta->hostname);
    const cb_cmp_device *dev =
        meta->device_null ? NULL : cb_cmp_meta_device(meta, m->device[0] ? atoi(m->device) : 0);
    m->cpu_only = dev == NULL;
    if (m->cpu_only) {
        snprintf(m->model, sizeof m->model, "CPU: %s", meta->cpu[0] ? meta->cpu : "unknown CPU");
        return;
    }
    snprintf(m->model, sizeof m->model, "%s", dev->name[0] ? dev->name : "unknown GPU");
    snprintf(m->uuid, sizeof m->uuid, "%s", uuid && *uuid ? uuid : dev->uuid);
    m->pcie_gen = dev->pcie_gen;
    m->pcie_width = dev->pcie_width;
    m->pcie_max_gen = dev->pcie_max_gen;
    m->pcie_max_width = dev->pcie_max_width;
}

/* The run's UUID of `device` from its rows (the first few devices). */
static const char *row_uuid(const cb_cmp_dir *d, const char *device)
{
    for (int i = 0; i < d->n_devices && i < 4; i++)
        if (strcmp(d->devices[i], device) == 0) return d->uuids[i];
    return NULL;
}

/* Is `device` a member of directory `dir` already? */
static bool has_member(const cb_fleet *f, int dir, const char *device)
{
    const cb_fleet_dir *d = &f->dirs[dir];
    for (int k = 0; k < d->count; k++)
        if (strcmp(f->members[d->first + k].device, device) == 0) return true;
    return false;
}

/* Each member's `fail` rows. */
static void count_failed(cb_fleet *f, int dir)
{
    const cb_cmp_run *run = &f->dirs[dir].run;
    const cb_fleet_dir *d = &f->dirs[dir];
    for (int i = 0; i < run->n_points; i++) {
        const cb_cmp_point *p = &run->points[i];
        for (int k = 0; strcmp(p->status, "fail") == 0 && k < d->count; k++)
            f->members[d->first + k].failed_points +=
                strcmp(f->members[d->first + k].device, p->device) == 0;
    }
}

/* One member per device of a complete run (one for a run of one device;
 * the host rows of a run of several belong to none). */
static bool add_members(cb_fleet *f, int dir, cb_msg *err)
{
    const cb_cmp_run *run = &f->dirs[dir].run;
    const cb_cmp_dir *d = &run->dirs[0];
    for (int i = 0; i < run->n_points; i++) {
        const char *dev = run->points[i].device;
        if ((!*dev && d->n_devices > 1) || has_member(f, dir, dev)) continue;
        char name[PATH_MAX];
        snprintf(name, sizeof name, "%s%s%s", f->dirs[dir].name, *dev ? "/gpu" : "", dev);
        cb_fleet_member *m = add_member(f, dir, name, dev, err);
        if (!m) return false;
        identity(m, &d->meta, *dev ? row_uuid(d, dev) : (d->n_devices ? d->uuids[0] : NULL));
        m->complete = true;
    }
    if (f->dirs[dir].count == 0) { /* a run without points: one member, nothing to judge */
        cb_fleet_member *m = add_member(f, dir, f->dirs[dir].name, "", err);
        if (!m) return false;
        identity(m, &d->meta, NULL);
        m->complete = true;
    }
    count_failed(f, dir);
    return true;
}

/* An incomplete run: one member named by its directory, with what meta.json
 * says about the host and the (first) device, and why it is incomplete. */
static bool add_incomplete(cb_fleet *f, int dir, const cb_cmp_meta *meta, const char *why,
                           cb_msg *err)
{
    cb_fleet_member *m = add_member(f, dir, f->dirs[dir].name, "", err);
    if (!m) return false;
    /* A reason longer than the column is cut at a whole character (and
     * using snprintf's count keeps gcc 13's -Wformat-truncation quiet). */
    if (snprintf(m->detail, sizeof m->detail, "%s", why) >= (int)sizeof m->detail)
        cb_utf8_trim_tail(m->detail);
    if (meta->present) identity(m, meta, NULL);
    return true;
}

/* Read directory `dir` of the fleet. */
static bool load_dir(cb_fleet *f, int dir, const char *fleet_dir, cb_msg *err)
{
    char run_path[PATH_MAX], path[PATH_MAX];
    if (!cb_fleet_join(run_path, sizeof run_path, fleet_dir, f->dirs[dir].name, err) ||
        !cb_fleet_join(path, sizeof path, run_path, "meta.json", err))
        return false;
    cb_cmp_meta meta;
    cb_msg why;
    bool ok;
    if (!cb_cmp_meta_read(path, &meta, &why)) /* a run, not the fleet, is broken */
        return add_incomplete(f, dir, &meta, why.text, err);
    if (!meta.present)
        ok = add_incomplete(f, dir, &meta, "no meta.json: the run never started", err);
    else if (meta.complete != 1)
        ok = add_incomplete(f, dir, &meta,
                            meta.complete == 0 ? "meta.json says complete: false (interrupted, "
                                                 "killed or still running)"
                                               : "meta.json has no complete: true/false",
                            err);
    else
        ok = cb_cmp_run_load(&f->dirs[dir].run, run_path, err) && add_members(f, dir, err);
    cb_cmp_meta_free(&meta);
    return ok;
}

static int cmp_dir_name(const void *name, const void *dir)
{
    return strcmp(name, ((const cb_fleet_dir *)dir)->name);
}

int cb_fleet_find_dir(const cb_fleet *f, const char *run_dir)
{
    const char *name = strrchr(run_dir, '/');
    name = name ? name + 1 : run_dir;
    if (!*name || f->n_dirs <= 0) return -1;
    const cb_fleet_dir *d =
        bsearch(name, f->dirs, (size_t)f->n_dirs, sizeof *f->dirs, cmp_dir_name);
    return d ? (int)(d - f->dirs) : -1;
}

/* Join tasks to runs by the run directory's name (the first task wins). */
static void join_tasks(cb_fleet *f)
{
    for (int t = 0; t < f->n_tasks; t++) {
        int d = cb_fleet_find_dir(f, f->tasks[t].run_dir);
        if (d < 0 || f->dirs[d].task >= 0) continue;
        f->dirs[d].task = f->tasks[t].id;
        for (int k = 0; k < f->dirs[d].count; k++)
            f->members[f->dirs[d].first + k].task = f->tasks[t].id;
    }
}

static bool check_fleet_dir(const char *dir, cb_msg *err)
{
    char probe[PATH_MAX];
    struct stat st;
    if (!is_dir(dir)) {
        cb_msg_set(err, "%s: %s", dir, stat(dir, &st) == 0 ? "not a directory" : strerror(errno));
        return false;
    }
    if (!cb_fleet_join(probe, sizeof probe, dir, "results.csv", err)) return false;
    if (stat(probe, &st) == 0) {
        cb_msg_set(err, "%s is one run directory; give the directory that holds the runs", dir);
        return false;
    }
    return true;
}

bool cb_fleet_load(cb_fleet *f, const char *dir, cb_msg *err)
{
    snprintf(f->dir, sizeof f->dir, "%s", dir);
    if (!check_fleet_dir(dir, err)) return false;
    int n = 0;
    char **names = list_run_dirs(dir, &n, err);
    if (!names) return false;
    f->dirs = calloc((size_t)n + 1, sizeof *f->dirs);
    if (!f->dirs) {
        free_names(names, n);
        return cb_fleet_oom(err);
    }
    for (int i = 0; i < n; i++) {
        f->dirs[i] = (cb_fleet_dir){.name = names[i], .task = -1}; /* the name is the dir's now */
        cb_cmp_run_init(&f->dirs[i].run);
    }
    free(names);
    f->n_dirs = n;
    for (int i = 0; i < n; i++)
        if (!load_dir(f, i, dir, err)) return false;
    if (!cb_fleet_read_tasks(f, dir, err)) return false;
    if (f->n_dirs == 0 && f->n_tasks == 0 && f->n_gaps == 0) {
        cb_msg_set(err, "%s: no run directories and no _fleet/ task records", dir);
        return false;
    }
    join_tasks(f);
    return true;
}
