/* runner.h - runs a list of points and times them.
 *
 * The runner owns every piece of timing hygiene: verification before timing,
 * warm-up, batching (hot) or L2 flushing (cold), the event or host timer,
 * NVTX ranges, CUPTI attribution, the stopping rule and the derived figures.
 * Benchmarks only enqueue work. */
#ifndef CB_RUNNER_H
#define CB_RUNNER_H

#include "run_config.h"
#include "sink.h"

/* Run the points in order, writing each finished point to `sink`. The
 * results stay in *results (allocated; ok + noisy + skip + fail entries) for
 * summaries. CB_FAIL with a message only when the runner itself cannot work
 * (out of memory); a failed point, a write error or an interrupt are told by
 * *totals. */
cb_status cb_runner_run(const cb_run_config *cfg, const cb_planned_point *points, int n,
                        cb_sink *sink, cb_result **results, cb_run_totals *totals, cb_msg *why);

#endif
