/* test_telemetry_runner.c - the runner's telemetry hooks on a real CUDA
 * point: the sampler runs only while the point samples, its readings become
 * the row's telemetry fields, each sample's SM clock and reasons, and the
 * note's flag. Driven twice: by the fake NVML posing as this GPU (its UUID),
 * scripted to throttle and drop the clock, so the outcome is known; then by
 * the real NVML, where only plausibility can be checked. */
/* test links: cubench_engine cubench_bench */
#include "families.h"
#include "gpu_test_util.h"
#include "plan_test_util.h"
#include "csv_reader.h"
#include "plan.h"
#include "runner.h"
#include "sink.h"
#include "telemetry.h"

#include <unistd.h>

/* One vecadd point of ~2 ms of sampling per 100 samples (2^22 floats, cold). */
static bool run_point(const cb_device_info *dev, cb_telemetry *tele, const char *dir,
                      bool keep_throttled, int min_samples, cb_result *out)
{
    static const char *const axes[] = {"n=2^22", "block=256", "grid=auto"};
    cb_plan plan;
    cb_msg err = {{0}};
    if (!cb_test_plan("vecadd/grid_stride", axes, CB_ARRAY_LEN(axes), dev, 10, &plan, &err)) {
        fprintf(stderr, "plan: %s\n", err.text);
        return false;
    }
    cb_run_config cfg;
    cb_test_run_config(&cfg, dev);
    cfg.stop.min_samples = min_samples; /* 400: tens of milliseconds, many readings at 1 ms */
    cfg.telemetry = tele;
    cfg.replicates = 1;
    cfg.keep_throttled = keep_throttled;
    cfg.throttle_wait_max_s = 0.25;
    bool ok = cb_test_run_rows(&cfg, &plan, dir, 1, out);
    cb_plan_free(&plan);
    return ok;
}

/* The point of run_point, throttle-aware with a minimum of 2000 samples,
 * under the fake NVML playing `script` (opened and closed here). */
static void run_scripted(const cb_device_info *dev, const cb_telemetry_options *o,
                         const char *script, const char *dir, cb_result *r)
{
    setenv("CUBENCH_FAKE_NVML", script, 1);
    cb_telemetry *t = cb_telemetry_open(o, (const char *[]){dev->uuid}, 1);
    CB_CHECK(cb_telemetry_sampling(t));
    memset(r, 0, sizeof *r);
    CB_CHECK(run_point(dev, t, dir, false, 2000, r));
    cb_telemetry_close(t);
}

/* samples.csv's telemetry columns: every sample has an SM clock and words. */
static int samples_with_telemetry(const char *dir, int *rows)
{
    char path[512];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    cb_msg err = {{0}};
    cb_csv *csv = cb_csv_read_file(path, &err);
    int good = 0;
    *rows = csv ? cb_csv_rows(csv) : 0;
    int clock = csv ? cb_csv_col(csv, "sm_clock_mhz") : -1,
        words = csv ? cb_csv_col(csv, "throttle") : -1;
    for (int i = 0; csv && clock >= 0 && words >= 0 && i < *rows; i++) {
        double mhz = 0;
        if (cb_csv_get_double(csv, i, clock, &mhz, &err) && mhz > 0 && cb_csv_get(csv, i, words)[0])
            good++;
    }
    cb_csv_free(csv);
    return good;
}

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    cb_device_info dev;
    cb_test_require_gpu(&dev, "test_telemetry_runner");
    char dir[] = "/tmp/cb_test_telemetry_XXXXXX";
    CB_CHECK(mkdtemp(dir) != NULL);

    /* The fake, as this GPU: the clock drops at the 3rd reading and power
     * capping shows from the 2nd. */
    char script[256];
    snprintf(script, sizeof script, "devices=%s;sm_clock=1980*2,1755;reasons=0,4;temp=41",
             dev.uuid);
    setenv("CUBENCH_FAKE_NVML", script, 1);
    cb_telemetry_options o;
    cb_telemetry_options_defaults(&o);
    o.library = CB_FAKE_NVML;
    o.period_s = 0.001;
    cb_telemetry *t = cb_telemetry_open(&o, (const char *[]){dev.uuid}, 1);
    CB_CHECK(cb_telemetry_sampling(t));
    cb_result r;
    memset(&r, 0, sizeof r);
    /* Throttled samples kept (--keep-throttled): the row says what it saw. */
    CB_CHECK(run_point(&dev, t, dir, true, 400, &r));
    CB_CHECK(r.telemetry.valid);
    CB_CHECK_EQ_INT(r.throttled_samples, 0);
    CB_CHECK_NEAR(r.telemetry.sm_clock_min_mhz, 1755, 0);
    CB_CHECK_NEAR(r.telemetry.sm_clock_max_mhz, 1980, 0);
    CB_CHECK_NEAR(r.telemetry.temp_max_c, 41, 0);
    CB_CHECK_STR(r.telemetry.throttle, "sw_power_cap");
    CB_CHECK(strstr(r.note, "throttled: sw_power_cap; SM clock 1755-1980 MHz") != NULL);
    int rows = 0;
    CB_CHECK_EQ_INT(samples_with_telemetry(dir, &rows), rows);
    CB_CHECK(rows >= 400);
    printf("fake NVML: note \"%s\", %d samples with telemetry\n", r.note, rows);
    cb_test_remove_run(dir);

    /* Throttle-aware (the default): the fake GPU says sw_power_cap from its
     * 2nd reading on and never recovers. The runner waits for it before
     * sampling and sets aside samples read while it is throttled; past the
     * point's budget (0.25 s here) it keeps them, saying so. Whether any
     * sample was set aside first depends on where the sampler's 1 ms
     * readings fall against the point's start (a reading before the
     * point is usually throttled already): either way the row names the
     * throttle, the wait and the samples kept. */
    memset(&r, 0, sizeof r);
    CB_CHECK(run_point(&dev, t, dir, false, 400, &r));
    CB_CHECK(r.throttle_wait_s >= 0.25 && r.throttle_wait_s < 1.0);
    CB_CHECK_CONTAINS(r.note, "then throttled samples kept");
    CB_CHECK_CONTAINS(r.note, "sw_power_cap");
    if (r.throttled_samples > 0)
        CB_CHECK_CONTAINS(r.note, "throttled samples set aside (sw_power_cap)");
    else
        CB_CHECK_CONTAINS(r.note, "waited for the GPU to leave a throttle (sw_power_cap)");
    printf("fake NVML, throttle-aware: %d set aside, %.3f s waited, note \"%s\"\n",
           r.throttled_samples, r.throttle_wait_s, r.note);
    cb_telemetry_close(t);
    cb_test_remove_run(dir);

    /* A point that throttles the GPU itself: power capping from the 2nd
     * reading, 20 ms of recovery from the 6th, then capped for good. The
     * runner sets the first throttled sample aside and waits (polling every
     * 10 ms, so it sees the 20 ms window); the GPU throttles again before
     * the point has its minimum of 2000 samples (~60 us each), so the
     * runner stops waiting and keeps what the GPU sustains, well inside the
     * 0.25 s it would otherwise have waited. The samples of the next 0.3 s
     * (the run's cap_settle_s: the clock falling to its capped level) and
     * those kept before are set aside (thousands of ~60 us samples; one
     * without the settle), and the 2000 of the row come after. */
    snprintf(script, sizeof script,
             "devices=%s;sm_clock=1980*5,1980*20,1755;reasons=0,4*4,0*20,4;temp=41", dev.uuid);
    run_scripted(&dev, &o, script, dir, &r);
    CB_CHECK_CONTAINS(r.note, "the point's own load throttled the GPU again after it recovered");
    CB_CHECK_CONTAINS(r.note, "set aside until the clock settled under the cap");
    CB_CHECK(r.throttled_samples > 100);
    CB_CHECK(r.summary.n >= 2000);
    CB_CHECK(r.throttle_wait_s < 0.2);
    printf("fake NVML, self-throttling: %d set aside, %.3f s waited, note \"%s\"\n",
           r.throttled_samples, r.throttle_wait_s, r.note);
    cb_test_remove_run(dir);

    /* A point that starts at the cap the point before left (the heaviest
     * GEMMs back to back): throttled for the first readings, the runner
     * waits before sampling until it reads clean, then the GPU throttles
     * again for good during the point's samples. That is the point's own
     * load: it keeps what the GPU sustains at once (after the settle)
     * rather than waiting out its 0.25 s budget a second time. */
    snprintf(script, sizeof script, "devices=%s;sm_clock=1980*9,1755;reasons=4*3,0*6,4;temp=41",
             dev.uuid);
    run_scripted(&dev, &o, script, dir, &r);
    CB_CHECK_CONTAINS(r.note, "the point's own load throttled the GPU again after it recovered");
    CB_CHECK(r.throttle_wait_s > 0.0 && r.throttle_wait_s < 0.2);
    CB_CHECK(r.summary.n >= 2000);
    printf("fake NVML, starting at the cap: %d set aside, %.3f s waited, note \"%s\"\n",
           r.throttled_samples, r.throttle_wait_s, r.note);
    unsetenv("CUBENCH_FAKE_NVML");
    cb_test_remove_run(dir);

    /* The real NVML, when the driver has one. */
    o.library = NULL;
    o.period_s = 0.010;
    t = cb_telemetry_open(&o, (const char *[]){dev.uuid}, 1);
    if (cb_telemetry_sampling(t)) {
        memset(&r, 0, sizeof r);
        CB_CHECK(run_point(&dev, t, dir, false, 400, &r));
        CB_CHECK(r.telemetry.valid);
        CB_CHECK(r.telemetry.sm_clock_min_mhz > 0 &&
                 r.telemetry.sm_clock_max_mhz <= dev.sm_clock_khz / 1e3 + 1);
        CB_CHECK(r.telemetry.mem_clock_median_mhz > 0);
        CB_CHECK(r.telemetry.throttle[0] != '\0');
        CB_CHECK_EQ_INT(samples_with_telemetry(dir, &rows), rows);
        printf("real NVML: SM %.0f-%.0f MHz, memory %.0f MHz, %.0f W, %.0f C, reasons %s\n",
               r.telemetry.sm_clock_min_mhz, r.telemetry.sm_clock_max_mhz,
               r.telemetry.mem_clock_median_mhz, r.telemetry.power_mean_w, r.telemetry.temp_max_c,
               r.telemetry.throttle);
        cb_test_remove_run(dir);
    } else {
        printf("real NVML: not sampled (%s)\n", cb_telemetry_unavailable_reason(t));
    }
    cb_telemetry_close(t);
    CB_CHECK(rmdir(dir) == 0);
    return cb_test_finish("test_telemetry_runner");
}
