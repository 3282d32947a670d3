/* test_compare_stats.c - the statistics of compare against references:
 * brute-force enumeration of the Mann-Whitney null distribution, brute-force
 * sorting of all pairwise differences, hand-computed p-values, CI ranks and
 * Benjamini-Hochberg q-values. */
#include "compare_hl.h"
#include "compare_stats.h"

#include "test_compare_check.h"

#include <stdint.h>
#include <stdlib.h>

static uint64_t rng_state = 42;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double rng_uniform(void)
{
    return (double)(rng_next() >> 11) * 0x1.0p-53;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

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

/* Count U over every way of placing m row values among m + n ranks. */
static void brute_u_pmf(int m, int n, double *pmf)
{
    int total = m + n;
    double count = 0.0;
    memset(pmf, 0, (size_t)(m * n + 1) * sizeof *pmf);
    for (uint32_t mask = 0; mask < (1u << total); mask++) {
        if (__builtin_popcount(mask) != m) continue;
        int u = 0, columns_below = 0;
        for (int r = 0; r < total; r++) {
            if (mask & (1u << r))
                u += columns_below;
            else
                columns_below++;
        }
        pmf[u] += 1.0;
        count += 1.0;
    }
    for (int u = 0; u <= m * n; u++)
        pmf[u] /= count;
}

static void test_exact_distribution(void)
{
    double pmf[200];
    for (int m = 1; m <= 7; m++) {
        for (int n = 1; n <= 7; n++) {
            brute_u_pmf(m, n, pmf);
            double *cdf = cb_mwu_exact_cdf(m, n);
            CHECK(cdf != NULL);
            if (!cdf) continue;
            double acc = 0.0, worst = 0.0;
            for (int u = 0; u <= m * n; u++) {
                acc += pmf[u];
                worst = fmax(worst, fabs(acc - cdf[u]));
            }
            CHECK_MSG(worst < 1e-13, "m=%d n=%d worst %g", m, n, worst);
            CHECK_NEAR(cdf[m * n], 1.0, 1e-13);
            free(cdf);
        }
    }
    CHECK(cb_mwu_exact_cdf(0, 3) == NULL);
    CHECK(cb_mwu_exact_cdf(60, 60) == NULL); /* above CB_MWU_EXACT_MAX */
    double *big = cb_mwu_exact_cdf(50, 50);  /* at the bound: still symmetric */
    CHECK(big != NULL);
    if (big) {
        CHECK_NEAR(big[1249] + big[1250] - 1.0, 0.0, 1e-12); /* P(U<=1249)+P(U<=1250)=1 */
        free(big);
    }
}

static void test_mwu(void)
{
    /* R: wilcox.test(1:5, 6:10) -> p-value = 0.007937 (= 2/252) */
    double x[] = {1, 2, 3, 4, 5}, y[] = {6, 7, 8, 9, 10};
    double *cdf = cb_mwu_exact_cdf(5, 5);
    cb_mwu t;
    cb_mwu_test(x, 5, y, 5, cdf, &t);
    CHECK(t.exact);
    CHECK(t.u == 25.0);
    CHECK_NEAR(t.p, 2.0 / 252.0, 1e-15);
    cb_mwu_test(y, 5, x, 5, cdf, &t); /* the mirror: U = 0, same p */
    CHECK(t.u == 0.0);
    CHECK_NEAR(t.p, 2.0 / 252.0, 1e-15);
    /* Moses ranks for m = n = 5: 99% -> k = 1 (1/252 <= 0.005 < 2/252);
     * 95% -> k = 3 (the tabled critical value U <= 2) */
    CHECK(cb_mwu_ci_rank(5, 5, 0.01, cdf, 0.0) == 1);
    CHECK(cb_mwu_ci_rank(5, 5, 0.05, cdf, 0.0) == 3);
    free(cdf);
    cdf = cb_mwu_exact_cdf(3, 3);
    CHECK(cb_mwu_ci_rank(3, 3, 0.01, cdf, 0.0) == 0); /* 1/20 > 0.005: no 99% CI */
    free(cdf);

    /* With ties: normal approximation with tie and continuity correction.
     * U = 20.5, sum(t^3 - t) = 24 + 6, var = 25/12 (11 - 30/90). */
    double xt[] = {1, 2, 2, 3, 4}, yt[] = {2, 3, 5, 6, 7};
    cdf = cb_mwu_exact_cdf(5, 5);
    cb_mwu_test(xt, 5, yt, 5, cdf, &t);
    CHECK(!t.exact);
    CHECK(t.u == 20.5);
    CHECK(t.tie_term == 30.0);
    CHECK_NEAR(t.p, 0.11161176829829222, 1e-14);
    free(cdf);

    /* All equal: no evidence. */
    double same[] = {3, 3, 3};
    cb_mwu_test(same, 3, same, 3, NULL, &t);
    CHECK(t.p == 1.0 && t.u == 4.5);

    /* The normal-approximation rank agrees with the exact one closely for
     * moderate samples (50 x 50 is still exact-computable). */
    cdf = cb_mwu_exact_cdf(50, 50);
    int64_t k_exact = cb_mwu_ci_rank(50, 50, 0.01, cdf, 0.0);
    int64_t k_norm = cb_mwu_ci_rank(50, 50, 0.01, NULL, 0.0);
    CHECK_MSG(llabs(k_exact - k_norm) <= 2, "exact %lld normal %lld", (long long)k_exact,
              (long long)k_norm);
    free(cdf);
}

/* Every k-th difference by selection equals the brute-force sort, with ties,
 * for gather thresholds that force many selection rounds. */
static void test_selection_small(void)
{
    double x[40], y[40], d[1600];
    int bad = 0;
    for (int trial = 0; trial < 300; trial++) {
        int m = 1 + (int)(rng_next() % 30), n = 1 + (int)(rng_next() % 30);
        bool ties = trial % 2;
        for (int i = 0; i < m; i++)
            x[i] = ties ? (double)(rng_next() % 5) : rng_uniform();
        for (int j = 0; j < n; j++)
            y[j] = ties ? (double)(rng_next() % 5) : rng_uniform() + 0.1;
        qsort(x, (size_t)m, sizeof *x, cmp_double);
        qsort(y, (size_t)n, sizeof *y, cmp_double);
        int c = 0;
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++)
                d[c++] = y[j] - x[i];
        qsort(d, (size_t)c, sizeof *d, cmp_double);
        int64_t gather = trial % 3 == 0 ? 1 : trial % 3 == 1 ? 3 : 17;
        for (int64_t k = 1; k <= c; k++) {
            double v = NAN;
            cb_msg err;
            if (!cb_hl_kth_diff(x, m, y, n, k, gather, &v, &err) || v != d[k - 1]) bad++;
        }
    }
    CHECK_MSG(bad == 0, "%d selections differ from the sort", bad);
}

/* A large case (beyond CB_HL_SORT_MAX) against the full sort. */
static void test_selection_large(void)
{
    int m = 700, n = 650;
    double *x = malloc((size_t)m * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double *d = malloc((size_t)m * n * sizeof *d);
    CHECK(x && y && d);
    if (!x || !y || !d) goto out;
    for (int i = 0; i < m; i++)
        x[i] = log(1e-3 * (1.0 + 0.01 * floor(100 * rng_uniform())));
    for (int j = 0; j < n; j++)
        y[j] = log(1.03e-3 * (1.0 + 0.02 * rng_uniform()));
    qsort(x, (size_t)m, sizeof *x, cmp_double);
    qsort(y, (size_t)n, sizeof *y, cmp_double);
    int64_t c = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            d[c++] = y[j] - x[i];
    qsort(d, (size_t)c, sizeof *d, cmp_double);
    int64_t ks[] = {1, 2, 1000, c / 2, c / 2 + 1, c - 5000, c - 1, c};
    for (int i = 0; i < CB_ARRAY_LEN(ks); i++) {
        double v = NAN;
        cb_msg err;
        CHECK(cb_hl_kth_diff(x, m, y, n, ks[i], 4096, &v, &err));
        CHECK_MSG(v == d[ks[i] - 1], "k=%lld: %.17g vs %.17g", (long long)ks[i], v, d[ks[i] - 1]);
    }
out:
    free(x), free(y), free(d);
}

/* cb_shift_estimate's HL ratio and CI against a direct computation, on both
 * the sort path and the selection path. */
static void check_shift(int m, int n, double shift)
{
    double *b = malloc((size_t)m * sizeof *b), *c = malloc((size_t)n * sizeof *c);
    double *d = malloc((size_t)m * n * sizeof *d);
    CHECK(b && c && d);
    if (!b || !c || !d) goto out;
    for (int i = 0; i < m; i++)
        b[i] = 1e-3 * exp(0.01 * (rng_uniform() - 0.5));
    for (int j = 0; j < n; j++)
        c[j] = shift * 1e-3 * exp(0.01 * (rng_uniform() - 0.5));
    int64_t k = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            d[k++] = log(c[j]) - log(b[i]);
    qsort(d, (size_t)k, sizeof *d, cmp_double);
    cb_shift s;
    cb_msg err;
    CHECK(cb_shift_estimate(b, m, c, n, 0.01, &s, &err));
    double med = 0.5 * (d[(k + 1) / 2 - 1] + d[k / 2]);
    CHECK_NEAR(s.ratio, exp(med), 1e-15);
    CHECK(s.ci_rank >= 1);
    if (s.ci_rank >= 1) {
        CHECK_NEAR(s.ci_lo, exp(d[s.ci_rank - 1]), 1e-15);
        CHECK_NEAR(s.ci_hi, exp(d[k - s.ci_rank]), 1e-15);
    }
    CHECK(s.ci_lo <= s.ratio && s.ratio <= s.ci_hi);
    CHECK_NEAR(s.ratio, shift, 0.01);
out:
    free(b), free(c), free(d);
}

static void test_shift(void)
{
    check_shift(9, 9, 1.05);     /* exact distribution, sort path */
    check_shift(40, 300, 0.97);  /* normal ranks, sort path */
    check_shift(400, 500, 1.10); /* normal ranks, selection path */
    /* brute-force median of a tiny hand case: base {1,2,4}, new {2,4,8}:
     * log ratios: all pairwise new/base = {2,1,.5, 4,2,1, 8,4,2} -> median 2 */
    double b[] = {1, 2, 4}, c[] = {2, 4, 8};
    cb_shift s;
    cb_msg err;
    CHECK(cb_shift_estimate(b, 3, c, 3, 0.01, &s, &err));
    CHECK_NEAR(s.ratio, 2.0, 1e-15);
    CHECK(s.ci_rank == 0 && s.ci_lo == 0.0 && isinf(s.ci_hi)); /* 3 x 3: no 99% CI */
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
    CHECK_NEAR(cb_cmp_quantile(v, 4, 0.25), 1.75, 1e-15);
    CHECK_NEAR(cb_cmp_quantile(v, 4, 0.5), 2.5, 1e-15);
    CHECK_NEAR(cb_cmp_quantile(v, 4, 0.75), 3.25, 1e-15);
    CHECK_NEAR(cb_cmp_rel_iqr(v, 4), 0.6, 1e-15);
    CHECK(cb_cmp_quantile(v, 1, 0.75) == 1.0);
    CHECK(isnan(cb_cmp_rel_iqr(v, 0)));
}

int main(void)
{
    test_normal();
    test_exact_distribution();
    test_mwu();
    test_selection_small();
    test_selection_large();
    test_shift();
    test_bh();
    test_quantiles();
    return cb_t_finish("test_compare_stats");
}
