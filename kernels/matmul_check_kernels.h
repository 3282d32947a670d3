/* matmul_check_kernels.h - the matmul family's setup and verification on the
 * device: inputs from the counter-based generator (cb_random.h), their BF16
 * and E4M3 copies, and the comparison of C with a reference over every
 * entry, so a large point neither generates, converts nor compares on one
 * CPU thread.
 * Every launcher enqueues on `s` and returns the launch error; the ones that
 * return a result to the host say so and synchronize `s`. */
#ifndef CB_MATMUL_CHECK_KERNELS_H
#define CB_MATMUL_CHECK_KERNELS_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = x[i] rounded to bfloat16, to nearest with ties to even (the bits
 * of cb_matmul_float_to_bf16, bench/detail/matmul_ref.h), for i < n. */
cudaError_t cb_matmul_launch_to_bf16(const float *x, uint16_t *y, size_t n, cudaStream_t s);

/* An FP8 input from x (rows x cols, row-major), in one pass: the E4M3 code
 * of each element at the per-tensor scale, cb_e4m3_quantize(x[i], scale)
 * of cb_e4m3.h (the host's function), into q row-major, or with
 * `transpose` into q as its transpose (cols x rows: B laid out K-major);
 * then x[i] = cb_e4m3_dequantize(code, scale) in place, the value an FP8
 * GEMM multiplies. */
cudaError_t cb_matmul_launch_quantize_e4m3(float *x, int rows, int cols, float scale, uint8_t *q,
                                           bool transpose, cudaStream_t s);

/* What one comparison of C with a reference R found, over every entry. */
typedef struct cb_matmul_diff {
    double max_diff;                /* max |C - R| in FP64 over entries where C is finite */
    unsigned long long worst;       /* the first index where |C - R| == max_diff          */
    float c_worst, r_worst;         /* C and R there                                      */
    unsigned long long nonfinite_c; /* entries of C that are NaN or infinite              */
    unsigned long long first_nonfinite_c;
    float c_first_nonfinite;
    unsigned long long nonfinite_r; /* the same for R                                     */
} cb_matmul_diff;

/* Compare c and r (count entries, device memory) into *out: two passes
 * over the matrices (the maximum, then its first index) and the counts.
 * `scratch` is device memory of cb_matmul_check_scratch_bytes(). Synchronous:
 * returns after *out is on the host. The arithmetic is the host check's
 * (|(double)c - (double)r|), so the verdict does not depend on the side. */
size_t cb_matmul_check_scratch_bytes(void);
cudaError_t cb_matmul_compare(const float *c, const float *r, size_t count, void *scratch,
                              cb_matmul_diff *out, cudaStream_t s);

/* max |x[i]| for i < n into *out (host). Synchronous; `scratch` as above. */
cudaError_t cb_matmul_absmax(const float *x, size_t n, void *scratch, float *out, cudaStream_t s);

/* out[t] = x[idx[t]] for t < count: sampled entries for a host check,
 * in one copy instead of one per entry. idx and out are device memory. */
cudaError_t cb_matmul_launch_gather(const float *x, const unsigned long long *idx, int count,
                                    float *out, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
