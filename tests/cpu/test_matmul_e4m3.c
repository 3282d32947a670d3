/* test_matmul_e4m3.c - the E4M3 rounding the FP8 rungs share between host
 * and device (kernels/cb_e4m3.h) is the host's earlier encoder, kept here as
 * it was (float compare, rintf for the subnormals, a double ldexp decoder):
 *   - the encoder gives the same byte for every one of the 2^32 floats in
 *     an optimised build (NaNs, infinities, zeros, subnormals, every tie),
 *     and for every tie and a dense stride of them in a debug one;
 *   - the decoder gives the same bits for all 256 codes;
 *   - per-tensor quantisation gives the same scale, bytes and dequantised
 *     values as the earlier algorithm;
 *   - the host's recomputation of an FP8 problem from the generator
 *     (cb_matmul_gen_entry_e4m3, cb_matmul_fill_e4m3) is, entry for entry
 *     and bit for bit, the exact product of the generator's matrices
 *     quantised and dequantised as a tensor. */
/* test links: cubench_bench */
#include "cb_test.h"
#include "cb_e4m3.h"
#include "matmul_ref.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

/* ---- the earlier host algorithm, verbatim but for the names ---- */

static uint8_t cb_old_float_to_e4m3(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    const uint8_t sign = (uint8_t)(u >> 24 & 0x80u);
    u &= 0x7fffffffu;
    if (u > 0x7f800000u) return 0x7f; /* NaN */
    float a;
    memcpy(&a, &u, sizeof a);
    if (a >= CB_MATMUL_E4M3_MAX) return sign | 0x7e;
    if (a < 0x1p-6f) return sign | (uint8_t)rintf(a * 512.0f);
    u += 0x7ffffu + (u >> 20 & 1u);
    const uint32_t exp_field = (u >> 23) - 127u + 7u;
    return sign | (uint8_t)(exp_field << 3) | (uint8_t)(u >> 20 & 7u);
}

static float cb_old_e4m3_to_float(uint8_t bits)
{
    const int exp_field = bits >> 3 & 0xf, mant = bits & 7;
    const double sign = bits & 0x80 ? -1.0 : 1.0;
    if (exp_field == 0xf && mant == 7) return NAN;
    if (exp_field == 0) return (float)(sign * ldexp(mant, -9));
    return (float)(sign * ldexp(8 + mant, exp_field - 7 - 3));
}

static float cb_old_quantize(const float *x, size_t count, uint8_t *q, float *deq)
{
    float amax = 0.0f;
    for (size_t i = 0; i < count; i++)
        if (fabsf(x[i]) > amax) amax = fabsf(x[i]);
    const float scale = amax > 0.0f ? amax / CB_MATMUL_E4M3_MAX : 1.0f;
    float value[256];
    for (int b = 0; b < 256; b++)
        value[b] = cb_old_e4m3_to_float((uint8_t)b);
    for (size_t i = 0; i < count; i++) {
        q[i] = cb_old_float_to_e4m3(x[i] / scale);
        if (deq) deq[i] = scale * value[q[i]];
    }
    return scale;
}

/* ---- */

static float cb_float_of(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static uint32_t cb_bits_of(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Bit patterns [from, to) stepping by `step`, both encoders; the
 * mismatches, the first in *first. */
typedef struct cb_sweep {
    uint64_t from, to, step;
    uint64_t bad, first;
} cb_sweep;

static void *cb_sweep_run(void *arg)
{
    cb_sweep *sw = arg;
    sw->bad = 0;
    for (uint64_t u = sw->from; u < sw->to; u += sw->step) {
        const float x = cb_float_of((uint32_t)u);
        if (cb_e4m3_from_float(x) != cb_old_float_to_e4m3(x) && sw->bad++ == 0) sw->first = u;
    }
    return NULL;
}

/* Every pattern `step` apart over all 2^32, on the online cores (up to 8). */
static void cb_sweep_all(uint64_t step)
{
    enum { MAX_THREADS = 8 };
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int threads = cores < 1 ? 1 : cores > MAX_THREADS ? MAX_THREADS : (int)cores;
    cb_sweep sw[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    bool started[MAX_THREADS] = {false};
    const uint64_t total = 1ull << 32, chunk = (total / threads + step - 1) / step * step;
    for (int t = 0; t < threads; t++) {
        const uint64_t to = (uint64_t)(t + 1) * chunk;
        sw[t] =
            (cb_sweep){.from = (uint64_t)t * chunk, .to = to < total ? to : total, .step = step};
        started[t] = t > 0 && pthread_create(&tid[t], NULL, cb_sweep_run, &sw[t]) == 0;
    }
    for (int t = 0; t < threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            cb_sweep_run(&sw[t]);
    }
    uint64_t bad = 0;
    for (int t = 0; t < threads; t++) {
        CB_CHECK_MSG(sw[t].bad == 0, "0x%08llx: 0x%02x, earlier 0x%02x",
                     (unsigned long long)sw[t].first,
                     cb_e4m3_from_float(cb_float_of((uint32_t)sw[t].first)),
                     cb_old_float_to_e4m3(cb_float_of((uint32_t)sw[t].first)));
        bad += sw[t].bad;
    }
    printf("  encoder: %s of the 2^32 floats on %d threads: %llu differ\n",
           step == 1 ? "all" : "a stride", threads, (unsigned long long)bad);
}

/* The encoder over every float. Rounding looks at the bits under the kept
 * ones: bits 0..19 for a normal result, up to bit 23 below 2^-6, so every
 * tie and its neighbours are the 4096 patterns of bits 20..31 times a few
 * low-bit endings, checked in every build; an optimised build (NDEBUG, as
 * CI builds it: about 8 s on 2 cores) then checks all 2^32, a debug or
 * sanitizer build, 10-30 times slower, every 257th. */
static void test_encoder_everywhere(void)
{
    static const uint32_t low[] = {0x00000, 0x00001, 0x3ffff, 0x40000, 0x40001, 0x7fffe, 0x7ffff,
                                   0x80000, 0x80001, 0xbffff, 0xc0000, 0xc0001, 0xffffe, 0xfffff};
    int bad = 0;
    for (uint32_t high = 0; high < 4096; high++)
        for (size_t t = 0; t < sizeof low / sizeof low[0]; t++) {
            const float x = cb_float_of(high << 20 | low[t]);
            bad += cb_e4m3_from_float(x) != cb_old_float_to_e4m3(x);
        }
    CB_CHECK_EQ_INT(bad, 0);
#ifdef NDEBUG
    cb_sweep_all(1);
#else
    cb_sweep_all(257);
#endif
}

/* The cases the encoder's branches turn on, with the bytes they must give. */
static void test_encoder_edges(void)
{
    static const struct {
        uint32_t bits;
        uint8_t code;
    } cases[] = {
        {0x00000000u, 0x00},                      /* +0                                       */
        {0x80000000u, 0x80},                      /* -0 keeps its sign                        */
        {0x00000001u, 0x00},                      /* the least float subnormal                */
        {0x80000001u, 0x80}, {0x00800000u, 0x00}, /* FLT_MIN                                  */
        {0x3a800000u, 0x00},                      /* 2^-10: half the least step, tie to 0     */
        {0x3a800001u, 0x01},                      /* just over it                             */
        {0x3b000000u, 0x01},                      /* 2^-9: the least E4M3 subnormal           */
        {0x3b400000u, 0x02},                      /* 1.5 x 2^-9: tie to 2                     */
        {0x3ba00000u, 0x02},                      /* 2.5 x 2^-9: tie to 2                     */
        {0x3c700000u, 0x08},                      /* 7.5 x 2^-9: tie to 8, i.e. 2^-6          */
        {0x3c7fffffu, 0x08},                      /* the float under 2^-6                     */
        {0x3c800000u, 0x08},                      /* 2^-6: the least normal                   */
        {0x3c880000u, 0x08},                      /* 2^-6 x 1.0625: tie to even mantissa 0    */
        {0x3c980000u, 0x0a},                      /* 2^-6 x 1.1875: tie to even mantissa 2    */
        {0x3f800000u, 0x38},                      /* 1                                        */
        {0xbf800000u, 0xb8},                      /* -1                                       */
        {0x43d00000u, 0x7d},                      /* 416                                      */
        {0x43d80000u, 0x7e},                      /* 432: tie between 416 and 448, to 448     */
        {0x43dfffffu, 0x7e},                      /* the float under 448                      */
        {0x43e00000u, 0x7e},                      /* 448                                      */
        {0x43e80000u, 0x7e},                      /* 464: would tie to 480, which is not: 448 */
        {0xc3f00000u, 0xfe},                      /* -480 saturates                           */
        {0x7f7fffffu, 0x7e},                      /* FLT_MAX                                  */
        {0x7f800000u, 0x7e},                      /* +inf saturates                           */
        {0xff800000u, 0xfe},                      /* -inf                                     */
        {0x7fc00000u, 0x7f},                      /* quiet NaN                                */
        {0xffc00000u, 0x7f},                      /* a NaN's sign is dropped                  */
        {0x7f800001u, 0x7f},                      /* signalling NaN                           */
        {0xffffffffu, 0x7f},
    };
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        const float x = cb_float_of(cases[t].bits);
        CB_CHECK_MSG(cb_e4m3_from_float(x) == cases[t].code, "0x%08x: 0x%02x, want 0x%02x",
                     cases[t].bits, cb_e4m3_from_float(x), cases[t].code);
        CB_CHECK_EQ_INT(cb_old_float_to_e4m3(x), cases[t].code);
        CB_CHECK_EQ_INT(cb_matmul_float_to_e4m3(x), cases[t].code);
    }
}

/* Every code decodes to the same bits (NaN: the same quiet NaN). */
static void test_decoder(void)
{
    int bad = 0;
    for (int b = 0; b < 256; b++) {
        const uint32_t now = cb_bits_of(cb_e4m3_value((uint8_t)b));
        bad += now != cb_bits_of(cb_old_e4m3_to_float((uint8_t)b));
        bad += now != cb_bits_of(cb_matmul_e4m3_to_float((uint8_t)b));
    }
    CB_CHECK_EQ_INT(bad, 0);
    CB_CHECK(cb_e4m3_value(0x80) == 0.0f && signbit(cb_e4m3_value(0x80)));
    CB_CHECK(cb_e4m3_value(0x01) == 0x1p-9f && cb_e4m3_value(0x7e) == 448.0f);
}

static bool cb_same_bits(const float *x, const float *y, size_t count)
{
    return memcmp(x, y, count * sizeof(float)) == 0;
}

/* Per-tensor quantisation, the earlier algorithm against the shared one
 * (cb_matmul_quantize_e4m3, and element by element as the device makes
 * it), on generator values, on values spanning E4M3's range and beyond,
 * and on an all-zero tensor. */
static void test_quantize(void)
{
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof(float)), *d_old = malloc(N * sizeof(float));
    float *d_now = malloc(N * sizeof(float)), *d_elem = malloc(N * sizeof(float));
    uint8_t *q_old = malloc(N), *q_now = malloc(N), *q_elem = malloc(N);
    CB_CHECK(x && d_old && d_now && d_elem && q_old && q_now && q_elem);
    for (int round = 0; round < 3; round++) {
        cb_matmul_fill_uniform(x, N, 40 + (uint64_t)round);
        if (round == 1) /* magnitudes from 2^-40 to 2^40, a few exact ties */
            for (int i = 0; i < N; i++)
                x[i] = ldexpf(x[i], i % 81 - 40);
        if (round == 2) memset(x, 0, N * sizeof(float));
        const float s_old = cb_old_quantize(x, N, q_old, d_old);
        const float s_now = cb_matmul_quantize_e4m3(x, N, q_now, d_now);
        CB_CHECK(cb_bits_of(s_old) == cb_bits_of(s_now));
        for (int i = 0; i < N; i++) {
            q_elem[i] = cb_e4m3_quantize(x[i], s_now);
            d_elem[i] = cb_e4m3_dequantize(q_elem[i], s_now);
        }
        CB_CHECK(memcmp(q_old, q_now, N) == 0 && memcmp(q_old, q_elem, N) == 0);
        CB_CHECK(cb_same_bits(d_old, d_now, N) && cb_same_bits(d_old, d_elem, N));
        if (round == 2) CB_CHECK(s_now == 1.0f);
    }
    free(x), free(d_old), free(d_now), free(d_elem), free(q_old), free(q_now), free(q_elem);
}

/* The FP8 problem recomputed from the generator is the generator's
 * matrices quantised per tensor, then multiplied exactly. */
static void test_generated_problem(void)
{
    const cb_matmul_gen g = {.m = 23, .n = 31, .k = 300, .alpha = -0.75, .seed_a = 8, .seed_b = 9};
    const size_t na = (size_t)g.m * g.k, nb = (size_t)g.k * g.n, nc = (size_t)g.m * g.n;
    float *a = malloc(na * sizeof(float)), *b = malloc(nb * sizeof(float));
    float *fa = malloc(na * sizeof(float)), *fb = malloc(nb * sizeof(float));
    uint8_t *q = malloc(na > nb ? na : nb);
    size_t *idx = malloc(nc * sizeof(size_t));
    double *exact = malloc(nc * sizeof(double));
    CB_CHECK(a && b && fa && fb && q && idx && exact);
    cb_matmul_fill_uniform(a, na, g.seed_a);
    cb_matmul_fill_uniform(b, nb, g.seed_b);
    float amax = 0.0f;
    for (size_t i = 0; i < na; i++)
        amax = fmaxf(amax, fabsf(a[i]));
    /* In place, as the device does and test_matmul_tc.c asks. */
    const cb_matmul_e4m3_scales fp8 = {cb_matmul_quantize_e4m3(a, na, q, a),
                                       cb_matmul_quantize_e4m3(b, nb, q, b)};
    CB_CHECK(cb_bits_of(fp8.a) == cb_bits_of(cb_matmul_e4m3_scale(amax)));
    cb_matmul_fill_e4m3(fa, na, g.seed_a, fp8.a);
    cb_matmul_fill_e4m3(fb, nb, g.seed_b, fp8.b);
    CB_CHECK(cb_same_bits(a, fa, na) && cb_same_bits(b, fb, nb));
    const cb_matmul_problem p = {g.m, g.n, g.k, g.alpha, 0.0, a, b, NULL};
    for (size_t e = 0; e < nc; e++)
        idx[e] = e;
    cb_matmul_gen_entries_e4m3(&g, &fp8, idx, (int)nc, exact, 3);
    int equal = 0, moved = 0;
    for (size_t e = 0; e < nc; e++) {
        const double want = cb_matmul_ref_entry(&p, (int)(e / g.n), (int)(e % g.n));
        equal += cb_matmul_gen_entry_e4m3(&g, &fp8, e) == want && exact[e] == want;
        moved += cb_matmul_gen_entry(&g, e) != want;
    }
    CB_CHECK_EQ_INT(equal, (int)nc);
    CB_CHECK(moved > (int)nc / 2); /* the quantisation shows in the product */
    /* No scales: the generator's own problem. */
    CB_CHECK(cb_matmul_gen_entry_e4m3(&g, NULL, 17) == cb_matmul_gen_entry(&g, 17));
    cb_matmul_fill_e4m3(fa, na, g.seed_a, 0.0f);
    cb_matmul_fill_uniform(a, na, g.seed_a);
    CB_CHECK(cb_same_bits(a, fa, na));
    free(a), free(b), free(fa), free(fb), free(q), free(idx), free(exact);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_encoder_edges();
    test_decoder();
    test_quantize();
    test_generated_problem();
    test_encoder_everywhere();
    return cb_test_finish("test_matmul_e4m3");
}
