/* vecadd_grid_stride_float4.cu - the grid-stride loop with 16-byte loads and
 * stores (a quarter of the memory instructions) and `ilp` independent float4
 * pairs in flight per thread before the first store, so each warp keeps more
 * bytes outstanding to HBM; `hint` optionally marks the traffic evict-first
 * (__ldcs/__stcs). */
#include "vecadd_cuda.h"

template <int ILP, bool STREAM>
static __global__ void vecadd_float4(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                     float4 *__restrict__ c, size_t n4,
                                     const float *__restrict__ at, const float *__restrict__ bt,
                                     float *__restrict__ ct, size_t tail)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = tid;
    /* Main trips: ILP loads of a and b issued before any add or store. */
    for (; i + (ILP - 1) * stride < n4; i += ILP * stride) {
        float4 va[ILP], vb[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            va[k] = cb_load4<STREAM>(a + i + k * stride);
            vb[k] = cb_load4<STREAM>(b + i + k * stride);
        }
#pragma unroll
        for (int k = 0; k < ILP; k++)
            cb_store4<STREAM>(c + i + k * stride, cb_add4(va[k], vb[k]));
    }
    for (; i < n4; i += stride)
        cb_store4<STREAM>(c + i, cb_add4(cb_load4<STREAM>(a + i), cb_load4<STREAM>(b + i)));
    /* The last n % 4 floats. */
    if (tid < tail) ct[tid] = at[tid] + bt[tid];
}

/* The compiled (ilp, hint) combinations. */
static const struct {
    int ilp;
    bool stream;
    cb_vecadd4_fn kernel;
} compiled[] = {
    {1, false, vecadd_float4<1, false>}, {1, true, vecadd_float4<1, true>},
    {2, false, vecadd_float4<2, false>}, {2, true, vecadd_float4<2, true>},
    {4, false, vecadd_float4<4, false>}, {4, true, vecadd_float4<4, true>},
};

/* The kernel of (ilp, hint); NULL for a combination not compiled. */
static cb_vecadd4_fn pick(int ilp, bool stream)
{
    for (size_t i = 0; i < sizeof compiled / sizeof *compiled; i++)
        if (compiled[i].ilp == ilp && compiled[i].stream == stream) return compiled[i].kernel;
    return NULL;
}

static cudaError_t launch(const cb_vecadd_launch *l, cudaStream_t s)
{
    cb_vecadd4_fn k = pick(l->ilp, l->stream_hint);
    return k ? cb_vecadd_launch4(k, (unsigned)l->grid, l, s) : cudaErrorInvalidValue;
}

static cudaError_t blocks_per_sm(const cb_vecadd_launch *l, int *blocks)
{
    cb_vecadd4_fn k = pick(l->ilp, l->stream_hint);
    return k ? cb_vecadd_occupancy(k, l, blocks) : cudaErrorInvalidValue;
}

extern "C" const cb_vecadd_kernel cb_vecadd_kernel_grid_stride_float4 = {
    .name = "grid_stride_float4",
    .launch = launch,
    .blocks_per_sm = blocks_per_sm,
    .elems_per_thread = 4,
    .grid_stride = true,
};
