/* vecadd_cuda.h - what the vector-add kernels share (CUDA only): the
 * float4 add, the cache-hinted loads and stores, and the grid of a kernel
 * whose threads each take a fixed share of the vector. */
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

#endif
