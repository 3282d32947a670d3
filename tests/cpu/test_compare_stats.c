/* test_compare_stats.c - the distributions of compare against references:
 * Student t quantiles and probabilities computed with arbitrary precision
 * (mpmath, 30 and 40 digits), the closed forms for 1 and 2 degrees of
 * freedom, round trips, large df, the normal, and hand-computed
 * Benjamini-Hochberg q-values. */
/* test links: cubench_compare */
#include "compare_stats.h"
#include "stats.h"

#include "test_compare_check.h"

#include <stdlib.h>

static void test_normal(void)
{
    CHECK_NEAR(cb_normal_quantile(0.975), 1.9599639845400536, 1e-13);
    CHECK_NEAR(cb_normal_quantile(0.995), 2.5758293035489, 1e-13);
    CHECK_NEAR(cb_normal_quantile(0.5), 0.0, 1e-15);
    CHECK_NEAR(cb_normal_quantile(1e-10), -6.361340902404056, 1e-11);
    CHECK_NEAR(cb_normal_sf(1.9599639845400536), 0.025, 1e-15);
    for (double p = 0.001; p < 1.0; p += 0.0173)
        CHECK_NEAR(1.0 - cb_normal_sf(cb_normal_quantile(p)), p, 1e-14);
}

static void test_student_t(void)
{
    /* quantiles: p, df, value (mpmath, 30 digits) */
    static const double q[][3] = {
        {0.975, 1, 12.706204736174693},      {0.975, 2, 4.3026527297494618},
        {0.995, 4, 4.604094871349992},       {0.995, 8, 3.3553873313333949},
        {0.95, 3.5, 2.2224334936496007},     {0.99999, 8, 8.907026870848961},
        {0.975, 30, 2.0422724563012379},     {0.9, 0.5, 10.270324410234511},
        {0.995, 200.25, 2.6006031892764567},
    };
    for (int i = 0; i < CB_ARRAY_LEN(q); i++) {
        double got = cb_t_quantile(q[i][0], q[i][1]);
        CHECK_NEAR(got, q[i][2], 1e-10 * q[i][2]);
        CHECK_NEAR(cb_t_quantile(1.0 - q[i][0], q[i][1]), -q[i][2], 1e-10 * q[i][2]);
    }
    /* probabilities: t, df, P(T <= t) */
    static const double c[][3] = {
        {2.0, 3, 0.93033701572057841},
        {-1.5, 7.3, 0.087781546401543063},
        {4.0, 2.2, 0.97563468663611801},
        {0.3, 0.7, 0.58538240681433247},
    };
    for (int i = 0; i < CB_ARRAY_LEN(c); i++)
        CHECK_NEAR(cb_t_cdf(c[i][0], c[i][1]), c[i][2], 1e-12);
    /* closed forms: Cauchy (df 1) and df 2 */
    for (double t = -20; t <= 20; t += 0.37) {
        CHECK_NEAR(cb_t_cdf(t, 1), 0.5 + atan(t) / M_PI, 1e-12);
        CHECK_NEAR(cb_t_cdf(t, 2), 0.5 + t / (2.0 * sqrt(2.0 + t * t)), 1e-12);
    }
    /* round trips over df and p (lgamma's cancellation costs digits at
     * huge df: 2e-10 at 1e6, far below what a verdict needs), and the
     * normal limit */
    const double dfs[] = {1, 1.7, 3, 8, 25.5, 400, 1e6};
    for (int d = 0; d < CB_ARRAY_LEN(dfs); d++)
        for (double p = 0.0005; p < 1.0; p += 0.0371)
            CHECK_NEAR(cb_t_cdf(cb_t_quantile(p, dfs[d]), dfs[d]), p, dfs[d] > 1e3 ? 1e-9 : 1e-11);
    CHECK_NEAR(cb_t_quantile(0.995, INFINITY), cb_normal_quantile(0.995), 1e-15);
    CHECK_NEAR(cb_t_cdf(1.3, INFINITY), 1.0 - cb_normal_sf(1.3), 1e-15);
    CHECK(cb_t_quantile(0.5, 3) == 0.0);
    CHECK(isinf(cb_t_quantile(1.0, 3)) && isnan(cb_t_quantile(0.5, 0)));
    CHECK(cb_t_cdf(INFINITY, 4) == 1.0 && cb_t_cdf(-INFINITY, 4) == 0.0);
}

/* Large df, where the incomplete beta's lgamma prefactor cancelled digits
 * away (2e-10 at 1e6 df): P(T <= t) against mpmath at 40 digits, to 1e-13
 * (relative for the lower tails), and round trips to 1e-12. */
static void test_student_t_large_df(void)
{
    static const double c[][3] = {
        {-4, 1e5, 0.000031693998778597669602},
        {-2.5, 1e5, 0.006210459596279522691},
        {0.7, 1e5, 0.75803553357633893316},
        {2.5758293035489, 1e5, 0.9949992890592147784},
        {6, 1e5, 0.9999999990100352722},
        {-4, 1e6, 0.00003167351700502405231},
        {-2.5, 1e6, 0.0062097447510816231039},
        {0.7, 1e6, 0.75803626635672929181},
        {2.5758293035489, 1e6, 0.9949999289077787632},
        {6, 1e6, 0.99999999901307509382},
        {-4, 1e7, 0.00003167146934508437799},
        {-2.5, 1e7, 0.0062096732682892350835},
        {0.7, 1e7, 0.75803633963490582703},
        {2.5758293035489, 1e7, 0.99499999289079643973},
        {-4, 1e9, 0.000031671244108233817322},
        {0.7, 1e9, 0.75803634769550677214},
        {2.5758293035489, 1e9, 0.99499999992890797393},
        {6, 1e9, 0.99999999901341201775},
    };
    for (int i = 0; i < CB_ARRAY_LEN(c); i++) {
        double got = cb_t_cdf(c[i][0], c[i][1]), want = c[i][2];
        CHECK_MSG(fabs(got - want) <= 1e-13 * (want < 0.5 ? want / 0.5 : 1.0) + 1e-16,
                  "t %g df %g: %.17g vs %.17g", c[i][0], c[i][1], got, want);
    }
    const double dfs[] = {2e4, 1e5, 3e5, 1e6, 1e8};
    for (int d = 0; d < CB_ARRAY_LEN(dfs); d++)
        for (double p = 0.0005; p < 1.0; p += 0.0371)
            CHECK_NEAR(cb_t_cdf(cb_t_quantile(p, dfs[d]), dfs[d]), p, 1e-12);
}

static void test_bh(void)
{
    /* Hand example, M = 5 (NaN excluded): sorted p 0.005 0.01 0.03 0.04 0.5,
     * p*M/rank = 0.025 0.025 0.05 0.05 0.5, cumulative minimum from the top. */
    double p[] = {0.01, 0.04, 0.03, 0.005, NAN, 0.5}, q[6];
    CHECK(cb_bh_qvalues(p, 6, q));
    double want[] = {0.025, 0.05, 0.05, 0.025, NAN, 0.5};
    for (int i = 0; i < 6; i++) {
        if (isnan(want[i]))
            CHECK(isnan(q[i]));
        else
            CHECK_NEAR(q[i], want[i], 1e-15);
    }
    /* monotone step-up: 0.02*3/1 = 0.06 is lowered to 0.021*3/2 = 0.0315 */
    double p2[] = {0.02, 0.021, 0.9}, q2[3];
    CHECK(cb_bh_qvalues(p2, 3, q2));
    CHECK_NEAR(q2[0], 0.0315, 1e-15);
    CHECK_NEAR(q2[1], 0.0315, 1e-15);
    CHECK_NEAR(q2[2], 0.9, 1e-15);
    /* capped at 1 */
    double p3[] = {0.9, 0.95}, q3[2];
    CHECK(cb_bh_qvalues(p3, 2, q3) && q3[0] <= 1.0 && q3[1] <= 1.0);
    CHECK(cb_bh_qvalues(p3, 0, q3)); /* empty family */
}

static void test_quantiles(void)
{
    double v[] = {1, 2, 3, 4};
    CHECK_NEAR(cb_stats_quantile_sorted(v, 4, 0.25), 1.75, 1e-15);
    CHECK_NEAR(cb_stats_quantile_sorted(v, 4, 0.5), 2.5, 1e-15);
    CHECK_NEAR(cb_stats_quantile_sorted(v, 4, 0.75), 3.25, 1e-15);
    CHECK_NEAR(cb_cmp_rel_iqr(v, 4), 0.6, 1e-15);
    CHECK(cb_stats_quantile_sorted(v, 1, 0.75) == 1.0);
    CHECK(isnan(cb_cmp_rel_iqr(v, 0)));
}

int main(void)
{
    test_normal();
    test_student_t();
    test_student_t_large_df();
    test_bh();
    test_quantiles();
    return cb_t_finish("test_compare_stats");
}
