/* l2_flush.cu - the engine's kernels: evict L2 before a cold sample, and
 * hold the stream for a while after it (the host's head start). They live
 * with the engine (not in kernels/) because the runner owns timing hygiene;
 * no family calls them. */
#include "l2_flush.h"
#include "l2_flush_device.cuh"

static int grid_for(size_t n, int block)
{
    size_t blocks = (n + block - 1) / block;
    /* A grid-stride loop covers the rest; 64K blocks saturate any GPU. */
    return blocks > 65536 ? 65536 : (blocks == 0 ? 1 : (int)blocks);
}

static __global__ void l2_flush_kernel(const float4 *buf, size_t n4, float *sink)
{
    flush_reads(buf, n4, sink);
}

extern "C" cudaError_t cb_launch_l2_flush(const void *buf, size_t bytes, float *sink,
                                          cudaStream_t s)
{
    size_t n4 = bytes / sizeof(float4);
    l2_flush_kernel<<<grid_for(n4, 512), 512, 0, s>>>((const float4 *)buf, n4, sink);
    return cudaGetLastError();
}

/* The flush, then a hold in the same launch: the last block to finish its
 * share of the reads (a counter in `done`, which it sets back to 0 for the
 * next launch once every other block has finished) waits `ns` more on the
 * global timer. */
static __global__ void l2_flush_hold_kernel(const float4 *buf, size_t n4, float *sink,
                                            unsigned *done, unsigned long long ns)
{
    flush_reads(buf, n4, sink);
    __shared__ bool last;
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last || threadIdx.x != 0) return;
    *done = 0;
    hold_for(ns);
}

extern "C" cudaError_t cb_launch_l2_flush_hold(const void *buf, size_t bytes, float *sink,
                                               unsigned *done, unsigned ns, cudaStream_t s)
{
    size_t n4 = bytes / sizeof(float4);
    l2_flush_hold_kernel<<<grid_for(n4, 512), 512, 0, s>>>((const float4 *)buf, n4, sink, done, ns);
    return cudaGetLastError();
}

/* One thread holds the stream (the two-launch way: hold_for). */
static __global__ void hold_kernel(unsigned long long ns)
{
    hold_for(ns);
}

extern "C" cudaError_t cb_launch_hold(unsigned ns, cudaStream_t s)
{
    hold_kernel<<<1, 1, 0, s>>>(ns);
    return cudaGetLastError();
}
