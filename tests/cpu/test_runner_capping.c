/* test_runner_capping.c - NVML's violation counters across a round mark
 * that round as capped: its samples and the row carry the reason word, so
 * `cubench compare` gives the point its `throttled` verdict, and the note
 * says how long NVML counted, even when every 10 ms reading showed full
 * clocks and no reason (on the H200, tensor-core GEMMs read 1980 MHz while
 * the counter ran). A round whose counters did not move stays clean, and
 * so does a counter that went backwards (a driver reload). */
/* test links: cubench_engine */
#include "cb_test.h"
#include "cb_common.h"
#include "runner_point.h"

#include <math.h>
#include <string.h>

enum { N = 6 };

/* A point of three rounds of two samples each, one clean reading: what
 * cb_point_telemetry_finish reads, all on the test's stack. */
typedef struct fixture {
    point_run pr;
    cb_result r;
    cb_telemetry_reading reading;
    double time_s[N], host_t0[N];
    int replicate[N];
} fixture;

static void fixture_init(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->pr.r = &f->r;
    f->pr.batch = 1;
    for (int i = 0; i < N; i++) {
        f->time_s[i] = 1e-3;
        f->host_t0[i] = 10.0 + 0.01 * i;
        f->replicate[i] = i / 2;
    }
    f->pr.samples.time_s = f->time_s;
    f->pr.samples.host_t0 = f->host_t0;
    f->pr.samples.replicate = f->replicate;
    f->pr.samples.n = N;
    f->reading = (cb_telemetry_reading){.t_s = 10.02,
                                        .sm_clock_mhz = 1980,
                                        .mem_clock_mhz = 3201,
                                        .power_w = 690,
                                        .temp_c = 50,
                                        .reasons = 0,
                                        .reasons_valid = true};
    f->pr.readings.v = &f->reading;
    f->pr.readings.n = 1;
}

/* Free what cb_point_telemetry_finish allocated (the readings are ours). */
static void fixture_free(fixture *f)
{
    f->pr.readings.v = NULL;
    cb_point_telemetry_free(&f->pr);
}

static void test_capped_round(void)
{
    fixture f;
    fixture_init(&f);
    const cb_violation_ns zero = {0, 0}, round1 = {2500000, 0};
    cb_point_capping_add(&f.pr, 0, &zero, &zero);
    cb_point_capping_add(&f.pr, 1, &zero, &round1);
    cb_point_capping_add(&f.pr, 2, &round1, &round1);
    cb_point_telemetry_finish(&f.pr);
    CB_CHECK(f.r.telemetry.valid);
    CB_CHECK(f.pr.sample_throttle != NULL);
    if (f.pr.sample_throttle) {
        for (int i = 0; i < N; i++) {
            const char *want = f.replicate[i] == 1 ? "sw_power_cap" : "none";
            CB_CHECK(f.pr.sample_throttle[i] && strcmp(f.pr.sample_throttle[i], want) == 0);
        }
    }
    CB_CHECK_STR(f.r.telemetry.throttle, "sw_power_cap");
    CB_CHECK(strstr(f.r.note, "NVML counted 2.5 ms of power capping while sampling") != NULL);
    CB_CHECK(strstr(f.r.note, "throttled: sw_power_cap") != NULL);
    fixture_free(&f);
}

static void test_clean_and_backwards(void)
{
    fixture f;
    fixture_init(&f);
    const cb_violation_ns high = {9000000, 4000}, low = {100, 0};
    cb_point_capping_add(&f.pr, 0, &high, &low); /* a driver reload: says nothing */
    cb_point_capping_add(&f.pr, 1, &low, &low);
    cb_point_telemetry_finish(&f.pr);
    CB_CHECK_STR(f.r.telemetry.throttle, "none");
    CB_CHECK(strstr(f.r.note, "NVML counted") == NULL);
    for (int i = 0; f.pr.sample_throttle && i < N; i++)
        CB_CHECK(f.pr.sample_throttle[i] && strcmp(f.pr.sample_throttle[i], "none") == 0);
    fixture_free(&f);
}

/* Thermal only: the word is the thermal one and the note names both. */
static void test_thermal(void)
{
    fixture f;
    fixture_init(&f);
    const cb_violation_ns zero = {0, 0}, hot = {0, 1000000};
    cb_point_capping_add(&f.pr, 2, &zero, &hot);
    cb_point_telemetry_finish(&f.pr);
    CB_CHECK_STR(f.r.telemetry.throttle, "sw_thermal_slowdown");
    CB_CHECK(strstr(f.r.note, "0.0 ms of power capping and 1.0 ms of thermal slowdown") != NULL);
    CB_CHECK(f.pr.sample_throttle && strcmp(f.pr.sample_throttle[5], "sw_thermal_slowdown") == 0);
    CB_CHECK(f.pr.sample_throttle && strcmp(f.pr.sample_throttle[0], "none") == 0);
    fixture_free(&f);
}

int main(void)
{
    test_capped_round();
    test_clean_and_backwards();
    test_thermal();
    return cb_test_finish("test_runner_capping");
}
