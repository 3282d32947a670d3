/* matmul_cublas.c - the cuBLAS rungs: the FP32 reference of the ladder
 * and two tensor-core ceilings.
 *   cublas_fp32 - cublasGemmEx, CUBLAS_COMPUTE_32F_PEDANTIC: true FP32
 *                 (no TF32 even where a global override would allow it);
 *                 every hand-written rung's pct_ref is against it;
 *   cublas_tf32 - CUBLAS_COMPUTE_32F_FAST_TF32: FP32 data, tensor cores
 *                 multiply with 10-bit mantissas, FP32 accumulation;
 *   cublas_bf16 - A and B converted to BF16 once in setup (untimed), FP32
 *                 accumulation and FP32 C.
 * The two ceilings compute a less precise product: they are verified
 * against the FP32 problem with wider tolerances (matmul_ref.h), and their
 * They carry no pct_peak: a percentage of the FP32 (SIMT) peak would exceed 100. */
#include "matmul_common.h"

#include <cublas_v2.h>
#include <stdio.h>
#include <stdlib.h>

static cb_status cb_cublas_setup(const cb_point *p, const cb_bench_ctx *ctx,
                                 cb_matmul_precision prec, cublasComputeType_t compute,
                                 const char *note, void **state, cb_point_info *info, cb_msg *why)
{
    *state = NULL;
    cb_matmul_state *st;
    cb_status s = cb_matmul_state_new(p, ctx, prec, CB_MATMUL_ENGINE_CUBLAS, &st, why);
    if (s != CB_OK) return s;
    st->compute = compute;
    st->in_type = CUDA_R_32F;
    s = cb_matmul_blas_init(st, why);
    if (s == CB_OK && prec == CB_MATMUL_BF16) {
        s = cb_matmul_state_bf16(st, why);
        st->in_type = CUDA_R_16BF;
    }
    if (s == CB_OK) {
        cudaError_t err = cudaDeviceSynchronize();
        if (err != cudaSuccess) {
            cb_msg_set(why, "setup: %s", cudaGetErrorString(err));
            s = CB_FAIL;
        }
    }
    if (s != CB_OK) {
        cb_matmul_teardown(st);
        return s;
    }
    info->occupancy = -1.0; /* cuBLAS picks its kernels itself */
    snprintf(info->note, sizeof info->note, "%s", note);
    *state = st;
    return CB_OK;
}

const cb_matmul_cublas_variant cb_matmul_cublas_fp32 = {
    CB_MATMUL_FP32, CUBLAS_COMPUTE_32F_PEDANTIC,
    "cuBLAS FP32, COMPUTE_32F_PEDANTIC (no TF32): the reference"};
const cb_matmul_cublas_variant cb_matmul_cublas_tf32 = {
    CB_MATMUL_TF32, CUBLAS_COMPUTE_32F_FAST_TF32, "ceiling: TF32 tensor cores, FP32 accumulate"};
const cb_matmul_cublas_variant cb_matmul_cublas_bf16 = {
    CB_MATMUL_BF16, CUBLAS_COMPUTE_32F,
    "ceiling: BF16 inputs (converted in setup), tensor cores, FP32 accumulate and C"};

cb_status cb_matmul_cublas_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                 cb_point_info *info, cb_msg *why)
{
    const cb_matmul_cublas_variant *v = ctx->param;
    return cb_cublas_setup(p, ctx, v->precision, v->compute, v->note, state, info, why);
}

cb_status cb_matmul_cublas_run(void *state, cudaStream_t stream, cb_msg *why)
{
    cb_matmul_state *st = state;
    if (stream != st->stream) CB_CUBLAS(cublasSetStream(st->blas, stream));
    st->stream = stream;
    const bool bf16 = st->in_type == CUDA_R_16BF;
    return cb_matmul_cublas_gemm(
        st->blas, st->m, st->n, st->k, st->alpha, bf16 ? st->d_a16 : (const void *)st->d_a,
        bf16 ? st->d_b16 : (const void *)st->d_b, st->in_type, st->beta, st->d_c, st->compute, why);
}

/* BF16 rung: A and B are 2-byte elements; C stays FP32 (read + write,
 * as in cb_matmul_bytes). */
double cb_matmul_bytes_bf16(const cb_point *p)
{
    int m, n, k;
    if (cb_matmul_point_shape(p, &m, &n, &k, NULL) != CB_OK) return 0.0;
    return 2.0 * ((double)m * k + (double)k * n) + 8.0 * m * n;
}
