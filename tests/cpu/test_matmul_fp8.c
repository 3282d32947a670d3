/* test_matmul_fp8.c - FP8 E4M3 on the CPU (bench/detail/matmul_ref.h): the
 * encoder rounds to the nearest E4M3 value with ties to even and saturates
 * at 448 (checked against a search over every code), per-tensor
 * quantisation keeps every element within the 2^-4 relative bound the
 * verification tolerance is built on, and the two FP8 tolerances pass what
 * an FP8 GEMM computes while failing its bugs (an entry off by 4, a
 * forgotten scale, a missing k-slice). */
/* test links: cubench_bench */
#include "cb_test.h"
#include "matmul_ref.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The nearest finite E4M3 code to x by search (ties to the even code). */
static uint8_t cb_e4m3_by_search(float x)
{
    int best = -1;
    double best_d = INFINITY;
    for (int b = 0; b < 256; b++) {
        const float v = cb_matmul_e4m3_to_float((uint8_t)b);
        if (isnan(v) || (signbit(v) != signbit(x))) continue;
        const double d = fabs((double)v - (double)x);
        if (d < best_d || (d == best_d && (b & 1) == 0)) best = b, best_d = d;
    }
    return (uint8_t)best;
}

static void cb_check_codec(void)
{
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(1.0f), 0x38);
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(-1.0f), 0xb8);
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(448.0f), 0x7e);
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(1e6f), 0x7e);      /* saturates */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(-500.f), 0xfe);    /* saturates */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(1.0625f), 0x38);   /* tie: even mantissa 0 */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(1.1875f), 0x3a);   /* tie: even mantissa 2 */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(0x1p-9f), 0x01);   /* smallest subnormal */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(0x1p-10f), 0x00);  /* tie to even: 0 */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(0x1.8p-9f), 0x02); /* 1.5 steps: tie to 2 */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(0x1.fp-7f), 0x08); /* rounds up to 2^-6 */
    CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(NAN) & 0x7f, 0x7f);
    CB_CHECK(isnan(cb_matmul_e4m3_to_float(0x7f)) && isnan(cb_matmul_e4m3_to_float(0xff)));
    CB_CHECK(cb_matmul_e4m3_to_float(0x7e) == 448.0f);
    CB_CHECK(cb_matmul_e4m3_to_float(0x01) == 0x1p-9f);
    /* Every finite code round-trips. */
    int bad = 0;
    for (int b = 0; b < 256; b++) {
        const float v = cb_matmul_e4m3_to_float((uint8_t)b);
        if (!isnan(v)) bad += cb_matmul_float_to_e4m3(v) != (uint8_t)b;
    }
    CB_CHECK_EQ_INT(bad, 0);
    /* Random values over the whole range, and midpoints (ties): the nearest. */
    uint64_t s = 12345;
    bad = 0;
    for (int i = 0; i < 20000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const double u = (double)(s >> 11) / 9007199254740992.0; /* [0, 1) */
        const float x = (float)((i & 1 ? -1 : 1) * ldexp(u + 0.5, (int)(s >> 8 & 31) - 16));
        bad += cb_matmul_float_to_e4m3(x) != cb_e4m3_by_search(x);
    }
    for (int b = 0; b < 0x7e; b++) {
        const float mid =
            (cb_matmul_e4m3_to_float((uint8_t)b) + cb_matmul_e4m3_to_float((uint8_t)(b + 1))) / 2;
        bad += cb_matmul_float_to_e4m3(mid) != cb_e4m3_by_search(mid);
    }
    CB_CHECK_EQ_INT(bad, 0);
}

/* Quantising uniform [-1, 1) inputs: within 2^-4 relative, or 2^-10 s
 * below E4M3's normal range, of every element; the largest maps to 448. */
static void cb_check_quantize(void)
{
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof(float)), *deq = malloc(N * sizeof(float));
    uint8_t *q = malloc(N);
    CB_CHECK(x && deq && q);
    cb_matmul_fill_uniform(x, N, 7);
    const float scale = cb_matmul_quantize_e4m3(x, N, q, deq);
    float amax = 0.0f;
    for (int i = 0; i < N; i++)
        amax = fmaxf(amax, fabsf(x[i]));
    CB_CHECK_REL(scale, amax / 448.0f, 1e-7);
    int bad = 0, at_max = 0;
    for (int i = 0; i < N; i++) {
        const double bound = fmax(ldexp(fabs(x[i]), -4), ldexp(scale, -10)) * (1 + 1e-6);
        bad += fabs((double)deq[i] - x[i]) > bound;
        at_max += (q[i] & 0x7f) == 0x7e;
    }
    CB_CHECK_EQ_INT(bad, 0);
    CB_CHECK(at_max >= 1);
    /* An all-zero tensor: scale 1, every code 0. */
    for (int i = 0; i < 8; i++)
        x[i] = 0.0f;
    CB_CHECK(cb_matmul_quantize_e4m3(x, 8, q, NULL) == 1.0f && q[0] == 0 && q[7] == 0);
    free(x), free(deq), free(q);
}

/* What an FP8 GEMM computes: FP32 sums of the dequantised inputs' products
 * over [0, k_end) (each product of two E4M3 values is exact in FP32). */
static float *cb_fp8_product(int m, int n, int k, const float *a, const float *b, int k_end)
{
    float *c = malloc(sizeof(float) * (size_t)m * n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0.0f;
            for (int q = 0; q < k_end; q++)
                acc += a[(size_t)i * k + q] * b[(size_t)q * n + j];
            c[(size_t)i * n + j] = acc;
        }
    return c;
}

static cb_status cb_check(const cb_matmul_problem *p, const float *c, cb_matmul_precision prec,
                          double *err)
{
    double *ref = malloc(sizeof(double) * (size_t)p->m * p->n);
    cb_matmul_ref_full(p, ref, 2);
    cb_msg why = {{0}};
    const cb_status s = cb_matmul_check_fp64(p, c, ref, prec, cb_matmul_error_scale(p), err, &why);
    free(ref);
    return s;
}

static void cb_check_bounds(void)
{
    const int m = 48, n = 40, k = 512;
    float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
    float *ad = malloc(sizeof(float) * m * k), *bd = malloc(sizeof(float) * k * n);
    uint8_t *qa = malloc((size_t)m * k), *qb = malloc((size_t)k * n);
    CB_CHECK(a && b && ad && bd && qa && qb);
    cb_matmul_fill_uniform(a, (size_t)m * k, 21);
    cb_matmul_fill_uniform(b, (size_t)k * n, 22);
    const float sa = cb_matmul_quantize_e4m3(a, (size_t)m * k, qa, ad);
    const float sb = cb_matmul_quantize_e4m3(b, (size_t)k * n, qb, bd);
    const cb_matmul_problem orig = {m, n, k, 1.0, 0.0, a, b, NULL};
    const cb_matmul_problem deq = {m, n, k, 1.0, 0.0, ad, bd, NULL};
    double err = -1;
    float *c = cb_fp8_product(m, n, k, ad, bd, k);
    CB_CHECK_EQ_INT(cb_check(&deq, c, CB_MATMUL_FP8_DEQ, &err), CB_OK);
    CB_CHECK(err < 1e-5); /* FP32 sums: far inside the 2^-10 allowed */
    CB_CHECK_EQ_INT(cb_check(&orig, c, CB_MATMUL_FP8, &err), CB_OK);
    /* The quantisation shows against the FP32 problem: TF32's input term
     * (2^-11) would not cover it, E4M3's (2^-4) does. */
    CB_CHECK(err > cb_matmul_tolerance(CB_MATMUL_TF32, k));
    CB_CHECK_EQ_INT(cb_check(&orig, c, CB_MATMUL_TF32, &err), CB_FAIL);
    /* An entry off by 4 (err ~ 4 / K = 7.8e-3 > 2^-10). */
    c[n + 3] += 4.0f;
    CB_CHECK_EQ_INT(cb_check(&deq, c, CB_MATMUL_FP8_DEQ, &err), CB_FAIL);
    free(c);
    /* A kernel that forgot one scale: C / s_b off by orders. */
    c = cb_fp8_product(m, n, k, ad, bd, k);
    for (int i = 0; i < m * n; i++)
        c[i] /= sb;
    CB_CHECK_EQ_INT(cb_check(&orig, c, CB_MATMUL_FP8, &err), CB_FAIL);
    free(c);
    /* A missing k-slice of 128 of 512. */
    c = cb_fp8_product(m, n, k, ad, bd, k - 128);
    CB_CHECK_EQ_INT(cb_check(&deq, c, CB_MATMUL_FP8_DEQ, &err), CB_FAIL);
    free(c);
    /* The tolerances themselves: 16 2^-4 / sqrt(K) + 2^-10, and 2^-10. */
    CB_CHECK_REL(cb_matmul_tolerance(CB_MATMUL_FP8, 8192), 1.0 / sqrt(8192.0) + ldexp(1, -10),
                 1e-12);
    CB_CHECK_REL(cb_matmul_tolerance(CB_MATMUL_FP8_DEQ, 8192), ldexp(1, -10), 1e-12);
    CB_CHECK(sa > 0 && sb > 0);
    free(a), free(b), free(ad), free(bd), free(qa), free(qb);
}

int main(void)
{
    cb_check_codec();
    cb_check_quantize();
    cb_check_bounds();
    return cb_test_finish("test_matmul_fp8");
}
