/* common_kernels.h - launchers shared by families: the random fill; and the
 * SM count a grid is sized for. Every function returns the CUDA error. */
#ifndef CB_COMMON_KERNELS_H
#define CB_COMMON_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x[i] = cb_random_value(seed, i) for i < n. */
cudaError_t cb_launch_fill_random(float *x, size_t n, uint64_t seed, cudaStream_t s);

/* *sms = the SMs the current context may run blocks on: a green context's
 * share, else the device's multiprocessor count (context_sms.cu). */
cudaError_t cb_context_sm_count(int *sms);

#ifdef __cplusplus
}
#endif

#endif
