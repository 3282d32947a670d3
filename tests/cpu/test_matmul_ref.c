/* test_matmul_ref.c - the matmul reference and error metric on the CPU:
 * correct FP32/TF32/BF16 results must pass their tolerance, and the bugs a
 * kernel ladder really produces (a dropped term, a missing k-slice, a
 * wrong row, a transposed result, unwritten NaN output) must fail. */
/* test links: cubench_bench */
#include "cb_test.h"
#include "matmul_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A problem with fresh random inputs; free with cb_free_problem. */
static cb_matmul_problem cb_make_problem(int m, int n, int k, uint64_t seed)
{
    float *a = malloc(sizeof(float) * (size_t)m * k);
    float *b = malloc(sizeof(float) * (size_t)k * n);
    if (!a || !b) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    cb_matmul_fill_uniform(a, (size_t)m * k, seed);
    cb_matmul_fill_uniform(b, (size_t)k * n, seed + 1);
    return (cb_matmul_problem){m, n, k, 1.0, 0.0, a, b, NULL};
}

static void cb_free_problem(cb_matmul_problem *p)
{
    free((void *)p->a);
    free((void *)p->b);
}

/* What a plain FP32 kernel computes: one running float sum per entry,
 * summing terms [0, k_end) (k_end < k simulates a missing k-slice). */
static float *cb_fp32_product(const cb_matmul_problem *p, const float *a, const float *b, int k_end)
{
    float *c = malloc(sizeof(float) * (size_t)p->m * p->n);
    for (int i = 0; i < p->m; i++)
        for (int j = 0; j < p->n; j++) {
            float acc = 0.0f;
            for (int q = 0; q < k_end; q++)
                acc = fmaf(a[(size_t)i * p->k + q], b[(size_t)q * p->n + j], acc);
            c[(size_t)i * p->n + j] = acc;
        }
    return c;
}

/* Round to a `bits`-bit mantissa, to nearest (what TF32 does to inputs). */
static float cb_round_mantissa(float x, int bits)
{
    int e;
    const double f = frexp(x, &e);
    return (float)ldexp(nearbyint(ldexp(f, bits + 1)), e - bits - 1);
}

static float *cb_rounded_copy(const float *x, size_t count, int bits)
{
    float *y = malloc(sizeof(float) * count);
    for (size_t i = 0; i < count; i++)
        y[i] = bits == 7 ? cb_matmul_bf16_to_float(cb_matmul_float_to_bf16(x[i]))
                         : cb_round_mantissa(x[i], bits);
    return y;
}

static cb_status cb_check_full(const cb_matmul_problem *p, const float *c, cb_matmul_precision prec,
                               double *err, cb_msg *why)
{
    double *ref = malloc(sizeof(double) * (size_t)p->m * p->n);
    cb_matmul_ref_full(p, ref, 4);
    cb_status st = cb_matmul_check_fp64(p, c, ref, prec, cb_matmul_error_scale(p), err, why);
    free(ref);
    return st;
}

static void test_inputs(void)
{
    enum { N = 100000 };
    float *x = malloc(sizeof(float) * N), *y = malloc(sizeof(float) * N);
    cb_matmul_fill_uniform(x, N, 42);
    cb_matmul_fill_uniform(y, N, 42);
    CB_CHECK(memcmp(x, y, sizeof(float) * N) == 0);
    double sum = 0.0, lo = 1.0, hi = -1.0;
    int zeros = 0;
    for (int i = 0; i < N; i++) {
        sum += x[i];
        lo = fmin(lo, x[i]);
        hi = fmax(hi, x[i]);
        zeros += x[i] == 0.0f;
    }
    CB_CHECK(lo >= -1.0 && hi < 1.0 && lo < -0.99 && hi > 0.99);
    CB_CHECK(fabs(sum / N) < 0.01);
    CB_CHECK(zeros < 3);
    cb_matmul_fill_uniform(y, N, 43);
    CB_CHECK(memcmp(x, y, sizeof(float) * N) != 0);
    free(x);
    free(y);
}

static void test_bf16(void)
{
    CB_CHECK(cb_matmul_float_to_bf16(1.0f) == 0x3f80);
    CB_CHECK(cb_matmul_float_to_bf16(-2.0f) == 0xc000);
    /* 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even -> 1. */
    CB_CHECK(cb_matmul_float_to_bf16(1.0f + 0x1p-8f) == 0x3f80);
    /* 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: -> even. */
    CB_CHECK(cb_matmul_float_to_bf16(1.0f + 3 * 0x1p-8f) == 0x3f82);
    CB_CHECK(cb_matmul_float_to_bf16(1.0f + 0x1p-8f + 0x1p-12f) == 0x3f81);
    CB_CHECK(isnan(cb_matmul_bf16_to_float(cb_matmul_float_to_bf16(NAN))));
    CB_CHECK(cb_matmul_bf16_to_float(0x3f81) == 1.0f + 0x1p-7f);
}

static void test_reference(void)
{
    cb_matmul_problem p = cb_make_problem(37, 29, 53, 7);
    float *c0 = malloc(sizeof(float) * 37 * 29);
    cb_matmul_fill_uniform(c0, 37 * 29, 9);
    p.alpha = 1.5;
    p.beta = -0.5;
    p.c0 = c0;
    double *r1 = malloc(sizeof(double) * 37 * 29), *r4 = malloc(sizeof(double) * 37 * 29);
    cb_matmul_ref_full(&p, r1, 1);
    cb_matmul_ref_full(&p, r4, 4);
    CB_CHECK(memcmp(r1, r4, sizeof(double) * 37 * 29) == 0);
    double worst = 0.0;
    for (int i = 0; i < 37; i++)
        for (int j = 0; j < 29; j++) {
            double s = 0.0;
            for (int q = 0; q < 53; q++)
                s += (double)p.a[i * 53 + q] * p.b[q * 29 + j];
            s = 1.5 * s - 0.5 * c0[i * 29 + j];
            worst = fmax(worst, fabs(s - r1[i * 29 + j]));
            worst = fmax(worst, fabs(s - cb_matmul_ref_entry(&p, i, j)));
        }
    CB_CHECK(worst < 1e-12);
    /* Scale: |alpha| K max|A| max|B| + |beta| max|C0|, all maxima ~1. */
    const double scale = cb_matmul_error_scale(&p);
    CB_CHECK(scale > 1.5 * 53 * 0.9 && scale < 1.5 * 53 + 0.5 + 1e-9);
    free(r1);
    free(r4);
    free(c0);
    cb_free_problem(&p);
}

static void test_tolerances(void)
{
    /* FP32 tolerance does not depend on K; reduced precisions shrink with K. */
    CB_CHECK(cb_matmul_tolerance(CB_MATMUL_FP32, 1) == cb_matmul_tolerance(CB_MATMUL_FP32, 8192));
    CB_CHECK(cb_matmul_tolerance(CB_MATMUL_FP32, 64) < 1e-6);
    CB_CHECK(cb_matmul_tolerance(CB_MATMUL_TF32, 64) > cb_matmul_tolerance(CB_MATMUL_FP32, 64));
    CB_CHECK(cb_matmul_tolerance(CB_MATMUL_BF16, 64) > cb_matmul_tolerance(CB_MATMUL_TF32, 64));
    CB_CHECK(cb_matmul_tolerance(CB_MATMUL_TF32, 4096) < cb_matmul_tolerance(CB_MATMUL_TF32, 64));
}

/* A correct FP32 result passes at shallow and deep K; real bugs fail. */
static void test_fp32_pass_and_bugs(int m, int n, int k)
{
    cb_matmul_problem p = cb_make_problem(m, n, k, 1000 + (uint64_t)k);
    cb_msg why = {{0}};
    double err = -1.0;
    float *c = cb_fp32_product(&p, p.a, p.b, k);

    CB_CHECK(cb_check_full(&p, c, CB_MATMUL_FP32, &err, &why) == CB_OK);
    CB_CHECK(err > 0.0 && err < cb_matmul_tolerance(CB_MATMUL_FP32, k) / 4);
    if (err >= cb_matmul_tolerance(CB_MATMUL_FP32, k) / 4)
        fprintf(stderr, "  k=%d err %.3g: %s\n", k, err, why.text);

    /* One dropped term in one entry (an off-by-one in a bounds check). */
    const int i = m / 2, j = n / 3;
    float saved = c[(size_t)i * n + j];
    int q_big = 0; /* drop the largest term so the bug is visible at any seed */
    for (int q = 1; q < k; q++)
        if (fabsf(p.a[(size_t)i * k + q] * p.b[(size_t)q * n + j]) >
            fabsf(p.a[(size_t)i * k + q_big] * p.b[(size_t)q_big * n + j]))
            q_big = q;
    c[(size_t)i * n + j] -= p.a[(size_t)i * k + q_big] * p.b[(size_t)q_big * n + j];
    CB_CHECK(cb_check_full(&p, c, CB_MATMUL_FP32, &err, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "tolerance") != NULL);
    c[(size_t)i * n + j] = saved;

    /* A wrong row: row i holds row i - 1 (a wrong row index). */
    memcpy(c + (size_t)i * n, c + (size_t)(i - 1) * n, sizeof(float) * n);
    CB_CHECK(cb_check_full(&p, c, CB_MATMUL_FP32, &err, &why) == CB_FAIL);
    CB_CHECK(cb_check_full(&p, c, CB_MATMUL_BF16, &err, &why) == CB_FAIL);
    free(c);

    /* The last k-slice of 8 never added (a missing tile). */
    c = cb_fp32_product(&p, p.a, p.b, k - 8);
    CB_CHECK(cb_check_full(&p, c, CB_MATMUL_FP32, &err, &why) == CB_FAIL);

    /* An unwritten entry (C poisoned with NaN bytes). */
    memset(c + (size_t)m * n - 1, 0xff, sizeof(float));
    CB_CHECK(cb_check_full(&p, c, CB_MATMUL_BF16, &err, &why) == CB_FAIL);
    CB_CHECK(isinf(err) && strstr(why.text, "non-finite") != NULL);
    free(c);
    cb_free_problem(&p);
}

static void test_transposed(void)
{
    enum { N = 96, K = 200 };
    cb_matmul_problem p = cb_make_problem(N, N, K, 5);
    float *c = cb_fp32_product(&p, p.a, p.b, K), *t = malloc(sizeof(float) * N * N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            t[j * N + i] = c[i * N + j];
    cb_msg why;
    double err;
    CB_CHECK(cb_check_full(&p, c, CB_MATMUL_FP32, &err, &why) == CB_OK);
    CB_CHECK(cb_check_full(&p, t, CB_MATMUL_FP32, &err, &why) == CB_FAIL);
    CB_CHECK(cb_check_full(&p, t, CB_MATMUL_BF16, &err, &why) == CB_FAIL);
    CB_CHECK(err > 1e-2); /* ~1/sqrt(K), far above every tolerance */
    /* The FP32-reference path sees the same. */
    CB_CHECK(cb_matmul_check_fp32(&p, t, c, CB_MATMUL_FP32, cb_matmul_error_scale(&p), &err,
                                  &why) == CB_FAIL);
    CB_CHECK(cb_matmul_check_fp32(&p, c, c, CB_MATMUL_FP32, cb_matmul_error_scale(&p), &err,
                                  &why) == CB_OK &&
             err == 0.0);
    free(t);
    free(c);
    cb_free_problem(&p);
}

/* Inputs rounded to TF32 / BF16 (what the tensor-core rungs compute with)
 * pass their own tolerance and fail the FP32 one. */
static void test_reduced_precision(int k)
{
    cb_matmul_problem p = cb_make_problem(64, 80, k, 77);
    const size_t na = (size_t)64 * k, nb = (size_t)k * 80;
    cb_msg why;
    double err;
    static const struct {
        int bits;
        cb_matmul_precision prec;
    } cases[] = {{10, CB_MATMUL_TF32}, {7, CB_MATMUL_BF16}};
    for (int t = 0; t < 2; t++) {
        float *a = cb_rounded_copy(p.a, na, cases[t].bits);
        float *b = cb_rounded_copy(p.b, nb, cases[t].bits);
        float *c = cb_fp32_product(&p, a, b, k);
        CB_CHECK(cb_check_full(&p, c, cases[t].prec, &err, &why) == CB_OK);
        CB_CHECK(err < cb_matmul_tolerance(cases[t].prec, k) / 3);
        if (err >= cb_matmul_tolerance(cases[t].prec, k) / 3)
            fprintf(stderr, "  bits=%d k=%d err %.3g tol %.3g\n", cases[t].bits, k, err,
                    cb_matmul_tolerance(cases[t].prec, k));
        CB_CHECK(cb_check_full(&p, c, CB_MATMUL_FP32, &err, &why) == CB_FAIL);
        free(a);
        free(b);
        free(c);
    }
    cb_free_problem(&p);
}

static void test_spot(void)
{
    cb_matmul_problem p = cb_make_problem(300, 257, 130, 11);
    float *c = cb_fp32_product(&p, p.a, p.b, 130);
    const double scale = cb_matmul_error_scale(&p);
    cb_msg why;
    double err;
    CB_CHECK(cb_matmul_check_spot(&p, c, 256, 3, CB_MATMUL_FP32, scale, &err, &why) == CB_OK);
    /* The last entry is always sampled: a wrong corner is caught. */
    c[300 * 257 - 1] += 0.01f;
    CB_CHECK(cb_matmul_check_spot(&p, c, 256, 3, CB_MATMUL_FP32, scale, &err, &why) == CB_FAIL);
    CB_CHECK(strstr(why.text, "C[299][256]") != NULL);
    /* Everything wrong: any sample sees it. */
    for (size_t e = 0; e < (size_t)300 * 257; e++)
        c[e] = -c[e];
    CB_CHECK(cb_matmul_check_spot(&p, c, 16, 3, CB_MATMUL_BF16, scale, &err, &why) == CB_FAIL);
    free(c);
    cb_free_problem(&p);
}

int main(void)
{
    test_inputs();
    test_bf16();
    test_reference();
    test_tolerances();
    test_fp32_pass_and_bugs(24, 40, 64);
    test_fp32_pass_and_bugs(9, 17, 9000);
    test_fp32_pass_and_bugs(5, 7, 100000);
    test_transposed();
    test_reduced_precision(16);
    test_reduced_precision(1024);
    test_spot();
    return cb_test_finish("test_matmul_ref");
}
