/* test_history_detect.c - change points without a database: the robust
 * spread and the two tests against hand-computed values (p from the closed
 * form of Student's t with 4 degrees of freedom), the detector on series of
 * known structure, and history_check's rules on in-memory histories:
 * throttled runs and outliers set aside, a driver change reported as such,
 * a regression only when open, recent and above delta, the spread of a
 * point learned around its steps, the axes filter. Series use a fixed-seed generator, so
 * every run of the test sees the same numbers. */
/* test links: cubench_compare */
#include "history.h"
#include "history_impl.h"
#include "cb_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic noise ---- */

static uint64_t rng = 12345;

static double uniform01(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return ((rng >> 11) + 0.5) * 0x1.0p-53;
}

static double gauss(void)
{
    return sqrt(-2.0 * log(uniform01())) * cos(2.0 * M_PI * uniform01());
}

static void test_noise_and_tests(void)
{
    const double alt[] = {0, 1, 0, 1, 0};
    CB_CHECK_NEAR(cb_cpd_noise(alt, 5), 1.482602218505602 / sqrt(2.0), 1e-12);
    const double step[] = {0, 0, 0, 0, 5, 5, 5, 5};
    CB_CHECK_NEAR(cb_cpd_noise(step, 8), 0.0, 0.0); /* one difference of 7 moved */
    CB_CHECK_NEAR(cb_cpd_noise(step, 2), 0.0, 0.0);

    const double x[] = {1, 2, 3, 4, 5, 6};
    cb_cpd_step st;
    /* hunter: numpy std (ddof 0) pooled: se = 2/3, t = 4.5, df 4 */
    cb_cpd_test(x, 0, 3, 6, 0.0, true, &st);
    CB_CHECK_NEAR(st.d, 3.0, 1e-15);
    CB_CHECK_NEAR(st.se, 2.0 / 3.0, 1e-15);
    CB_CHECK_NEAR(st.df, 4.0, 0.0);
    CB_CHECK_NEAR(st.p, 0.01082255046260805, 1e-11);
    /* cubench: pooled ddof 1: var 1, se sqrt(2/3), t 3.674 */
    cb_cpd_test(x, 0, 3, 6, 0.0, false, &st);
    CB_CHECK_NEAR(st.se, sqrt(2.0 / 3.0), 1e-15);
    CB_CHECK_NEAR(st.p, 0.02131164112875661, 1e-11);
    /* a floor of 2 per run: var 4, t 1.837 */
    cb_cpd_test(x, 0, 3, 6, 2.0, false, &st);
    CB_CHECK_NEAR(st.se, sqrt(8.0 / 3.0), 1e-15);
    CB_CHECK_NEAR(st.p, 0.1400659849120176, 1e-11);
    /* equal sides and no floor: no evidence, not a division by zero */
    const double flat[] = {1, 1, 1, 1};
    cb_cpd_test(flat, 0, 2, 4, 0.0, false, &st);
    CB_CHECK(st.p == 1.0);
}

static cb_cpd_opts detect_opts(void)
{
    cb_hist_check_opts h;
    cb_hist_check_opts_default(&h);
    return (cb_cpd_opts){h.p_split, h.p_merge, h.window, 1, false, CB_HIST_SPREAD_FLOOR};
}

/* Noise of `sd` (log scale) with steps: x[i] += log(ratio[k]) from at[k] on. */
static void series(double *x, int n, double sd, const int *at, const double *ratio, int k)
{
    for (int i = 0; i < n; i++) {
        x[i] = sd * gauss();
        for (int s = 0; s < k; s++)
            if (i >= at[s]) x[i] += log(ratio[s]);
    }
}

static void test_detector(void)
{
    cb_cpd_opts o = detect_opts();
    double x[200];
    cb_cpd_step out[200];
    /* one step of 3% at 1% noise: found where it is */
    const int at1[] = {23};
    const double r1[] = {1.03};
    series(x, 45, 0.01, at1, r1, 1);
    int k = cb_cpd_detect(x, 45, &o, out);
    CB_CHECK_MSG(k == 1 && abs(out[0].at - 23) <= 1, "k %d at %d", k, k ? out[0].at : -1);
    if (k == 1) CB_CHECK_NEAR(out[0].d, log(1.03), 0.01);
    /* two steps, up then down, in a series longer than one window */
    const int at2[] = {70, 140};
    const double r2[] = {1.05, 1 / 1.05};
    series(x, 200, 0.01, at2, r2, 2);
    k = cb_cpd_detect(x, 200, &o, out);
    CB_CHECK_MSG(k == 2 && abs(out[0].at - 70) <= 1 && abs(out[1].at - 140) <= 1, "k %d", k);
    /* noise alone: 20 series of 45 runs, at most a stray change point */
    int stray = 0;
    for (int s = 0; s < 20; s++) {
        series(x, 45, 0.01, NULL, NULL, 0);
        stray += cb_cpd_detect(x, 45, &o, out);
    }
    CB_CHECK_MSG(stray <= 1, "%d change points in noise", stray);
    /* a single far-off run inside a flat series: an outlier, not two changes */
    series(x, 45, 0.005, NULL, NULL, 0);
    x[20] += log(1.04);
    CB_CHECK_MSG(cb_cpd_detect(x, 45, &o, out) == 0, "a one-run blip made change points");
    /* hunter's test on equal runs and a tiny step: certain, ours is not */
    for (int i = 0; i < 40; i++)
        x[i] = i < 20 ? 0.0 : 1e-4;
    cb_cpd_opts hunter = o;
    hunter.student = true;
    hunter.min_seg = 1;
    CB_CHECK(cb_cpd_detect(x, 40, &hunter, out) == 1);
    CB_CHECK(cb_cpd_detect(x, 40, &o, out) == 0); /* 0.01% is below the 0.05% floor */
}

/* ---- histories in memory ---- */

#define RUNS 40

typedef struct mem_history {
    cb_hist_run runs[RUNS];
    cb_hist_value v[RUNS];
    cb_hist_series s;
    cb_hist_data d;
} mem_history;

/* 40 runs of one point at 10 us with 0.5% noise, times `factor(run)`. */
static void make_history(mem_history *m, double step_ratio, int step_at)
{
    memset(m, 0, sizeof *m);
    for (int r = 0; r < RUNS; r++) {
        cb_hist_run *run = &m->runs[r];
        run->id = r + 1;
        snprintf(run->started, sizeof run->started, "2027-02-01T00:%02d:00Z", r);
        snprintf(run->git_sha, sizeof run->git_sha, "sha%02d", r);
        snprintf(run->machine, sizeof run->machine, "m");
        snprintf(run->gpu_uuid, sizeof run->gpu_uuid, "GPU-1");
        snprintf(run->driver, sizeof run->driver, "580.1");
        cb_hist_value *v = &m->v[r];
        v->run = r;
        snprintf(v->status, sizeof v->status, "ok");
        v->median_s = 10e-6 * exp(0.005 * gauss()) * (r >= step_at ? step_ratio : 1.0);
        v->ci_lo_s = v->median_s * 0.999, v->ci_hi_s = v->median_s * 1.001;
        v->sm_clock_mhz = v->power_w = v->temp_c = NAN;
    }
    m->s = (cb_hist_series){"vecadd/x", "n=1", "", "device", "m", m->v, RUNS};
    m->d = (cb_hist_data){m->runs, RUNS, &m->s, 1};
}

static cb_hist_check check(const mem_history *m, const cb_hist_check_opts *o)
{
    cb_hist_check c;
    cb_msg err = {{0}};
    CB_CHECK_MSG(cb_history_check(&m->d, o, &c, &err), "%s", err.text);
    return c;
}

/* Check m under o and expect `changes` change points and `regressions`
 * regressions (-1: any number). */
static void expect_counts(const mem_history *m, const cb_hist_check_opts *o, int changes,
                          int regressions)
{
    cb_hist_check c = check(m, o);
    CB_CHECK_MSG((changes < 0 || c.n_changes == changes) &&
                     (regressions < 0 || c.regressions == regressions),
                 "%d changes (want %d), %d regressions (want %d)", c.n_changes, changes,
                 c.regressions, regressions);
    cb_hist_check_free(&c);
}

static void test_check_rules(void)
{
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    mem_history m;
    /* +6% in the newest 3 runs: one open regression, commit range right */
    make_history(&m, 1.06, 37);
    cb_hist_check c = check(&m, &o);
    CB_CHECK(c.n_changes == 1 && c.regressions == 1);
    if (c.n_changes == 1) {
        CB_CHECK(c.changes[0].open && c.changes[0].regression && c.changes[0].run == 37);
        CB_CHECK(c.changes[0].before == 36 && c.changes[0].after == 37);
        CB_CHECK(c.changes[0].n_before == 37 && c.changes[0].n_after == 3);
        CB_CHECK(c.changes[0].ci_lo > 1.03 && c.changes[0].ci_hi < 1.09);
    }
    cb_hist_check_free(&c);
    /* the same step 20 runs ago: open, but not among the newest 5 */
    make_history(&m, 1.06, 20);
    c = check(&m, &o);
    CB_CHECK(c.n_changes == 1 && c.regressions == 0 && c.n_changes && c.changes[0].open);
    cb_hist_check_free(&c);
    o.recent = 25;
    expect_counts(&m, &o, -1, 1);
    o.recent = 5;
    /* +2% is a change but no regression at delta 3%; at delta 1% it is */
    make_history(&m, 1.02, 35);
    expect_counts(&m, &o, 1, 0);
    o.delta = 0.005;
    expect_counts(&m, &o, -1, 1);
    o.delta = 0.03;
    /* faster is a change, never a regression */
    make_history(&m, 0.9, 36);
    c = check(&m, &o);
    CB_CHECK(c.n_changes == 1 && c.regressions == 0 && c.n_changes && c.changes[0].ratio < 0.92);
    cb_hist_check_free(&c);
}

static void test_conditions(void)
{
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    mem_history m;
    /* a driver change with +8% at run 30: reported as the driver's, no regression */
    make_history(&m, 1.08, 30);
    for (int r = 30; r < RUNS; r++)
        snprintf(m.runs[r].driver, sizeof m.runs[r].driver, "580.2");
    cb_hist_check c = check(&m, &o);
    CB_CHECK(c.n_events == 1 && c.n_events && c.events[0].run == 30 &&
             c.events[0].cause == CB_HIST_CAUSE_DRIVER);
    if (c.n_events) CB_CHECK_CONTAINS(c.events[0].what, "driver 580.1 -> 580.2");
    CB_CHECK(c.n_changes == 1 && c.regressions == 0);
    if (c.n_changes) CB_CHECK(c.changes[0].cause == CB_HIST_CAUSE_DRIVER && c.changes[0].run == 30);
    cb_hist_check_free(&c);
    /* the same at another GPU: the machine's */
    make_history(&m, 1.08, 30);
    for (int r = 30; r < RUNS; r++)
        snprintf(m.runs[r].gpu_uuid, sizeof m.runs[r].gpu_uuid, "GPU-2");
    c = check(&m, &o);
    CB_CHECK(c.n_changes == 1 && c.n_changes && c.changes[0].cause == CB_HIST_CAUSE_MACHINE);
    cb_hist_check_free(&c);
}

static void test_set_aside(void)
{
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    mem_history m;
    cb_hist_check c;
    /* four throttled runs 12% slow, and a missing run: nothing */
    make_history(&m, 1.0, RUNS);
    for (int r = 25; r < 29; r++)
        m.v[r].median_s *= 1.12, m.v[r].throttle = "sw_power_cap";
    snprintf(m.v[10].status, sizeof m.v[10].status, "skip");
    expect_counts(&m, &o, 0, -1);
    /* ... unless they were not marked: then they are a change up and down */
    for (int r = 25; r < 29; r++)
        m.v[r].throttle = NULL;
    expect_counts(&m, &o, 2, -1);
    /* a step next to throttled runs says so */
    make_history(&m, 1.1, 30);
    m.v[29].throttle = "hw_slowdown";
    c = check(&m, &o);
    CB_CHECK(c.n_changes == 1 && c.n_changes && c.changes[0].throttled_near == 1);
    cb_hist_check_free(&c);
    /* one run 20% off both neighbours, unmarked: an outlier, set aside */
    make_history(&m, 1.0, RUNS);
    m.v[15].median_s *= 1.2;
    c = check(&m, &o);
    CB_CHECK(c.n_changes == 0 && c.n_outliers == 1 && c.n_outliers && c.outliers[0].value == 15);
    cb_hist_check_free(&c);
}

static void test_spread(void)
{
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    mem_history m;
    cb_hist_spread sp;
    cb_msg err = {{0}};
    /* 0.5% noise, a 10% step: the spread is the noise's, the step left out */
    make_history(&m, 1.1, 20);
    CB_CHECK(cb_hist_series_spread(&m.d, 0, &o, &sp, &err));
    CB_CHECK_MSG(sp.runs == RUNS && sp.df == RUNS - 2 && sp.sd > 0.0035 && sp.sd < 0.0065,
                 "runs %d df %g sd %g", sp.runs, sp.df, sp.sd);
    /* two runs are no spread */
    m.s.n = 2;
    CB_CHECK(cb_hist_series_spread(&m.d, 0, &o, &sp, &err) && sp.df == 0);
    /* identical runs: the floor, never 0 */
    make_history(&m, 1.0, RUNS);
    for (int r = 0; r < RUNS; r++)
        m.v[r].median_s = 10e-6, m.v[r].ci_lo_s = m.v[r].ci_hi_s = 10e-6;
    CB_CHECK(cb_hist_series_spread(&m.d, 0, &o, &sp, &err));
    CB_CHECK_NEAR(sp.sd, CB_HIST_SPREAD_FLOOR, 1e-12);
}

static void test_axes_match(void)
{
    CB_CHECK(cb_hist_axes_match("n=1024;block=256", (const char *[]){"block=256"}, 1));
    CB_CHECK(!cb_hist_axes_match("n=1024;block=256", (const char *[]){"n=10"}, 1));
    CB_CHECK(!cb_hist_axes_match("n=1024;block=256", (const char *[]){"block=256", "x=1"}, 2));
}

int main(void)
{
    test_noise_and_tests();
    test_detector();
    test_check_rules();
    test_conditions();
    test_set_aside();
    test_spread();
    test_axes_match();
    return cb_test_finish("test_history_detect");
}
