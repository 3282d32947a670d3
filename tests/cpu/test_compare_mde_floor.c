/* test_compare_mde_floor.c - the reported MDE of a point near the timer's
 * floor means what it says. A "slower" needs both the test (the CI beyond
 * delta after BH) and a change of medians of at least the floor; both are
 * d > threshold on the log scale, so a true change of
 *     log1p(MDE) = max(L + (t_ci + t_pow) se, log1p(floor / median) + t_pow se)
 * clears both with probability `power` (a point tested alone). On the H200
 * A/A data 16 points of about 5.5 us with MDE 8.4-9.0% missed a planted +10%
 * under the 0.5 us floor: their se came from rounds alone and missed a 2%
 * process offset. Here synthetic 5.5-7 us points with a process offset of
 * 0.4% per side (the truth), --between-run 0.004 and the event floor: every point with
 * MDE <= 10% must catch +10% (all but a rare one), and the MDE must include
 * the floor term exactly. */
/* test links: cubench_compare */
#include "compare.h"

#include "compare_stats.h"
#include "cb_test.h"
#include "test_compare_sim.h"

#include <stdlib.h>

enum { R = 5, N = 20, TRIALS = 1500 };

/* One directory of R rounds x N samples of a point at `median` (seconds). */
static void add_side(cb_cmp_run *run, double median)
{
    cb_msg err;
    CB_CHECK(cb_cmp_run_begin_dir(run, "x", &err));
    cb_cmp_point *p = cb_cmp_run_add_point(run, "fam/x", "n=1", "ok", NULL, &err);
    CB_CHECK(p != NULL);
    if (!p) return;
    snprintf(p->timer, sizeof p->timer, "event");
    p->batch = 1;
    double process = median * exp(0.004 * sim_normal()); /* a 0.4% process offset */
    for (int r = 0; r < R; r++) {
        double level = process * exp(0.002 * sim_normal());
        for (int k = 0; k < N; k++)
            CB_CHECK(cb_cmp_point_add_time(p, level * exp(0.005 * sim_normal()), r, &err));
    }
}

static void test_floor_in_mde(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    o.between_run_sd = 0.004; /* the truth of add_side */
    long small = 0, caught = 0, floor_bound = 0;
    for (int i = 0; i < TRIALS; i++) {
        double median = 5.5e-6 + 1.5e-6 * i / TRIALS; /* 5.5-7 us: floor 7.1-9.1% */
        cb_cmp_run base, cand;
        cb_cmp_run_init(&base);
        cb_cmp_run_init(&cand);
        add_side(&base, median);
        add_side(&cand, median * 1.10);
        cb_compare_result r;
        cb_msg err;
        CB_CHECK(cb_compare_runs(&base, &cand, &o, &r, &err) && r.n_rows == 1);
        const cb_compare_row *row = &r.rows[0];
        CB_CHECK_NEAR(row->floor_s, 0.5e-6, 1e-15);
        /* the floor term, exactly as derived above */
        double se = sqrt(row->var);
        double by_floor =
            log1p(row->floor_s / row->base.median_s) + cb_t_quantile(o.power, row->df) * se;
        CB_CHECK(log1p(row->mde) >= by_floor - 1e-12);
        floor_bound += log1p(row->mde) <= by_floor + 1e-12; /* the floor decided it */
        if (row->mde <= 0.10) {
            small++;
            caught += row->verdict == CB_VERDICT_SLOWER;
        }
        cb_compare_result_free(&r);
        cb_cmp_run_free(&base);
        cb_cmp_run_free(&cand);
    }
    printf("5 us points, 0.5 us floor: MDE set by the floor at %ld of %d; +10%% caught at %ld "
           "of %ld with MDE <= 10%%\n",
           floor_bound, TRIALS, caught, small);
    CB_CHECK(floor_bound > TRIALS / 2); /* the floor is what binds at 5 us */
    CB_CHECK(small > TRIALS / 10);      /* and enough points qualify to judge */
    /* power 0.99 per point: at most 1% missed (plus slack for the draw) */
    CB_CHECK(caught >= small - small / 50 - 1);
}

int main(void)
{
    test_floor_in_mde();
    return cb_test_finish("test_compare_mde_floor");
}
