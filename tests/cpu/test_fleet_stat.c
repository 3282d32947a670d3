/* test_fleet_stat.c - each run against the others (fleet_stat.h): the O(1)
 * leave-one-out sums against a direct two-pass computation, an outlier found
 * while the ordinary runs stay inside the tolerance band, the cases without
 * a CI (two runs, unknown own variance), a fleet of identical runs, and the
 * cost growing linearly with the number of runs. */
/* test links: cubench_compare */
#include "fleet_stat.h"

#include "cb_test.h"
#include "compare_stats.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static uint64_t rng = 5;

/* Roughly normal: the sum of 12 uniforms, centred. */
static double gaussian(void)
{
    double s = -6.0;
    for (int i = 0; i < 12; i++)
        s += cb_test_uniform(&rng);
    return s;
}

/* The same numbers the slow way: the others' mean and variance in two
 * passes, Welch-Satterthwaite df, the t quantile. */
static void direct(const cb_fleet_value *v, int n, int i, double alpha, cb_fleet_loo *o)
{
    int k = n - 1;
    double mean = 0.0, ss = 0.0;
    for (int j = 0; j < n; j++)
        if (j != i) mean += v[j].center / k;
    for (int j = 0; j < n; j++)
        if (j != i) ss += (v[j].center - mean) * (v[j].center - mean);
    double a = ss / (k - 1) * (1.0 + 1.0 / k), b = v[i].var;
    o->log_ratio = v[i].center - mean;
    o->se = sqrt(a + b);
    o->df = (a + b) * (a + b) / (a * a / (k - 1) + b * b / v[i].df);
    double t = cb_t_quantile(1.0 - alpha / 2.0, o->df);
    o->ci_lo = o->log_ratio - t * o->se;
    o->ci_hi = o->log_ratio + t * o->se;
    o->p = 2.0 * cb_t_cdf(-fabs(o->log_ratio) / o->se, o->df);
}

static void check_against_direct(int n, double spread)
{
    cb_fleet_value *v = malloc(sizeof *v * (size_t)n);
    cb_fleet_loo *got = malloc(sizeof *got * (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = (cb_fleet_value){log(1e-3) + spread * gaussian(), 1e-5 * (1 + cb_test_uniform(&rng)),
                                3 + 20 * cb_test_uniform(&rng)};
    cb_fleet_leave_one_out(v, n, 0.05, got);
    for (int i = 0; i < n; i++) {
        cb_fleet_loo want;
        direct(v, n, i, 0.05, &want);
        CB_CHECK_NEAR(got[i].log_ratio, want.log_ratio, 1e-12);
        CB_CHECK_REL(got[i].se, want.se, 1e-9);
        CB_CHECK_REL(got[i].df, want.df, 1e-9);
        CB_CHECK_NEAR(got[i].ci_lo, want.ci_lo, 1e-9);
        CB_CHECK_NEAR(got[i].ci_hi, want.ci_hi, 1e-9);
        CB_CHECK_NEAR(got[i].p, want.p, 1e-9);
    }
    free(v);
    free(got);
}

/* 30 runs spread by 1%, one 30% slower: that one's CI lies above
 * log(1.05); no other run's lies beyond the band. */
static void check_outlier(void)
{
    enum { N = 31 };
    cb_fleet_value v[N];
    cb_fleet_loo o[N];
    for (int i = 0; i < N; i++)
        v[i] = (cb_fleet_value){0.01 * gaussian() + (i == 7 ? log(1.3) : 0.0), 1e-6, 9};
    cb_fleet_leave_one_out(v, N, 0.05, o);
    double band = log(1.05);
    CB_CHECK(o[7].ci_lo > band);
    CB_CHECK_NEAR(o[7].log_ratio, log(1.3), 0.03);
    CB_CHECK(o[7].p < 1e-6);
    int outside = 0;
    for (int i = 0; i < N; i++)
        if (i != 7) outside += o[i].ci_lo > band || o[i].ci_hi < -band;
    CB_CHECK_EQ_INT(outside, 0);
}

static void check_without_ci(void)
{
    cb_fleet_value two[2] = {{0.0, 1e-4, 5}, {log(2.0), 1e-4, 5}};
    cb_fleet_loo o[3];
    cb_fleet_leave_one_out(two, 2, 0.05, o);
    CB_CHECK_NEAR(o[0].log_ratio, -log(2.0), 1e-12);
    CB_CHECK_NEAR(o[1].log_ratio, log(2.0), 1e-12);
    CB_CHECK(isnan(o[0].ci_lo) && isnan(o[1].ci_hi) && isnan(o[0].p));
    cb_fleet_value three[3] = {{0.0, NAN, NAN}, {0.01, 1e-4, 5}, {-0.01, 1e-4, 5}};
    cb_fleet_leave_one_out(three, 3, 0.05, o);
    CB_CHECK(isnan(o[0].ci_lo)); /* its own variance unknown */
    CB_CHECK(!isnan(o[1].ci_lo) && o[1].ci_lo < o[1].log_ratio && o[1].log_ratio < o[1].ci_hi);
}

/* Identical runs: d = 0, a CI of the runs' own variance, p = 1. */
static void check_identical(void)
{
    cb_fleet_value v[4];
    cb_fleet_loo o[4];
    for (int i = 0; i < 4; i++)
        v[i] = (cb_fleet_value){log(5e-6), 4e-6, 12};
    cb_fleet_leave_one_out(v, 4, 0.05, o);
    for (int i = 0; i < 4; i++) {
        CB_CHECK_NEAR(o[i].log_ratio, 0.0, 1e-12);
        CB_CHECK_NEAR(o[i].se, 2e-3, 1e-12);
        CB_CHECK_NEAR(o[i].df, 12, 1e-9);
        CB_CHECK_NEAR(o[i].p, 1.0, 1e-12);
        CB_CHECK_NEAR(o[i].ci_hi, cb_t_quantile(0.975, 12) * 2e-3, 1e-9);
    }
    /* no spread and no variance: the CI is the point itself */
    for (int i = 0; i < 4; i++)
        v[i] = (cb_fleet_value){i == 3 ? 0.5 : 0.0, 0.0, INFINITY};
    cb_fleet_leave_one_out(v, 4, 0.05, o);
    CB_CHECK_NEAR(o[3].ci_lo, 0.5, 1e-12);
    CB_CHECK_NEAR(o[3].ci_hi, 0.5, 1e-12);
    CB_CHECK_NEAR(o[3].p, 0.0, 0);
}

static double seconds_for(int n)
{
    cb_fleet_value *v = malloc(sizeof *v * (size_t)n);
    cb_fleet_loo *o = malloc(sizeof *o * (size_t)n);
    for (int i = 0; i < n; i++)
        v[i] = (cb_fleet_value){0.01 * gaussian(), 1e-5, 9};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cb_fleet_leave_one_out(v, n, 0.05, o);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(v);
    free(o);
    return (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
}

/* 8x the runs: about 8x the time (a quadratic leave-one-out would be 64x).
 * The limit leaves 3x for a busy machine. */
static void check_linear(void)
{
    double small = seconds_for(20000), large = seconds_for(160000);
    printf("20000 runs: %.3f s, 160000 runs: %.3f s (x%.1f)\n", small, large, large / small);
    CB_CHECK(large < 24.0 * small);
}

int main(void)
{
    check_against_direct(3, 0.02);
    check_against_direct(10, 0.05);
    check_against_direct(200, 0.01);
    check_against_direct(50, 1e-9); /* a tight fleet: the centred sums hold */
    check_outlier();
    check_without_ci();
    check_identical();
    check_linear();
    return cb_test_finish("test_fleet_stat");
}
