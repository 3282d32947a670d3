/* vecadd.cu - the vector-add ladder.
 *
 *   thread_per_elem  one thread per element: the textbook kernel; the grid
 *                    grows with n, so large n launches millions of blocks.
 *   grid_stride      a fixed grid walks the vector: fewer blocks, each thread
 *                    does several elements; the grid is an axis.
 *   float4           the grid-stride loop with 16-byte loads and stores (a
 *                    quarter of the memory instructions) and `ilp` independent
 *                    float4 pairs in flight per thread before the first store,
 *                    so each warp keeps more bytes outstanding to HBM; `hint`
 *                    optionally marks the traffic evict-first (__ldcs/__stcs).
 *   float4_per_thread one float4 per thread and no loop: the textbook kernel
 *                    with 16-byte accesses (BabelStream's shape, one wide
 *                    element per thread).
 * Each moves 12 bytes per element: two 4-byte reads, one 4-byte write.
 */
#include "cb_random.h"
#include "vecadd_kernels.h"

#include <math.h>

static __global__ void vecadd_thread_per_elem(const float *__restrict__ a,
                                              const float *__restrict__ b, float *__restrict__ c,
                                              size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

static __global__ void vecadd_grid_stride(const float *__restrict__ a, const float *__restrict__ b,
                                          float *__restrict__ c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}

static __device__ __forceinline__ float4 add4(float4 x, float4 y)
{
    return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

/* STREAM: loads and stores with the evict-first ("cache streaming") hint, so
 * data touched once does not push other lines out of L2. */
template <bool STREAM> static __device__ __forceinline__ float4 load4(const float4 *p)
{
    return STREAM ? __ldcs(p) : *p;
}
template <bool STREAM> static __device__ __forceinline__ void store4(float4 *p, float4 v)
{
    if (STREAM)
        __stcs(p, v);
    else
        *p = v;
}

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
            va[k] = load4<STREAM>(a + i + k * stride);
            vb[k] = load4<STREAM>(b + i + k * stride);
        }
#pragma unroll
        for (int k = 0; k < ILP; k++)
            store4<STREAM>(c + i + k * stride, add4(va[k], vb[k]));
    }
    for (; i < n4; i += stride)
        store4<STREAM>(c + i, add4(load4<STREAM>(a + i), load4<STREAM>(b + i)));
    /* The last n % 4 floats. */
    if (tid < tail) ct[tid] = at[tid] + bt[tid];
}

static __global__ void
vecadd_float4_per_thread(const float4 *__restrict__ a, const float4 *__restrict__ b,
                         float4 *__restrict__ c, size_t n4, const float *__restrict__ at,
                         const float *__restrict__ bt, float *__restrict__ ct, size_t tail)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) c[i] = add4(a[i], b[i]);
    if (i < tail) ct[i] = at[i] + bt[i];
}

typedef void (*float4_kernel)(const float4 *, const float4 *, float4 *, size_t, const float *,
                              const float *, float *, size_t);

/* The compiled (ilp, hint) combinations; NULL for anything else. */
static float4_kernel pick_float4(int ilp, bool stream)
{
    switch (ilp * 2 + (stream ? 1 : 0)) {
    case 2:
        return vecadd_float4<1, false>;
    case 3:
        return vecadd_float4<1, true>;
    case 4:
        return vecadd_float4<2, false>;
    case 5:
        return vecadd_float4<2, true>;
    case 8:
        return vecadd_float4<4, false>;
    case 9:
        return vecadd_float4<4, true>;
    default:
        return NULL;
    }
}

static size_t blocks_for(size_t n, int block)
{
    return (n + (size_t)block - 1) / (size_t)block;
}

extern "C" cudaError_t cb_launch_vecadd(cb_vecadd_variant v, const float *a, const float *b,
                                        float *c, size_t n, int grid, int block, int ilp,
                                        bool stream, cudaStream_t s)
{
    switch (v) {
    case CB_VECADD_THREAD_PER_ELEM: {
        size_t blocks = blocks_for(n, block);
        if (blocks > 0x7fffffffu) return cudaErrorInvalidConfiguration;
        vecadd_thread_per_elem<<<(unsigned)blocks, block, 0, s>>>(a, b, c, n);
        break;
    }
    case CB_VECADD_GRID_STRIDE:
        vecadd_grid_stride<<<grid, block, 0, s>>>(a, b, c, n);
        break;
    case CB_VECADD_FLOAT4: {
        size_t n4 = n / 4, tail = n % 4, off = n4 * 4;
        const float4 *a4 = (const float4 *)a, *b4 = (const float4 *)b;
        float4 *c4 = (float4 *)c;
        float4_kernel k = pick_float4(ilp, stream);
        if (!k) return cudaErrorInvalidValue;
        k<<<grid, block, 0, s>>>(a4, b4, c4, n4, a + off, b + off, c + off, tail);
        break;
    }
    case CB_VECADD_FLOAT4_PER_THREAD: {
        size_t n4 = n / 4, tail = n % 4, off = n4 * 4;
        size_t blocks = blocks_for(n4 > tail ? n4 : tail, block);
        if (blocks > 0x7fffffffu) return cudaErrorInvalidConfiguration;
        vecadd_float4_per_thread<<<(unsigned)blocks, block, 0, s>>>(
            (const float4 *)a, (const float4 *)b, (float4 *)c, n4, a + off, b + off, c + off, tail);
        break;
    }
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

extern "C" cudaError_t cb_vecadd_blocks_per_sm(cb_vecadd_variant v, int block, int ilp, bool stream,
                                               int *blocks)
{
    switch (v) {
    case CB_VECADD_THREAD_PER_ELEM:
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, vecadd_thread_per_elem, block,
                                                             0);
    case CB_VECADD_GRID_STRIDE:
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, vecadd_grid_stride, block, 0);
    case CB_VECADD_FLOAT4: {
        float4_kernel k = pick_float4(ilp, stream);
        if (!k) return cudaErrorInvalidValue;
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, k, block, 0);
    }
    case CB_VECADD_FLOAT4_PER_THREAD:
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, vecadd_float4_per_thread,
                                                             block, 0);
    }
    return cudaErrorInvalidValue;
}

/* The device-side check of c = a + b against the counter-based generator. */
static int check_grid_for(size_t n, int block)
{
    size_t blocks = (n + block - 1) / block;
    /* A grid-stride loop covers the rest; 64K blocks saturate any GPU. */
    return blocks > 65536 ? 65536 : (blocks == 0 ? 1 : (int)blocks);
}

static __global__ void check_vecadd_kernel(const float *c, size_t n, uint64_t seed_a,
                                           uint64_t seed_b, cb_vecadd_check *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float expect = cb_random_value(seed_a, i) + cb_random_value(seed_b, i);
        float got = c[i];
        if (got != expect) {
            atomicAdd(&out->mismatches, 1ull);
            atomicMin(&out->first_bad, (unsigned long long)i);
            float err = isfinite(got) ? fabsf(got - expect) : INFINITY;
            /* Non-negative floats order like their bit patterns. */
            atomicMax((unsigned int *)&out->max_abs_error, __float_as_uint(err));
        }
    }
}

extern "C" cudaError_t cb_check_vecadd(const float *c, size_t n, uint64_t seed_a, uint64_t seed_b,
                                       void *scratch, cb_vecadd_check *out, cudaStream_t s)
{
    cb_vecadd_check init = {0ull, ~0ull, 0.0f};
    cudaError_t e = cudaMemcpyAsync(scratch, &init, sizeof init, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return e;
    check_vecadd_kernel<<<check_grid_for(n, 256), 256, 0, s>>>(c, n, seed_a, seed_b,
                                                               (cb_vecadd_check *)scratch);
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    e = cudaMemcpyAsync(out, scratch, sizeof *out, cudaMemcpyDeviceToHost, s);
    if (e != cudaSuccess) return e;
    return cudaStreamSynchronize(s);
}
