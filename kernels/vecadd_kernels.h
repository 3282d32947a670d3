/* vecadd_kernels.h - vector add kernels, c = a + b in float32. */
#ifndef CB_VECADD_KERNELS_H
#define CB_VECADD_KERNELS_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One launch of a vector add. */
typedef struct cb_vecadd_launch {
    const float *a, *b; /* inputs, 16-byte aligned (cudaMalloc's are)            */
    float *c;           /* output                                                 */
    size_t n;           /* elements                                               */
    int grid;           /* blocks, for the grid-stride kernels (`grid_stride`)    */
    int block;          /* threads per block                                      */
    int ilp;            /* float4 pairs in flight per thread (1, 2, 4), where the
                         * kernel has the knob; 1 elsewhere                       */
    bool stream_hint;   /* evict-first loads and stores (__ldcs/__stcs), likewise  */
} cb_vecadd_launch;

/* A variant of the ladder: its launcher and occupancy query, and how its
 * grid follows from n. Each variant is one cb_vecadd_kernel in its own
 * kernels/vecadd_<variant>.cu; bench/detail/vecadd_variants.def lists them. */
typedef struct cb_vecadd_kernel {
    const char *name; /* "float4_per_thread" */
    /* Enqueue on `s`; the launch error (cudaErrorInvalidValue for a knob
     * value the kernel is not compiled for). */
    cudaError_t (*launch)(const cb_vecadd_launch *l, cudaStream_t s);
    /* Resident blocks per SM at l->block threads (occupancy API). */
    cudaError_t (*blocks_per_sm)(const cb_vecadd_launch *l, int *blocks);
    int elems_per_thread; /* a thread's elements when the grid follows n (1, 4)  */
    bool grid_stride;     /* the grid is given (l->grid), not derived from n      */
} cb_vecadd_kernel;

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
