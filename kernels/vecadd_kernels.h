/* vecadd_kernels.h - vector add kernels, c = a + b in float32. */
#ifndef CB_VECADD_H
#define CB_VECADD_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cb_vecadd_variant {
    CB_VECADD_THREAD_PER_ELEM,   /* one element per thread, grid = ceil(n / block) */
    CB_VECADD_GRID_STRIDE,       /* a grid-stride loop over floats                  */
    CB_VECADD_FLOAT4,            /* a grid-stride loop over float4, `ilp` per trip   */
    CB_VECADD_FLOAT4_PER_THREAD, /* one float4 per thread, grid = ceil(n / 4 / block) */
} cb_vecadd_variant;

/* Launch one vector add. `grid` is ignored by THREAD_PER_ELEM; `ilp` (1, 2 or
 * 4 float4 per thread per loop trip) and `stream` (evict-first cache hints)
 * only matter for FLOAT4, whose pointers must be 16-byte aligned (cudaMalloc's
 * are). Returns the launch error. */
cudaError_t cb_launch_vecadd(cb_vecadd_variant v, const float *a, const float *b, float *c,
                             size_t n, int grid, int block, int ilp, bool stream, cudaStream_t s);

/* Resident blocks per SM for this kernel at `block` threads (occupancy API). */
cudaError_t cb_vecadd_blocks_per_sm(cb_vecadd_variant v, int block, int ilp, bool stream,
                                    int *blocks);

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
