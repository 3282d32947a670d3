/* common_kernels.h - launchers shared by families: random fill, poisoning
 * checks and the L2 flush. Every launcher returns the launch error. */
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

/* Read `bytes` of `buf` (a multiple of 16) so L2 ends up holding clean lines
 * of it: reading rather than writing leaves no dirty lines whose write-back
 * would be charged to the next timed kernel. `sink` receives a value only
 * in a case that never happens, which keeps the reads alive. */
cudaError_t cb_launch_l2_flush(const void *buf, size_t bytes, float *sink, cudaStream_t s);

/* The result of a device-side check of c[i] == value(seed_a, i) + value(seed_b, i). */
typedef struct cb_vecadd_check {
    unsigned long long mismatches;
    unsigned long long first_bad; /* index of the first mismatch, ~0 if none */
    float max_abs_error;          /* +inf when an element is NaN/inf          */
} cb_vecadd_check;

/* Check every element of c on the device; `scratch` is device memory of
 * sizeof(cb_vecadd_check). Synchronous: returns after copying the result. */
cudaError_t cb_check_vecadd(const float *c, size_t n, uint64_t seed_a, uint64_t seed_b,
                            void *scratch, cb_vecadd_check *out, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
