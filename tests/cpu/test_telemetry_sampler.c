/* test_telemetry_sampler.c - the sampler thread against tests/fake_nvml:
 * a span's readings lie inside it, in order, at the stated period; a
 * throttle flag at the Nth reading and a clock change reach the point's
 * summary and flag; a span shorter than the period still gets a reading;
 * the thread reads nothing between spans; a call failing mid-run empties
 * its field and is counted, and the run goes on. */
/* test links: cubench_telemetry */
#include "cb_test.h"
#include "test_fake_nvml.h"
#include "nvml_table.h"
#include "cb_common.h"
#include "telemetry.h"
#include "telemetry_reasons.h"
#include "telemetry_summary.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

/* One point's span of `seconds` (0: begin and end at once); end appends its
 * readings to *r and must succeed. */
static void span(cb_telemetry *t, double seconds, cb_telemetry_readings *r)
{
    cb_msg why = {{0}};
    cb_telemetry_point_begin(t);
    sleep_s(seconds);
    CB_CHECK(cb_telemetry_point_end(t, r, &why) == CB_OK);
}

/* The fake opened with `script` at `period`, and one span of `seconds`. */
static cb_telemetry *sampled(const char *script, double period, double seconds,
                             cb_telemetry_readings *r)
{
    cb_telemetry *t = fake_nvml_open(script, period);
    span(t, seconds, r);
    return t;
}

static void test_span(void)
{
    /* The 4th reading on reports power capping, the 6th on a lower clock. */
    cb_telemetry *t = fake_nvml_open("sm_clock=1980*5,1755;reasons=0*3,4", 0.002);
    cb_telemetry_readings r = {0};
    double t0 = cb_now_s();
    span(t, 0.1, &r);
    double t1 = cb_now_s();
    /* 50 periods of 2 ms fit; a loaded 2-core CI machine may wake late, so
     * ask for a fraction, and for never faster than the period. */
    CB_CHECK(r.n >= 6);
    CB_CHECK(r.n <= 0.1 / 0.002 + 2);
    int order = 0, inside = 0;
    for (int i = 0; i < r.n; i++) {
        if (i > 0 && r.v[i].t_s > r.v[i - 1].t_s) order++;
        if (r.v[i].t_s >= t0 && r.v[i].t_s <= t1) inside++;
    }
    CB_CHECK_EQ_INT(order, r.n - 1);
    CB_CHECK_EQ_INT(inside, r.n);
    CB_CHECK(r.v[0].t_s - t0 < 0.05); /* the first reading comes at once */
    CB_CHECK(r.v[2].reasons == 0 && r.v[3].reasons == CB_NVML_REASON_SW_POWER_CAP);
    CB_CHECK_NEAR(r.v[4].sm_clock_mhz, 1980, 0);
    CB_CHECK_NEAR(r.v[5].sm_clock_mhz, 1755, 0);

    cb_point_telemetry pt;
    cb_telemetry_summarise(r.v, r.n, &pt);
    CB_CHECK_STR(pt.throttle, "sw_power_cap");
    CB_CHECK_NEAR(pt.sm_clock_min_mhz, 1755, 0);
    CB_CHECK_NEAR(pt.sm_clock_max_mhz, 1980, 0);
    char flag[160];
    CB_CHECK(cb_telemetry_flag(&pt, flag, sizeof flag));
    CB_CHECK_STR(flag, "throttled: sw_power_cap; SM clock 1755-1980 MHz");

    /* Idle between spans: no NVML calls. */
    long calls = fake_calls("nvmlDeviceGetClockInfo");
    sleep_s(0.03);
    CB_CHECK_EQ_INT(fake_calls("nvmlDeviceGetClockInfo"), calls);

    /* A second span starts afresh; end appends after what *out holds. */
    int before = r.n;
    span(t, 0, &r);
    CB_CHECK(r.n >= before + 1); /* shorter than a period: still one reading */
    CB_CHECK(r.v[before].t_s > r.v[before - 1].t_s);
    cb_telemetry_readings_free(&r);
    cb_telemetry_close(t);
}

static void test_period(void)
{
    /* 20 ms for 150 ms: about 8 readings, never more than the period allows. */
    cb_telemetry_readings r = {0};
    cb_telemetry *t = sampled("sm_clock=1980", 0.020, 0.15, &r);
    CB_CHECK(r.n >= 2 && r.n <= 9);
    if (r.n >= 2) {
        double spacing = (r.v[r.n - 1].t_s - r.v[0].t_s) / (r.n - 1);
        CB_CHECK(spacing >= 0.8 * 0.020);
    }
    cb_telemetry_readings_free(&r);
    cb_telemetry_close(t);
}

static void test_failing_call(void)
{
    /* The temperature call fails from the 3rd reading on, and the clock call
     * once: fields go empty, the readings go on. */
    cb_telemetry_readings r = {0};
    cb_telemetry *t = sampled("temp=40*2,fail:15;sm_clock=1980,fail:999,1980", 0.002, 0.05, &r);
    CB_CHECK(r.n >= 4);
    if (r.n >= 4) {
        CB_CHECK_NEAR(r.v[1].temp_c, 40, 0);
        CB_CHECK(isnan(r.v[2].temp_c) && isnan(r.v[3].temp_c));
        CB_CHECK(isnan(r.v[1].sm_clock_mhz));
        CB_CHECK_NEAR(r.v[2].sm_clock_mhz, 1980, 0);
    }
    cb_point_telemetry pt;
    cb_telemetry_summarise(r.v, r.n, &pt);
    CB_CHECK(pt.valid);
    CB_CHECK_NEAR(pt.temp_max_c, 40, 0);
    CB_CHECK_NEAR(pt.sm_clock_min_mhz, 1980, 0);
    cb_telemetry_readings_free(&r);

    char *buf = fake_nvml_json(cb_telemetry_write_json, t);
    CB_CHECK(buf && strstr(buf, "\"temperature\": {"));
    CB_CHECK(buf && strstr(buf, "\"first_error\": \"GPU is lost (15)\""));
    CB_CHECK(buf && strstr(buf, "\"first_error\": \"Unknown Error (999)\""));
    free(buf);
    cb_telemetry_close(t);
}

int main(void)
{
    void *h = fake_nvml_load();
    if (!h) return cb_test_finish("test_telemetry_sampler");
    test_span();
    test_period();
    test_failing_call();
    unsetenv("CUBENCH_FAKE_NVML");
    dlclose(h);
    return cb_test_finish("test_telemetry_sampler");
}
