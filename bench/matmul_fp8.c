/* matmul_fp8.c - what the FP8 rungs (matmul_tc/wgmma_fp8 and the cuBLASLt
 * reference, matmul/cublaslt_fp8) share: their inputs, quantised once per
 * point on the device, and their verification (the bounds are derived in
 * matmul_ref.h). Neither copies A or B to the host: the host recomputes
 * what it checks from the generator, through the same E4M3 rounding
 * (kernels/cb_e4m3.h) the device quantised with. */
#include "matmul_common.h"
#include "matmul_check_kernels.h"

#include <math.h>
#include <stdlib.h>

double cb_matmul_bytes_fp8(const cb_point *p)
{
    int m, n, k;
    if (cb_matmul_point_shape(p, &m, &n, &k, NULL) != CB_OK) return 0.0;
    return (double)m * k + (double)k * n + 8.0 * m * n;
}

/* The scales from the inputs' largest magnitudes, then the E4M3 bytes of
 * A and of B K-major, A and B dequantised in place. */
static cudaError_t cb_fp8_quantize(cb_matmul_state *st)
{
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n;
    /* Each scale at the start of its own 256-byte slot: cuBLASLt reads them
     * through pointers, which it may expect aligned as its matrices. */
    float scales[2 * CB_MATMUL_SCALE_STRIDE] = {0};
    cudaError_t err = cudaMalloc(&st->d_a8, na);
    if (err == cudaSuccess) err = cudaMalloc(&st->d_b8t, nb);
    if (err == cudaSuccess) err = cudaMalloc((void **)&st->d_scales, sizeof scales);
    if (err == cudaSuccess)
        err = cb_matmul_absmax(st->d_a, na, st->d_check, &st->max_a32, st->stream);
    if (err == cudaSuccess)
        err = cb_matmul_absmax(st->d_b, nb, st->d_check, &st->max_b32, st->stream);
    if (err != cudaSuccess) return err;
    st->scale_a = cb_matmul_e4m3_scale(st->max_a32);
    st->scale_b = cb_matmul_e4m3_scale(st->max_b32);
    scales[0] = st->scale_a;
    scales[CB_MATMUL_SCALE_STRIDE] = st->scale_b;
    err = cudaMemcpyAsync(st->d_scales, scales, sizeof scales, cudaMemcpyHostToDevice, st->stream);
    if (err == cudaSuccess)
        err = cb_matmul_launch_quantize_e4m3(st->d_a, st->m, st->k, st->scale_a, st->d_a8, false,
                                             st->stream);
    if (err == cudaSuccess)
        err = cb_matmul_launch_quantize_e4m3(st->d_b, st->k, st->n, st->scale_b, st->d_b8t, true,
                                             st->stream);
    return err == cudaSuccess ? cudaStreamSynchronize(st->stream) : err;
}

cb_status cb_matmul_state_fp8(cb_matmul_state *st, cb_msg *why)
{
    const cudaError_t err = cb_fp8_quantize(st);
    if (err != cudaSuccess) {
        cb_msg_set(why, "FP8 inputs: %s", cudaGetErrorString(err));
        return err == cudaErrorMemoryAllocation ? CB_SKIP : CB_FAIL;
    }
    return CB_OK;
}

/* The sampled entries of C and their exact values against the FP32
 * inputs. */
typedef struct cb_fp8_check {
    cb_matmul_samples at;
    double exact32[CB_MATMUL_CHECK_ENTRIES];
} cb_fp8_check;

/* Two checks, both against exact products the host recomputes from the
 * generator:
 *   1. C against the product of the dequantised inputs (FP8_DEQ, the
 *      error reported): the other rungs' check (cb_matmul_verify_exact:
 *      all of C in FP64 at small shapes; cuBLAS pedantic FP32 of the
 *      device's dequantised inputs over every entry and FP64 at sampled
 *      entries at large ones), with each input element quantised and
 *      dequantised on the host;
 *   2. C at the same sampled entries against the product of the FP32
 *      inputs, with the E4M3 input bound (FP8): the dequantised problem
 *      must itself stay within E4M3's rounding of the FP32 one, whatever
 *      scales the setup chose. */
cb_status cb_matmul_fp8_verify(void *state, double *error, cb_msg *why)
{
    cb_matmul_state *st = state;
    *error = NAN;
    cb_fp8_check *fc = malloc(sizeof *fc);
    if (!fc) {
        cb_msg_set(why, "host out of memory for the check");
        return CB_FAIL;
    }
    const cb_matmul_e4m3_scales fp8 = {st->scale_a, st->scale_b};
    cb_status s = cb_matmul_verify_exact(st, &fp8, &fc->at, error, why);
    if (s == CB_OK) {
        const cb_matmul_gen g = cb_matmul_state_gen(st);
        cb_matmul_gen_entries(&g, fc->at.idx, CB_MATMUL_CHECK_ENTRIES, fc->exact32,
                              cb_matmul_cpu_threads());
        const double scale = cb_matmul_error_scale_of(st->alpha, st->k, st->max_a32, st->max_b32);
        double e32 = 0.0;
        cb_msg inner = {{0}};
        s = cb_matmul_check_entries(st->n, st->k, fc->at.idx, fc->at.c, fc->exact32,
                                    CB_MATMUL_CHECK_ENTRIES, CB_MATMUL_FP8, scale, &e32, &inner);
        if (s != CB_OK) cb_msg_set(why, "against the FP32 inputs: %s", inner.text);
    }
    free(fc);
    return s;
}
