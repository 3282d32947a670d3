/* matmul_ref.c - inputs, FP64 references and the error metric (see
 * matmul_ref.h for the metric and why the tolerances are what they are). */
#include "matmul_ref.h"
#include "cb_e4m3.h"
#include "cb_random.h"
#include "host_slices.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t cb_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cb_matmul_fill_uniform(float *x, size_t count, uint64_t seed)
{
    for (size_t i = 0; i < count; i++)
        x[i] = cb_random_value(seed, i);
}

/* The generator's value of `seed` at i, through E4M3 at `scale` when
 * scale > 0 (cb_matmul_e4m3_scales). */
static float cb_gen_value(uint64_t seed, size_t i, float scale)
{
    const float x = cb_random_value(seed, i);
    return scale > 0.0f ? cb_e4m3_dequantize(cb_e4m3_quantize(x, scale), scale) : x;
}

void cb_matmul_fill_e4m3(float *x, size_t count, uint64_t seed, float scale)
{
    for (size_t i = 0; i < count; i++)
        x[i] = cb_gen_value(seed, i, scale);
}

double cb_matmul_gen_entry_e4m3(const cb_matmul_gen *g, const cb_matmul_e4m3_scales *fp8, size_t e)
{
    const size_t n = (size_t)g->n, k = (size_t)g->k, i = e / n, j = e % n;
    const float sa = fp8 ? fp8->a : 0.0f, sb = fp8 ? fp8->b : 0.0f;
    double acc = 0.0;
    for (size_t q = 0; q < k; q++)
        acc += (double)cb_gen_value(g->seed_a, i * k + q, sa) *
               (double)cb_gen_value(g->seed_b, q * n + j, sb);
    return g->alpha * acc;
}

double cb_matmul_gen_entry(const cb_matmul_gen *g, size_t e)
{
    return cb_matmul_gen_entry_e4m3(g, NULL, e);
}

/* The FP64 references run on at most this many threads. */
#define CB_MATMUL_REF_THREADS_MAX 64

static void cb_run_ref_slices(int count, int threads, cb_slice_fn fn, void *ctx)
{
    (void)cb_run_slices(count > 0 ? (size_t)count : 0,
                        threads < CB_MATMUL_REF_THREADS_MAX ? threads : CB_MATMUL_REF_THREADS_MAX,
                        fn, ctx);
}

typedef struct cb_gen_job {
    const cb_matmul_gen *g;
    const cb_matmul_e4m3_scales *fp8;
    const size_t *idx;
    double *exact;
} cb_gen_job;

static void cb_gen_slice(void *ctx, int slice, size_t from, size_t to)
{
    (void)slice;
    const cb_gen_job *job = ctx;
    for (size_t t = from; t < to; t++)
        job->exact[t] = cb_matmul_gen_entry_e4m3(job->g, job->fp8, job->idx[t]);
}

void cb_matmul_gen_entries_e4m3(const cb_matmul_gen *g, const cb_matmul_e4m3_scales *fp8,
                                const size_t *idx, int count, double *exact, int threads)
{
    cb_gen_job job = {g, fp8, idx, exact};
    cb_run_ref_slices(count, threads, cb_gen_slice, &job);
}

void cb_matmul_gen_entries(const cb_matmul_gen *g, const size_t *idx, int count, double *exact,
                           int threads)
{
    cb_matmul_gen_entries_e4m3(g, NULL, idx, count, exact, threads);
}

/* The t-th entry a spot check looks at (see cb_matmul_spot_indices). */
static size_t cb_spot_index(int t, size_t entries, uint64_t *state)
{
    if (t == 0) return 0;
    if (t == 1) return entries - 1;
    return cb_splitmix64(state) % entries;
}

void cb_matmul_spot_indices(size_t entries, int samples, uint64_t seed, size_t *idx)
{
    uint64_t s = seed ^ 0x5eed5eed5eed5eedull;
    for (int t = 0; t < samples + 2; t++)
        idx[t] = cb_spot_index(t, entries, &s);
}

uint16_t cb_matmul_float_to_bf16(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
        return (uint16_t)((u >> 16) | 0x0040u); /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);            /* round to nearest, ties to even */
    return (uint16_t)(u >> 16);
}

float cb_matmul_bf16_to_float(uint16_t bits)
{
    const uint32_t u = (uint32_t)bits << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

uint8_t cb_matmul_float_to_e4m3(float x)
{
    return cb_e4m3_from_float(x);
}

float cb_matmul_e4m3_to_float(uint8_t bits)
{
    return cb_e4m3_value(bits);
}

float cb_matmul_e4m3_scale(float amax)
{
    return amax > 0.0f ? amax / CB_MATMUL_E4M3_MAX : 1.0f;
}

float cb_matmul_quantize_e4m3(const float *x, size_t count, uint8_t *q, float *deq)
{
    float amax = 0.0f;
    for (size_t i = 0; i < count; i++)
        if (fabsf(x[i]) > amax) amax = fabsf(x[i]);
    const float scale = cb_matmul_e4m3_scale(amax);
    for (size_t i = 0; i < count; i++) {
        q[i] = cb_e4m3_quantize(x[i], scale);
        if (deq) deq[i] = cb_e4m3_dequantize(q[i], scale);
    }
    return scale;
}

/* Rows [row0, row1) of the reference: i-k-j order so the inner loop runs
 * over contiguous rows of B and of the accumulator (and vectorizes). */
typedef struct cb_ref_job {
    const cb_matmul_problem *p;
    double *ref;
} cb_ref_job;

static void cb_ref_rows(void *ctx, int slice, size_t row0, size_t row1)
{
    (void)slice;
    const cb_ref_job *job = ctx;
    const cb_matmul_problem *p = job->p;
    const size_t n = (size_t)p->n;
    for (size_t i = row0; i < row1; i++) {
        double *acc = job->ref + (size_t)i * n;
        for (size_t j = 0; j < n; j++)
            acc[j] = 0.0;
        const float *arow = p->a + (size_t)i * p->k;
        for (int q = 0; q < p->k; q++) {
            const double av = arow[q];
            const float *brow = p->b + (size_t)q * n;
            for (size_t j = 0; j < n; j++)
                acc[j] += av * (double)brow[j];
        }
        for (size_t j = 0; j < n; j++) {
            acc[j] *= p->alpha;
            if (p->beta != 0.0) acc[j] += p->beta * (double)p->c0[(size_t)i * n + j];
        }
    }
}

void cb_matmul_ref_full(const cb_matmul_problem *p, double *ref, int threads)
{
    cb_ref_job job = {p, ref};
    cb_run_ref_slices(p->m, threads, cb_ref_rows, &job);
}

double cb_matmul_ref_entry(const cb_matmul_problem *p, int i, int j)
{
    double acc = 0.0;
    const float *arow = p->a + (size_t)i * p->k;
    for (int q = 0; q < p->k; q++)
        acc += (double)arow[q] * (double)p->b[(size_t)q * p->n + j];
    acc *= p->alpha;
    if (p->beta != 0.0) acc += p->beta * (double)p->c0[(size_t)i * p->n + j];
    return acc;
}

static double cb_max_abs(const float *x, size_t count)
{
    double mx = 0.0;
    for (size_t i = 0; i < count; i++) {
        const double v = fabs((double)x[i]);
        if (v > mx) mx = v;
    }
    return mx;
}

double cb_matmul_error_scale(const cb_matmul_problem *p)
{
    double s = fabs(p->alpha) * (double)p->k * cb_max_abs(p->a, (size_t)p->m * p->k) *
               cb_max_abs(p->b, (size_t)p->k * p->n);
    if (p->beta != 0.0) s += fabs(p->beta) * cb_max_abs(p->c0, (size_t)p->m * p->n);
    return s > 0.0 ? s : 1.0; /* all-zero inputs: compare absolute errors */
}

double cb_matmul_error_scale_of(double alpha, int k, double max_a, double max_b)
{
    const double s = fabs(alpha) * (double)k * max_a * max_b;
    return s > 0.0 ? s : 1.0;
}

double cb_matmul_tolerance(cb_matmul_precision prec, int k)
{
    /* The accumulator's unit roundoff: FP32, or the ~14 bits reported for
     * Hopper's FP8 tensor cores (matmul_ref.h). */
    const bool fp8 = prec == CB_MATMUL_FP8 || prec == CB_MATMUL_FP8_DEQ;
    const double u_acc = fp8 ? ldexp(1.0, -14) : ldexp(1.0, -24);
    double u_in = 0.0;
    if (prec == CB_MATMUL_TF32) u_in = ldexp(1.0, -11);
    if (prec == CB_MATMUL_BF16) u_in = ldexp(1.0, -8);
    if (prec == CB_MATMUL_FP8) u_in = ldexp(1.0, -4);
    return 16.0 * u_in / sqrt((double)(k > 0 ? k : 1)) + 16.0 * u_acc;
}

static const char *cb_prec_name(cb_matmul_precision prec)
{
    static const char *const names[] = {"FP32", "TF32", "BF16", "FP8", "FP8 (dequantised inputs)"};
    return prec >= CB_MATMUL_FP32 && prec <= CB_MATMUL_FP8_DEQ ? names[prec] : "?";
}

cb_status cb_matmul_judge(const cb_matmul_worst *w, cb_matmul_precision prec, double scale,
                          double *err, cb_msg *why)
{
    const size_t n = (size_t)w->n;
    if (w->nonfinite > 0) {
        *err = INFINITY;
        cb_msg_set(why, "%zu non-finite entries in C, first C[%zu][%zu] = %g (unwritten?)",
                   w->nonfinite, w->first_bad / n, w->first_bad % n, w->c_bad);
        return CB_FAIL;
    }
    *err = w->max_diff / scale;
    const double tol = cb_matmul_tolerance(prec, w->k);
    if (*err > tol) {
        cb_msg_set(why, "error %.3g > %s tolerance %.3g at C[%zu][%zu] = %.9g (exact %.9g)", *err,
                   cb_prec_name(prec), tol, w->worst / n, w->worst % n, w->c_worst, w->r_worst);
        return CB_FAIL;
    }
    return CB_OK;
}

/* One scan: the worst entry and the non-finite ones. `ref` or `ref32`. */
static cb_status cb_check(const cb_matmul_problem *p, const float *c, const double *ref,
                          const float *ref32, cb_matmul_precision prec, double scale, double *err,
                          cb_msg *why)
{
    const size_t count = (size_t)p->m * p->n;
    cb_matmul_worst w = {.n = p->n, .k = p->k};
    for (size_t e = 0; e < count; e++) {
        const double cv = c[e], rv = ref ? ref[e] : (double)ref32[e];
        if (!isfinite(cv)) {
            if (w.nonfinite++ == 0) w.first_bad = e, w.c_bad = cv;
            continue;
        }
        const double d = fabs(cv - rv);
        if (d > w.max_diff) w.max_diff = d, w.worst = e;
    }
    w.c_worst = c[w.worst];
    w.r_worst = ref ? ref[w.worst] : (double)ref32[w.worst];
    return cb_matmul_judge(&w, prec, scale, err, why);
}

cb_status cb_matmul_check_fp64(const cb_matmul_problem *p, const float *c, const double *ref,
                               cb_matmul_precision prec, double scale, double *err, cb_msg *why)
{
    return cb_check(p, c, ref, NULL, prec, scale, err, why);
}

cb_status cb_matmul_check_fp32(const cb_matmul_problem *p, const float *c, const float *ref32,
                               cb_matmul_precision prec, double scale, double *err, cb_msg *why)
{
    return cb_check(p, c, NULL, ref32, prec, scale, err, why);
}

cb_status cb_matmul_check_entries(int n, int k, const size_t *idx, const float *vals,
                                  const double *exact, int count, cb_matmul_precision prec,
                                  double scale, double *err, cb_msg *why)
{
    cb_matmul_worst w = {.n = n, .k = k};
    for (int t = 0; t < count; t++) {
        const double cv = vals[t];
        if (!isfinite(cv)) {
            if (w.nonfinite++ == 0) w.first_bad = idx[t], w.c_bad = cv;
            continue;
        }
        const double d = fabs(cv - exact[t]);
        if (d >= w.max_diff) w.max_diff = d, w.worst = idx[t], w.c_worst = cv, w.r_worst = exact[t];
    }
    return cb_matmul_judge(&w, prec, scale, err, why);
}

cb_status cb_matmul_check_spot(const cb_matmul_problem *p, const float *c, int samples,
                               uint64_t seed, cb_matmul_precision prec, double scale, double *err,
                               cb_msg *why)
{
    const size_t n = (size_t)p->n, count = (size_t)p->m * n;
    uint64_t s = seed ^ 0x5eed5eed5eed5eedull;
    cb_matmul_worst w = {.n = p->n, .k = p->k};
    for (int t = 0; t < samples + 2; t++) {
        const size_t e = cb_spot_index(t, count, &s);
        const double cv = c[e];
        if (!isfinite(cv)) {
            if (w.nonfinite++ == 0) w.first_bad = e, w.c_bad = cv;
            continue;
        }
        const double rv = cb_matmul_ref_entry(p, (int)(e / n), (int)(e % n));
        const double d = fabs(cv - rv);
        if (d >= w.max_diff) w.max_diff = d, w.worst = e, w.c_worst = cv, w.r_worst = rv;
    }
    return cb_matmul_judge(&w, prec, scale, err, why);
}
