/* vecadd_cuda.h - what the vector-add kernels share (CUDA only): the
 * float4 add, the cache-hinted loads and stores, the launch of a kernel of
 * either signature on a given grid or on the grid that gives each thread a
 * fixed share of the vector, and the occupancy query of a variant's
 * kernel. */
#ifndef CB_VECADD_CUDA_H
#define CB_VECADD_CUDA_H

#include "vecadd_kernels.h"

static __device__ __forceinline__ float4 cb_add4(float4 x, float4 y)
{
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

/* STREAM: loads and stores with the evict-first ("cache streaming") hint, so
 * data touched once does not push other lines out of L2. */
template <bool STREAM> static __device__ __forceinline__ float4 cb_load4(const float4 *p)
{
    return STREAM ? __ldcs(p) : *p;
}
template <bool STREAM> static __device__ __forceinline__ void cb_store4(float4 *p, float4 v)
{
    if (STREAM)
        __stcs(p, v);
    else
        *p = v;
}

/* Blocks of `block` threads covering `items` (0 when more than 2^31 - 1). */
static inline unsigned cb_vecadd_blocks(size_t items, int block)
{
    size_t blocks = (items + (size_t)block - 1) / (size_t)block;
    return blocks > 0x7fffffffu ? 0u : (unsigned)(blocks ? blocks : 1);
}

/* The float4 kernels' signature: n4 float4s of a, b and c, then the n % 4
 * floats past them (at, bt, ct: the tail). */
typedef void (*cb_vecadd4_fn)(const float4 *a, const float4 *b, float4 *c, size_t n4,
                              const float *at, const float *bt, float *ct, size_t tail);

/* Launch a float4 kernel on `blocks` blocks of l->block threads over l's
 * vectors cut into n / 4 float4s and the n % 4 tail; the launch error. */
static inline cudaError_t cb_vecadd_launch4(cb_vecadd4_fn kernel, unsigned blocks,
                                            const cb_vecadd_launch *l, cudaStream_t s)
{
    const size_t n4 = l->n / 4, tail = l->n % 4, off = n4 * 4;
    kernel<<<blocks, l->block, 0, s>>>((const float4 *)l->a, (const float4 *)l->b, (float4 *)l->c,
                                       n4, l->a + off, l->b + off, l->c + off, tail);
    return cudaGetLastError();
}

/* The scalar kernels' launch: c = a + b over n floats on `blocks` blocks. */
static inline cudaError_t
cb_vecadd_launch1(void (*kernel)(const float *, const float *, float *, size_t), unsigned blocks,
                  const cb_vecadd_launch *l, cudaStream_t s)
{
    kernel<<<blocks, l->block, 0, s>>>(l->a, l->b, l->c, l->n);
    return cudaGetLastError();
}

/* The scalar kernels' launch on enough blocks for `threads` threads
 * (cudaErrorInvalidConfiguration when that grid is larger than a launch
 * may be). */
static inline cudaError_t
cb_vecadd_launch1_threads(void (*kernel)(const float *, const float *, float *, size_t),
                          size_t threads, const cb_vecadd_launch *l, cudaStream_t s)
{
    const unsigned blocks = cb_vecadd_blocks(threads, l->block);
    if (!blocks) return cudaErrorInvalidConfiguration;
    return cb_vecadd_launch1(kernel, blocks, l, s);
}

/* The launch of a float4 kernel whose threads each take `float4s` of the
 * n / 4 float4s and one float of the n % 4 tail: the grid covers the larger
 * of the two thread counts (cudaErrorInvalidConfiguration when that grid
 * is larger than a launch may be). */
static inline cudaError_t cb_vecadd_launch4_share(cb_vecadd4_fn kernel, size_t float4s,
                                                  const cb_vecadd_launch *l, cudaStream_t s)
{
    const size_t threads = (l->n / 4 + float4s - 1) / float4s, tail = l->n % 4;
    const unsigned blocks = cb_vecadd_blocks(threads > tail ? threads : tail, l->block);
    if (!blocks) return cudaErrorInvalidConfiguration;
    return cb_vecadd_launch4(kernel, blocks, l, s);
}

/* Resident blocks per SM of `kernel` at l->block threads (occupancy API). */
template <typename Kernel>
static cudaError_t cb_vecadd_occupancy(Kernel kernel, const cb_vecadd_launch *l, int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, l->block, 0);
}

/* The blocks_per_sm of a variant that is one kernel: cb_vecadd_occupancy
 * of KERNEL, as a function the variant's cb_vecadd_kernel can point to. */
template <auto KERNEL>
static cudaError_t cb_vecadd_blocks_per_sm(const cb_vecadd_launch *l, int *blocks)
{
    return cb_vecadd_occupancy(KERNEL, l, blocks);
}

#endif
