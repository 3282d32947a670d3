/* common_kernels.h - launchers shared by families: the random fill. Every launcher returns the
 * launch error. */
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

#ifdef __cplusplus
}
#endif

#endif
