/* plan.h - from globs and --axis overrides to the ordered list of points. */
#ifndef CB_PLAN_H
#define CB_PLAN_H

#include "run_config.h"

typedef struct cb_axis_override {
    char scope[128];  /* benchmark glob it applies to; "" every one    */
    char name[32];    /* axis name                                    */
    const char *spec; /* the VALUES part of NAME=VALUES (not copied)  */
} cb_axis_override;

/* Split "[GLOB:]NAME=VALUES" into an override: with a GLOB (a benchmark
 * glob such as matmul/cublas_fp32, then ':n=4096') it applies only to the benchmarks the glob
 * matches, so one command can give axes of the same name different values (vecadd's n is a length,
 * matmul's a dimension). Of several overrides of one axis the last that applies wins. False with a
 * message when malformed. */
bool cb_axis_override_parse(const char *arg, cb_axis_override *out, cb_msg *err);

typedef struct cb_plan_request {
    const char *const *globs; /* benchmark name globs; none = every benchmark   */
    int n_globs;
    const cb_axis_override *overrides;
    int n_overrides;
    const cb_device_info *dev;     /* NULL without a device                   */
    const char *no_device_reason;  /* why dev is NULL                         */
    bool omit_cuda_without_device; /* default suite: leave CUDA benches out   */
    /* Without a device, a CUDA benchmark is one skip point (n_axes 0) for a
     * run; with expand_skipped (--dry-run) it is every point of its sweep,
     * each a skip, `sm` items unresolved ("grid=4sm"). Its overrides are
     * checked either way. */
    bool expand_skipped;
    int max_points; /* refuse sweeps larger than this          */
} cb_plan_request;

typedef struct cb_plan {
    cb_planned_point *points;
    int n;
    int n_benches;
} cb_plan;

/* Build the plan. Fails (false, message; the CLI exits 2) when a glob
 * matches nothing, an override names an axis no selected benchmark has, a
 * value is malformed (for every selected benchmark, with or without a
 * device), or the sweep exceeds max_points. */
bool cb_plan_build(const cb_plan_request *req, cb_plan *out, cb_msg *err);
void cb_plan_free(cb_plan *p);

#endif
