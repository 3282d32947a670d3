/* test_runner_ahead.c - event-timed samples are enqueued one ahead, so the
 * host's time to launch a run (a Python framework's dispatch) stays outside
 * the samples while the GPU is busier than the host.
 *
 * Two benchmarks run the same vector add of 2^26 floats (~180 us on an
 * H200, ~0.8 GB moved): lag/none launches at once, lag/host first spins
 * 80 us on the host clock, as a slow front end would. In hot mode (batch 1
 * at this size) their medians must agree within 5 %, and CUPTI's records
 * must still land on the right samples. The control: with --profile the
 * runner waits for every sample before queuing the next, and there the
 * spin must show (lag/host slower by most of 80 us), or the test could not
 * tell the two ways of sampling apart. */
/* test links: cubench_engine cubench_kernels */
#include "gpu_test_util.h"
#include "gpu_vecadd_fixture.h"
#include "plan_test_util.h"
#include "cupti_timer.h"
#include "plan.h"
#include "runner.h"
#include "cb_common.h"
#include "registry.h"
#include "sink.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

static const double no_spin = 0, lag_spin = 80e-6;

static const cb_axis_def lag_axes[] = {
    {.name = "n", .kind = CB_AXIS_INT, .defaults = "2^26", .min_value = 1, .help = "floats"}};
static const cb_test_host_delay no_lag = {&no_spin, false}, host_lag = {&lag_spin, false};

static const cb_bench lag_benches[] = {CB_TEST_DELAYED_VECADD("lag/none", lag_axes, no_lag),
                                       CB_TEST_DELAYED_VECADD("lag/host", lag_axes, host_lag)};
static const cb_family lag_family = {
    .name = "lag", .benches = lag_benches, .count = CB_ARRAY_LEN(lag_benches)};

/* Run both lag benchmarks in hot mode; rows[0] is lag/none, rows[1] lag/host. */
static bool run_lag(const cb_device_info *dev, bool profile, const char *dir, cb_result rows[2])
{
    cb_plan plan;
    cb_msg err = {{0}};
    if (!cb_test_plan("lag/*", NULL, 0, dev, 10, &plan, &err)) {
        fprintf(stderr, "plan: %s\n", err.text);
        return false;
    }
    cb_run_config cfg;
    cb_test_run_config(&cfg, dev);
    cfg.cache = CB_CACHE_HOT;
    cfg.profile = profile;
    cfg.stop.min_samples = 40;
    cfg.stop.max_time_s = 0.5;
    bool ok = cb_test_run_rows(&cfg, &plan, dir, 2, rows);
    cb_plan_free(&plan);
    return ok;
}

int main(void)
{
    cb_device_info dev;
    cb_test_require_gpu(&dev, "test_runner_ahead");
    cb_msg why = {{0}};
    CB_CHECK(cb_registry_add_family(&lag_family, &why) == CB_OK);
    bool cupti = cb_cupti_start(&why);
    if (!cupti) printf("CUPTI not started (%s): events only\n", why.text);

    char root[] = "/tmp/cb_runner_ahead_XXXXXX";
    CB_CHECK(mkdtemp(root) != NULL);
    char dir[600];
    cb_result ahead[2], waited[2];

    snprintf(dir, sizeof dir, "%s/ahead", root);
    CB_CHECK(run_lag(&dev, false, dir, ahead));
    cb_test_remove_run(dir);
    rmdir(dir);
    snprintf(dir, sizeof dir, "%s/waited", root);
    CB_CHECK(run_lag(&dev, true, dir, waited));
    cb_test_remove_run(dir);
    rmdir(dir);
    rmdir(root);

    const double none = ahead[0].summary.median, host = ahead[1].summary.median;
    printf("one ahead:  lag/none %.1f us, lag/host %.1f us (batch %d, %d samples)\n", none * 1e6,
           host * 1e6, ahead[1].batch, ahead[1].summary.n);
    printf("waited:     lag/none %.1f us, lag/host %.1f us\n", waited[0].summary.median * 1e6,
           waited[1].summary.median * 1e6);
    CB_CHECK_STR(ahead[0].bench->name, "lag/none");
    /* A steady ~180 us kernel meets the CI target: the rows are ok, and the
     * sample dropped at the end cannot turn them noisy. */
    printf("status:     lag/none %s, lag/host %s\n", cb_status_name(ahead[0].status),
           cb_status_name(ahead[1].status));
    CB_CHECK(ahead[0].status == CB_OK && ahead[1].status == CB_OK);
    CB_CHECK_EQ_INT(ahead[1].batch, 1);
    /* The runs are long enough for the host to keep ahead: no lag shows. */
    CB_CHECK(host < 1.05 * none);
    /* The control: waiting for each sample exposes the host's 80 us. */
    CB_CHECK(waited[1].summary.median > waited[0].summary.median + 0.6 * lag_spin);
    if (cupti) {
        /* Each sample's kernel found its sample: CUPTI agrees with events. */
        printf("CUPTI:      lag/host %.1f us, kernels %s\n", ahead[1].cupti_median_s * 1e6,
               ahead[1].kernels);
        CB_CHECK(isfinite(ahead[1].cupti_median_s));
        CB_CHECK(fabs(ahead[1].cupti_median_s / host - 1) < 0.05);
        CB_CHECK(strstr(ahead[1].kernels, "vecadd") != NULL);
        cb_cupti_stop();
    }
    return cb_test_finish("test_runner_ahead");
}
