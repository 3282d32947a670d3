/* plan.c - select benchmarks, expand axes, take the cartesian product. */
#include "plan.h"

#include "registry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool cb_axis_override_parse(const char *arg, cb_axis_override *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || eq[1] == '\0') {
        cb_msg_set(err, "'%.60s': expected [GLOB:]NAME=VALUES, e.g. --axis n=2^20:2^28:x4", arg);
        return false;
    }
    /* The scope ends at the last ':' before '=' (values may hold ':'). */
    const char *name = arg;
    for (const char *c = arg; c < eq; c++)
        if (*c == ':') name = c + 1;
    size_t scope_len = name > arg ? (size_t)(name - arg - 1) : 0;
    size_t len = (size_t)(eq - name);
    if (name > arg && scope_len == 0) {
        cb_msg_set(err, "'%.60s': empty benchmark glob before ':'", arg);
        return false;
    }
    if (len == 0) {
        cb_msg_set(err, "'%.60s': expected [GLOB:]NAME=VALUES (no axis name)", arg);
        return false;
    }
    if (len >= sizeof out->name || scope_len >= sizeof out->scope) {
        cb_msg_set(err, "'%.60s...': %s too long", arg,
                   len >= sizeof out->name ? "axis name" : "benchmark glob");
        return false;
    }
    memcpy(out->scope, arg, scope_len);
    memcpy(out->name, name, len);
    out->name[len] = '\0';
    out->spec = eq + 1;
    return true;
}

static bool selected(const cb_plan_request *req, const cb_bench *b)
{
    if (req->n_globs == 0) return true;
    for (int g = 0; g < req->n_globs; g++)
        if (cb_registry_matches(req->globs[g], b->name)) return true;
    return false;
}

static const char *spec_for(const cb_plan_request *req, const cb_bench *b, const cb_axis_def *def,
                            bool *used)
{
    const char *spec = def->defaults;
    for (int o = 0; o < req->n_overrides; o++) {
        const cb_axis_override *ov = &req->overrides[o];
        if (ov->scope[0] && !cb_registry_matches(ov->scope, b->name)) continue;
        if (strcmp(ov->name, def->name) == 0) {
            spec = req->overrides[o].spec;
            used[o] = true;
        }
    }
    return spec;
}

static bool push_point(cb_plan *out, int *cap, const cb_planned_point *pp, cb_msg *err)
{
    if (out->n == *cap) {
        int ncap = *cap ? 2 * *cap : 64;
        cb_planned_point *np = realloc(out->points, sizeof *np * (size_t)ncap);
        if (!np) {
            cb_msg_set(err, "out of memory planning the sweep");
            return false;
        }
        out->points = np;
        *cap = ncap;
    }
    out->points[out->n++] = *pp;
    return true;
}

/* Expand every axis of `b` into values[]: each override is checked here,
 * whether or not the point can run on this machine. Without a device, an
 * item that needs one (`4sm`) is kept unresolved. *total is the product. */
static bool expand_axes(const cb_plan_request *req, const cb_bench *b, bool *used,
                        cb_axis_values *values, long long *total, cb_msg *err)
{
    const bool host = b->target == CB_TARGET_HOST;
    const cb_axis_context ctx = {.sm_count = req->dev && !host ? req->dev->sm_count : 0,
                                 .defer_device = !req->dev && !host,
                                 .host = host};
    *total = 1;
    for (int a = 0; a < b->n_axes; a++) {
        const char *spec = spec_for(req, b, &b->axes[a], used);
        cb_msg inner;
        if (!cb_axis_expand(&b->axes[a], spec, &ctx, &values[a], &inner)) {
            cb_msg_set(err, "%s: %s", b->name, inner.text);
            return false;
        }
        /* Capped so that eight axes of 512 values cannot overflow. */
        *total *= values[a].count;
        if (*total > req->max_points) *total = (long long)req->max_points + 1;
    }
    return true;
}

/* Expand one benchmark into `out`. */
static bool plan_bench(const cb_plan_request *req, const cb_bench *b, bool *used, cb_plan *out,
                       int *cap, cb_msg *err)
{
    static cb_axis_values values[CB_MAX_AXES];
    long long total;
    if (!expand_axes(req, b, used, values, &total, err)) return false;
    cb_planned_point pp;
    memset(&pp, 0, sizeof pp);
    pp.bench = b;
    if (b->ref_bench) {
        /* Resolved once: a name that is not registered is the family
         * table's mistake, said before anything runs. */
        pp.ref = cb_registry_find(b->ref_bench);
        if (!pp.ref) {
            cb_msg_set(err, "%s: its reference benchmark '%s' is not registered", b->name,
                       b->ref_bench);
            return false;
        }
    }
    const bool no_device = b->target == CB_TARGET_CUDA && !req->dev;
    if (no_device) {
        snprintf(pp.skip_reason, sizeof pp.skip_reason, "%s",
                 req->no_device_reason ? req->no_device_reason : "no CUDA device");
        /* A run writes one skip row for the benchmark; a listing shows
         * every point it would have run. */
        if (!req->expand_skipped) return push_point(out, cap, &pp, err);
    }
    if (total + out->n > req->max_points) {
        cb_msg_set(err, "the sweep has more than %d points; narrow it with --axis or a glob",
                   req->max_points);
        return false;
    }
    int idx[CB_MAX_AXES] = {0};
    pp.point.expanded = true;
    pp.point.n_axes = b->n_axes;
    pp.point.defs = b->axes;
    for (;;) {
        for (int a = 0; a < b->n_axes; a++)
            pp.point.values[a] = values[a].v[idx[a]];
        if (!push_point(out, cap, &pp, err)) return false;
        /* Odometer: the last axis turns fastest. */
        int a = b->n_axes - 1;
        while (a >= 0 && ++idx[a] == values[a].count)
            idx[a--] = 0;
        if (a < 0) break;
    }
    return true;
}

/* Every glob must match some benchmark. */
static bool globs_match(const cb_plan_request *req, cb_msg *err)
{
    for (int g = 0; g < req->n_globs; g++) {
        bool any = false;
        for (int i = 0; i < cb_registry_count() && !any; i++)
            any = cb_registry_matches(req->globs[g], cb_registry_get(i)->name);
        if (!any) {
            cb_msg_set(err, "no benchmark matches '%.60s' (see `cubench list`)", req->globs[g]);
            return false;
        }
    }
    return true;
}

/* Plan every selected benchmark; used[o] says whether override o named an
 * axis of one of them. */
static bool plan_selected(const cb_plan_request *req, bool *used, cb_plan *out, cb_msg *err)
{
    int cap = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        if (!selected(req, b)) continue;
        if (b->target == CB_TARGET_CUDA && !req->dev && req->omit_cuda_without_device) {
            /* Left out of the run, but its overrides are still checked, so
             * a command line means the same with and without a GPU. */
            static cb_axis_values values[CB_MAX_AXES];
            long long total;
            if (!expand_axes(req, b, used, values, &total, err)) return false;
            continue;
        }
        out->n_benches++;
        if (!plan_bench(req, b, used, out, &cap, err)) return false;
    }
    return true;
}

/* Every --axis must name an axis of some selected benchmark. */
static bool overrides_used(const cb_plan_request *req, const bool *used, cb_msg *err)
{
    for (int o = 0; o < req->n_overrides; o++) {
        const cb_axis_override *ov = &req->overrides[o];
        if (used[o]) continue;
        if (ov->scope[0])
            cb_msg_set(err,
                       "--axis %s:%s: no selected benchmark matching '%s' has an axis "
                       "named '%s'",
                       ov->scope, ov->name, ov->scope, ov->name);
        else
            cb_msg_set(err, "--axis %s: no selected benchmark has an axis named '%s'", ov->name,
                       ov->name);
        return false;
    }
    return true;
}

bool cb_plan_build(const cb_plan_request *req, cb_plan *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    if (!globs_match(req, err)) return false;
    bool *used = calloc((size_t)req->n_overrides + 1, sizeof *used);
    if (!used) {
        cb_msg_set(err, "out of memory");
        return false;
    }
    bool ok = plan_selected(req, used, out, err) && overrides_used(req, used, err);
    if (ok && out->n == 0) {
        cb_msg_set(err, "nothing to run");
        ok = false;
    }
    free(used);
    if (!ok) cb_plan_free(out);
    return ok;
}

void cb_plan_free(cb_plan *p)
{
    free(p->points);
    p->points = NULL;
    p->n = 0;
}
