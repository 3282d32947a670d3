/* fake_nvml.c - a stand-in for libnvidia-ml.so.1 that the CPU tests load
 * through CUBENCH_NVML_LIBRARY. It exports the entry points cubench uses
 * and answers from a script read at every nvmlInit_v2, from the
 * environment variable CUBENCH_FAKE_NVML: entries separated by ';', e.g.
 *
 *   devices=GPU-aaa,GPU-bbb;sm_clock=1980*3,1755;reasons=0*4,4;temp=40,fail:3
 *
 *   init=fail:CODE          nvmlInit_v2 returns CODE (e.g. 9 driver not loaded)
 *   devices=UUID,...        the devices (default one, GPU-00000000-fake-...)
 *   names=NAME,...          their names (default "Fake GPU")
 *   sm_clock_offset=MHZ,... added to every SM clock reading of each device
 *                           (tells the devices' readings apart)
 *   sm_clock, mem_clock, power_instant, power_usage (mW), temp, reasons,
 *   power_violation, thermal_violation (cumulative ns, default 0)
 *                           per-call sequences: VALUE, VALUE*N (N times),
 *                           fail:CODE (that call fails); the last entry
 *                           repeats. For power_instant, fail:CODE is the
 *                           field's own return code (the call succeeds).
 *   power_limit, power_default_limit (mW), app_clock_sm, app_clock_mem,
 *   max_clock_sm, max_clock_mem, persistence, ecc, mig, pcie_gen,
 *   pcie_width, pcie_max_gen, pcie_max_width, driver, nvml_version
 *                           static values (numbers, or text for the last two)
 *   fail=FUNCTION:CODE,...  that entry point always returns CODE
 *
 * Built twice by tests/CMakeLists.txt: once as today's NVML, once with
 * CB_FAKE_OLD_NVML, which lacks nvmlDeviceGetCurrentClocksEventReasons
 * (drivers before 535) so the fallback to ...ThrottleReasons is tested.
 * Nothing here can change a setting: like cubench, the fake only reads. */
#include "nvml_table.h"

#include <stdbool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the exported entry points (prototypes: -Wmissing-prototypes) ---- */
#define FAKE_API __attribute__((visibility("default")))
FAKE_API cb_nvmlReturn_t nvmlInit_v2(void);
FAKE_API cb_nvmlReturn_t nvmlShutdown(void);
FAKE_API const char *nvmlErrorString(cb_nvmlReturn_t rc);
FAKE_API cb_nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len);
FAKE_API cb_nvmlReturn_t nvmlSystemGetNVMLVersion(char *buf, unsigned int len);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, cb_nvmlDevice_t *dev);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetUUID(cb_nvmlDevice_t dev, char *buf, unsigned int len);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetName(cb_nvmlDevice_t dev, char *buf, unsigned int len);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetClockInfo(cb_nvmlDevice_t dev, int type, unsigned int *mhz);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetMaxClockInfo(cb_nvmlDevice_t dev, int type,
                                                   unsigned int *mhz);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetApplicationsClock(cb_nvmlDevice_t dev, int type,
                                                        unsigned int *mhz);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetPowerUsage(cb_nvmlDevice_t dev, unsigned int *mw);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetFieldValues(cb_nvmlDevice_t dev, int n,
                                                  cb_nvmlFieldValue_t *values);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetTemperature(cb_nvmlDevice_t dev, int sensor, unsigned int *c);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(cb_nvmlDevice_t dev,
                                                                   unsigned long long *r);
#ifndef CB_FAKE_OLD_NVML
FAKE_API cb_nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(cb_nvmlDevice_t dev,
                                                                unsigned long long *r);
#endif
FAKE_API cb_nvmlReturn_t nvmlDeviceGetViolationStatus(cb_nvmlDevice_t dev, int policy,
                                                      cb_nvmlViolationTime_t *out);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(cb_nvmlDevice_t dev, unsigned int *mw);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(cb_nvmlDevice_t dev,
                                                                  unsigned int *mw);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetPersistenceMode(cb_nvmlDevice_t dev, int *mode);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetEccMode(cb_nvmlDevice_t dev, int *cur, int *pending);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetMigMode(cb_nvmlDevice_t dev, unsigned int *cur,
                                              unsigned int *pending);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(cb_nvmlDevice_t dev, unsigned int *g);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(cb_nvmlDevice_t dev, unsigned int *w);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(cb_nvmlDevice_t dev, unsigned int *g);
FAKE_API cb_nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(cb_nvmlDevice_t dev, unsigned int *w);
/* For the tests: calls made since the last nvmlInit_v2, by entry point. */
FAKE_API cb_nvmlReturn_t nvmlDeviceSetGpuLockedClocks(cb_nvmlDevice_t dev, unsigned int min_mhz,
                                                      unsigned int max_mhz);
FAKE_API cb_nvmlReturn_t nvmlDeviceResetGpuLockedClocks(cb_nvmlDevice_t dev);
FAKE_API long cb_fake_nvml_calls(const char *function);

/* ---- the script ---- */

enum { MAX_DEVICES = 8, MAX_SEQ = 4096, MAX_FAILS = 16, MAX_COUNTED = 40 };

typedef struct entry {
    double value;
    int rc; /* non-zero: this call fails with rc */
} entry;

typedef struct sequence {
    entry e[MAX_SEQ];
    int n, pos;
} sequence;

typedef struct fake_device {
    char uuid[96], name[96];
    double sm_clock_offset;
    unsigned locked_mhz; /* 0: not locked */
} fake_device;

static struct {
    int init_rc;
    bool initialised;
    int n_devices;
    fake_device dev[MAX_DEVICES];
    sequence sm_clock, mem_clock, power_instant, power_usage, temp, reasons;
    sequence power_violation, thermal_violation;
    double power_limit, power_default_limit, app_sm, app_mem, max_sm, max_mem;
    double persistence, ecc, mig, pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
    char driver[96], nvml_version[96];
    struct {
        char function[96];
        int rc;
    } fails[MAX_FAILS];
    int n_fails;
    struct {
        const char *function;
        long n;
    } counted[MAX_COUNTED];
} S;

static void count_call(const char *function)
{
    for (int i = 0; i < MAX_COUNTED; i++) {
        if (!S.counted[i].function) S.counted[i].function = function;
        if (S.counted[i].function == function || strcmp(S.counted[i].function, function) == 0) {
            S.counted[i].n++;
            return;
        }
    }
}

long cb_fake_nvml_calls(const char *function)
{
    for (int i = 0; i < MAX_COUNTED && S.counted[i].function; i++)
        if (strcmp(S.counted[i].function, function) == 0) return S.counted[i].n;
    return 0;
}

static void seq_set(sequence *q, double v)
{
    q->n = 1;
    q->pos = 0;
    q->e[0].value = v;
    q->e[0].rc = 0;
}

/* "1980*3,1755,fail:3" */
static void seq_parse(sequence *q, const char *text)
{
    q->n = q->pos = 0;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        entry e = {0, 0};
        int times = 1;
        if (strncmp(tok, "fail:", 5) == 0) {
            e.rc = atoi(tok + 5);
        } else {
            e.value = strtod(tok, NULL);
            char *star = strchr(tok, '*');
            if (star) times = atoi(star + 1);
        }
        for (int k = 0; k < times && q->n < MAX_SEQ; k++)
            q->e[q->n++] = e;
    }
}

/* The next entry of a sequence; the last one repeats. */
static entry seq_next(sequence *q)
{
    entry e = q->e[q->pos < q->n ? q->pos : q->n - 1];
    if (q->pos < q->n) q->pos++;
    return e;
}

/* "A,B,...": at most `max` items into out; how many. */
static int list_parse(const char *text, char out[][96], int max)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
        snprintf(out[n++], 96, "%s", tok);
    return n;
}

static void set_defaults(void)
{
    memset(&S, 0, sizeof S);
    S.n_devices = 1;
    snprintf(S.dev[0].uuid, 96, "GPU-00000000-fake-0000-0000-000000000000");
    seq_set(&S.sm_clock, 1980);
    seq_set(&S.mem_clock, 3201);
    seq_set(&S.power_instant, 350000);
    seq_set(&S.power_usage, 340000);
    seq_set(&S.temp, 40);
    seq_set(&S.reasons, 0);
    seq_set(&S.power_violation, 0);
    seq_set(&S.thermal_violation, 0);
    S.power_limit = S.power_default_limit = 700000;
    S.app_sm = S.max_sm = 1980;
    S.app_mem = S.max_mem = 3201;
    S.persistence = S.ecc = 1;
    S.mig = 0;
    S.pcie_gen = S.pcie_max_gen = 5;
    S.pcie_width = S.pcie_max_width = 16;
    snprintf(S.driver, 96, "580.00.fake");
    snprintf(S.nvml_version, 96, "13.580.00.fake");
}

static void apply_init(const char *value)
{
    S.init_rc = strncmp(value, "fail:", 5) == 0 ? atoi(value + 5) : 0;
}

static void apply_driver(const char *value)
{
    snprintf(S.driver, 96, "%s", value);
}

static void apply_nvml_version(const char *value)
{
    snprintf(S.nvml_version, 96, "%s", value);
}

static void apply_devices(const char *value)
{
    char uuids[MAX_DEVICES][96];
    S.n_devices = list_parse(value, uuids, MAX_DEVICES);
    for (int i = 0; i < S.n_devices; i++)
        memcpy(S.dev[i].uuid, uuids[i], 96);
}

static void apply_names(const char *value)
{
    char names[MAX_DEVICES][96];
    int n = list_parse(value, names, MAX_DEVICES);
    for (int i = 0; i < n; i++)
        memcpy(S.dev[i].name, names[i], 96);
}

static void apply_sm_clock_offset(const char *value)
{
    char offsets[MAX_DEVICES][96];
    int n = list_parse(value, offsets, MAX_DEVICES);
    for (int i = 0; i < n; i++)
        S.dev[i].sm_clock_offset = strtod(offsets[i], NULL);
}

/* "fail=FUNCTION:CODE,...": each function always returns its CODE. */
static void apply_fail(const char *value)
{
    char items[MAX_FAILS][96];
    int n = list_parse(value, items, MAX_FAILS);
    for (int i = 0; i < n; i++) {
        char *colon = strchr(items[i], ':');
        if (!colon) continue;
        *colon = '\0';
        memcpy(S.fails[S.n_fails].function, items[i], 96);
        S.fails[S.n_fails++].rc = atoi(colon + 1);
    }
}

/* One script key: the sequence of readings, the number or the parser it
 * sets (exactly one of the three). */
typedef struct script_key {
    const char *key;
    sequence *q;
    double *v;
    void (*apply)(const char *value);
} script_key;

static void apply(const char *key, const char *value)
{
    static const script_key keys[] = {{"sm_clock", .q = &S.sm_clock},
                                      {"mem_clock", .q = &S.mem_clock},
                                      {"power_instant", .q = &S.power_instant},
                                      {"power_usage", .q = &S.power_usage},
                                      {"temp", .q = &S.temp},
                                      {"reasons", .q = &S.reasons},
                                      {"power_violation", .q = &S.power_violation},
                                      {"thermal_violation", .q = &S.thermal_violation},
                                      {"power_limit", .v = &S.power_limit},
                                      {"power_default_limit", .v = &S.power_default_limit},
                                      {"app_clock_sm", .v = &S.app_sm},
                                      {"app_clock_mem", .v = &S.app_mem},
                                      {"max_clock_sm", .v = &S.max_sm},
                                      {"max_clock_mem", .v = &S.max_mem},
                                      {"persistence", .v = &S.persistence},
                                      {"ecc", .v = &S.ecc},
                                      {"mig", .v = &S.mig},
                                      {"pcie_gen", .v = &S.pcie_gen},
                                      {"pcie_width", .v = &S.pcie_width},
                                      {"pcie_max_gen", .v = &S.pcie_max_gen},
                                      {"pcie_max_width", .v = &S.pcie_max_width},
                                      {"init", .apply = apply_init},
                                      {"driver", .apply = apply_driver},
                                      {"nvml_version", .apply = apply_nvml_version},
                                      {"devices", .apply = apply_devices},
                                      {"names", .apply = apply_names},
                                      {"sm_clock_offset", .apply = apply_sm_clock_offset},
                                      {"fail", .apply = apply_fail}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const script_key *k = &keys[i];
        if (strcmp(key, k->key) != 0) continue;
        if (k->q) seq_parse(k->q, value);
        if (k->v) *k->v = strtod(value, NULL);
        if (k->apply) k->apply(value);
    }
}

static void load_script(void)
{
    set_defaults();
    const char *text = getenv("CUBENCH_FAKE_NVML");
    if (!text) return;
    char buf[16384];
    snprintf(buf, sizeof buf, "%s", text);
    char *save = NULL;
    for (char *item = strtok_r(buf, ";\n", &save); item; item = strtok_r(NULL, ";\n", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) continue;
        *eq = '\0';
        apply(item, eq + 1);
    }
}

/* Count the call; the return code the script gives this entry point. */
static int scripted_rc(const char *function)
{
    count_call(function);
    if (!S.initialised && strcmp(function, "nvmlInit_v2") != 0) return CB_NVML_ERROR_UNINITIALIZED;
    for (int i = 0; i < S.n_fails; i++)
        if (strcmp(S.fails[i].function, function) == 0) return S.fails[i].rc;
    return CB_NVML_SUCCESS;
}

static fake_device *device_of(cb_nvmlDevice_t dev)
{
    fake_device *d = (fake_device *)(void *)dev;
    return d >= S.dev && d < S.dev + S.n_devices ? d : NULL;
}

#define FAKE_CHECK(dev)                                                                            \
    do {                                                                                           \
        int rc_ = scripted_rc(__func__);                                                           \
        if (rc_) return rc_;                                                                       \
        if (!device_of(dev)) return CB_NVML_ERROR_INVALID_ARGUMENT;                                \
    } while (0)

cb_nvmlReturn_t nvmlInit_v2(void)
{
    load_script();
    int rc = scripted_rc(__func__);
    if (!rc) rc = S.init_rc;
    S.initialised = rc == 0;
    return rc;
}

cb_nvmlReturn_t nvmlShutdown(void)
{
    int rc = scripted_rc(__func__);
    S.initialised = false;
    return rc;
}

/* NVML's own wording for the codes the fake returns. */
static const char *const error_strings[] = {
    [CB_NVML_SUCCESS] = "Success",
    [CB_NVML_ERROR_UNINITIALIZED] = "Uninitialized",
    [CB_NVML_ERROR_INVALID_ARGUMENT] = "Invalid Argument",
    [CB_NVML_ERROR_NOT_SUPPORTED] = "Not Supported",
    [CB_NVML_ERROR_NO_PERMISSION] = "Insufficient Permissions",
    [CB_NVML_ERROR_DRIVER_NOT_LOADED] = "Driver Not Loaded",
    [CB_NVML_ERROR_GPU_IS_LOST] = "GPU is lost",
};

const char *nvmlErrorString(cb_nvmlReturn_t rc)
{
    bool known = (int)rc >= 0 && (size_t)rc < sizeof error_strings / sizeof error_strings[0] &&
                 error_strings[rc];
    return known ? error_strings[rc] : "Unknown Error";
}

static cb_nvmlReturn_t copy_text(const char *s, char *buf, unsigned int len)
{
    if (strlen(s) + 1 > len) return CB_NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(buf, s, strlen(s) + 1);
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned int len)
{
    int rc = scripted_rc(__func__);
    return rc ? rc : copy_text(S.driver, buf, len);
}

cb_nvmlReturn_t nvmlSystemGetNVMLVersion(char *buf, unsigned int len)
{
    int rc = scripted_rc(__func__);
    return rc ? rc : copy_text(S.nvml_version, buf, len);
}

cb_nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    int rc = scripted_rc(__func__);
    if (!rc) *count = (unsigned)S.n_devices;
    return rc;
}

cb_nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, cb_nvmlDevice_t *dev)
{
    int rc = scripted_rc(__func__);
    if (rc) return rc;
    if (i >= (unsigned)S.n_devices) return CB_NVML_ERROR_INVALID_ARGUMENT;
    *dev = (cb_nvmlDevice_t)(void *)&S.dev[i];
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceGetUUID(cb_nvmlDevice_t dev, char *buf, unsigned int len)
{
    FAKE_CHECK(dev);
    return copy_text(device_of(dev)->uuid, buf, len);
}

cb_nvmlReturn_t nvmlDeviceGetName(cb_nvmlDevice_t dev, char *buf, unsigned int len)
{
    FAKE_CHECK(dev);
    const char *name = device_of(dev)->name;
    return copy_text(name[0] ? name : "Fake GPU", buf, len);
}

/* A value from a sequence: its rc, or the value into *out. */
static cb_nvmlReturn_t next_uint(sequence *q, unsigned int *out)
{
    entry e = seq_next(q);
    if (e.rc) return e.rc;
    *out = (unsigned int)e.value;
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceGetClockInfo(cb_nvmlDevice_t dev, int type, unsigned int *mhz)
{
    FAKE_CHECK(dev);
    if (type == CB_NVML_CLOCK_SM || type == CB_NVML_CLOCK_GRAPHICS) {
        cb_nvmlReturn_t rc = next_uint(&S.sm_clock, mhz);
        if (rc == CB_NVML_SUCCESS) *mhz += (unsigned int)device_of(dev)->sm_clock_offset;
        return rc;
    }
    if (type == CB_NVML_CLOCK_MEM) return next_uint(&S.mem_clock, mhz);
    return CB_NVML_ERROR_INVALID_ARGUMENT;
}

static cb_nvmlReturn_t by_type(int type, double sm, double mem, unsigned int *mhz)
{
    if (type != CB_NVML_CLOCK_SM && type != CB_NVML_CLOCK_MEM)
        return CB_NVML_ERROR_INVALID_ARGUMENT;
    *mhz = (unsigned int)(type == CB_NVML_CLOCK_SM ? sm : mem);
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceGetMaxClockInfo(cb_nvmlDevice_t dev, int type, unsigned int *mhz)
{
    FAKE_CHECK(dev);
    return by_type(type, S.max_sm, S.max_mem, mhz);
}

cb_nvmlReturn_t nvmlDeviceGetApplicationsClock(cb_nvmlDevice_t dev, int type, unsigned int *mhz)
{
    FAKE_CHECK(dev);
    return by_type(type, S.app_sm, S.app_mem, mhz);
}

cb_nvmlReturn_t nvmlDeviceGetPowerUsage(cb_nvmlDevice_t dev, unsigned int *mw)
{
    FAKE_CHECK(dev);
    return next_uint(&S.power_usage, mw);
}

cb_nvmlReturn_t nvmlDeviceGetFieldValues(cb_nvmlDevice_t dev, int n, cb_nvmlFieldValue_t *values)
{
    FAKE_CHECK(dev);
    for (int i = 0; i < n; i++) {
        cb_nvmlFieldValue_t *v = &values[i];
        v->timestamp = 0;
        v->latencyUsec = 0;
        if (v->fieldId == CB_NVML_FI_DEV_POWER_INSTANT) {
            v->valueType = CB_NVML_VALUE_TYPE_UNSIGNED_INT;
            v->nvmlReturn = next_uint(&S.power_instant, &v->value.uiVal);
        } else {
            v->nvmlReturn = CB_NVML_ERROR_NOT_SUPPORTED;
        }
    }
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceGetTemperature(cb_nvmlDevice_t dev, int sensor, unsigned int *c)
{
    FAKE_CHECK(dev);
    if (sensor != CB_NVML_TEMPERATURE_GPU) return CB_NVML_ERROR_INVALID_ARGUMENT;
    return next_uint(&S.temp, c);
}

static cb_nvmlReturn_t next_reasons(unsigned long long *r)
{
    entry e = seq_next(&S.reasons);
    if (e.rc) return e.rc;
    *r = (unsigned long long)e.value;
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(cb_nvmlDevice_t dev,
                                                          unsigned long long *r)
{
    FAKE_CHECK(dev);
    return next_reasons(r);
}

#ifndef CB_FAKE_OLD_NVML
cb_nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(cb_nvmlDevice_t dev, unsigned long long *r)
{
    FAKE_CHECK(dev);
    return next_reasons(r);
}
#endif

cb_nvmlReturn_t nvmlDeviceGetViolationStatus(cb_nvmlDevice_t dev, int policy,
                                             cb_nvmlViolationTime_t *out)
{
    FAKE_CHECK(dev);
    if (policy != CB_NVML_PERF_POLICY_POWER && policy != CB_NVML_PERF_POLICY_THERMAL)
        return CB_NVML_ERROR_NOT_SUPPORTED;
    entry e =
        seq_next(policy == CB_NVML_PERF_POLICY_POWER ? &S.power_violation : &S.thermal_violation);
    if (e.rc) return e.rc;
    out->referenceTime = 0;
    out->violationTime = (unsigned long long)e.value;
    return CB_NVML_SUCCESS;
}

/* A getter of one fixed value from the script: the device check, then the
 * value as NVML's unsigned int. */
#define FAKE_STATIC_UINT(function, field)                                                          \
    cb_nvmlReturn_t function(cb_nvmlDevice_t dev, unsigned int *out)                               \
    {                                                                                              \
        FAKE_CHECK(dev);                                                                           \
        *out = (unsigned int)S.field;                                                              \
        return CB_NVML_SUCCESS;                                                                    \
    }

FAKE_STATIC_UINT(nvmlDeviceGetEnforcedPowerLimit, power_limit)
FAKE_STATIC_UINT(nvmlDeviceGetPowerManagementDefaultLimit, power_default_limit)
FAKE_STATIC_UINT(nvmlDeviceGetCurrPcieLinkGeneration, pcie_gen)
FAKE_STATIC_UINT(nvmlDeviceGetCurrPcieLinkWidth, pcie_width)
FAKE_STATIC_UINT(nvmlDeviceGetMaxPcieLinkGeneration, pcie_max_gen)
FAKE_STATIC_UINT(nvmlDeviceGetMaxPcieLinkWidth, pcie_max_width)

cb_nvmlReturn_t nvmlDeviceGetPersistenceMode(cb_nvmlDevice_t dev, int *mode)
{
    FAKE_CHECK(dev);
    *mode = (int)S.persistence;
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceGetEccMode(cb_nvmlDevice_t dev, int *cur, int *pending)
{
    FAKE_CHECK(dev);
    *cur = *pending = (int)S.ecc;
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceGetMigMode(cb_nvmlDevice_t dev, unsigned int *cur, unsigned int *pending)
{
    FAKE_CHECK(dev);
    *cur = *pending = (unsigned int)S.mig;
    return CB_NVML_SUCCESS;
}

/* The clock lock leaves a line per call in $CUBENCH_FAKE_NVML_LOG, so a
 * test can see a reset made by a process that has since exited. */
static void log_line(const char *verb, const char *uuid, unsigned mhz)
{
    const char *path = getenv("CUBENCH_FAKE_NVML_LOG");
    if (!path) return;
    FILE *f = fopen(path, "a");
    if (!f) return;
    fprintf(f, "%s %s %u\n", verb, uuid, mhz);
    fclose(f);
}

cb_nvmlReturn_t nvmlDeviceSetGpuLockedClocks(cb_nvmlDevice_t dev, unsigned int min_mhz,
                                             unsigned int max_mhz)
{
    FAKE_CHECK(dev);
    if (min_mhz > max_mhz || max_mhz > S.max_sm) return CB_NVML_ERROR_INVALID_ARGUMENT;
    fake_device *d = device_of(dev);
    d->locked_mhz = max_mhz;
    log_line("lock", d->uuid, max_mhz);
    return CB_NVML_SUCCESS;
}

cb_nvmlReturn_t nvmlDeviceResetGpuLockedClocks(cb_nvmlDevice_t dev)
{
    FAKE_CHECK(dev);
    fake_device *d = device_of(dev);
    d->locked_mhz = 0;
    log_line("reset", d->uuid, 0);
    return CB_NVML_SUCCESS;
}
