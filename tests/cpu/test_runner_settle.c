/* test_runner_settle.c - a point whose path speeds up over its first runs
 * (cb_point_info.warm_until_settled) warms up until its runs stop getting
 * faster, and one that does not declare it keeps the configured warm-up
 * runs. The rule alone on the first runs of a 64 MiB host-to-device copy
 * from pageable memory as the H200's host ran them (ms), then in the
 * runner with fake host benchmarks whose runs take 100 + 900 x 0.7^k us
 * (k: the run's index): about 13 runs to settle, where the configured 3
 * would leave the first samples on the slope. */
/* test links: cubench_engine */
#include "cb_test.h"
#include "cb_common.h"
#include "plan.h"
#include "plan_test_util.h"
#include "registry.h"
#include "runner.h"
#include "warm_up.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The index of the run after which the rule says settled; -1 if never. */
static int settled_after(const double *runs, int n)
{
    cb_settle s;
    cb_settle_init(&s);
    for (int i = 0; i < n; i++)
        if (cb_settle_add(&s, runs[i])) return i;
    return -1;
}

static void rule(void)
{
    /* The slope, a one-run pause on it (5.67 after 5.83 is 2.7 % faster),
     * then level: settled at the second calm run in a row (5.48, 5.33). */
    const double staged[] = {9.22, 8.74, 7.91, 6.92, 6.07, 5.83, 5.67,
                             5.40, 5.48, 5.33, 5.32, 5.37, 5.24, 5.23};
    CB_CHECK_EQ_INT(settled_after(staged, CB_ARRAY_LEN(staged)), 9);
    /* A level path: the first run sets the best, two more end it. */
    const double level[] = {1.00, 1.01, 0.99, 1.00};
    CB_CHECK_EQ_INT(settled_after(level, CB_ARRAY_LEN(level)), 2);
    /* Slower runs are calm too: a path that only gets slower settles. */
    const double slower[] = {1.0, 1.2, 1.4};
    CB_CHECK_EQ_INT(settled_after(slower, CB_ARRAY_LEN(slower)), 2);
    /* Still falling by more than the gain every run: never settled. */
    double falling[20];
    for (int i = 0; i < 20; i++)
        falling[i] = pow(0.9, i);
    CB_CHECK_EQ_INT(settled_after(falling, 20), -1);
}

typedef struct ramp_state {
    long runs;
    int slot; /* 0 settles, 1 plain */
} ramp_state;

/* Each point's runs, read after the sweep. */
static long runs_seen[2];

static cb_status ramp_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                            cb_point_info *info, cb_msg *why)
{
    (void)p, (void)why;
    ramp_state *st = calloc(1, sizeof *st);
    if (!st) return CB_FAIL;
    info->warm_until_settled = *(const bool *)ctx->param;
    st->slot = info->warm_until_settled ? 0 : 1;
    *state = st;
    return CB_OK;
}

static cb_status ramp_run(void *state, cudaStream_t stream, cb_msg *why)
{
    (void)stream, (void)why;
    ramp_state *st = state;
    const double until = cb_now_s() + 1e-6 * (100.0 + 900.0 * pow(0.7, (double)st->runs++));
    while (cb_now_s() < until) {
    }
    return CB_OK;
}

static cb_status ramp_verify(void *state, double *error, cb_msg *why)
{
    (void)state, (void)why;
    *error = 0;
    return CB_OK;
}

static void ramp_teardown(void *state)
{
    const ramp_state *st = state;
    runs_seen[st->slot] = st->runs;
    free(state);
}

static const cb_axis_def ramp_axes[] = {
    {.name = "n", .kind = CB_AXIS_INT, .defaults = "1", .min_value = 1, .help = "unused"}};
static const bool settles = true, plain = false;

#define RAMP(nm, prm)                                                                              \
    {                                                                                              \
        .name = "ramp/" nm, .summary = "test", .target = CB_TARGET_HOST, CB_AXES(ramp_axes),       \
        .param = &prm, .setup = ramp_setup, .run = ramp_run, .verify = ramp_verify,                \
        .teardown = ramp_teardown                                                                  \
    }

static const cb_bench ramp_benches[] = {RAMP("settles", settles), RAMP("plain", plain)};
static const cb_family ramp_family = {
    .name = "ramp", .benches = ramp_benches, .count = CB_ARRAY_LEN(ramp_benches)};

static void runner(void)
{
    cb_msg err = {{0}};
    CB_CHECK(cb_registry_add_family(&ramp_family, &err) == CB_OK);
    char dir[] = "/tmp/cb_test_runner_settle_XXXXXX";
    CB_CHECK(mkdtemp(dir) != NULL);
    cb_plan plan;
    CB_CHECK(cb_test_plan("ramp/*", NULL, 0, NULL, 10, &plan, &err));
    CB_CHECK_EQ_INT(plan.n, 2);
    cb_run_config cfg;
    cb_run_config_defaults(&cfg);
    cfg.stop.max_time_s = 0.05;
    cfg.replicates = 1;
    cfg.quiet = true;
    cfg.use_cupti = cfg.nvtx = false;
    char out[sizeof dir + 8];
    snprintf(out, sizeof out, "%s/run", dir);
    cb_result *rows = NULL;
    cb_run_totals totals;
    cb_test_run_into(&cfg, &plan, out, &rows, &totals);
    long warm[2];
    for (int i = 0; i < 2; i++) {
        CB_CHECK(rows[i].status == CB_OK || rows[i].status == CB_NOISY);
        /* Runs: the verified one, the warm-up, the samples' batches. */
        warm[i] = runs_seen[i] - 1 - (long)rows[i].summary.n * rows[i].batch;
    }
    printf("warm-up runs: settling %ld, plain %ld\n", warm[0], warm[1]);
    /* Settled near run 13 (a preempted run on a loaded machine can only
     * end it a little early or late), far past the configured 3. */
    CB_CHECK(warm[0] >= 8 && warm[0] <= 25);
    CB_CHECK_EQ_INT(warm[1], cfg.warmup_runs);
    free(rows);
    cb_plan_free(&plan);
    char cmd[sizeof dir + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CB_CHECK(system(cmd) == 0);
}

int main(void)
{
    rule();
    runner();
    return cb_test_finish("test_runner_settle");
}
