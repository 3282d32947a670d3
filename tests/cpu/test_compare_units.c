/* test_compare_units.c - one side's estimate of a point on synthetic
 * samples of known structure (compare_units.h): the CI of a unit of AR(1)
 * samples at small n covers at its rate where the lag-1 rule did not; a
 * mode switch inside a unit is flagged `bimodal` with a df floor and an MDE
 * that says why, and plain autocorrelated noise is not; ties on the timer's
 * 32 ns grid leave no unit with zero variance. */
/* test links: cubench_compare */
#include "compare.h"

#include "compare_stats.h"
#include "stats.h"
#include "test_compare_check.h"
#include "test_compare_sim.h"

#include <stdlib.h>

enum { TRIALS = 2000 };

/* One point of `units` units of n AR(1) log-samples (sd `sd`, lag-1 rho)
 * around `median`, plus `step` (log) from sample `at` on in every unit. */
static cb_cmp_point *ar1_point(cb_cmp_run *run, int units, int n, double rho, double sd,
                               double median, double step, int at)
{
    cb_msg err;
    cb_cmp_point *p = cb_cmp_run_add_point(run, "fam/x", "n=1", "ok", NULL, &err);
    CHECK(p != NULL);
    if (!p) return NULL;
    snprintf(p->timer, sizeof p->timer, "event");
    p->batch = 1;
    for (int u = 0; u < units; u++) {
        double z = sim_normal();
        for (int k = 0; k < n; k++) {
            if (k) z = rho * z + sqrt(1.0 - rho * rho) * sim_normal();
            double shift = k >= at ? step : 0.0;
            CHECK(cb_cmp_point_add_time(p, median * exp(sd * z + shift), u, &err));
        }
    }
    return p;
}

/* The old rule (stats.h's lag-1 n_eff with the quantile spacing), for the
 * record: its coverage, printed beside the new one's. */
static bool old_rule_covers(const cb_cmp_point *p, double truth)
{
    double logs[64], sorted[64], n_eff;
    int n = p->n < 64 ? p->n : 64;
    for (int i = 0; i < n; i++)
        logs[i] = log(p->times[i]);
    cb_stats_autocorr(logs, n, &n_eff);
    memcpy(sorted, logs, (size_t)n * sizeof *sorted);
    for (int i = 1; i < n; i++) /* insertion sort: n is small */
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1], sorted[j - 1] = t;
        }
    double h = 0.5 / sqrt(n_eff < 1.0 ? 1.0 : n_eff);
    double spread =
        cb_stats_quantile_sorted(sorted, n, 0.5 + h) - cb_stats_quantile_sorted(sorted, n, 0.5 - h);
    double se = 0.5 * spread, df = n_eff > 2.0 ? n_eff - 1.0 : 1.0;
    return fabs(cb_stats_quantile_sorted(sorted, n, 0.5) - truth) <= cb_t_quantile(0.975, df) * se;
}

/* The 95% CI of a one-unit side around the truth, the autocorrelation
 * pooled with a second unit of the point (NEW's, as compare pools both
 * sides). */
static void test_small_n_coverage(void)
{
    static const double rhos[] = {0.0, 0.5, 0.8};
    static const int ns[] = {10, 20};
    printf("unit CIs (95%%), AR(1) samples, %d trials each:\n", TRIALS);
    for (int ri = 0; ri < 3; ri++)
        for (int ni = 0; ni < 2; ni++) {
            int covered = 0, old_covered = 0;
            for (int t = 0; t < TRIALS; t++) {
                cb_cmp_run base, other;
                cb_cmp_run_init(&base), cb_cmp_run_init(&other);
                const cb_cmp_point *pts[2] = {
                    ar1_point(&base, 1, ns[ni], rhos[ri], 0.01, 1e-3, 0.0, 0),
                    ar1_point(&other, 1, ns[ni], rhos[ri], 0.01, 1e-3, 0.0, 0)};
                cb_side_est e;
                cb_msg err;
                CHECK(pts[0] && cb_side_estimate(pts[0], cb_units_rho(pts, 2), &e, &err));
                double half = cb_t_quantile(0.975, e.df) * sqrt(e.var);
                covered += fabs(e.center - log(1e-3)) <= half;
                old_covered += old_rule_covers(pts[0], log(1e-3));
                cb_cmp_run_free(&base), cb_cmp_run_free(&other);
            }
            double cov = (double)covered / TRIALS, old = (double)old_covered / TRIALS;
            printf("  rho %.1f n %2d: coverage %.3f (the lag-1 rule alone: %.3f)\n", rhos[ri],
                   ns[ni], cov, old);
            CHECK_MSG(cov >= 0.93, "rho %g n %d: %.3f", rhos[ri], ns[ni], cov);
            if (rhos[ri] >= 0.8) CHECK(old < 0.92); /* what was wrong */
        }
}

/* A unit that switches modes mid-way (3.2% apart, 0.3% noise): flagged,
 * df at least 2, an MDE that holds the gap but is not absurd; AR(1) noise
 * without a switch is flagged rarely. */
static void test_mode_switch(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    o.between_run_sd = 0.0;
    int flagged = 0;
    for (int t = 0; t < 200; t++) {
        cb_cmp_run base, cand;
        cb_cmp_run_init(&base), cb_cmp_run_init(&cand);
        ar1_point(&base, 1, 40, 0.3, 0.003, 46.1e-6, log(47.6 / 46.1), 20);
        ar1_point(&cand, 1, 40, 0.3, 0.003, 46.1e-6, 0.0, 0);
        cb_compare_result r;
        cb_msg err;
        CHECK(cb_compare_runs(&base, &cand, &o, &r, &err) && r.n_rows == 1);
        const cb_compare_row *row = &r.rows[0];
        flagged += row->base.bimodal;
        if (t == 0) {
            CHECK(row->base.bimodal && row->base.df >= 2.0);
            CHECK_NEAR(row->base.mode_gap, log(47.6 / 46.1), 0.004);
            CHECK_CONTAINS(row->note, "bimodal: BASE switches between modes 3.");
            CHECK(row->mde > 0.03 && row->mde < 0.20);
            printf("a mode switch of 3.3%%: df %.1f, MDE %.1f%% (%s)\n", row->base.df,
                   100.0 * row->mde, cb_verdict_name(row->verdict));
        }
        CHECK(row->verdict != CB_VERDICT_SLOWER && row->verdict != CB_VERDICT_FASTER);
        cb_compare_result_free(&r);
        cb_cmp_run_free(&base), cb_cmp_run_free(&cand);
    }
    CHECK(flagged >= 195);
    int false_flags = 0;
    for (int t = 0; t < 1000; t++) {
        cb_cmp_run run;
        cb_cmp_run_init(&run);
        cb_cmp_point *p = ar1_point(&run, 1, 30, 0.5, 0.01, 1e-3, 0.0, 0);
        cb_side_est e;
        cb_msg err;
        CHECK(p && cb_side_estimate(p, NAN, &e, &err));
        false_flags += e.bimodal;
        cb_cmp_run_free(&run);
    }
    printf("mode switch flagged in %d of 200 units with one; in %d of 1000 AR(0.5) units "
           "without\n",
           flagged, false_flags);
    CHECK(false_flags <= 10);
}

/* Samples on a 32 ns grid that all tie in a unit: its variance is at
 * least the grid's, never 0, and the test is not exact. */
static void test_grid_ties(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    o.between_run_sd = 0.0;
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base), cb_cmp_run_init(&cand);
    cb_msg err;
    cb_cmp_point *b = cb_cmp_run_add_point(&base, "fam/x", "n=1", "ok", NULL, &err);
    cb_cmp_point *c = cb_cmp_run_add_point(&cand, "fam/x", "n=1", "ok", NULL, &err);
    for (int r = 0; r < 5; r++)
        for (int k = 0; k < 20; k++) {
            /* every round ties at one tick, but one odd sample shows the grid */
            CHECK(cb_cmp_point_add_time(b, r == 0 && k == 0 ? 3.648e-6 : 3.616e-6, r, &err));
            CHECK(cb_cmp_point_add_time(c, 3.648e-6, r, &err));
        }
    cb_compare_result res;
    CHECK(cb_compare_runs(&base, &cand, &o, &res, &err) && res.n_rows == 1);
    const cb_compare_row *row = &res.rows[0];
    CHECK(row->base.tick_floor);
    double grid = (32e-9 / 3.616e-6) * (32e-9 / 3.616e-6) / 12.0;
    CHECK(row->base.var >= grid / 5.0 * 0.999);       /* a mean of 5 rounds, each at the floor */
    CHECK(row->var > 0.0 && row->ci_hi > row->ci_lo); /* not an exact test */
    printf("tied units on a 32 ns grid at 3.6 us: se %.3f%%, verdict %s\n", 100.0 * sqrt(row->var),
           cb_verdict_name(row->verdict));
    cb_compare_result_free(&res);
    cb_cmp_run_free(&base), cb_cmp_run_free(&cand);
}

int main(void)
{
    test_small_n_coverage();
    test_mode_switch();
    test_grid_ties();
    return cb_t_finish("test_compare_units");
}
