/* transfers_kernels.h - launchers of the transfers family: the pattern fill
 * and checks, the zero-copy kernel copy and the overlap pipeline's kernels.
 * Every launcher enqueues on `s` and returns the launch error. Buffers given
 * as `void *` must be 16-byte aligned (cudaMalloc, cudaMallocHost and page-
 * aligned host memory are); a misaligned one gives cudaErrorInvalidValue. */
#ifndef CB_TRANSFERS_KERNELS_H
#define CB_TRANSFERS_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* buf[b] = cb_xfer_byte(seed, b), or its complement, for b < bytes. `buf` is
 * device memory or the device alias of mapped pinned host memory. */
cudaError_t cb_xfer_launch_fill(void *buf, size_t bytes, uint64_t seed, int complement,
                                cudaStream_t s);

/* *count += bytes of buf that differ from the pattern (device counter). */
cudaError_t cb_xfer_launch_count(const void *buf, size_t bytes, uint64_t seed,
                                 unsigned long long *count, cudaStream_t s);

/* *count += bytes where a and b differ (device counter). */
cudaError_t cb_xfer_launch_compare(const void *a, const void *b, size_t bytes,
                                   unsigned long long *count, cudaStream_t s);

/* dst[0..bytes) = src[0..bytes) by a kernel, `grid` blocks of 256 threads
 * (capped by the size). Either side may be mapped pinned host memory: this
 * is the zero-copy path, PCIe traffic without a copy engine. */
cudaError_t cb_xfer_launch_kernel_copy(void *dst, const void *src, size_t bytes, int grid,
                                       cudaStream_t s);

/* x[i] = cb_xfer_overlap_input(seed, i) for i < n. */
cudaError_t cb_xfer_launch_overlap_fill(float *x, size_t n, uint64_t seed, cudaStream_t s);

/* out[i] = cb_xfer_overlap_value(in[i], fma) for i < n. */
cudaError_t cb_xfer_launch_overlap_compute(float *out, const float *in, size_t n, int fma,
                                           cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
