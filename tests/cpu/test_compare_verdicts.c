/* test_compare_verdicts.c - verdicts on synthetic sample sets of known shape
 * (seeded lognormal noise), the A/A false-positive rate, and the result's
 * counts, order and geometric means. */
#include "compare.h"

#include "test_compare_check.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 7;

static double rng_uniform(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1.0p-53; /* in (0, 1) */
}

static double rng_normal(void)
{
    return sqrt(-2.0 * log(rng_uniform())) * cos(6.283185307179586 * rng_uniform());
}

/* A timed point with n lognormal times around `median` (log-sd `sigma`),
 * optionally rounded to a timer resolution `tick` (0: none). */
static void add_timed(cb_cmp_run *run, const char *bench, const char *axes, int n, double median,
                      double sigma, double tick)
{
    cb_msg err;
    cb_cmp_point *p = cb_cmp_run_add_point(run, bench, axes, "ok", NULL, &err);
    bool ok = p != NULL;
    for (int i = 0; ok && i < n; i++) {
        double t = median * exp(sigma * rng_normal());
        if (tick > 0) t = fmax(tick, tick * round(t / tick));
        ok = cb_cmp_point_add_time(p, t, &err);
    }
    CHECK(ok);
}

/* Compare one point with the given times on each side; return its row. */
static cb_compare_row explicit_point(const cb_compare_opts *o, const double *b, int m,
                                     const double *c, int n)
{
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    cb_msg err;
    cb_cmp_point *pb = cb_cmp_run_add_point(&base, "fam/x", "n=1", "ok", NULL, &err);
    cb_cmp_point *pc = cb_cmp_run_add_point(&cand, "fam/x", "n=1", "ok", NULL, &err);
    CHECK(pb && pc);
    for (int i = 0; pb && i < m; i++)
        CHECK(cb_cmp_point_add_time(pb, b[i], &err));
    for (int j = 0; pc && j < n; j++)
        CHECK(cb_cmp_point_add_time(pc, c[j], &err));
    cb_compare_result r;
    cb_compare_row row = {0};
    if (cb_compare_runs(&base, &cand, o, &r, &err)) {
        row = r.rows[0];
        row.benchmark = row.axes = NULL;
        cb_compare_result_free(&r);
    }
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
    return row;
}

/* Compare one point drawn as described on each side; return its row. */
static cb_compare_row one_point(const cb_compare_opts *o, int m, double base_med, double base_sigma,
                                int n, double new_med, double new_sigma, double tick)
{
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    add_timed(&base, "fam/x", "n=1", m, base_med, base_sigma, tick);
    add_timed(&cand, "fam/x", "n=1", n, new_med, new_sigma, tick);
    cb_compare_result r;
    cb_msg err;
    cb_compare_row row = {0};
    row.verdict = CB_VERDICT_COUNT;
    if (cb_compare_runs(&base, &cand, o, &r, &err)) {
        CHECK(r.n_rows == 1);
        row = r.rows[0];
        row.benchmark = row.axes = NULL; /* owned by the runs freed below */
        cb_compare_result_free(&r);
    } else {
        CHECK_MSG(false, "%s", err.text);
    }
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
    return row;
}

#define CHECK_VERDICT(row, want)                                                                   \
    CHECK_MSG((row).verdict == (want), "got %s (r=%.4f ci %.4f..%.4f q=%.3g iqr %.3f/%.3f %s)",    \
              cb_verdict_name((row).verdict), (row).ratio, (row).ci_lo, (row).ci_hi, (row).q,      \
              (row).base_rel_iqr, (row).new_rel_iqr, (row).note)

static void test_shapes(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    cb_compare_row r;

    /* identical samples: same, ratio exactly 1 */
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    uint64_t saved = rng_state;
    add_timed(&base, "fam/x", "n=1", 40, 1e-3, 0.01, 0);
    rng_state = saved;
    add_timed(&cand, "fam/x", "n=1", 40, 1e-3, 0.01, 0);
    cb_compare_result res;
    cb_msg err;
    CHECK(cb_compare_runs(&base, &cand, &o, &res, &err));
    CHECK_VERDICT(res.rows[0], CB_VERDICT_SAME);
    CHECK(res.rows[0].ratio == 1.0);
    CHECK_NEAR(res.rows[0].p, 1.0, 1e-12);
    cb_compare_result_free(&res);
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);

    /* A 4% change of a 4 us point is 0.16 us: below the event timer's
     * resolution, so the same, however significant; the same 4% of 4 ms is
     * a slowdown. */
    r = one_point(&o, 200, 4e-6, 0.005, 200, 4.16e-6, 0.005, 0);
    CHECK_VERDICT(r, CB_VERDICT_SAME);
    CHECK(strstr(r.note, "below the 0.5 us resolution") != NULL);
    r = one_point(&o, 200, 4e-3, 0.005, 200, 4.16e-3, 0.005, 0);
    CHECK_VERDICT(r, CB_VERDICT_SLOWER);
    {
        cb_compare_opts fine = o;
        fine.min_abs_delta = 0;
        r = one_point(&fine, 200, 4e-6, 0.005, 200, 4.16e-6, 0.005, 0);
        CHECK_VERDICT(r, CB_VERDICT_SLOWER);
    }

    /* 5% slower, low noise */
    r = one_point(&o, 30, 1e-3, 0.01, 30, 1.05e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_SLOWER);
    CHECK_NEAR(r.ratio, 1.05, 0.01);
    CHECK(r.ci_lo < 1.05 && 1.05 < r.ci_hi);

    /* the mirror: 5% faster */
    r = one_point(&o, 30, 1e-3, 0.01, 30, 0.95e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_FASTER);
    CHECK_NEAR(r.ratio, 0.95, 0.01);

    /* heavy noise: noisy, on either side, with or without a 10% change */
    r = one_point(&o, 30, 1e-3, 0.30, 30, 1e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_NOISY);
    r = one_point(&o, 30, 1e-3, 0.01, 30, 1e-3, 0.30, 0);
    CHECK_VERDICT(r, CB_VERDICT_NOISY);
    r = one_point(&o, 30, 1e-3, 0.20, 30, 1.1e-3, 0.20, 0);
    CHECK_VERDICT(r, CB_VERDICT_NOISY);
    /* ... but a 3x slowdown does not hide behind its spread: the quartile
     * ranges are apart by more than delta */
    r = one_point(&o, 30, 1e-3, 0.30, 30, 3e-3, 0.30, 0);
    CHECK_VERDICT(r, CB_VERDICT_SLOWER);
    CHECK_CONTAINS(r.note, "quartile ranges are apart");
    r = one_point(&o, 30, 3e-3, 0.30, 30, 1e-3, 0.30, 0);
    CHECK_VERDICT(r, CB_VERDICT_FASTER);

    /* unequal sample counts */
    r = one_point(&o, 12, 1e-3, 0.01, 400, 1.05e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_SLOWER);
    CHECK(r.base_n == 12 && r.new_n == 400);
    r = one_point(&o, 400, 1e-3, 0.01, 12, 1e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_SAME);

    /* a real but tiny change (0.5%) with delta 3%: same */
    r = one_point(&o, 50, 1e-3, 0.005, 50, 1.005e-3, 0.005, 0);
    CHECK_VERDICT(r, CB_VERDICT_SAME);

    /* a significant 2% change: neither slower (below delta) nor same (the CI
     * reaches past +-delta) only if the CI is wide; with a tight CI it is same */
    r = one_point(&o, 200, 1e-3, 0.002, 200, 1.02e-3, 0.002, 0);
    CHECK_VERDICT(r, CB_VERDICT_SAME);
    CHECK(r.ci_lo > 1.0); /* detectably different, but within the band */

    /* 8% slower with few samples: 3 per side is inconclusive by rule */
    r = one_point(&o, 3, 1e-3, 0.01, 3, 1.08e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_INCONCLUSIVE);
    CHECK_CONTAINS(r.note, "too few samples");

    /* 5 per side: the exact test can just reach 99% (p = 2/252) */
    r = one_point(&o, 5, 1e-3, 0.01, 5, 1.10e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_SLOWER);

    /* a 4% change that overlaps: U = 22 of 25, exact p = 14/252 > alpha and
     * the 99% CI (k = 1: min to max ratio) straddles 1: inconclusive */
    static const double b5[] = {1.00e-3, 1.02e-3, 0.98e-3, 1.01e-3, 0.99e-3};
    static const double c5[] = {1.04e-3, 1.06e-3, 0.995e-3, 1.05e-3, 1.03e-3};
    r = explicit_point(&o, b5, 5, c5, 5);
    CHECK_VERDICT(r, CB_VERDICT_INCONCLUSIVE);
    CHECK_NEAR(r.p, 14.0 / 252.0, 1e-15);
    CHECK(r.ratio >= 1.03 && r.ci_lo < 1.0);
    CHECK_CONTAINS(r.note, "CI wider than +-3.0%");

    /* timer resolution ties (0.5 us ticks on ~10 us): still sound */
    r = one_point(&o, 50, 10e-6, 0.01, 50, 10e-6, 0.01, 0.5e-6);
    CHECK_VERDICT(r, CB_VERDICT_SAME);
    r = one_point(&o, 50, 10e-6, 0.01, 50, 11e-6, 0.01, 0.5e-6);
    CHECK_VERDICT(r, CB_VERDICT_SLOWER);

    /* with delta 10% a clear 5% slowdown is within the band: same */
    cb_compare_opts wide = o;
    wide.delta = 0.10;
    r = one_point(&wide, 30, 1e-3, 0.01, 30, 1.05e-3, 0.01, 0);
    CHECK_VERDICT(r, CB_VERDICT_SAME);
    /* a 5% change measured too loosely to be inside +-3%, yet below delta 6%:
     * significant, smaller than delta, CI beyond the band -> inconclusive */
    cb_compare_opts mid = o;
    mid.delta = 0.06;
    static const double b6[] = {1.000e-3, 1.001e-3, 1.002e-3, 1.003e-3, 1.004e-3, 1.005e-3};
    static const double c6[] = {1.045e-3, 1.050e-3, 1.051e-3, 1.052e-3, 1.053e-3, 1.075e-3};
    r = explicit_point(&mid, b6, 6, c6, 6);
    CHECK_VERDICT(r, CB_VERDICT_INCONCLUSIVE);
    CHECK(r.ci_lo > 1.0 && r.ci_hi > 1.06);
    CHECK_CONTAINS(r.note, "smaller than 6.0%");
}

/* Draw `draws` A/A pairs; check the share flagged slower (and the raw test's
 * rejection rate) against alpha plus three binomial standard errors. */
static void check_aa(int draws, int m, int n, double sigma, double tick)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    int slower = 0, flagged = 0, reject = 0, reject05 = 0, ci_miss = 0;
    for (int d = 0; d < draws; d++) {
        cb_compare_row r = one_point(&o, m, 1e-4, sigma, n, 1e-4, sigma, tick);
        slower += r.verdict == CB_VERDICT_SLOWER;
        flagged += r.verdict == CB_VERDICT_SLOWER || r.verdict == CB_VERDICT_FASTER;
        reject += r.p <= o.alpha;
        reject05 += r.p <= 0.05;
        ci_miss += r.ci_lo > 1.0 || r.ci_hi < 1.0;
    }
    double margin = 3.0 * sqrt(o.alpha * (1.0 - o.alpha) / draws);
    double limit = o.alpha + margin;
    CHECK_MSG((double)slower / draws <= limit, "%d/%d slower", slower, draws);
    CHECK_MSG((double)flagged / draws <= limit, "%d/%d flagged", flagged, draws);
    CHECK_MSG((double)reject / draws <= limit, "p <= alpha in %d/%d", reject, draws);
    CHECK_MSG((double)ci_miss / draws <= limit, "CI excludes 1 in %d/%d", ci_miss, draws);
    /* ... and the test is not dead: at 5% it rejects about 5% of the time */
    CHECK_MSG(reject05 >= draws * 0.05 / 3 && reject05 <= draws * 0.05 * 2, "p <= 0.05 in %d/%d",
              reject05, draws);
    printf("A/A m=%d n=%d sigma=%g tick=%g: %d draws, slower %d, p<=alpha %d, p<=0.05 %d, "
           "CI misses %d\n",
           m, n, sigma, tick, draws, slower, reject, reject05, ci_miss);
}

static void test_false_positives(void)
{
    check_aa(1000, 20, 20, 0.02, 0);      /* exact distribution */
    check_aa(1000, 100, 150, 0.02, 0);    /* normal approximation, sorted pairs */
    check_aa(1000, 60, 60, 0.02, 0.5e-6); /* heavy ties from a 0.5 us timer on 100 us */
    check_aa(200, 400, 400, 0.02, 0);     /* pairwise selection path */
    check_aa(1000, 30, 30, 0.30, 0);      /* noisy: the quartile rule must not fire */
}

/* Many points in one comparison: BH keeps the null points out while the real
 * slowdowns stay; counts, geomean, groups and the order of the rows. */
static void test_many_points(void)
{
    cb_compare_opts o;
    cb_compare_opts_default(&o);
    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    char axes[32];
    for (int i = 0; i < 100; i++) {
        snprintf(axes, sizeof axes, "n=%d", i);
        const char *bench = i < 50 ? "a/one" : "b/two";
        double slow = i % 10 == 3 ? 1.10 + 0.01 * i / 10 : 1.0; /* 10 slowed points */
        add_timed(&base, bench, axes, 30, 1e-3, 0.01, 0);
        add_timed(&cand, bench, axes, 30, slow * 1e-3, 0.01, 0);
    }
    cb_msg err;
    CHECK(cb_cmp_run_add_point(&base, "c/gone", "n=1", "ok", NULL, &err) != NULL);
    add_timed(&base, "c/gone2", "n=1", 10, 1e-3, 0.01, 0);
    CHECK(cb_cmp_run_add_point(&cand, "c/gone2", "n=1", "skip", "out of memory", &err) != NULL);
    add_timed(&cand, "d/fresh", "n=1", 10, 1e-3, 0.01, 0);
    CHECK(cb_cmp_run_add_point(&base, "e/late", "n=1", "fail", "wrong result", &err) != NULL);
    add_timed(&cand, "e/late", "n=1", 10, 1e-3, 0.01, 0);
    CHECK(cb_cmp_run_add_point(&cand, "x/bad", "n=1", "weird", NULL, &err) == NULL);
    CHECK_CONTAINS(err.text, "unknown status 'weird'");

    cb_compare_result r;
    CHECK(cb_compare_runs(&base, &cand, &o, &r, &err));
    CHECK(r.n_rows == 104);
    CHECK_MSG(r.counts[CB_VERDICT_SLOWER] == 10, "%d slower", r.counts[CB_VERDICT_SLOWER]);
    CHECK(r.counts[CB_VERDICT_FASTER] == 0);
    CHECK(r.counts[CB_VERDICT_SAME] == 90);
    CHECK(r.counts[CB_VERDICT_MISSING] == 2);
    CHECK(r.counts[CB_VERDICT_NEW] == 2);
    /* slower first, the largest ratio at the top */
    CHECK(r.rows[0].verdict == CB_VERDICT_SLOWER && strcmp(r.rows[0].axes, "n=93") == 0);
    for (int i = 1; i < r.n_rows; i++)
        CHECK(r.rows[i - 1].verdict <= r.rows[i].verdict);
    CHECK(r.rows[9].verdict == CB_VERDICT_SLOWER && strcmp(r.rows[9].axes, "n=3") == 0);
    /* missing and new rows say why */
    bool saw_oom = false, saw_not_in_new = false, saw_fail = false;
    for (int i = 0; i < r.n_rows; i++) {
        const cb_compare_row *row = &r.rows[i];
        if (strcmp(row->benchmark, "c/gone2") == 0)
            saw_oom = row->verdict == CB_VERDICT_MISSING &&
                      strcmp(row->note, "NEW: skip: out of memory") == 0 && row->base_n == 10;
        if (strcmp(row->benchmark, "c/gone") == 0)
            saw_not_in_new =
                row->verdict == CB_VERDICT_MISSING && strcmp(row->note, "not in NEW") == 0;
        if (strcmp(row->benchmark, "e/late") == 0)
            saw_fail = row->verdict == CB_VERDICT_NEW &&
                       strcmp(row->note, "BASE: fail: wrong result") == 0;
    }
    CHECK(saw_oom && saw_not_in_new && saw_fail);
    /* geomean over the 100 points timed on both sides */
    CHECK(r.geomean_points == 100);
    double want = 0.0;
    for (int i = 0; i < r.n_rows; i++)
        if (!isnan(r.rows[i].ratio)) want += log(r.rows[i].ratio);
    CHECK_NEAR(r.geomean, exp(want / 100), 1e-12);
    CHECK(r.geomean > 1.005 && r.geomean < 1.02);
    CHECK(r.n_groups == 6);
    CHECK(strcmp(r.groups[0].benchmark, "a/one") == 0 && r.groups[0].points == 50);
    CHECK(r.groups[0].counts[CB_VERDICT_SLOWER] == 5);
    CHECK(isnan(r.groups[2].geomean)); /* c/gone: nothing timed on both sides */
    cb_compare_result_free(&r);
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
}

int main(void)
{
    test_shapes();
    test_false_positives();
    test_many_points();
    return cb_t_finish("test_compare_verdicts");
}
