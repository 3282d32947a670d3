/* plan_test_util.h - plan one benchmark glob with `--axis` overrides, the
 * way the command line does, start a test's run configuration, and run a
 * plan into a run directory, for tests that need planned points or their
 * rows. */
#ifndef CB_PLAN_TEST_UTIL_H
#define CB_PLAN_TEST_UTIL_H

#include "cb_test.h"
#include "plan.h"
#include "runner.h"
#include "sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Plan `glob` on `dev` (NULL: no device) with one override per
 * "[GLOB:]NAME=VALUES" text of axes[0..n_axes), at most 8, and at most
 * `max_points` points; false, with err saying why, when an override or the
 * plan is refused. */
static inline bool cb_test_plan(const char *glob, const char *const *axes, int n_axes,
                                const cb_device_info *dev, int max_points, cb_plan *plan,
                                cb_msg *err)
{
    cb_axis_override ov[8];
    if (n_axes > 8) {
        cb_msg_set(err, "%d overrides, more than the 8 a test may give", n_axes);
        return false;
    }
    for (int i = 0; i < n_axes; i++)
        if (!cb_axis_override_parse(axes[i], &ov[i], err)) return false;
    const char *globs[] = {glob};
    cb_plan_request req = {.globs = globs,
                           .n_globs = 1,
                           .overrides = ov,
                           .n_overrides = n_axes,
                           .dev = dev,
                           .max_points = max_points};
    return cb_plan_build(&req, plan, err);
}

/* Run the plan's points under cfg into a sink at `dir`; opening it and the
 * run must succeed. The rows (malloc'd: free them) in *rows, the totals in
 * *totals. */
static inline void cb_test_run_into(const cb_run_config *cfg, const cb_plan *plan, const char *dir,
                                    cb_result **rows, cb_run_totals *totals)
{
    cb_msg err = {{0}};
    cb_sink sink;
    CB_CHECK(cb_sink_open(&sink, dir, &err));
    CB_CHECK(cb_runner_run(cfg, plan->points, plan->n, &sink, rows, totals, &err) == CB_OK);
    cb_sink_close(&sink);
}

/* cfg as the runner's defaults on `dev`, quiet and without NVTX ranges:
 * where a test's run starts before it sets what it tests. */
static inline void cb_test_run_config(cb_run_config *cfg, const cb_device_info *dev)
{
    cb_run_config_defaults(cfg);
    cfg->dev = dev;
    cfg->quiet = true;
    cfg->nvtx = false;
}

/* Run the plan's points under cfg into a sink at `dir` and expect `want`
 * of them ok or noisy: then true, their rows copied into out[0..want).
 * Otherwise false, why on stderr, for a test that says which run failed. */
static inline bool cb_test_run_rows(const cb_run_config *cfg, const cb_plan *plan, const char *dir,
                                    int want, cb_result *out)
{
    cb_msg err = {{0}};
    cb_sink sink;
    cb_result *results = NULL;
    cb_run_totals totals = {0};
    bool opened = cb_sink_open(&sink, dir, &err);
    bool ok = opened &&
              cb_runner_run(cfg, plan->points, plan->n, &sink, &results, &totals, &err) == CB_OK &&
              totals.ok + totals.noisy == want;
    if (ok) memcpy(out, results, (size_t)want * sizeof *out);
    if (!ok)
        fprintf(stderr, "run: %s (ok %d noisy %d fail %d)\n", err.text, totals.ok, totals.noisy,
                totals.fail);
    if (opened) cb_sink_close(&sink);
    free(results);
    return ok;
}

#endif
