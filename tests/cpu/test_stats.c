/* test_stats.c - summaries, the median CI ranks and the stopping rule. */
#include "cb_test.h"
#include "stats.h"

#include <stdlib.h>

/* P(Binomial(n, 1/2) <= k), by direct summation. */
static double binom_cdf(int n, int k)
{
    double p = 0, term = pow(0.5, n);
    for (int i = 0; i <= k; i++) {
        p += term;
        term = term * (n - i) / (i + 1);
    }
    return p;
}

static double lcg_uniform(unsigned long long *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return ((*s >> 11) + 0.5) / 9007199254740992.0;
}

int main(void)
{
    double x[] = {5, 1, 4, 2, 3};
    cb_summary s;
    cb_stats_summarise(x, 5, &s);
    CB_CHECK_NEAR(s.median, 3, 0);
    CB_CHECK_NEAR(s.min, 1, 0);
    CB_CHECK_NEAR(s.max, 5, 0);
    CB_CHECK_NEAR(s.q1, 2, 1e-12);
    CB_CHECK_NEAR(s.q3, 4, 1e-12);
    CB_CHECK_NEAR(s.mean, 3, 1e-12);
    CB_CHECK_NEAR(s.stddev, sqrt(2.5), 1e-12);
    CB_CHECK(x[0] == 5); /* input untouched */
    /* n = 5 is too small for a 95% interval: P(B <= 0) = 1/32 > 0.025. */
    CB_CHECK(isinf(s.ci_rel_half));

    double even[] = {1, 2, 3, 4};
    cb_stats_summarise(even, 4, &s);
    CB_CHECK_NEAR(s.median, 2.5, 1e-12);
    CB_CHECK_NEAR(s.q1, 1.75, 1e-12);

    /* Ranks: the known table value for n = 10 is (2, 9), for n = 100 (40, 61). */
    int lo, hi;
    CB_CHECK(cb_stats_median_ci_ranks(10, 0.95, &lo, &hi));
    CB_CHECK_EQ_INT(lo, 2);
    CB_CHECK_EQ_INT(hi, 9);
    CB_CHECK(cb_stats_median_ci_ranks(100, 0.95, &lo, &hi));
    CB_CHECK_EQ_INT(lo, 40);
    CB_CHECK_EQ_INT(hi, 61);
    CB_CHECK(!cb_stats_median_ci_ranks(5, 0.95, &lo, &hi));
    /* For every n the coverage holds and one rank wider would break it. */
    for (int n = 6; n <= 300; n++) {
        CB_CHECK(cb_stats_median_ci_ranks(n, 0.95, &lo, &hi));
        CB_CHECK(1 - 2 * binom_cdf(n, lo - 1) >= 0.95 - 1e-12);
        CB_CHECK(1 - 2 * binom_cdf(n, lo) < 0.95);
        CB_CHECK_EQ_INT(hi, n - lo + 1);
    }

    /* Empirical coverage of the median CI over skewed (exponential) data. */
    unsigned long long seed = 42;
    int covered = 0, trials = 2000;
    double true_median = log(2.0);
    for (int t = 0; t < trials; t++) {
        double d[30];
        for (int i = 0; i < 30; i++)
            d[i] = -log(lcg_uniform(&seed));
        cb_stats_summarise(d, 30, &s);
        if (s.ci_lo <= true_median && true_median <= s.ci_hi) covered++;
    }
    CB_CHECK(covered >= 0.94 * trials);

    /* Stopping rule. */
    cb_stop_rule rule = {
        .min_samples = 10, .max_samples = 1000, .target_rel = 0.005, .max_time_s = 1.0};
    double flat[1000];
    for (int i = 0; i < 1000; i++)
        flat[i] = 1.0 + 1e-5 * (i % 7);
    CB_CHECK_EQ_INT(cb_stop_check(&rule, flat, 5, 0.01), CB_STOP_CONTINUE); /* under minimum */
    CB_CHECK_EQ_INT(cb_stop_check(&rule, flat, 10, 0.01), CB_STOP_CONVERGED);
    double noisy[1000];
    for (int i = 0; i < 1000; i++)
        noisy[i] = 1.0 + 0.5 * lcg_uniform(&seed);
    CB_CHECK_EQ_INT(cb_stop_check(&rule, noisy, 10, 0.01), CB_STOP_CONTINUE);
    CB_CHECK_EQ_INT(cb_stop_check(&rule, noisy, 10, 1.5), CB_STOP_BUDGET);   /* out of time */
    CB_CHECK_EQ_INT(cb_stop_check(&rule, noisy, 1000, 0.5), CB_STOP_BUDGET); /* out of samples */
    CB_CHECK_EQ_INT(cb_stop_check(&rule, noisy, 5, 1.5), CB_STOP_CONTINUE);  /* minimum first */
    CB_CHECK_EQ_INT(cb_stop_check(&rule, noisy, 3, 10.5), CB_STOP_BUDGET);   /* very slow point */
    return cb_test_finish("test_stats");
}
