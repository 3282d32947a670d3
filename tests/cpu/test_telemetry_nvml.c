/* test_telemetry_nvml.c - NVML at run time against tests/fake_nvml: a
 * library that is absent, an nvmlInit that fails, an old driver without
 * nvmlDeviceGetCurrentClocksEventReasons, failing and missing fields, device
 * matching by UUID, single readings, the violation counters, and meta.json's
 * telemetry block. */
/* test links: cubench_telemetry */
#include "cb_test.h"
#include "test_fake_nvml.h"
#include "telemetry.h"
#include "telemetry_device.h"

#include <dlfcn.h>
#include <stdlib.h>

static void *fake_handle;

static void script(const char *text)
{
    if (text)
        setenv("CUBENCH_FAKE_NVML", text, 1);
    else
        unsetenv("CUBENCH_FAKE_NVML");
}

/* meta.json's telemetry member for `t`, as text (caller frees). */
static char *telemetry_json(const cb_telemetry *t)
{
    return fake_nvml_json(cb_telemetry_write_json, t);
}

static bool json_has(const char *json, const char *text)
{
    bool ok = json && strstr(json, text);
    if (!ok) fprintf(stderr, "  telemetry JSON lacks: %s\n", text);
    return ok;
}

static void test_absent_and_failing_init(void)
{
    cb_nvml n;
    cb_msg why = {{0}};
    CB_CHECK(!cb_nvml_open(&n, "/nonexistent/libnvidia-ml.so.1", &why));
    CB_CHECK(strstr(why.text, "cannot load NVML") != NULL);
    CB_CHECK(n.lib == NULL);
    cb_nvml_close(&n); /* harmless */

    cb_telemetry_options o;
    cb_telemetry_options_defaults(&o);
    o.library = "/nonexistent/libnvidia-ml.so.1";
    cb_telemetry *t = cb_telemetry_open(&o, (const char *[]){"GPU-whatever"}, 1);
    CB_CHECK(t != NULL);
    CB_CHECK(!cb_telemetry_sampling(t));
    CB_CHECK(strstr(cb_telemetry_unavailable_reason(t), "cannot load NVML") != NULL);
    char *js = telemetry_json(t);
    CB_CHECK(json_has(js, "\"source\": null"));
    CB_CHECK(json_has(js, "\"unavailable_reason\": \"cannot load NVML"));
    CB_CHECK(json_has(js, "\"devices\": []"));
    free(js);
    /* begin/end without a sampler: no-ops that keep the point going. */
    cb_telemetry_readings r = {0};
    cb_telemetry_point_begin(t);
    CB_CHECK(cb_telemetry_point_end(t, &r, &why) == CB_OK && r.n == 0);
    cb_telemetry_close(t);

    script("init=fail:9");
    o.library = CB_FAKE_NVML;
    t = cb_telemetry_open(&o, (const char *[]){FAKE_UUID}, 1);
    CB_CHECK(!cb_telemetry_sampling(t));
    CB_CHECK_STR(cb_telemetry_unavailable_reason(t), "nvmlInit_v2 failed: Driver Not Loaded (9)");
    js = telemetry_json(t);
    CB_CHECK(json_has(js, "\"source\": null"));
    free(js);
    cb_telemetry_close(t);

    /* --no-telemetry: the library is not even opened. */
    script(NULL);
    long inits = fake_calls("nvmlInit_v2");
    o.off = true;
    t = cb_telemetry_open(&o, (const char *[]){FAKE_UUID}, 1);
    CB_CHECK_STR(cb_telemetry_unavailable_reason(t), "off (--no-telemetry)");
    CB_CHECK_EQ_INT(fake_calls("nvmlInit_v2"), inits);
    cb_telemetry_close(t);

    /* NULL (out of memory at open) reads as unavailable everywhere. */
    CB_CHECK(!cb_telemetry_sampling(NULL));
    CB_CHECK(cb_telemetry_unavailable_reason(NULL) != NULL);
    cb_telemetry_point_begin(NULL);
    CB_CHECK(cb_telemetry_point_end(NULL, &r, &why) == CB_OK);
    js = telemetry_json(NULL);
    CB_CHECK(json_has(js, "\"source\": null"));
    free(js);
    cb_telemetry_close(NULL);
}

/* `library` opened on the fake scripted by `text`; device 0's handle. */
static cb_nvmlDevice_t open_scripted(const char *text, const char *library, cb_nvml *n)
{
    script(text);
    cb_msg why = {{0}};
    CB_CHECK_MSG(cb_nvml_open(n, library, &why), "%s", why.text);
    cb_nvmlDevice_t h = NULL;
    CB_CHECK(n->fn.DeviceGetHandleByIndex(0, &h) == CB_NVML_SUCCESS);
    return h;
}

static void test_device_info(void)
{
    cb_nvml n;
    cb_nvmlDevice_t h =
        open_scripted("devices=GPU-a;names=Fake H200;power_limit=650000;power_default_limit=700000;"
                      "app_clock_sm=1755;max_clock_sm=1980;mig=1;pcie_gen=4;"
                      "fail=nvmlDeviceGetEccMode:3,nvmlDeviceGetMaxPcieLinkWidth:4",
                      CB_FAKE_NVML, &n);
    CB_CHECK_STR(n.fn.reasons_symbol, "nvmlDeviceGetCurrentClocksEventReasons");
    cb_nvml_device_info d;
    cb_nvml_device_query(&n, h, 0, &d);
    CB_CHECK_STR(d.uuid, "GPU-a");
    CB_CHECK_STR(d.name, "Fake H200");
    CB_CHECK_NEAR(d.power_limit_w, 650, 1e-9);
    CB_CHECK_NEAR(d.power_default_limit_w, 700, 1e-9);
    CB_CHECK_EQ_INT(d.app_clock_sm_mhz, 1755);
    CB_CHECK_EQ_INT(d.max_clock_sm_mhz, 1980);
    CB_CHECK_EQ_INT(d.mig_current, 1);
    CB_CHECK_EQ_INT(d.persistence_mode, 1);
    CB_CHECK_EQ_INT(d.pcie_gen, 4);
    CB_CHECK(d.power == CB_POWER_INSTANT);
    /* The failing calls: unknown, with NVML's words. */
    CB_CHECK_EQ_INT(d.ecc_current, -1);
    CB_CHECK_EQ_INT(d.pcie_max_width, -1);
    CB_CHECK_EQ_INT(d.n_errors, 2);
    CB_CHECK_STR(d.errors[0].field, "ecc_current");
    CB_CHECK_STR(d.errors[0].text, "Not Supported (3)");
    CB_CHECK_STR(d.errors[1].field, "pcie_max_width");
    CB_CHECK_STR(d.errors[1].text, "Insufficient Permissions (4)");
    cb_nvml_close(&n);
    CB_CHECK_EQ_INT(fake_calls("nvmlShutdown"), 1);

    /* Power: no instant field -> the 1 s average; neither -> none. */
    h = open_scripted("power_instant=fail:3", CB_FAKE_NVML, &n);
    cb_nvml_device_query(&n, h, 0, &d);
    CB_CHECK(d.power == CB_POWER_AVERAGE);
    CB_CHECK_EQ_INT(d.n_errors, 0);
    cb_nvml_close(&n);
    h = open_scripted("power_instant=fail:3;fail=nvmlDeviceGetPowerUsage:3", CB_FAKE_NVML, &n);
    cb_nvml_device_query(&n, h, 0, &d);
    CB_CHECK(d.power == CB_POWER_NONE);
    CB_CHECK_EQ_INT(d.n_errors, 1);
    CB_CHECK_STR(d.errors[0].field, "power");
    cb_nvml_close(&n);
}

static void test_readings(void)
{
    cb_nvml n;
    cb_nvmlDevice_t h = open_scripted("sm_clock=1980,1755;mem_clock=3201;power_instant=350000,"
                                      "fail:3;temp=40,fail:999;reasons=0,4",
                                      CB_FAKE_NVML, &n);
    cb_sampler_errors e;
    memset(&e, 0, sizeof e);
    cb_telemetry_reading r1, r2;
    cb_sampler_read(&n, h, CB_POWER_INSTANT, &r1, &e);
    cb_sampler_read(&n, h, CB_POWER_INSTANT, &r2, &e);
    CB_CHECK_NEAR(r1.sm_clock_mhz, 1980, 0);
    CB_CHECK_NEAR(r1.mem_clock_mhz, 3201, 0);
    CB_CHECK_NEAR(r1.power_w, 350, 1e-9);
    CB_CHECK_NEAR(r1.temp_c, 40, 0);
    CB_CHECK(r1.reasons_valid && r1.reasons == 0);
    CB_CHECK_NEAR(r2.sm_clock_mhz, 1755, 0);
    CB_CHECK(r2.reasons_valid && r2.reasons == CB_NVML_REASON_SW_POWER_CAP);
    /* The second reading's power field and temperature call failed: empty
     * fields, counted with NVML's words; the reading itself stands. */
    CB_CHECK(isnan(r2.power_w));
    CB_CHECK(isnan(r2.temp_c));
    CB_CHECK_EQ_INT(e.readings, 2);
    CB_CHECK_EQ_INT(e.count[CB_FIELD_POWER], 1);
    CB_CHECK_STR(e.first[CB_FIELD_POWER], "Not Supported (3)");
    CB_CHECK_EQ_INT(e.count[CB_FIELD_TEMP], 1);
    CB_CHECK_STR(e.first[CB_FIELD_TEMP], "Unknown Error (999)");
    CB_CHECK(r1.t_s > 0 && r2.t_s >= r1.t_s);
    cb_nvml_close(&n);

    /* A driver before 535: the older name, the same bits. */
    h = open_scripted("reasons=64", CB_FAKE_NVML_OLD, &n);
    CB_CHECK_STR(n.fn.reasons_symbol, "nvmlDeviceGetCurrentClocksThrottleReasons");
    cb_sampler_read(&n, h, CB_POWER_NONE, &r1, NULL);
    CB_CHECK(r1.reasons_valid && r1.reasons == CB_NVML_REASON_HW_THERMAL_SLOWDOWN);
    CB_CHECK(isnan(r1.power_w)); /* no power source: not read */
    cb_nvml_close(&n);
}

/* The violation counters: cumulative ns for power and thermal, read for
 * the selected device; a missing thermal counter leaves 0, a failing power
 * one says no. */
static void test_violation_counters(void)
{
    cb_telemetry_options o = fake_nvml_options(0.005);
    script("power_violation=1000,5000,fail:3;thermal_violation=7,fail:3,9");
    cb_telemetry *t = cb_telemetry_open(&o, (const char *[]){FAKE_UUID}, 1);
    CB_CHECK(cb_telemetry_sampling(t));
    cb_violation_ns v;
    CB_CHECK(cb_telemetry_violation_now(t, &v));
    CB_CHECK(v.power == 1000 && v.thermal == 7);
    CB_CHECK(cb_telemetry_violation_now(t, &v));
    CB_CHECK(v.power == 5000 && v.thermal == 0);
    CB_CHECK(!cb_telemetry_violation_now(t, &v));
    CB_CHECK(v.power == 0 && v.thermal == 0);
    cb_telemetry_close(t);
    CB_CHECK(!cb_telemetry_violation_now(NULL, &v));
}

static void test_matching_and_json(void)
{
    cb_telemetry_options o = fake_nvml_options(0.005);
    script("devices=GPU-aaaa,GPU-bbbb;names=Zero,One;fail=nvmlDeviceGetMigMode:3");
    /* By UUID (CUDA and NVML may order devices differently), any case. */
    cb_telemetry *t = cb_telemetry_open(&o, (const char *[]){"gpu-BBBB"}, 1);
    CB_CHECK(cb_telemetry_sampling(t));
    CB_CHECK(cb_telemetry_unavailable_reason(t) == NULL);
    char *js = telemetry_json(t);
    static const char *const want[] = {
        "\"source\": \"nvml\"",
        "\"unavailable_reason\": null",
        "\"period_ms\": 5",
        "\"sampled_device_uuids\": [\n",
        "\"GPU-bbbb\"\n",
        "\"power_source\": \"instant\"",
        "\"driver_version\": \"580.00.fake\"",
        "\"nvml_version\": \"13.580.00.fake\"",
        "\"throttle_counted\": [\n",
        "\"mig_mode_current\": null",
        "\"mig_mode_current\": \"Not Supported (3)\"",
        "\"power_limit_enforced_w\": 700",
        "\"name\": \"One\"",
    };
    for (int i = 0; i < CB_ARRAY_LEN(want); i++)
        CB_CHECK(json_has(js, want[i]));
    /* Exactly one device is the sampled one: the second. */
    const char *first = js ? strstr(js, "\"sampled\": false") : NULL;
    const char *second = js ? strstr(js, "\"sampled\": true") : NULL;
    CB_CHECK(first && second && first < second);
    free(js);
    cb_telemetry_close(t);

    t = cb_telemetry_open(&o, (const char *[]){"GPU-cccc"}, 1);
    CB_CHECK(!cb_telemetry_sampling(t));
    CB_CHECK(strstr(cb_telemetry_unavailable_reason(t), "no device with the CUDA device's UUID") !=
             NULL);
    js = telemetry_json(t);
    CB_CHECK(json_has(js, "\"source\": \"nvml\""));
    CB_CHECK(json_has(js, "\"sampled_device_uuids\": []"));
    CB_CHECK(json_has(js, "\"uuid\": \"GPU-aaaa\""));
    free(js);
    cb_telemetry_close(t);

    /* No CUDA device: NVML's devices are still listed for meta.json. */
    t = cb_telemetry_open(&o, NULL, 0);
    CB_CHECK(!cb_telemetry_sampling(t));
    CB_CHECK(strstr(cb_telemetry_unavailable_reason(t), "no CUDA device") != NULL);
    cb_telemetry_close(t);

    script("fail=nvmlDeviceGetCount_v2:999");
    t = cb_telemetry_open(&o, (const char *[]){FAKE_UUID}, 1);
    CB_CHECK(!cb_telemetry_sampling(t));
    CB_CHECK_STR(cb_telemetry_unavailable_reason(t),
                 "nvmlDeviceGetCount_v2 failed: Unknown Error (999)");
    js = telemetry_json(t);
    CB_CHECK(json_has(js, "\"device_count\": \"Unknown Error (999)\""));
    free(js);
    cb_telemetry_close(t);

    script("fail=nvmlSystemGetDriverVersion:3");
    t = cb_telemetry_open(&o, (const char *[]){FAKE_UUID}, 1);
    CB_CHECK(cb_telemetry_sampling(t)); /* a missing version is no reason to stop */
    js = telemetry_json(t);
    CB_CHECK(json_has(js, "\"driver_version\": null"));
    CB_CHECK(json_has(js, "\"driver_version\": \"Not Supported (3)\""));
    free(js);
    cb_telemetry_close(t);
}

static void test_several_devices(void)
{
    /* --device all: the sampler follows the pass's device; a run device NVML
     * does not see is named in meta.json, and its points are not sampled. */
    cb_telemetry_options o = fake_nvml_options(0.001);
    script("devices=GPU-aaaa,GPU-bbbb,GPU-dddd;sm_clock=1000;sm_clock_offset=0,100,200");
    const char *run[] = {"GPU-aaaa", "GPU-cccc", "GPU-bbbb"};
    cb_telemetry *t = cb_telemetry_open(&o, run, 3);
    CB_CHECK(cb_telemetry_sampling(t));
    CB_CHECK(!cb_telemetry_select(t, "GPU-cccc"));
    CB_CHECK(!cb_telemetry_select(t, "GPU-dddd")); /* seen by NVML, not in the run */
    double clock[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        CB_CHECK(cb_telemetry_select(t, k == 0 ? "GPU-aaaa" : "GPU-bbbb"));
        cb_telemetry_readings r = {0};
        cb_msg why = {{0}};
        cb_telemetry_point_begin(t);
        CB_CHECK(cb_telemetry_point_end(t, &r, &why) == CB_OK && r.n >= 1);
        if (r.n >= 1) clock[k] = r.v[0].sm_clock_mhz;
        cb_telemetry_readings_free(&r);
    }
    CB_CHECK_NEAR(clock[0], 1000, 0);
    CB_CHECK_NEAR(clock[1], 1100, 0);
    char *js = telemetry_json(t);
    CB_CHECK(json_has(js, "\"GPU-aaaa\",\n"));
    CB_CHECK(json_has(js, "\"cuda_devices_not_seen\": \"GPU-cccc\""));
    free(js);
    cb_telemetry_close(t);
    CB_CHECK(!cb_telemetry_select(NULL, "GPU-aaaa"));
}

int main(void)
{
    fake_handle = fake_nvml_load();
    if (!fake_handle) return cb_test_finish("test_telemetry_nvml");
    test_absent_and_failing_init();
    test_device_info();
    test_readings();
    test_violation_counters();
    test_matching_and_json();
    test_several_devices();
    script(NULL);
    dlclose(fake_handle);
    return cb_test_finish("test_telemetry_nvml");
}
