/* test_runner.c - the runner driven by fake host benchmarks, no GPU: a
 * setup that skips, a verify that fails, a failure in the middle of
 * sampling, a point that runs out of budget (noisy), reference
 * percentages, row order, replicate rounds, and a sink that cannot write.
 *
 * The fakes spin on the wall clock for a set time, so their medians do not
 * depend on the machine's speed or load, and the derived figures can be
 * checked with tolerances that hold on a busy 2-core CI machine. */
/* test links: cubench_engine */
#include "cb_test.h"
#include "cb_test_files.h"
#include "plan.h"
#include "plan_test_util.h"
#include "cb_common.h"
#include "registry.h"
#include "runner.h"
#include "sink.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

typedef enum fake_kind {
    FAKE_STEADY,       /* every run spins `us` microseconds             */
    FAKE_SETUP_SKIPS,  /* setup returns skip with a reason              */
    FAKE_VERIFY_FAILS, /* verify reports a wrong result                 */
    FAKE_FAILS_LATER,  /* the 8th run fails: mid-sampling               */
    FAKE_ERRATIC,      /* alternates 1x and 10x: never converges        */
} fake_kind;

typedef struct fake_param {
    fake_kind kind;
    double us;
} fake_param;

typedef struct fake_state {
    const fake_param *param;
    double us;
    long runs;
} fake_state;

static int setups; /* setups made, to count rounds */

static cb_status fake_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                            cb_point_info *info, cb_msg *why)
{
    (void)info;
    const fake_param *param = ctx->param;
    if (param->kind == FAKE_SETUP_SKIPS) {
        cb_msg_set(why, "needs a widget this machine lacks");
        return CB_SKIP;
    }
    fake_state *st = calloc(1, sizeof *st);
    if (!st) return CB_FAIL;
    st->param = param;
    st->us = param->us * (double)cb_point_int(p, "scale");
    *state = st;
    setups++;
    return CB_OK;
}

static void spin_us(double us)
{
    double until = cb_now_s() + us * 1e-6;
    while (cb_now_s() < until) {
    }
}

static cb_status fake_run(void *state, cudaStream_t stream, cb_msg *why)
{
    (void)stream;
    fake_state *st = state;
    st->runs++;
    if (st->param->kind == FAKE_FAILS_LATER && st->runs == 8) {
        cb_msg_set(why, "the device fell off the bus (planted)");
        return CB_FAIL;
    }
    double us = st->us;
    if (st->param->kind == FAKE_ERRATIC && st->runs % 2) us *= 10;
    spin_us(us);
    return CB_OK;
}

static cb_status fake_verify(void *state, double *error, cb_msg *why)
{
    fake_state *st = state;
    *error = 0;
    if (st->param->kind == FAKE_VERIFY_FAILS) {
        *error = 3.5;
        cb_msg_set(why, "element 7 is 3.5 off (planted)");
        return CB_FAIL;
    }
    return CB_OK;
}

static void fake_teardown(void *state)
{
    free(state);
}

static double fake_bytes(const cb_point *p)
{
    return 1e6 * (double)cb_point_int(p, "scale");
}

static const cb_axis_def fake_axes[] = {
    {.name = "scale", .kind = CB_AXIS_INT, .defaults = "1,2", .min_value = 1, .help = "x time"}};

static const fake_param p_short = {FAKE_STEADY, 20}, p_long = {FAKE_STEADY, 150};
static const fake_param p_ref = {FAKE_STEADY, 200}, p_slow = {FAKE_STEADY, 400},
                        p_skip = {FAKE_SETUP_SKIPS, 0}, p_wrong = {FAKE_VERIFY_FAILS, 50},
                        p_later = {FAKE_FAILS_LATER, 50}, p_erratic = {FAKE_ERRATIC, 100};

#define FAKE(nm, prm, ref)                                                                         \
    {                                                                                              \
        .name = "fake/" nm, .summary = "test", .target = CB_TARGET_HOST, .axes = fake_axes,        \
        .n_axes = 1, .ref_bench = ref, .bytes = fake_bytes, .param = &prm, .setup = fake_setup,    \
        .run = fake_run, .verify = fake_verify, .teardown = fake_teardown                          \
    }

static const cb_bench fake_benches[] = {
    FAKE("ref", p_ref, NULL),     FAKE("slow", p_slow, "fake/ref"),
    FAKE("skip", p_skip, NULL),   FAKE("wrong", p_wrong, NULL),
    FAKE("later", p_later, NULL), FAKE("erratic", p_erratic, NULL),
    FAKE("brief", p_short, NULL), FAKE("tall", p_long, "fake/brief"),
};
static const cb_family fake_family = {
    .name = "fake", .benches = fake_benches, .count = CB_ARRAY_LEN(fake_benches)};

static const cb_result *find_row(const cb_result *rows, int n, const char *bench, const char *axes)
{
    for (int i = 0; i < n; i++)
        if (strcmp(rows[i].bench->name, bench) == 0 && strcmp(rows[i].axes, axes) == 0)
            return &rows[i];
    return NULL;
}

/* The plan of `glob` and a quiet configuration for it: no CUPTI, no NVTX,
 * at most `max_time_s` a point. */
static void plan_fake(const char *glob, double max_time_s, cb_plan *plan, cb_run_config *cfg)
{
    const char *globs[] = {glob};
    cb_plan_request req = {.globs = globs, .n_globs = 1, .max_points = 1000};
    cb_msg err = {{0}};
    CB_CHECK(cb_plan_build(&req, plan, &err));
    cb_run_config_defaults(cfg);
    cfg->quiet = true;
    cfg->use_cupti = cfg->nvtx = false;
    cfg->stop.max_time_s = max_time_s;
}

/* Run `glob` into root/NAME with `replicates` rounds; the number of points. */
static int run_sweep(const char *root, const char *name, const char *glob, int replicates,
                     cb_result **rows, cb_run_totals *totals)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%s", root, name);
    cb_plan plan;
    cb_run_config cfg;
    plan_fake(glob, 0.2, &plan, &cfg);
    cfg.replicates = replicates;
    cb_test_run_into(&cfg, &plan, dir, rows, totals);
    int n = plan.n;
    cb_plan_free(&plan);
    return n;
}

/* Rows come in plan order: benchmark by benchmark, axis values in order. */
static void check_plan_order(const cb_result *rows)
{
    const char *order[] = {"ref", "ref", "slow", "slow", "skip", "skip"};
    for (int i = 0; i < 6; i++) {
        char name[32];
        snprintf(name, sizeof name, "fake/%s", order[i]);
        CB_CHECK_STR(rows[i].bench->name, name);
        CB_CHECK_STR(rows[i].axes, i % 2 ? "scale=2" : "scale=1");
    }
}

/* A skip, a wrong result, a later failure and an erratic point, each with
 * its status and reason. */
static void check_untimed_rows(const cb_result *rows, int n)
{
    const cb_result *skip = find_row(rows, n, "fake/skip", "scale=1");
    CB_CHECK(skip && skip->status == CB_SKIP && strstr(skip->reason, "widget"));
    CB_CHECK(skip && skip->summary.n == 0);

    const cb_result *wrong = find_row(rows, n, "fake/wrong", "scale=1");
    CB_CHECK(wrong && wrong->status == CB_FAIL && strstr(wrong->reason, "element 7"));
    CB_CHECK(wrong && wrong->summary.n == 0 && wrong->verify_error == 3.5);

    const cb_result *later = find_row(rows, n, "fake/later", "scale=2");
    CB_CHECK(later && later->status == CB_FAIL && strstr(later->reason, "planted"));
    CB_CHECK(later && later->summary.n == 0); /* nothing of a failed point is kept */

    const cb_result *erratic = find_row(rows, n, "fake/erratic", "scale=1");
    CB_CHECK(erratic && erratic->status == CB_NOISY && strstr(erratic->reason, "budget"));
    CB_CHECK(erratic && erratic->summary.n >= 10);
}

/* The reference percentage: slow spins twice as long as ref. */
static void check_reference_pct(const cb_result *rows, int n, int scale)
{
    char axes[16];
    snprintf(axes, sizeof axes, "scale=%d", scale);
    const cb_result *ref = find_row(rows, n, "fake/ref", axes);
    const cb_result *slow = find_row(rows, n, "fake/slow", axes);
    CB_CHECK(ref && slow);
    if (!ref || !slow) return;
    CB_CHECK(ref->status == CB_OK || ref->status == CB_NOISY);
    CB_CHECK(isnan(ref->pct_ref) && ref->ref_benchmark == NULL);
    CB_CHECK_STR(slow->ref_benchmark, "fake/ref");
    CB_CHECK(slow->pct_ref > 40 && slow->pct_ref < 60);
    /* GB/s from the work model: 1e6 x scale bytes over the median. */
    CB_CHECK_REL(slow->gbps, 1e6 * scale / slow->summary.median / 1e9, 1e-9);
    CB_CHECK(slow->summary.median > 390e-6 * scale && slow->summary.median < 600e-6 * scale);
    CB_CHECK_EQ_INT(slow->replicates, 1);
    CB_CHECK_EQ_INT(slow->device, -1);
}

static void test_statuses_and_order(const char *root)
{
    cb_result *rows = NULL;
    cb_run_totals t;
    int n = run_sweep(root, "one", "fake/[rswle]*", 1, &rows, &t);
    CB_CHECK_EQ_INT(n, 12);
    CB_CHECK_EQ_INT(t.ok + t.noisy + t.skip + t.fail, 12);
    CB_CHECK_EQ_INT(t.skip, 2);
    CB_CHECK_EQ_INT(t.fail, 4); /* wrong x2, later x2 */
    CB_CHECK(!t.interrupted && !t.write_failed && !t.context_lost);
    check_plan_order(rows);
    check_untimed_rows(rows, n);
    for (int scale = 1; scale <= 2; scale++)
        check_reference_pct(rows, n, scale);
    free(rows);
}

/* Rounds: every point set up once per round, samples from every round. */
static void test_replicates(const char *root)
{
    cb_result *rows = NULL;
    cb_run_totals t;
    setups = 0;
    int n = run_sweep(root, "rounds", "fake/[rsw]*", 3, &rows, &t); /* ref, slow, skip, wrong */
    CB_CHECK_EQ_INT(n, 8);
    /* ref and slow: 4 points x 3 rounds; wrong: set up once, then closed. */
    CB_CHECK_EQ_INT(setups, 4 * 3 + 2);
    const cb_result *slow = find_row(rows, n, "fake/slow", "scale=1");
    CB_CHECK(slow && slow->replicates == 3 && slow->summary.n >= 3 * 6);
    CB_CHECK(slow && slow->pct_ref > 40 && slow->pct_ref < 60);
    const cb_result *wrong = find_row(rows, n, "fake/wrong", "scale=2");
    CB_CHECK(wrong && wrong->status == CB_FAIL);
    CB_CHECK_EQ_INT(t.ok + t.noisy + t.skip + t.fail, 8);
    free(rows);
}

/* Auto rounds (replicates 0, the default): points under 65 us per run get
 * three rounds, longer ones one; rows still go out in plan order, so the
 * long point that finished in round one is written after its three-round
 * reference, with its pct_ref. */
static void test_auto_rounds(const char *root)
{
    cb_result *rows = NULL;
    cb_run_totals t;
    setups = 0;
    int n = run_sweep(root, "auto", "fake/[bt]*", 0, &rows, &t); /* brief, tall */
    CB_CHECK_EQ_INT(n, 4);
    CB_CHECK_EQ_INT(t.ok + t.noisy, 4);
    CB_CHECK_EQ_INT(setups, 2 * 3 + 2 * 1);
    const char *order[] = {"fake/brief", "fake/brief", "fake/tall", "fake/tall"};
    for (int i = 0; i < 4 && i < t.ok + t.noisy; i++) {
        CB_CHECK_STR(rows[i].bench->name, order[i]);
        CB_CHECK_EQ_INT(rows[i].replicates, i < 2 ? 3 : 1);
    }
    const cb_result *tall = find_row(rows, n, "fake/tall", "scale=2");
    CB_CHECK(tall && tall->pct_ref > 6 && tall->pct_ref < 20); /* 40 us over 300 us: 13% */
    free(rows);
}

/* A sink that cannot write stops the sweep with the reason; the rows
 * written before stay, and the totals count only those. */
static void test_write_failure_stops(const char *root)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/full", root);
    cb_plan plan;
    cb_run_config cfg;
    plan_fake("fake/ref", 0.05, &plan, &cfg);
    cb_msg err = {{0}};
    cb_sink sink;
    CB_CHECK(cb_sink_open(&sink, dir, &err));
    /* No file may grow: the first point's rows cannot be written. */
    struct rlimit old, lim;
    CB_CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = 1;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CB_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    cb_result *rows = NULL;
    cb_run_totals t;
    cb_status st = cb_runner_run(&cfg, plan.points, plan.n, &sink, &rows, &t, &err);
    CB_CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);
    CB_CHECK(st == CB_OK);
    CB_CHECK(t.write_failed);
    CB_CHECK(strstr(t.stop_reason, "cannot write") != NULL);
    /* stopped after the first, whose row is not on disk: the totals (and
     * meta.json's) count the rows the files hold, none */
    CB_CHECK_EQ_INT(t.ok + t.noisy + t.skip + t.fail, 0);
    cb_sink_close(&sink);
    cb_plan_free(&plan);
    free(rows);
}

int main(void)
{
    char root[] = "/tmp/cb_test_runner_XXXXXX";
    if (!cb_test_temp_dir(root)) return 1;
    cb_msg err = {{0}};
    CB_CHECK(cb_registry_add_family(&fake_family, &err) == CB_OK);
    /* The registry refuses what would make names ambiguous. */
    CB_CHECK(cb_registry_add_family(&fake_family, &err) == CB_FAIL);
    CB_CHECK(strstr(err.text, "twice") != NULL);
    test_statuses_and_order(root);
    test_replicates(root);
    test_auto_rounds(root);
    test_write_failure_stops(root);
    CB_CHECK(cb_test_remove_tree(root));
    return cb_test_finish("test_runner");
}
