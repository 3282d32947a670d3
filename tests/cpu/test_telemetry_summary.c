/* test_telemetry_summary.c - a point's readings become its results.csv
 * fields (clock min/median/max, memory clock, power, temperature, reasons)
 * and each sample's nearest SM clock and reasons. */
/* test links: cubench_telemetry */
#include "cb_test.h"
#include "nvml_table.h"
#include "telemetry_summary.h"

static cb_telemetry_reading reading(double t, double sm, double power, double temp,
                                    long long reasons)
{
    cb_telemetry_reading r = {.t_s = t,
                              .sm_clock_mhz = sm,
                              .mem_clock_mhz = 3201,
                              .power_w = power,
                              .temp_c = temp,
                              .reasons = reasons < 0 ? 0 : (uint64_t)reasons,
                              .reasons_valid = reasons >= 0};
    return r;
}

static void test_point(void)
{
    cb_telemetry_reading r[] = {
        reading(1.00, 1980, 300, 40, 0), reading(1.01, 1965, 400, 55, CB_NVML_REASON_SW_POWER_CAP),
        reading(1.02, 1755, NAN, 50, -1), /* power and reasons failed */
        reading(1.03, NAN, 500, NAN, 0),  /* clock and temperature failed */
    };
    cb_point_telemetry t;
    cb_telemetry_summarise(r, 4, &t);
    CB_CHECK(t.valid);
    CB_CHECK_NEAR(t.sm_clock_min_mhz, 1755, 0);
    CB_CHECK_NEAR(t.sm_clock_median_mhz, 1965, 0);
    CB_CHECK_NEAR(t.sm_clock_max_mhz, 1980, 0);
    CB_CHECK_NEAR(t.mem_clock_median_mhz, 3201, 0);
    CB_CHECK_NEAR(t.power_mean_w, 400, 1e-9);
    CB_CHECK_NEAR(t.temp_max_c, 55, 0);
    CB_CHECK_STR(t.throttle, "sw_power_cap");

    /* An even count: the median is the mean of the middle two. */
    cb_telemetry_summarise(r, 2, &t);
    CB_CHECK_NEAR(t.sm_clock_median_mhz, 1972.5, 1e-9);

    cb_telemetry_summarise(r, 0, &t);
    CB_CHECK(!t.valid);
    CB_CHECK(isnan(t.sm_clock_min_mhz) && isnan(t.power_mean_w));

    /* Reasons never read: empty (unknown), not "none". */
    cb_telemetry_reading no_reasons[] = {reading(0, 1980, 300, 40, -1)};
    cb_telemetry_summarise(no_reasons, 1, &t);
    CB_CHECK_STR(t.throttle, "");
    cb_telemetry_reading quiet[] = {reading(0, 1980, 300, 40, 0), reading(1, 1980, 300, 40, 0)};
    cb_telemetry_summarise(quiet, 2, &t);
    CB_CHECK_STR(t.throttle, "none");
    /* No power from this GPU: NAN, not 0. */
    cb_telemetry_reading no_power[] = {reading(0, 1980, NAN, 40, 0)};
    cb_telemetry_summarise(no_power, 1, &t);
    CB_CHECK(isnan(t.power_mean_w));
}

static void test_samples(void)
{
    /* Readings every 10 ms from t = 0; the clock falls at 30 ms and power
     * capping shows at 20 ms only. */
    cb_telemetry_reading r[] = {
        reading(0.000, 1980, 300, 40, 0),
        reading(0.010, 1980, 300, 40, 0),
        reading(0.020, 1980, 300, 40, CB_NVML_REASON_SW_POWER_CAP),
        reading(0.030, 1755, 300, 40, 0),
        reading(0.040, 1755, 300, 40, -1),
    };
    /* 1: a 1 ms sample at 1 ms -> nearest is t=0.
     * 2: a 1 ms sample at 28.6 ms (middle 29.1) -> nearest t=0.030, no reading inside.
     * 3: 3 runs of 26/3 ms from 13 ms -> [13, 39] ms spans the readings at 20 and
     *    30: the union of their reasons; the middle, 26 ms, is nearest 30.
     * 4: after the last reading -> the last one; its reasons failed: NULL.
     * 5: a zero-length sample exactly on a reading. */
    double t0[] = {0.001, 0.0286, 0.013, 0.050, 0.010};
    double time_s[] = {0.001, 0.001, 0, 0.001, 0};
    int batch = 1;
    double clock[5];
    const char *why[5];
    double run_time[5];
    for (int i = 0; i < 5; i++)
        run_time[i] = time_s[i];
    run_time[2] = 0.026 / 3; /* per run, batch 3 */
    cb_telemetry_per_sample(r, 5, t0, run_time, batch, 2, clock, why);
    CB_CHECK_NEAR(clock[0], 1980, 0);
    CB_CHECK_STR(why[0], "none");
    CB_CHECK_NEAR(clock[1], 1755, 0);
    CB_CHECK_STR(why[1], "none");
    cb_telemetry_per_sample(r, 5, t0 + 2, run_time + 2, 3, 1, clock + 2, why + 2);
    CB_CHECK_NEAR(clock[2], 1755, 0);
    CB_CHECK_STR(why[2], "sw_power_cap");
    cb_telemetry_per_sample(r, 5, t0 + 3, run_time + 3, 1, 2, clock + 3, why + 3);
    CB_CHECK_NEAR(clock[3], 1755, 0);
    CB_CHECK(why[3] == NULL);
    CB_CHECK_NEAR(clock[4], 1980, 0);
    CB_CHECK_STR(why[4], "none");
    /* No readings at all: nothing to say. */
    cb_telemetry_per_sample(r, 0, t0, run_time, 1, 2, clock, why);
    CB_CHECK(isnan(clock[0]) && isnan(clock[1]) && why[0] == NULL && why[1] == NULL);
}

int main(void)
{
    test_point();
    test_samples();
    return cb_test_finish("test_telemetry_summary");
}
