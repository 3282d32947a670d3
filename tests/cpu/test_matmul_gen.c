/* test_matmul_gen.c - the host side of the matmul family's device checks:
 * the inputs are the counter-based generator's, so the host recomputes any
 * entry of the exact product from the seeds alone (cb_matmul_gen_entry)
 * and must agree with the product of filled matrices entry for entry; the
 * sampled entries always hold both corners; the check of sampled entries
 * and the reduced verdict (cb_matmul_judge, what the device comparison
 * ends in) pass correct FP32 products and fail the planted faults: one
 * wrong entry, a NaN, a transposed result, a product missing k-slices. */
/* test links: cubench_bench */
#include "cb_test.h"
#include "cb_random.h"
#include "matmul_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The filled matrices of a generated problem, as the host rungs hold them. */
static cb_matmul_problem cb_filled(const cb_matmul_gen *g)
{
    float *a = malloc(sizeof(float) * (size_t)g->m * g->k);
    float *b = malloc(sizeof(float) * (size_t)g->k * g->n);
    if (!a || !b) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    cb_matmul_fill_uniform(a, (size_t)g->m * g->k, g->seed_a);
    cb_matmul_fill_uniform(b, (size_t)g->k * g->n, g->seed_b);
    return (cb_matmul_problem){g->m, g->n, g->k, g->alpha, 0.0, a, b, NULL};
}

/* A plain FP32 product (one running sum per entry) over terms [0, k_end). */
static float *cb_fp32(const cb_matmul_problem *p, int k_end)
{
    float *c = malloc(sizeof(float) * (size_t)p->m * p->n);
    for (int i = 0; i < p->m; i++)
        for (int j = 0; j < p->n; j++) {
            float acc = 0.0f;
            for (int q = 0; q < k_end; q++)
                acc = fmaf(p->a[(size_t)i * p->k + q], p->b[(size_t)q * p->n + j], acc);
            c[(size_t)i * p->n + j] = (float)(p->alpha * acc);
        }
    return c;
}

/* The fill is the generator, element for element (what the device fills
 * with cb_launch_fill_random), and pinned values keep it the same across
 * machines and releases. */
static void test_fill_is_the_generator(void)
{
    enum { N = 4099 };
    float x[N];
    cb_matmul_fill_uniform(x, N, 77);
    int same = 0;
    for (int i = 0; i < N; i++)
        same += memcmp(&x[i], &(float){cb_random_value(77, (uint64_t)i)}, sizeof(float)) == 0;
    CB_CHECK_EQ_INT(same, N);
    /* (k + 0.5) / 2^23 - 1 for a 24-bit k (rounded to a float): a value in
     * (-1, 1), never 0, on the grid of 2^-24. */
    int off_grid = 0, out_of_range = 0;
    for (int i = 0; i < N; i++) {
        const double h = (x[i] + 1.0) * 16777216.0;
        off_grid += h != nearbyint(h);
        out_of_range += !(x[i] > -1.0f && x[i] < 1.0f && x[i] != 0.0f);
    }
    CB_CHECK_EQ_INT(off_grid, 0);
    CB_CHECK_EQ_INT(out_of_range, 0);
    /* Another seed, another matrix. */
    float y[N];
    cb_matmul_fill_uniform(y, N, 78);
    CB_CHECK(memcmp(x, y, sizeof x) != 0);
}

/* cb_matmul_gen_entry from the seeds alone equals the FP64 entry of the
 * filled matrices, bit for bit (same terms, same order), at every entry of
 * a non-square problem with alpha != 1; the threaded version agrees. */
static void test_entries_from_seeds(void)
{
    const cb_matmul_gen g = {.m = 37, .n = 29, .k = 53, .alpha = -0.75, .seed_a = 5, .seed_b = 6};
    cb_matmul_problem p = cb_filled(&g);
    const size_t count = (size_t)g.m * g.n;
    size_t *idx = malloc(sizeof(size_t) * count);
    double *exact = malloc(sizeof(double) * count);
    for (size_t e = 0; e < count; e++)
        idx[e] = e;
    cb_matmul_gen_entries(&g, idx, (int)count, exact, 3);
    int equal = 0;
    for (size_t e = 0; e < count; e++) {
        const double want = cb_matmul_ref_entry(&p, (int)(e / g.n), (int)(e % g.n));
        equal += cb_matmul_gen_entry(&g, e) == want && exact[e] == want;
    }
    CB_CHECK_EQ_INT(equal, (int)count);
    /* The seeds are A's and B's: swapping them is another problem. */
    const cb_matmul_gen swapped = {g.m, g.n, g.k, g.alpha, g.seed_b, g.seed_a};
    CB_CHECK(cb_matmul_gen_entry(&swapped, 7) != exact[7]);
    free(idx);
    free(exact);
    free((void *)p.a);
    free((void *)p.b);
}

static void test_spot_indices(void)
{
    enum { S = 64 };
    size_t a[S + 2], b[S + 2], c[S + 2];
    cb_matmul_spot_indices(1000, S, 9, a);
    cb_matmul_spot_indices(1000, S, 9, b);
    cb_matmul_spot_indices(1000, S, 10, c);
    CB_CHECK(memcmp(a, b, sizeof a) == 0);
    CB_CHECK(memcmp(a, c, sizeof a) != 0);
    CB_CHECK(a[0] == 0 && a[1] == 999);
    int distinct = 0;
    for (int t = 0; t < S + 2; t++) {
        CB_CHECK(a[t] < 1000);
        bool seen = false;
        for (int u = 0; u < t; u++)
            seen |= a[u] == a[t];
        distinct += !seen;
    }
    CB_CHECK(distinct > S / 2);
    /* One entry: both corners are it. */
    cb_matmul_spot_indices(1, 4, 9, a);
    for (int t = 0; t < 6; t++)
        CB_CHECK(a[t] == 0);
}

/* The sampled-entry check against the seeds' exact values: an FP32 product
 * passes; a wrong entry that is sampled, a NaN, a transposed product and a
 * product missing half of k fail, naming the entry. */
static void test_check_entries(int m, int n, int k)
{
    const cb_matmul_gen g = {.m = m, .n = n, .k = k, .alpha = 1.0, .seed_a = 21, .seed_b = 22};
    cb_matmul_problem p = cb_filled(&g);
    const double scale = cb_matmul_error_scale(&p);
    enum { S = 200, T = S + 2 };
    size_t idx[T];
    double exact[T];
    float vals[T];
    cb_matmul_spot_indices((size_t)m * n, S, 4, idx);
    cb_matmul_gen_entries(&g, idx, T, exact, 2);
    float *c = cb_fp32(&p, k);
    for (int t = 0; t < T; t++)
        vals[t] = c[idx[t]];
    double err = -1;
    cb_msg why = {{0}};
    CB_CHECK_EQ_INT(
        cb_matmul_check_entries(n, k, idx, vals, exact, T, CB_MATMUL_FP32, scale, &err, &why),
        CB_OK);
    CB_CHECK(err >= 0 && err < cb_matmul_tolerance(CB_MATMUL_FP32, k) / 4);
    /* Planted: the last entry (always sampled) off by 4 / K of the scale. */
    vals[1] += (float)(4.0 * scale / k);
    CB_CHECK_EQ_INT(
        cb_matmul_check_entries(n, k, idx, vals, exact, T, CB_MATMUL_FP32, scale, &err, &why),
        CB_FAIL);
    char where[64];
    snprintf(where, sizeof where, "C[%d][%d]", m - 1, n - 1);
    CB_CHECK(strstr(why.text, where) != NULL);
    /* Even the loose BF16 tolerance at this K sees it. */
    CB_CHECK_EQ_INT(
        cb_matmul_check_entries(n, k, idx, vals, exact, T, CB_MATMUL_BF16, scale, &err, &why),
        CB_FAIL);
    vals[1] = c[idx[1]];
    /* Planted: NaN (an unwritten entry). */
    vals[5] = NAN;
    CB_CHECK_EQ_INT(
        cb_matmul_check_entries(n, k, idx, vals, exact, T, CB_MATMUL_FP32, scale, &err, &why),
        CB_FAIL);
    CB_CHECK(isinf(err) && strstr(why.text, "non-finite") != NULL);
    /* Planted: half of k summed. */
    float *half = cb_fp32(&p, k / 2);
    for (int t = 0; t < T; t++)
        vals[t] = half[idx[t]];
    CB_CHECK_EQ_INT(
        cb_matmul_check_entries(n, k, idx, vals, exact, T, CB_MATMUL_FP32, scale, &err, &why),
        CB_FAIL);
    /* Planted: the transposed product of a square problem (C^T). */
    if (m == n) {
        for (int t = 0; t < T; t++)
            vals[t] = c[(idx[t] % n) * (size_t)n + idx[t] / n];
        CB_CHECK_EQ_INT(
            cb_matmul_check_entries(n, k, idx, vals, exact, T, CB_MATMUL_FP32, scale, &err, &why),
            CB_FAIL);
    }
    free(half);
    free(c);
    free((void *)p.a);
    free((void *)p.b);
}

/* The verdict of a reduced comparison (what the device check returns)
 * names the same entry the host scan does, and fails what it fails. */
static void test_judge(void)
{
    cb_matmul_worst w = {.n = 10, .k = 4096, .max_diff = 0.0, .worst = 0};
    double err = -1;
    cb_msg why = {{0}};
    CB_CHECK_EQ_INT(cb_matmul_judge(&w, CB_MATMUL_FP32, 4096.0, &err, &why), CB_OK);
    CB_CHECK(err == 0.0);
    w.max_diff = 4096.0 * 17 * ldexp(1.0, -24); /* 17u: over FP32's 16u */
    w.worst = 23, w.c_worst = 1.5, w.r_worst = 1.25;
    CB_CHECK_EQ_INT(cb_matmul_judge(&w, CB_MATMUL_FP32, 4096.0, &err, &why), CB_FAIL);
    CB_CHECK(strstr(why.text, "C[2][3]") != NULL && strstr(why.text, "FP32") != NULL);
    CB_CHECK_EQ_INT(cb_matmul_judge(&w, CB_MATMUL_BF16, 4096.0, &err, &why), CB_OK);
    w.nonfinite = 3, w.first_bad = 11, w.c_bad = NAN;
    CB_CHECK_EQ_INT(cb_matmul_judge(&w, CB_MATMUL_BF16, 4096.0, &err, &why), CB_FAIL);
    CB_CHECK(isinf(err) && strstr(why.text, "3 non-finite entries") != NULL &&
             strstr(why.text, "C[1][1]") != NULL);
    CB_CHECK(cb_matmul_error_scale_of(2.0, 100, 0.5, 0.25) == 25.0);
    CB_CHECK(cb_matmul_error_scale_of(1.0, 100, 0.0, 0.5) == 1.0);
}

int main(void)
{
    test_fill_is_the_generator();
    test_entries_from_seeds();
    test_spot_indices();
    test_check_entries(64, 64, 64);
    test_check_entries(33, 71, 1000);
    test_judge();
    return cb_test_finish("test_matmul_gen");
}
