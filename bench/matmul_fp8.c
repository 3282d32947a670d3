/* matmul_fp8.c - what the FP8 rungs (matmul_tc/wgmma_fp8 and the cuBLASLt
 * reference, matmul/cublaslt_fp8) share: their inputs, quantised once per
 * point, and their verification (the bounds are derived in matmul_ref.h). */
#include "matmul_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double cb_matmul_bytes_fp8(const cb_point *p)
{
    int m, n, k;
    if (cb_matmul_point_shape(p, &m, &n, &k, NULL) != CB_OK) return 0.0;
    return (double)m * k + (double)k * n + 8.0 * m * n;
}

/* dst (n x k) = src (k x n)^T, in 32 x 32 blocks so both sides stay in cache. */
static void cb_transpose_bytes(const uint8_t *src, uint8_t *dst, int k, int n)
{
    for (int k0 = 0; k0 < k; k0 += 32)
        for (int n0 = 0; n0 < n; n0 += 32)
            for (int kk = k0; kk < k0 + 32 && kk < k; kk++)
                for (int nn = n0; nn < n0 + 32 && nn < n; nn++)
                    dst[(size_t)nn * k + kk] = src[(size_t)kk * n + nn];
}

/* Quantise one input: q (its E4M3 bytes), the dequantised values in place
 * of x, the original moved to *orig. */
static cb_status cb_fp8_quantize_input(float **x, float **orig, size_t count, uint8_t *q,
                                       float *scale, cb_msg *why)
{
    float *deq = malloc(count * sizeof(float));
    if (!deq) {
        cb_msg_set(why, "host out of memory for %zu dequantised floats", count);
        return CB_SKIP;
    }
    *scale = cb_matmul_quantize_e4m3(*x, count, q, deq);
    *orig = *x;
    *x = deq;
    return CB_OK;
}

/* The E4M3 bytes, the scales and the dequantised inputs onto the device. */
static cudaError_t cb_fp8_upload(cb_matmul_state *st, const uint8_t *qa, const uint8_t *qbt)
{
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n;
    /* Each scale at the start of its own 256-byte slot: cuBLASLt reads them
     * through pointers, which it may expect aligned as its matrices. */
    float scales[2 * CB_MATMUL_SCALE_STRIDE] = {0};
    scales[0] = st->scale_a;
    scales[CB_MATMUL_SCALE_STRIDE] = st->scale_b;
    cudaError_t err = cudaMalloc(&st->d_a8, na);
    if (err == cudaSuccess) err = cudaMalloc(&st->d_b8t, nb);
    if (err == cudaSuccess) err = cudaMalloc((void **)&st->d_scales, sizeof scales);
    if (err == cudaSuccess) err = cudaMemcpy(st->d_a8, qa, na, cudaMemcpyHostToDevice);
    if (err == cudaSuccess) err = cudaMemcpy(st->d_b8t, qbt, nb, cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaMemcpy(st->d_scales, scales, sizeof scales, cudaMemcpyHostToDevice);
    /* The cuBLAS reference of large points multiplies what the FP8 GEMM
     * multiplies: the dequantised inputs. */
    if (err == cudaSuccess)
        err = cudaMemcpy(st->d_a, st->h_a, na * sizeof(float), cudaMemcpyHostToDevice);
    if (err == cudaSuccess)
        err = cudaMemcpy(st->d_b, st->h_b, nb * sizeof(float), cudaMemcpyHostToDevice);
    return err;
}

cb_status cb_matmul_state_fp8(cb_matmul_state *st, cb_msg *why)
{
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n;
    uint8_t *qa = malloc(na), *qb = malloc(nb), *qbt = malloc(nb);
    cb_status s = qa && qb && qbt ? CB_OK : CB_SKIP;
    if (s != CB_OK) cb_msg_set(why, "host out of memory for the FP8 inputs");
    /* The generator filled A and B on the device; quantisation is a host
     * step, so they come back first (untimed). */
    if (s == CB_OK) s = cb_matmul_state_host_inputs(st, why);
    if (s == CB_OK && !st->h_c && !(st->h_c = malloc((size_t)st->m * st->n * sizeof(float)))) {
        cb_msg_set(why, "host out of memory for C");
        s = CB_SKIP;
    }
    if (s == CB_OK) s = cb_fp8_quantize_input(&st->h_a, &st->h_a32, na, qa, &st->scale_a, why);
    if (s == CB_OK) s = cb_fp8_quantize_input(&st->h_b, &st->h_b32, nb, qb, &st->scale_b, why);
    if (s == CB_OK) {
        cb_transpose_bytes(qb, qbt, st->k, st->n);
        const cudaError_t err = cb_fp8_upload(st, qa, qbt);
        if (err != cudaSuccess) {
            cb_msg_set(why, "FP8 inputs: %s", cudaGetErrorString(err));
            s = err == cudaErrorMemoryAllocation ? CB_SKIP : CB_FAIL;
        }
    }
    free(qa);
    free(qb);
    free(qbt);
    return s;
}

/* Large points: C against cuBLAS pedantic FP32 of the dequantised inputs
 * over every entry, and both against FP64 at sampled entries (a reference
 * with the wrong layout would otherwise agree with a kernel making the same
 * mistake). The device-side check of the other rungs cannot serve: it
 * recomputes its FP64 entries from the generator, and these rungs multiply
 * the dequantised values instead. */
static cb_status cb_fp8_verify_large(cb_matmul_state *st, const cb_matmul_problem *p, double scale,
                                     double *error, cb_msg *why)
{
    const size_t nc = (size_t)st->m * st->n;
    cb_status s =
        cb_matmul_cublas_gemm(st->blas, st->m, st->n, st->k, st->alpha, st->d_a, st->d_b,
                              CUDA_R_32F, 0.0f, st->d_ref, CUBLAS_COMPUTE_32F_PEDANTIC, why);
    if (s != CB_OK) return s;
    float *ref = malloc(nc * sizeof(float));
    if (!ref) {
        cb_msg_set(why, "host out of memory for the reference");
        return CB_FAIL;
    }
    s = CB_FAIL;
    double e_ref, e_full = NAN, e_spot = NAN;
    cudaError_t ce = cudaMemcpy(ref, st->d_ref, nc * sizeof(float), cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess) {
        cb_msg_set(why, "reading the reference back: %s", cudaGetErrorString(ce));
    } else if (cb_matmul_check_spot(p, ref, CB_MATMUL_SPOT_SAMPLES, st->seed, CB_MATMUL_FP32, scale,
                                    &e_ref, why) != CB_OK) {
        const cb_msg inner = *why;
        cb_msg_set(why, "cuBLAS reference fails its FP64 spot check: %s", inner.text);
    } else if (cb_matmul_check_fp32(p, st->h_c, ref, st->precision, scale, &e_full, why) != CB_OK) {
        *error = e_full;
    } else if (cb_matmul_check_spot(p, st->h_c, CB_MATMUL_SPOT_SAMPLES, st->seed + 1, st->precision,
                                    scale, &e_spot, why) != CB_OK) {
        *error = e_spot;
    } else {
        *error = fmax(e_full, e_spot);
        s = CB_OK;
    }
    free(ref);
    return s;
}

/* C against the exact product of the dequantised inputs (FP8_DEQ): all of
 * it in FP64 at small shapes, cuBLAS and sampled entries at large ones. */
static cb_status cb_fp8_verify_dequantised(cb_matmul_state *st, double *error, cb_msg *why)
{
    const size_t nc = (size_t)st->m * st->n;
    const cb_matmul_problem p = {st->m, st->n, st->k, st->alpha, st->beta, st->h_a, st->h_b, NULL};
    const double scale = cb_matmul_error_scale(&p);
    if (!cb_matmul_full_ref_shape(st->m, st->n, st->k))
        return cb_fp8_verify_large(st, &p, scale, error, why);
    double *ref = malloc(nc * sizeof(double));
    if (!ref) {
        cb_msg_set(why, "host out of memory for the reference");
        return CB_FAIL;
    }
    cb_matmul_ref_full(&p, ref, cb_matmul_cpu_threads());
    cb_status s = cb_matmul_check_fp64(&p, st->h_c, ref, st->precision, scale, error, why);
    free(ref);
    return s;
}

cb_status cb_matmul_fp8_verify(void *state, double *error, cb_msg *why)
{
    cb_matmul_state *st = state;
    *error = NAN;
    CB_CUDA(cudaStreamSynchronize(st->stream));
    CB_CUDA(cudaMemcpy(st->h_c, st->d_c, (size_t)st->m * st->n * sizeof(float),
                       cudaMemcpyDeviceToHost));
    cb_status s = cb_fp8_verify_dequantised(st, error, why);
    if (s != CB_OK) return s;
    const cb_matmul_problem p32 = {st->m,    st->n,     st->k,     st->alpha,
                                   st->beta, st->h_a32, st->h_b32, NULL};
    double e32 = 0.0;
    cb_msg inner = {{0}};
    s = cb_matmul_check_spot(&p32, st->h_c, CB_MATMUL_SPOT_SAMPLES, st->seed + 2, CB_MATMUL_FP8,
                             cb_matmul_error_scale(&p32), &e32, &inner);
    if (s != CB_OK) cb_msg_set(why, "against the FP32 inputs: %s", inner.text);
    return s;
}
