/* matmul_host.c - CPU baselines of the matmul family (target HOST, timed
 * with the host clock, no GPU needed, so CI runs them end to end):
 *   host_blocked - cache-blocked C: i-k-j loop order so the inner loop
 *                  streams contiguous rows of B and C (the compiler
 *                  vectorizes it, for AVX-512F, AVX2 or SSE2 as the CPU
 *                  allows: cpu_isa.h), column blocks of C and k-blocks of
 *                  B sized to stay in cache, rows split over POSIX threads;
 *   host_cblas   - cblas_sgemm of the BLAS CMake found (OpenBLAS
 *                  preferred), on as many threads as host_blocked, a skip
 *                  when built without one. Its note names the BLAS the
 *                  process really loaded (blas_info.h): the netlib
 *                  reference is no yardstick for the hand-written kernel.
 * Both notes say the threads, the cores and the vector ISA they ran with.
 * Verified with the same reference and metric as the GPU rungs. */
#include "matmul_common.h"
#include "mem_budget.h"

#include "blas_info.h"
#include "cpu_isa.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A k-block of 128 rows by a column block of 256 of B is 128 KiB: it
 * stays in L2 while every row of the thread's band sweeps it. */
#define CB_HOST_KC 128
#define CB_HOST_NC 256
/* Below this many multiply-adds one thread beats starting more. */
#define CB_HOST_MT_MIN_FMA (1u << 21)

typedef struct cb_matmul_host_state {
    int m, n, k;
    float alpha, beta;
    int threads;
    uint64_t seed;
    float *a, *b, *c;
} cb_matmul_host_state;

typedef struct cb_host_band {
    const cb_matmul_host_state *st;
    int row0, row1;
} cb_host_band;

/* Rows row0..row1 of C; one clone per ISA (CB_CPU_CLONES). */
CB_CPU_CLONES static void cb_host_band_kernel(const cb_matmul_host_state *st, int row0, int row1)
{
    const int n = st->n, k = st->k;
    const float alpha = st->alpha, beta = st->beta;
    for (int i = row0; i < row1; i++) {
        float *crow = st->c + (size_t)i * n;
        /* beta == 0: C is not read (it may hold NaN poison). */
        for (int j = 0; j < n; j++)
            crow[j] = beta == 0.0f ? 0.0f : beta * crow[j];
    }
    for (int j0 = 0; j0 < n; j0 += CB_HOST_NC) {
        const int j1 = j0 + CB_HOST_NC < n ? j0 + CB_HOST_NC : n;
        for (int q0 = 0; q0 < k; q0 += CB_HOST_KC) {
            const int q1 = q0 + CB_HOST_KC < k ? q0 + CB_HOST_KC : k;
            for (int i = row0; i < row1; i++) {
                float *restrict crow = st->c + (size_t)i * n;
                const float *arow = st->a + (size_t)i * k;
                for (int q = q0; q < q1; q++) {
                    const float av = alpha * arow[q];
                    const float *restrict brow = st->b + (size_t)q * n;
                    for (int j = j0; j < j1; j++)
                        crow[j] += av * brow[j];
                }
            }
        }
    }
}

static void *cb_host_band_run(void *arg)
{
    const cb_host_band *band = arg;
    cb_host_band_kernel(band->st, band->row0, band->row1);
    return NULL;
}

#define CB_HOST_MAX_THREADS 256

cb_status cb_matmul_host_blocked_run(void *state, cudaStream_t stream, cb_msg *why)
{
    (void)stream;
    const cb_matmul_host_state *st = state;
    int threads = st->threads;
    if ((uint64_t)st->m * st->n * st->k < CB_HOST_MT_MIN_FMA) threads = 1;
    if (threads > st->m) threads = st->m;
    if (threads > CB_HOST_MAX_THREADS) threads = CB_HOST_MAX_THREADS;
    if (threads < 1) threads = 1;
    cb_host_band bands[CB_HOST_MAX_THREADS];
    pthread_t tids[CB_HOST_MAX_THREADS];
    for (int t = 0; t < threads; t++)
        bands[t] = (cb_host_band){st, (int)((int64_t)st->m * t / threads),
                                  (int)((int64_t)st->m * (t + 1) / threads)};
    int started = 1;
    for (; started < threads; started++) {
        if (pthread_create(&tids[started], NULL, cb_host_band_run, &bands[started]) != 0) break;
    }
    cb_host_band_run(&bands[0]);
    for (int t = started; t < threads; t++)
        cb_host_band_run(&bands[t]); /* not started */
    for (int t = 1; t < started; t++)
        pthread_join(tids[t], NULL);
    (void)why;
    return CB_OK;
}

/* CBLAS's enum values (cblas.h): the BLAS is opened at run time. */
enum { CB_CBLAS_ROW_MAJOR = 101, CB_CBLAS_NO_TRANS = 111 };

cb_status cb_matmul_host_cblas_run(void *state, cudaStream_t stream, cb_msg *why)
{
    (void)stream;
    const cb_matmul_host_state *st = state;
    cb_cblas_sgemm_fn sgemm = cb_blas_sgemm();
    if (!sgemm) {
        cb_msg_set(why, "cblas_sgemm is not loaded");
        return CB_FAIL;
    }
    sgemm(CB_CBLAS_ROW_MAJOR, CB_CBLAS_NO_TRANS, CB_CBLAS_NO_TRANS, st->m, st->n, st->k, st->alpha,
          st->a, st->k, st->b, st->n, st->beta, st->c, st->n);
    return CB_OK;
}

void cb_matmul_host_teardown(void *state)
{
    cb_matmul_host_state *st = state;
    if (!st) return;
    free(st->a);
    free(st->b);
    free(st->c);
    free(st);
}

cb_status cb_matmul_host_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                               cb_point_info *info, cb_msg *why)
{
    *state = NULL;
    int m, n, k;
    cb_status s = cb_matmul_point_fits(p, false, CB_MATMUL_FP32, &m, &n, &k, why);
    if (s != CB_OK) return s;
    cb_matmul_host_state *st = cb_mem_state_new(sizeof *st, "host out of memory", why);
    if (!st) return CB_SKIP;
    st->m = m, st->n = n, st->k = k;
    st->alpha = 1.0f, st->beta = 0.0f;
    st->threads = ctx->host_threads > 0 ? ctx->host_threads : 1;
    st->seed = ctx->seed;
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    st->a = malloc(na * sizeof(float));
    st->b = malloc(nb * sizeof(float));
    st->c = malloc(nc * sizeof(float));
    if (!st->a || !st->b || !st->c) {
        cb_matmul_host_teardown(st);
        cb_msg_set(why, "host out of memory for %zu floats", na + nb + nc);
        return CB_SKIP;
    }
    /* The same inputs as the GPU rungs for the same seed. */
    cb_matmul_fill_uniform(st->a, na, st->seed);
    cb_matmul_fill_uniform(st->b, nb, st->seed + 0x9e3779b9u);
    memset(st->c, 0xff, nc * sizeof(float)); /* NaN poison */
    info->occupancy = -1.0;
    int used = (uint64_t)m * n * k < CB_HOST_MT_MIN_FMA ? 1 : st->threads;
    if (used > m) used = m;
    if (used > CB_HOST_MAX_THREADS) used = CB_HOST_MAX_THREADS;
    /* On the H200's host the CI after the 1 s budget was 1.7-2.7% at
     * 128-512 with every core (one thread reaches 0.5%). */
    if (used > 1) info->target_ci_rel = CB_HOST_THREADS_TARGET_CI;
    snprintf(info->note, sizeof info->note,
             "%d thread%s of %ld cores, %s code, blocks of %d k x %d columns", used,
             used == 1 ? "" : "s", sysconf(_SC_NPROCESSORS_ONLN), cb_cpu_isa_dispatched(),
             CB_HOST_KC, CB_HOST_NC);
    *state = st;
    return CB_OK;
}

cb_status cb_matmul_host_cblas_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                     cb_point_info *info, cb_msg *why)
{
    *state = NULL;
    if (!cb_blas_load(why->text, sizeof why->text) || !cb_blas_sgemm()) {
        if (!why->text[0]) cb_msg_set(why, "the BLAS loaded has no cblas_sgemm");
        return CB_SKIP;
    }
    cb_status s = cb_matmul_host_setup(p, ctx, state, info, why);
    if (s != CB_OK) return s;
    /* As many threads as host_blocked gets, so pct_ref compares like with
     * like; the BLAS still decides how many a small product uses. */
    const cb_matmul_host_state *st = *state;
    const bool set = cb_blas_set_threads(st->threads);
    cb_blas_info blas;
    cb_blas_info_read(&blas);
    char what[128];
    cb_blas_describe(&blas, what, sizeof what);
    snprintf(info->note, sizeof info->note, "cblas_sgemm of %.100s%s, %ld cores", what,
             set ? "" : " (its own thread count)", sysconf(_SC_NPROCESSORS_ONLN));
    return CB_OK;
}

cb_status cb_matmul_host_verify(void *state, double *error, cb_msg *why)
{
    const cb_matmul_host_state *st = state;
    const cb_matmul_problem p = {st->m, st->n, st->k, st->alpha, st->beta, st->a, st->b, NULL};
    const double scale = cb_matmul_error_scale(&p);
    const size_t nc = (size_t)st->m * st->n;
    double *ref = NULL;
    if ((uint64_t)nc * st->k <= CB_MATMUL_FULL_REF_MAX_FMA && nc <= CB_MATMUL_FULL_REF_MAX_ELEMS)
        ref = malloc(nc * sizeof(double));
    if (!ref) /* too large for a full reference: FP64 at sampled entries */
        return cb_matmul_check_spot(&p, st->c, CB_MATMUL_SPOT_SAMPLES, st->seed, CB_MATMUL_FP32,
                                    scale, error, why);
    cb_matmul_ref_full(&p, ref, st->threads);
    cb_status s = cb_matmul_check_fp64(&p, st->c, ref, CB_MATMUL_FP32, scale, error, why);
    free(ref);
    return s;
}
