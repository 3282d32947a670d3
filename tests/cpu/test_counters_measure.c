/* test_counters_measure.c - one metric pass against a stand-in range
 * profiler (test_counters_fake.h): the replay loop (a pass per CUPTI pass,
 * the point's run between start and stop, `before` outside them), a range
 * per kernel (auto ranges, no push/pop) and the kernels of a point combined
 * into its row, the fallback to one range around the whole run for a run
 * without kernels or with too many, the figures the values give (SOL
 * columns, DRAM bytes, FLOPs with 2 per FMA), the work model's note, and
 * every way counters can be unavailable: no permission, MIG, an
 * unsupported GPU, counters busy. An unavailable device is a skip with the
 * reason, remembered so later points do not ask again, and the point's own
 * run is never called; an error fails that pass only, and the profiler is
 * disabled on every path out. */
/* test links: cubench_timing */
#include "cb_test.h"
#include "counters_session.h"
#include "test_counters_fake.h"

#include <math.h>
#include <string.h>

typedef struct point_calls {
    int before, run;
    cb_status run_result;
} point_calls;

static cb_status before_cb(void *user, cb_msg *why)
{
    (void)why;
    ((point_calls *)user)->before++;
    return CB_OK;
}

static cb_status run_cb(void *user, cb_msg *why)
{
    point_calls *pc = user;
    pc->run++;
    if (pc->run_result != CB_OK) cb_msg_set(why, "the kernel launch failed (planted)");
    return pc->run_result;
}

/* Values a GH100 sol pass might read, the same in every range. */
static double sol_value(const char *name, size_t range)
{
    (void)range;
    static const struct {
        const char *name;
        double v;
    } table[] = {
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", 91.5},
        {"lts__throughput.avg.pct_of_peak_sustained_elapsed", 40.25},
        {"l1tex__throughput.avg.pct_of_peak_sustained_active", 20.5},
        {"sm__throughput.avg.pct_of_peak_sustained_elapsed", 12.75},
        {"sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active", 0.5},
        {"dram__bytes.sum", 3.25e9},
        {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1000},
        {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 300},
        {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 20},
        {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 4},
        {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 5000},
        {"gpu__time_duration.sum", 728000},
    };
    for (int i = 0; i < CB_ARRAY_LEN(table); i++)
        if (strcmp(table[i].name, name) == 0) return table[i].v;
    return 0;
}

static double nan_flop_value(const char *name, size_t range)
{
    return strcmp(name, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum") == 0
               ? NAN
               : sol_value(name, range);
}

/* The value of metric `name` in a pass's values; NAN when absent. */
static double value_of(const cb_counters_values *v, const char *name)
{
    for (int i = 0; v->values && i < v->n; i++)
        if (strcmp(v->names[i], name) == 0) return v->values[i];
    return NAN;
}

static cb_counters *open_sol(const char *spec)
{
    int ordinal = 0;
    cb_counters *c = NULL;
    cb_msg why = {{0}};
    fake_reset("GH100");
    if (cb_counters_open_with(spec, &ordinal, 1, &fake_ops, &c, &why) != CB_OK)
        fprintf(stderr, "open: %s\n", why.text);
    return c;
}

/* open_sol with the fake's values from `value`; close_sol closes it and
 * takes them back. */
static cb_counters *open_sol_values(const char *spec, double (*value)(const char *, size_t))
{
    cb_counters *c = open_sol(spec);
    if (c) fake_value = value;
    return c;
}

static void close_sol(cb_counters *c)
{
    fake_value = NULL;
    cb_counters_close(c);
}

static cb_status measure(cb_counters *c, point_calls *pc, cb_counters_values *v)
{
    cb_counters_pass pass = {.device = 0, .before = before_cb, .run = run_cb, .user = pc};
    return cb_counters_measure(c, &pass, v);
}

static void check_balanced(const char *what)
{
    bool ok = fake.calls[FAKE_ENABLE] - (fake.fail_at == FAKE_ENABLE ? fake.failed : 0) ==
                  fake.calls[FAKE_DISABLE] &&
              fake.calls[FAKE_PUSH] == fake.calls[FAKE_POP];
    if (!ok)
        fprintf(stderr, "%s: enable %d disable %d push %d pop %d\n", what, fake.calls[FAKE_ENABLE],
                fake.calls[FAKE_DISABLE], fake.calls[FAKE_PUSH], fake.calls[FAKE_POP]);
    CB_CHECK(ok);
}

static void test_collects(void)
{
    cb_counters *c = open_sol_values("sol", sol_value);
    if (!c) return;
    fake.passes = 4;
    point_calls pc = {0};
    cb_counters_values v;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_EQ_INT(v.passes, 4);
    CB_CHECK_EQ_INT(pc.run, 4);
    CB_CHECK_EQ_INT(pc.before, 4);
    CB_CHECK_EQ_INT(fake.calls[FAKE_START], 4);
    CB_CHECK_EQ_INT(fake.calls[FAKE_AVAILABILITY], 1);
    CB_CHECK_EQ_INT(fake.calls[FAKE_DECODE], 1);
    check_balanced("collects");
    /* A range per kernel: auto ranges (no push/pop), room for the limit. */
    CB_CHECK_EQ_INT(fake.configs[CB_COUNTERS_PER_KERNEL], 1);
    CB_CHECK_EQ_INT(fake.configs[CB_COUNTERS_WHOLE_RUN], 0);
    CB_CHECK_EQ_INT(fake.calls[FAKE_PUSH], 0);
    CB_CHECK_EQ_INT((int)fake.max_ranges[CB_COUNTERS_PER_KERNEL], CB_COUNTERS_MAX_KERNELS);
    CB_CHECK_EQ_INT(v.kernels, 1);
    CB_CHECK_STR(v.reason, "");
    /* Every pass reads the ranges' GPU time (the weight of a kernel). */
    CB_CHECK_NEAR(value_of(&v, "gpu__time_duration.sum"), 728000, 0);
    CB_CHECK(v.n == c->chips[0].n && v.values && v.names == c->chips[0].names);
    CB_CHECK_NEAR(v.sol_dram_pct, 91.5, 0);
    CB_CHECK_NEAR(v.sol_l2_pct, 40.25, 0);
    CB_CHECK_NEAR(v.sol_l1_pct, 20.5, 0);
    CB_CHECK_NEAR(v.sol_sm_pct, 12.75, 0);
    CB_CHECK_NEAR(v.sol_tensor_pct, 0.5, 0);
    CB_CHECK_NEAR(v.dram_bytes, 3.25e9, 0);
    /* 2 x 1000 FFMA + 300 FADD + 20 FMUL + 2 x 4 DFMA + 5000 tensor ops */
    CB_CHECK_NEAR(v.measured_flops, 2000 + 300 + 20 + 8 + 5000, 0);
    CB_CHECK(v.wall_s >= 0 && v.wall_s < 10);
    for (int i = 0; i < v.n; i++)
        if (strcmp(v.names[i], "dram__bytes.sum") == 0) CB_CHECK_STR(v.units[i], "byte");
    cb_counters_values_free(&v);
    CB_CHECK(v.values == NULL);

    /* A second point asks the device nothing again and replays afresh. */
    pc = (point_calls){0};
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_EQ_INT(fake.calls[FAKE_AVAILABILITY], 1);
    CB_CHECK_EQ_INT(pc.run, 4);
    cb_counters_values_free(&v);

    /* A FLOP term CUPTI could not evaluate leaves the FLOPs unknown. */
    fake_value = nan_flop_value;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK(isnan(v.measured_flops));
    CB_CHECK_NEAR(v.dram_bytes, 3.25e9, 0);
    cb_counters_values_free(&v);
    close_sol(c);
}

/* A name typed by hand fills the column a preset would give it. */
static void test_named_metric_fills_column(void)
{
    cb_counters *c = open_sol_values("dram__bytes.sum,lts__t_sector_hit_rate.pct", sol_value);
    if (!c) return;
    point_calls pc = {0};
    cb_counters_values v;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_NEAR(v.dram_bytes, 3.25e9, 0);
    CB_CHECK(isnan(v.sol_dram_pct) && isnan(v.measured_flops));
    /* The two named, and the GPU time every pass reads to weigh kernels. */
    CB_CHECK_EQ_INT(v.n, 3);
    CB_CHECK_NEAR(value_of(&v, "gpu__time_duration.sum"), 728000, 0);
    cb_counters_values_free(&v);
    close_sol(c);
}

typedef struct unavailable_case {
    fake_call at;
    CUptiResult result;
    const char *reason; /* a piece of the row's reason */
} unavailable_case;

/* Counters unavailable: a skip with the reason, the point's run never
 * called, and the next point skips without asking CUPTI again. */
static void test_unavailable(void)
{
    static const unavailable_case cases[] = {
        {FAKE_AVAILABILITY, CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "only administrators"},
        {FAKE_ENABLE, CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED, "MIG instance"},
        {FAKE_ENABLE, CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED, "virtual GPU"},
        {FAKE_SET_CONFIG, CUPTI_ERROR_HARDWARE_BUSY, "another profiler holds the counters"},
        {FAKE_CONTEXT, CUPTI_ERROR_NOT_SUPPORTED, "does not support this GPU"},
    };
    for (int i = 0; i < CB_ARRAY_LEN(cases); i++) {
        cb_counters *c = open_sol("sol");
        if (!c) return;
        fake.fail_at = cases[i].at;
        fake.fail_with = cases[i].result;
        point_calls pc = {0};
        cb_counters_values v;
        CB_CHECK(measure(c, &pc, &v) == CB_SKIP);
        if (!strstr(v.reason, cases[i].reason)) fprintf(stderr, "case %d: %s\n", i, v.reason);
        CB_CHECK(strstr(v.reason, cases[i].reason) != NULL);
        CB_CHECK(strstr(v.reason, "counters unavailable") != NULL);
        CB_CHECK(v.values == NULL && pc.run == 0);
        check_balanced("unavailable");
        int asked = fake.calls[cases[i].at];
        cb_counters_values w;
        CB_CHECK(measure(c, &pc, &w) == CB_SKIP);
        CB_CHECK_STR(w.reason, v.reason);
        CB_CHECK_EQ_INT(fake.calls[cases[i].at], asked); /* remembered, not asked again */
        CB_CHECK_EQ_INT(pc.run, 0);
        cb_counters_close(c);
    }
    /* cuptiProfilerDeviceSupported says no: the part that is missing. */
    cb_counters *c = open_sol("sol");
    if (!c) return;
    fake.overall = 1;
    fake.architecture = 1;
    point_calls pc = {0};
    cb_counters_values v;
    CB_CHECK(measure(c, &pc, &v) == CB_SKIP);
    CB_CHECK(strstr(v.reason, "architecture") != NULL);
    CB_CHECK_EQ_INT(fake.calls[FAKE_ENABLE], 0);
    cb_counters_close(c);
    /* A device the session was not opened for. */
    c = open_sol("sol");
    cb_counters_pass pass = {.device = 3, .before = before_cb, .run = run_cb, .user = &pc};
    CB_CHECK(c && cb_counters_measure(c, &pass, &v) == CB_SKIP);
    CB_CHECK(strstr(v.reason, "not opened") != NULL);
    cb_counters_close(c);
}

/* An error is a failure of this pass only: the profiler is disabled, the
 * next point tries again. */
static void test_errors(void)
{
    cb_counters *c = open_sol("sol");
    if (!c) return;
    fake.fail_at = FAKE_STOP;
    fake.fail_with = CUPTI_ERROR_UNKNOWN;
    fake.fail_times = 1;
    point_calls pc = {0};
    cb_counters_values v;
    CB_CHECK(measure(c, &pc, &v) == CB_FAIL);
    CB_CHECK(strstr(v.reason, "stop failed at") && strstr(v.reason, "CUPTI_ERROR_UNKNOWN"));
    CB_CHECK(v.values == NULL);
    check_balanced("stop fails");
    CB_CHECK(measure(c, &pc, &v) == CB_OK); /* not remembered */
    cb_counters_values_free(&v);

    /* The point's run fails inside the range: the range is still closed. */
    fake_reset("GH100");
    pc = (point_calls){.run_result = CB_FAIL};
    CB_CHECK(measure(c, &pc, &v) == CB_FAIL);
    CB_CHECK(strstr(v.reason, "planted") != NULL);
    CB_CHECK_EQ_INT(pc.run, 1);
    CB_CHECK_EQ_INT(fake.calls[FAKE_STOP], 1);
    check_balanced("run fails");

    /* CUPTI never says the passes are in: called off after its count + 8. */
    fake_reset("GH100");
    fake.passes = 0;
    pc = (point_calls){0};
    CB_CHECK(measure(c, &pc, &v) == CB_FAIL);
    CB_CHECK(strstr(v.reason, "kept asking for passes") != NULL);
    CB_CHECK_EQ_INT(pc.run, (int)c->chips[0].passes + 8);
    check_balanced("endless");

    cb_counters_close(c);
}

/* Three kernels in one run: a range each, evaluated in order, combined
 * into the point's values (counts summed, shares of peak weighted by each
 * kernel's GPU time). */
static double three_kernels(const char *name, size_t range)
{
    static const double time_ns[] = {100e3, 300e3, 600e3};
    static const double dram_pct[] = {90, 50, 10};
    static const double bytes[] = {1e9, 2e9, 3e9};
    if (range > 2) return NAN;
    if (strcmp(name, "gpu__time_duration.sum") == 0) return time_ns[range];
    if (strcmp(name, "dram__throughput.avg.pct_of_peak_sustained_elapsed") == 0)
        return dram_pct[range];
    if (strcmp(name, "dram__bytes.sum") == 0) return bytes[range];
    if (strcmp(name, "sm__ops_path_tensor_src_bf16_dst_fp32.sum") == 0) return 1000.0 * range;
    if (strcmp(name, "sm__cycles_elapsed.avg.per_second") == 0) return range == 1 ? 1.6e9 : 2e9;
    return 0;
}

static void test_kernels_combined(void)
{
    cb_counters *c = open_sol_values("sol", three_kernels);
    if (!c) return;
    fake.ranges[CB_COUNTERS_PER_KERNEL] = 3;
    point_calls pc = {0};
    cb_counters_values v;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_EQ_INT(v.kernels, 3);
    CB_CHECK_EQ_INT(fake_n_evaluated, 3);
    CB_CHECK(fake_evaluated[0] == 0 && fake_evaluated[1] == 1 && fake_evaluated[2] == 2);
    CB_CHECK_NEAR(v.dram_bytes, 6e9, 0);
    CB_CHECK_NEAR(value_of(&v, "gpu__time_duration.sum"), 1000e3, 1e-9);
    /* (100 x 90 + 300 x 50 + 600 x 10) / 1000 */
    CB_CHECK_NEAR(v.sol_dram_pct, 30, 1e-12);
    /* The clock: total cycles over total time. */
    CB_CHECK_NEAR(value_of(&v, "sm__cycles_elapsed.avg.per_second"), 1.88e9, 1);
    CB_CHECK_NEAR(v.measured_flops, 3000, 0); /* 0 + 1000 + 2000 tensor ops */
    CB_CHECK_STR(v.reason, "");
    CB_CHECK_EQ_INT(fake.configs[CB_COUNTERS_WHOLE_RUN], 0);
    cb_counters_values_free(&v);
    close_sol(c);
}

/* Per-kernel ranges that cannot stand for the run: measured again as one
 * user range around it, the row saying why. */
static void test_whole_run_fallback(void)
{
    cb_counters *c = open_sol_values("sol", sol_value);
    if (!c) return;
    point_calls pc = {0};
    cb_counters_values v;
    /* No kernel (a copy alone). */
    fake_reset("GH100");
    fake.ranges[CB_COUNTERS_PER_KERNEL] = 0;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_EQ_INT(v.kernels, 0);
    CB_CHECK(strstr(v.reason, "no kernel in one run: one range around the whole run") != NULL);
    CB_CHECK(strstr(v.reason, "lower bound") != NULL);
    CB_CHECK(v.values != NULL);
    CB_CHECK_NEAR(v.dram_bytes, 3.25e9, 0);
    CB_CHECK_EQ_INT(fake.configs[CB_COUNTERS_PER_KERNEL], 1);
    CB_CHECK_EQ_INT(fake.configs[CB_COUNTERS_WHOLE_RUN], 1);
    CB_CHECK_EQ_INT((int)fake.max_ranges[CB_COUNTERS_WHOLE_RUN], 1);
    /* Two attempts of 3 passes each; the range pushed in the second only. */
    CB_CHECK_EQ_INT(v.passes, 6);
    CB_CHECK_EQ_INT(fake.calls[FAKE_PUSH], 3);
    check_balanced("no kernel");
    cb_counters_values_free(&v);

    /* Too many kernels for a range each (some dropped, or the limit met). */
    fake_reset("GH100");
    fake.dropped[CB_COUNTERS_PER_KERNEL] = 7;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_EQ_INT(v.kernels, -1);
    CB_CHECK(strstr(v.reason, "256 or more kernels") != NULL);
    cb_counters_values_free(&v);
    fake_reset("GH100");
    fake.ranges[CB_COUNTERS_PER_KERNEL] = CB_COUNTERS_MAX_KERNELS;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_EQ_INT(v.kernels, -1);
    CB_CHECK_EQ_INT(fake.configs[CB_COUNTERS_WHOLE_RUN], 1);
    CB_CHECK_EQ_INT(fake_n_evaluated, 1); /* the whole run's one range */
    cb_counters_values_free(&v);
    fake.ranges[CB_COUNTERS_PER_KERNEL] = CB_COUNTERS_MAX_KERNELS - 1;
    CB_CHECK(measure(c, &pc, &v) == CB_OK);
    CB_CHECK_EQ_INT(v.kernels, CB_COUNTERS_MAX_KERNELS - 1);
    cb_counters_values_free(&v);

    /* The whole run must then hold exactly its one range. */
    fake_reset("GH100");
    fake.ranges[CB_COUNTERS_PER_KERNEL] = 0;
    fake.ranges[CB_COUNTERS_WHOLE_RUN] = 0;
    CB_CHECK(measure(c, &pc, &v) == CB_SKIP);
    CB_CHECK(strstr(v.reason, "no range") != NULL && v.values == NULL && v.kernels == -1);
    fake.ranges[CB_COUNTERS_WHOLE_RUN] = 2;
    CB_CHECK(measure(c, &pc, &v) == CB_FAIL);
    CB_CHECK(strstr(v.reason, "holds 2 ranges") != NULL);
    fake.ranges[CB_COUNTERS_WHOLE_RUN] = 1;
    fake.dropped[CB_COUNTERS_WHOLE_RUN] = 1;
    CB_CHECK(measure(c, &pc, &v) == CB_FAIL);
    CB_CHECK(strstr(v.reason, "1 dropped") != NULL);
    check_balanced("whole run");
    /* A failure of the second attempt is the pass's outcome. */
    fake_reset("GH100");
    fake.ranges[CB_COUNTERS_PER_KERNEL] = 0;
    fake.fail_at = FAKE_PUSH;
    fake.fail_with = CUPTI_ERROR_UNKNOWN;
    CB_CHECK(measure(c, &pc, &v) == CB_FAIL);
    CB_CHECK(strstr(v.reason, "push failed") != NULL && v.values == NULL);
    CB_CHECK_EQ_INT(fake.calls[FAKE_DISABLE], 2);
    close_sol(c);
}

static void test_model_note(void)
{
    cb_counters_values v;
    memset(&v, 0, sizeof v);
    v.status = CB_OK;
    v.dram_bytes = 1.52e9;
    v.measured_flops = 1.0e6;
    char note[128];
    CB_CHECK(cb_counters_model_note(&v, 1.0e9, 1.05e6, note, sizeof note));
    CB_CHECK_STR(note, "counters: DRAM bytes 1.52x the work model's");
    CB_CHECK(cb_counters_model_note(&v, 1.0e9, 2.0e6, note, sizeof note));
    CB_CHECK_STR(note, "counters: DRAM bytes 1.52x, FLOPs 0.50x the work model's");
    CB_CHECK(!cb_counters_model_note(&v, 1.45e9, 1.0e6, note, sizeof note)); /* within 10% */
    CB_CHECK(!cb_counters_model_note(&v, NAN, NAN, note, sizeof note));
    CB_CHECK(!cb_counters_model_note(&v, 0, 0, note, sizeof note));
    v.dram_bytes = NAN;
    CB_CHECK(cb_counters_model_note(&v, 1e9, 3e6, note, sizeof note));
    CB_CHECK_STR(note, "counters: FLOPs 0.33x the work model's");
    v.status = CB_SKIP;
    CB_CHECK(!cb_counters_model_note(&v, 1e9, 3e6, note, sizeof note));
}

int main(void)
{
    if (!fake_host_load()) return 1;
    test_collects();
    test_named_metric_fills_column();
    test_unavailable();
    test_errors();
    test_kernels_combined();
    test_whole_run_fallback();
    test_model_note();
    CB_CHECK_EQ_INT(fake_host_opens, 0);
    return cb_test_finish("test_counters_measure");
}
