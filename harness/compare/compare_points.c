/* compare_points.c - the points of a side: an open-addressing hash of
 * their identity (benchmark, axes, device), their statuses and their
 * sample times. Every step is linear in the input (50 000 benchmark names
 * must not take minutes). */
#include "compare_load.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cb_cmp_slot {
    uint64_t hash;
    int point; /* index into points, -1 for an empty slot */
};

void cb_cmp_run_init(cb_cmp_run *run)
{
    memset(run, 0, sizeof *run);
}

static void free_point(cb_cmp_point *p)
{
    free(p->benchmark), free(p->axes), free(p->reason), free(p->throttle);
    free(p->key_figure);
    free(p->times), free(p->dir), free(p->replicate);
}

void cb_cmp_run_free(cb_cmp_run *run)
{
    for (int i = 0; i < run->n_points; i++)
        free_point(&run->points[i]);
    for (int d = 0; d < run->n_dirs; d++) {
        free(run->dirs[d].path);
        free(run->dirs[d].real_path);
        cb_cmp_meta_free(&run->dirs[d].meta);
    }
    for (int d = 0; d < run->n_duplicates; d++)
        free(run->duplicates[d].path);
    free(run->duplicates);
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
    d->real_path = strdup(path ? path : "");
    if (!d->path || !d->real_path) {
        free(d->path), free(d->real_path);
        goto oom;
    }
    d->schema = CB_CMP_SCHEMA_MAX;
    d->rounds = 1;
    d->meta.complete = -1;
    if (run->n_dirs == 0) snprintf(run->label, sizeof run->label, "%s", d->path);
    run->n_dirs++;
    return true;
oom:
    cb_msg_set(err, "out of memory");
    return false;
}

/* FNV-1a over the three parts, each followed by a separator no name holds. */
static uint64_t identity_hash(const char *benchmark, const char *axes, const char *device)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const char *parts[3] = {benchmark, axes, device};
    for (int i = 0; i < 3; i++) {
        for (const char *s = parts[i]; *s; s++)
            h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
        h = (h ^ 0x1fu) * 0x100000001b3ull;
    }
    return h;
}

static bool same_identity(const cb_cmp_point *p, const char *benchmark, const char *axes,
                          const char *device)
{
    return strcmp(p->benchmark, benchmark) == 0 && strcmp(p->axes, axes) == 0 &&
           strcmp(p->device, device) == 0;
}

static int find_slot(const cb_cmp_run *run, uint64_t h, const char *benchmark, const char *axes,
                     const char *device)
{
    size_t mask = (size_t)run->index_cap - 1;
    for (size_t s = (size_t)h & mask;; s = (s + 1) & mask) {
        const cb_cmp_slot *slot = &run->index[s];
        if (slot->point < 0) return (int)s;
        if (slot->hash == h && same_identity(&run->points[slot->point], benchmark, axes, device))
            return (int)s;
    }
}

cb_cmp_point *cb_cmp_run_find(const cb_cmp_run *run, const char *benchmark, const char *axes,
                              const char *device)
{
    if (run->index_cap == 0) return NULL;
    if (!device) device = "";
    int s = find_slot(run, identity_hash(benchmark, axes, device), benchmark, axes, device);
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
        uint64_t h = identity_hash(p->benchmark, p->axes, p->device);
        run->index[find_slot(run, h, p->benchmark, p->axes, p->device)] = (cb_cmp_slot){h, i};
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

/* Fold a status into a point seen before (in this or another directory). */
static cb_cmp_point *fold_status(cb_cmp_point *p, bool timed, const char *reason, int dir)
{
    if (!timed && !p->timed && !*p->reason && *reason) {
        char *r = strdup(reason);
        if (!r) return NULL;
        free(p->reason);
        p->reason = r;
    }
    p->timed = p->timed || timed;
    p->last_dir = dir;
    p->last_timed = timed;
    return p;
}

static bool make_room(cb_cmp_run *run)
{
    if (!grow_index(run)) return false;
    if (run->n_points < run->cap) return true;
    int cap = run->cap ? run->cap * 2 : 64;
    cb_cmp_point *pts = cap > 0 ? realloc(run->points, (size_t)cap * sizeof *pts) : NULL;
    if (!pts) return false;
    run->points = pts;
    run->cap = cap;
    return true;
}

cb_cmp_point *cb_cmp_run_add_device_point(cb_cmp_run *run, const char *benchmark, const char *axes,
                                          const char *device, const char *status,
                                          const char *reason, cb_msg *err)
{
    bool timed;
    if (!is_timed_status(status, &timed)) {
        cb_msg_set(err, "unknown status '%.32s' (expected ok, noisy, skip or fail)", status);
        return NULL;
    }
    if (run->n_dirs == 0 && !cb_cmp_run_begin_dir(run, "", err)) return NULL;
    if (!reason) reason = "";
    if (!device) device = "";
    cb_cmp_point *p = cb_cmp_run_find(run, benchmark, axes, device);
    if (p) {
        p = fold_status(p, timed, reason, run->n_dirs - 1);
        if (!p) cb_msg_set(err, "out of memory");
        return p;
    }
    if (strlen(device) >= CB_CMP_DEVICE_LEN) {
        cb_msg_set(err, "device '%.20s' is not a device ordinal", device);
        return NULL;
    }
    if (!make_room(run)) goto oom;
    p = &run->points[run->n_points];
    memset(p, 0, sizeof *p);
    p->benchmark = strdup(benchmark);
    p->axes = strdup(axes);
    p->reason = strdup(timed ? "" : reason);
    if (!p->benchmark || !p->axes || !p->reason) {
        free(p->benchmark), free(p->axes), free(p->reason);
        goto oom;
    }
    snprintf(p->device, sizeof p->device, "%s", device);
    snprintf(p->status, sizeof p->status, "%s", status);
    p->kind = CB_CMP_KIND_DEVICE;
    p->clock_lo = p->clock_hi = NAN;
    p->seq_dir = -1;
    p->facts = (cb_cmp_facts){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN,
                              NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN};
    fold_status(p, timed, "", run->n_dirs - 1);
    uint64_t h = identity_hash(benchmark, axes, device);
    run->index[find_slot(run, h, benchmark, axes, device)] = (cb_cmp_slot){h, run->n_points};
    run->n_points++;
    return p;
oom:
    cb_msg_set(err, "out of memory");
    return NULL;
}

cb_cmp_point *cb_cmp_run_add_point(cb_cmp_run *run, const char *benchmark, const char *axes,
                                   const char *status, const char *reason, cb_msg *err)
{
    return cb_cmp_run_add_device_point(run, benchmark, axes, "", status, reason, err);
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
            cb_msg_set(err, "out of memory");
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
