/* test_counters_fake.h - stand-ins for CUPTI behind the counters module's
 * tables (counters_ops.h), shared by the counters tests.
 *
 * The host stand-in answers from recorded metric lists
 * (tests/data/cupti-metrics/CHIP.tsv.gz: every base metric of the chip,
 * its type and unit, as CUPTI 13.0's host API lists them) and CUPTI's name
 * grammar: a counter takes one of 4 rollups and optionally one of 10
 * submetrics, a ratio .pct/.ratio/.max_rate, a throughput a rollup and
 * .pct_of_peak_sustained_active/elapsed (test_counters_names checks this
 * grammar against the real host API where it can run). The real host API
 * cannot run under AddressSanitizer (libcupti dlopens libnvperf_host with
 * RTLD_DEEPBIND), so the tests use this everywhere.
 *
 * The target stand-in plays a range profiler: a script says which call
 * fails with which result, how many passes CUPTI wants, how many ranges
 * each scope records (per kernel, whole run), and what each metric
 * evaluates to in each range; counters record every call. */
#ifndef CB_TEST_COUNTERS_FAKE_H
#define CB_TEST_COUNTERS_FAKE_H

#include "counters_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- host: recorded metric lists ---- */

#define FAKE_MAX_BASES 8192

typedef struct fake_chip {
    char name[16];
    int n;
    char *base[FAKE_MAX_BASES];
    int type[FAKE_MAX_BASES];
    char *unit[FAKE_MAX_BASES];
    const char *by_type[3][FAKE_MAX_BASES]; /* base_metrics' answer */
    size_t n_by_type[3];
} fake_chip;

static fake_chip fake_chips[2];
static const char *fake_chip_names[2];
static size_t fake_n_chips;

/* Load CB_TEST_DATA_DIR/cupti-metrics/NAME.tsv.gz: "type<TAB>base<TAB>unit". */
static bool fake_load_chip(fake_chip *c, const char *name)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s/cupti-metrics/%s.tsv.gz'", CB_TEST_DATA_DIR, name);
    FILE *p = popen(cmd, "r");
    if (!p) return false;
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    char line[512];
    while (fgets(line, sizeof line, p) && c->n < FAKE_MAX_BASES) {
        if (line[0] == '#') continue;
        line[strcspn(line, "\r\n")] = '\0';
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (!t1 || !t2) continue;
        *t1 = *t2 = '\0';
        int type = atoi(line);
        if (type < 0 || type > 2) continue;
        c->base[c->n] = strdup(t1 + 1);
        c->unit[c->n] = strdup(t2 + 1);
        c->type[c->n] = type;
        c->by_type[type][c->n_by_type[type]++] = c->base[c->n];
        c->n++;
    }
    return pclose(p) == 0 && c->n > 100;
}

static bool fake_host_load(void)
{
    if (fake_n_chips) return true;
    static const char *names[] = {"GA100", "GH100"};
    for (int i = 0; i < 2; i++) {
        if (!fake_load_chip(&fake_chips[i], names[i])) {
            fprintf(stderr, "cannot read the %s metric list under %s/cupti-metrics\n", names[i],
                    CB_TEST_DATA_DIR);
            return false;
        }
        fake_chip_names[i] = fake_chips[i].name;
    }
    fake_n_chips = 2;
    return true;
}

static const char *const fake_rollups[] = {".avg", ".max", ".min", ".sum"};
static const char *const fake_counter_subs[] = {"",
                                                ".peak_sustained",
                                                ".peak_sustained_active",
                                                ".peak_sustained_active.per_second",
                                                ".peak_sustained_elapsed",
                                                ".peak_sustained_elapsed.per_second",
                                                ".per_cycle_active",
                                                ".per_cycle_elapsed",
                                                ".per_second",
                                                ".pct_of_peak_sustained_active",
                                                ".pct_of_peak_sustained_elapsed"};
static const char *const fake_ratio_subs[] = {".max_rate", ".pct", ".ratio"};
static const char *const fake_throughput_subs[] = {".pct_of_peak_sustained_active",
                                                   ".pct_of_peak_sustained_elapsed"};

/* Every valid suffix of a type, in CUPTI's order (rollup-major). */
static size_t fake_suffixes(int type, const char **out)
{
    static char store[3][64][64];
    size_t n = 0;
    if (type == CB_METRIC_RATIO) {
        for (int i = 0; i < 3; i++)
            out[n++] = fake_ratio_subs[i];
        return n;
    }
    for (int r = 0; r < 4; r++) {
        int m = type == CB_METRIC_COUNTER ? 11 : 2;
        for (int s = 0; s < m; s++) {
            const char *sub =
                type == CB_METRIC_COUNTER ? fake_counter_subs[s] : fake_throughput_subs[s];
            snprintf(store[type][n], sizeof store[type][n], "%s%s", fake_rollups[r], sub);
            out[n] = store[type][n];
            n++;
        }
    }
    return n;
}

static int fake_find_base(const fake_chip *c, const char *base, size_t len)
{
    for (int i = 0; i < c->n; i++)
        if (strlen(c->base[i]) == len && strncmp(c->base[i], base, len) == 0) return i;
    return -1;
}

/* 1 valid full name, 0 a bare base, -1 unknown; *index the base. */
static int fake_classify(const fake_chip *c, const char *name, int *index)
{
    size_t cut = strcspn(name, ".");
    *index = fake_find_base(c, name, cut);
    if (*index < 0) return -1;
    if (!name[cut]) return 0;
    const char *subs[64];
    size_t n = fake_suffixes(c->type[*index], subs);
    for (size_t i = 0; i < n; i++)
        if (strcmp(subs[i], name + cut) == 0) return 1;
    return -1;
}

static CUptiResult fake_host_chips(const char *const **names, size_t *n)
{
    *names = fake_chip_names;
    *n = fake_n_chips;
    return CUPTI_SUCCESS;
}

static int fake_host_opens;

static CUptiResult fake_host_open(const char *chip, void **host)
{
    for (size_t i = 0; i < fake_n_chips; i++)
        if (strcmp(fake_chips[i].name, chip) == 0) {
            *host = &fake_chips[i];
            fake_host_opens++;
            return CUPTI_SUCCESS;
        }
    return CUPTI_ERROR_INVALID_CHIP_NAME;
}

static void fake_host_close(void *host)
{
    (void)host;
    fake_host_opens--;
}

static CUptiResult fake_host_base_metrics(void *host, int type, const char *const **names,
                                          size_t *n)
{
    fake_chip *c = host;
    *names = c->by_type[type];
    *n = c->n_by_type[type];
    return CUPTI_SUCCESS;
}

static CUptiResult fake_host_properties(void *host, const char *name, cb_metric_props *props)
{
    fake_chip *c = host;
    int i = -1;
    if (fake_classify(c, name, &i) < 0) return CUPTI_ERROR_INVALID_METRIC_NAME;
    static char unit[64];
    const char *dot = strrchr(name, '.');
    if (dot && (strstr(dot, "pct") || strstr(name, ".pct_of_peak")))
        snprintf(unit, sizeof unit, "percent");
    else if (dot && strcmp(dot, ".per_second") == 0)
        snprintf(unit, sizeof unit, "%s/second", c->unit[i]);
    else
        snprintf(unit, sizeof unit, "%s", c->unit[i]);
    props->dim_unit = unit;
    props->description = "recorded metric";
    props->type = c->type[i];
    return CUPTI_SUCCESS;
}

static CUptiResult fake_host_submetrics(void *host, const char *base, int type,
                                        const char *const **subs, size_t *n)
{
    fake_chip *c = host;
    int i = -1;
    if (fake_classify(c, base, &i) < 0 || c->type[i] != type)
        return CUPTI_ERROR_INVALID_METRIC_NAME;
    static const char *list[64];
    *n = fake_suffixes(type, list);
    *subs = list;
    return CUPTI_SUCCESS;
}

static CUptiResult fake_host_config(void *host, const char *const *names, size_t n, uint8_t **image,
                                    size_t *size, size_t *passes)
{
    fake_chip *c = host;
    for (size_t k = 0; k < n; k++) {
        int i = -1;
        if (fake_classify(c, names[k], &i) != 1) return CUPTI_ERROR_INVALID_PARAMETER;
    }
    *image = malloc(16);
    if (!*image) return CUPTI_ERROR_OUT_OF_MEMORY;
    memset(*image, 0xc5, 16);
    *size = 16;
    *passes = 1 + n / 4;
    return CUPTI_SUCCESS;
}

/* What each metric evaluates to in each range: a test sets fake_value.
 * fake_evaluated records the ranges asked for, in order. */
static double (*fake_value)(const char *name, size_t range);
static size_t fake_evaluated[16];
static int fake_n_evaluated;

static CUptiResult fake_host_evaluate(void *host, const uint8_t *data, size_t size, size_t range,
                                      const char *const *names, size_t n, double *values)
{
    (void)host;
    if (!data || size == 0) return CUPTI_ERROR_INVALID_PARAMETER;
    if (fake_n_evaluated < 16) fake_evaluated[fake_n_evaluated++] = range;
    for (size_t i = 0; i < n; i++)
        values[i] = fake_value ? fake_value(names[i], range) : 1.0;
    return CUPTI_SUCCESS;
}

/* CUPTI's own names for the results the fake returns, each spelled once
 * (stringized); any other result reads CUPTI_ERROR_OTHER. */
static const char *fake_result_name(CUptiResult r)
{
#define FAKE_RESULT(code)                                                                          \
    {                                                                                              \
        code, #code                                                                                \
    }
    static const struct {
        CUptiResult code;
        const char *name;
    } results[] = {FAKE_RESULT(CUPTI_SUCCESS),
                   FAKE_RESULT(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES),
                   FAKE_RESULT(CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED),
                   FAKE_RESULT(CUPTI_ERROR_HARDWARE_BUSY),
                   FAKE_RESULT(CUPTI_ERROR_UNKNOWN),
                   FAKE_RESULT(CUPTI_ERROR_NOT_INITIALIZED)};
#undef FAKE_RESULT
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (results[i].code == r) return results[i].name;
    return "CUPTI_ERROR_OTHER";
}

static const cb_counters_host_ops fake_host = {.chips = fake_host_chips,
                                               .open = fake_host_open,
                                               .close = fake_host_close,
                                               .base_metrics = fake_host_base_metrics,
                                               .properties = fake_host_properties,
                                               .submetrics = fake_host_submetrics,
                                               .config = fake_host_config,
                                               .evaluate = fake_host_evaluate,
                                               .result_name = fake_result_name};

/* ---- target: a scripted range profiler ---- */

typedef enum fake_call {
    FAKE_INITIALIZE,
    FAKE_CHIP_NAME,
    FAKE_DEVICE_SUPPORTED,
    FAKE_CONTEXT,
    FAKE_AVAILABILITY,
    FAKE_ENABLE,
    FAKE_DISABLE,
    FAKE_COUNTER_DATA,
    FAKE_SET_CONFIG,
    FAKE_START,
    FAKE_PUSH,
    FAKE_POP,
    FAKE_STOP,
    FAKE_DECODE,
    FAKE_RANGES,
    FAKE_CALLS
} fake_call;

typedef struct fake_script {
    const char *chip;      /* what chip_name answers ("GH100")          */
    fake_call fail_at;     /* FAKE_CALLS: nothing fails                 */
    CUptiResult fail_with; /* the result of the failing call            */
    int fail_times;        /* how many times it fails (0: every time)   */
    int passes;            /* stop says all submitted on this pass      */
    int overall;           /* device_supported's isSupported (3: yes)   */
    int architecture;      /* ... its architecture field                */
    /* What decode and ranges report, per scope (cb_counters_scope):
     * ranges[CB_COUNTERS_PER_KERNEL] kernels (1), [WHOLE_RUN] 1. */
    size_t dropped[2], ranges[2];
    int calls[FAKE_CALLS];   /* counts, filled by the stand-in                 */
    int configs[2];          /* set_config calls per scope                     */
    size_t max_ranges[2];    /* what counter_data and set_config were given    */
    size_t data_ranges;      /* internal: counter_data's max_ranges            */
    cb_counters_scope scope; /* internal: the scope set_config was given       */
    int stops_in_pass;       /* internal: stops since set_config               */
    int failed;              /* internal: failures handed out                  */
} fake_script;

static fake_script fake;

static void fake_reset(const char *chip)
{
    memset(&fake, 0, sizeof fake);
    fake.chip = chip;
    fake.fail_at = FAKE_CALLS;
    fake.passes = 3;
    fake.overall = fake.architecture = 3;
    fake.ranges[CB_COUNTERS_PER_KERNEL] = fake.ranges[CB_COUNTERS_WHOLE_RUN] = 1;
    fake_n_evaluated = 0;
}

static CUptiResult fake_step(fake_call c)
{
    fake.calls[c]++;
    if (c == fake.fail_at && (fake.fail_times == 0 || fake.failed < fake.fail_times)) {
        fake.failed++;
        return fake.fail_with;
    }
    return CUPTI_SUCCESS;
}

static CUptiResult fake_t_initialize(void)
{
    return fake_step(FAKE_INITIALIZE);
}
static void fake_t_deinitialize(void) {}
static CUptiResult fake_t_chip_name(int device, const char **chip)
{
    (void)device;
    *chip = fake.chip;
    return fake_step(FAKE_CHIP_NAME);
}
static CUptiResult fake_t_device_supported(int device, cb_counters_support *s)
{
    (void)device;
    memset(s, 0, sizeof *s);
    s->overall = fake.overall;
    s->architecture = fake.architecture;
    s->sli = s->vgpu = s->confidential_compute = s->cmp = s->wsl = 3;
    return fake_step(FAKE_DEVICE_SUPPORTED);
}
static int fake_ctx_token;
static CUptiResult fake_t_context(void **ctx)
{
    *ctx = &fake_ctx_token;
    return fake_step(FAKE_CONTEXT);
}
static CUptiResult fake_t_availability(void *ctx)
{
    (void)ctx;
    return fake_step(FAKE_AVAILABILITY);
}
static int fake_profiler_token;
static CUptiResult fake_t_enable(void *ctx, void **profiler)
{
    (void)ctx;
    CUptiResult r = fake_step(FAKE_ENABLE);
    *profiler = r == CUPTI_SUCCESS ? &fake_profiler_token : NULL;
    return r;
}
static CUptiResult fake_t_disable(void *profiler)
{
    (void)profiler;
    return fake_step(FAKE_DISABLE);
}
static CUptiResult fake_t_counter_data(void *profiler, const char *const *names, size_t n,
                                       size_t max_ranges, uint8_t **data, size_t *size)
{
    (void)profiler;
    (void)names;
    (void)n;
    fake.data_ranges = max_ranges;
    CUptiResult r = fake_step(FAKE_COUNTER_DATA);
    if (r != CUPTI_SUCCESS) return r;
    *data = calloc(1, 32);
    *size = 32;
    return *data ? CUPTI_SUCCESS : CUPTI_ERROR_OUT_OF_MEMORY;
}
static CUptiResult fake_t_set_config(void *profiler, const uint8_t *config, size_t config_size,
                                     uint8_t *data, size_t data_size, cb_counters_scope scope,
                                     size_t max_ranges)
{
    (void)profiler;
    (void)config;
    (void)config_size;
    (void)data;
    (void)data_size;
    fake.stops_in_pass = 0;
    fake.scope = scope;
    fake.configs[scope]++;
    /* The image must hold what a pass may record. */
    fake.max_ranges[scope] = max_ranges <= fake.data_ranges ? max_ranges : 0;
    return fake_step(FAKE_SET_CONFIG);
}
static CUptiResult fake_t_start(void *profiler)
{
    (void)profiler;
    return fake_step(FAKE_START);
}
/* Push and pop belong to user ranges: refused with auto ranges. */
static CUptiResult fake_t_push(void *profiler, const char *range)
{
    (void)profiler;
    (void)range;
    CUptiResult r = fake_step(FAKE_PUSH);
    return r == CUPTI_SUCCESS && fake.scope == CB_COUNTERS_PER_KERNEL
               ? CUPTI_ERROR_INVALID_OPERATION
               : r;
}
static CUptiResult fake_t_pop(void *profiler)
{
    (void)profiler;
    CUptiResult r = fake_step(FAKE_POP);
    return r == CUPTI_SUCCESS && fake.scope == CB_COUNTERS_PER_KERNEL
               ? CUPTI_ERROR_INVALID_OPERATION
               : r;
}
static CUptiResult fake_t_stop(void *profiler, bool *all)
{
    (void)profiler;
    CUptiResult r = fake_step(FAKE_STOP);
    fake.stops_in_pass++;
    *all = r == CUPTI_SUCCESS && fake.passes > 0 && fake.stops_in_pass >= fake.passes;
    return r;
}
static CUptiResult fake_t_decode(void *profiler, size_t *dropped)
{
    (void)profiler;
    *dropped = fake.dropped[fake.scope];
    return fake_step(FAKE_DECODE);
}
static CUptiResult fake_t_ranges(const uint8_t *data, size_t size, size_t *n)
{
    (void)data;
    (void)size;
    *n = fake.ranges[fake.scope];
    return fake_step(FAKE_RANGES);
}
static bool fake_t_synchronize(cb_msg *why)
{
    (void)why;
    return true;
}

static const cb_counters_target_ops fake_target = {.initialize = fake_t_initialize,
                                                   .deinitialize = fake_t_deinitialize,
                                                   .chip_name = fake_t_chip_name,
                                                   .device_supported = fake_t_device_supported,
                                                   .current_context = fake_t_context,
                                                   .availability = fake_t_availability,
                                                   .enable = fake_t_enable,
                                                   .disable = fake_t_disable,
                                                   .counter_data = fake_t_counter_data,
                                                   .set_config = fake_t_set_config,
                                                   .start = fake_t_start,
                                                   .push = fake_t_push,
                                                   .pop = fake_t_pop,
                                                   .stop = fake_t_stop,
                                                   .decode = fake_t_decode,
                                                   .ranges = fake_t_ranges,
                                                   .synchronize = fake_t_synchronize};

static const cb_counters_ops fake_ops = {.host = &fake_host, .target = &fake_target};

#endif
