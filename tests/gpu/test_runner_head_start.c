/* test_runner_head_start.c - a cold sample's head start (the flush and a
 * hold) is sized to how long the host takes to enqueue a run, so a slow
 * front end stays outside the samples.
 *
 * Three benchmarks run the same vector add of 2^16 floats (a few us on an
 * H200), cold: slow/none launches at once; slow/host first spins on the
 * host clock for 1.5 times the two-L2 flush plus 10 us (measured here
 * first: 31 us on an H200, so ~56 us), as a library that picks its kernel
 * on the host would; slow/sync waits for its
 * own kernel before it returns, so no head start can help it. Expected:
 * slow/none needs no hold and keeps no late sample; slow/host gets a hold,
 * and its median stays within a few microseconds of slow/none's (without
 * the hold it would carry ~15-30 us of host time); slow/sync is late in
 * every sample, keeps them, and its note says so. The control: the same
 * slow/host sample taken with a plain one-L2 flush must be late and slower,
 * or the test could not tell a hold from no hold. */
/* test links: cubench_engine cubench_kernels */
#include "gpu_test_util.h"
#include "gpu_vecadd_fixture.h"
#include "plan_test_util.h"
#include "cb_common.h"
#include "plan.h"
#include "registry.h"
#include "runner.h"
#include "runner_point.h"
#include "sink.h"
#include "l2_flush.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

/* slow/host's spin, s: set from the flush measured on this GPU. */
static double slow_host_s = 45e-6;
static const double no_spin = 0;

static const cb_axis_def slow_axes[] = {
    {.name = "n", .kind = CB_AXIS_INT, .defaults = "2^16", .min_value = 1, .help = "floats"}};
static const cb_test_host_delay mode_none = {&no_spin, false}, mode_host = {&slow_host_s, false},
                                mode_sync = {&no_spin, true};

static const cb_bench slow_benches[] = {CB_TEST_DELAYED_VECADD("slow/host", slow_axes, mode_host),
                                        CB_TEST_DELAYED_VECADD("slow/none", slow_axes, mode_none),
                                        CB_TEST_DELAYED_VECADD("slow/sync", slow_axes, mode_sync)};
static const cb_family slow_family = {
    .name = "slow", .benches = slow_benches, .count = CB_ARRAY_LEN(slow_benches)};

/* The control, outside the runner: slow/host timed after a one-L2 flush,
 * 200 samples; *late_share the share of late ones, the median in *med. */
static void control(const cb_device_info *dev, double *late_share, double *med)
{
    cb_msg why = {{0}};
    cb_timing t;
    CB_CHECK(cb_timing_init(&t, dev, &why) == CB_OK);
    cb_plan plan;
    CB_CHECK(cb_test_plan("slow/host", NULL, 0, dev, 1, &plan, &why));
    const cb_bench_ctx ctx = {.param = &mode_host};
    cb_point_info info;
    void *state = NULL;
    CB_CHECK(cb_test_delayed_setup(&plan.points[0].point, &ctx, &state, &info, &why) == CB_OK);
    const point_timing pt = {.cuda = true, .host_timer = false, .hot = false};
    const cb_head_start head = cb_head_start_level(&t, 0);
    enum { N = 200 };
    double times[N];
    int late = 0;
    for (int i = 0; i < N; i++) {
        bool was_late = false;
        CB_CHECK(cb_time_sample(&slow_benches[0], state, &t, pt, &head, 1, 0, &times[i], NULL,
                                &was_late, &why) == CB_OK);
        late += was_late;
    }
    cb_summary s;
    cb_stats_summarise(times, N, &s);
    *late_share = (double)late / N;
    *med = s.median;
    cb_test_delayed_teardown(state);
    cb_plan_free(&plan);
    cb_timing_free(&t);
}

/* The two-L2 flush on this GPU, s: the median of 21 event-timed ones. */
static double two_l2_flush_s(const cb_device_info *dev)
{
    cb_msg why = {{0}};
    cb_timing t;
    CB_CHECK(cb_timing_init(&t, dev, &why) == CB_OK);
    const cb_head_start head = cb_head_start_level(&t, 1);
    double times[21];
    for (int i = 0; i < 21; i++) {
        float ms = 0;
        CB_CHECK(cudaEventRecord(t.start[0], t.stream) == cudaSuccess);
        CB_CHECK(cb_launch_l2_flush(t.flush_buf, head.flush_bytes, t.flush_sink, t.stream) ==
                 cudaSuccess);
        CB_CHECK(cudaEventRecord(t.stop[0], t.stream) == cudaSuccess);
        CB_CHECK(cudaEventSynchronize(t.stop[0]) == cudaSuccess);
        CB_CHECK(cudaEventElapsedTime(&ms, t.start[0], t.stop[0]) == cudaSuccess);
        times[i] = ms * 1e-3;
    }
    cb_summary s;
    cb_stats_summarise(times, 21, &s);
    cb_timing_free(&t);
    return s.median;
}

int main(void)
{
    cb_device_info dev;
    cb_test_require_gpu(&dev, "test_runner_head_start");
    cb_msg why = {{0}};
    const double flush_s = two_l2_flush_s(&dev);
    /* Longer than two L2s (so a hold is needed), shorter than the longest
     * head start (two L2s and 224 us) on any GPU whose flush is under
     * 140 us. */
    slow_host_s = 1.5 * flush_s + 10e-6;
    printf("two-L2 flush %.1f us; slow/host spins %.1f us\n", flush_s * 1e6, slow_host_s * 1e6);
    CB_CHECK(slow_host_s < flush_s + 224e-6);
    CB_CHECK(cb_registry_add_family(&slow_family, &why) == CB_OK);

    char root[] = "/tmp/cb_head_start_XXXXXX";
    CB_CHECK(mkdtemp(root) != NULL);
    char dir[600];
    snprintf(dir, sizeof dir, "%s/run", root);
    cb_plan plan;
    CB_CHECK(cb_test_plan("slow/*", NULL, 0, &dev, 10, &plan, &why));
    cb_run_config cfg;
    cb_test_run_config(&cfg, &dev);
    cfg.cache = CB_CACHE_COLD;
    cfg.replicates = 1;
    cfg.stop.min_samples = 200;
    cfg.stop.max_time_s = 0.3;
    cb_result rows[3];
    CB_CHECK(cb_test_run_rows(&cfg, &plan, dir, 3, rows));
    cb_plan_free(&plan);
    cb_test_remove_run(dir);
    rmdir(dir);
    rmdir(root);

    const cb_result *host = &rows[0], *none = &rows[1], *sync = &rows[2];
    CB_CHECK_STR(host->bench->name, "slow/host");
    CB_CHECK_STR(none->bench->name, "slow/none");
    CB_CHECK_STR(sync->bench->name, "slow/sync");
    for (int i = 0; i < 3; i++)
        printf("%-10s median %6.2f us, %d samples; note: %s\n", rows[i].bench->name,
               rows[i].summary.median * 1e6, rows[i].summary.n, rows[i].note);
    /* No hold where the launch is quick; no late sample kept. */
    CB_CHECK(strstr(none->note, "head start") == NULL);
    CB_CHECK(strstr(none->note, "started late") == NULL);
    /* The slow front end got a hold, its late samples (a host hiccup now
     * and then) were set aside, and its samples hold no host time. */
    CB_CHECK(strstr(host->note, "us hold") != NULL);
    CB_CHECK(strstr(host->note, "started late") == NULL);
    CB_CHECK(host->summary.median < none->summary.median + 3e-6);
    /* A run that waits for itself is late whatever the head start: its late
     * samples are kept and counted, and it got no hold. */
    CB_CHECK(strstr(sync->note, "started late whatever the head start") != NULL);
    CB_CHECK(strstr(sync->note, "head start:") == NULL);

    double late_share = 0, med = 0;
    control(&dev, &late_share, &med);
    printf("control: slow/host after one L2 flush: %.0f %% late, median %.2f us\n",
           100 * late_share, med * 1e6);
    CB_CHECK(late_share > 0.9);
    CB_CHECK(med > none->summary.median + 5e-6);
    return cb_test_finish("test_runner_head_start");
}
