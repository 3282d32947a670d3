/* collective_kernels.cu - fill and check kernels of the collectives family
 * (collective_kernels.h says why the values are exact). bf16 is handled as
 * its bit pattern, the top half of a float: the values are small integers,
 * so the conversion is exact both ways. */
#include "cb_random.h"
#include "collective_kernels.h"

static __device__ float coll_input(uint64_t seed, int rank, size_t i)
{
    uint64_t h = cb_mix64(seed ^ cb_mix64(((uint64_t)rank << 48) ^ (uint64_t)i));
    return (float)((int)(h >> 61) - 4);
}

static __device__ float load_value(const void *buf, cb_coll_dtype t, size_t i)
{
    if (t == CB_COLL_FLOAT) return ((const float *)buf)[i];
    unsigned bits = (unsigned)((const unsigned short *)buf)[i] << 16;
    return __uint_as_float(bits);
}

static __global__ void fill_kernel(void *buf, cb_coll_dtype t, size_t count, uint64_t seed,
                                   int rank, size_t index0)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        float v = coll_input(seed, rank, index0 + i);
        if (t == CB_COLL_FLOAT)
            ((float *)buf)[i] = v;
        else
            ((unsigned short *)buf)[i] = (unsigned short)(__float_as_uint(v) >> 16);
    }
}

static __global__ void check_kernel(const void *buf, cb_coll_dtype t, size_t count, uint64_t seed,
                                    cb_coll_expect expect, int nranks, int rank, size_t index0,
                                    unsigned long long *bad)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long mine = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += stride) {
        float want = 0.f;
        if (expect == CB_COLL_EXPECT_SUM) {
            for (int r = 0; r < nranks; r++)
                want += coll_input(seed, r, index0 + i);
        } else {
            want = coll_input(seed, rank, index0 + i);
        }
        float got = load_value(buf, t, i);
        if (!(got == want)) mine++; /* NaN compares false: counted */
    }
    if (mine) atomicAdd(bad, mine);
}

static unsigned grid_for(size_t count)
{
    size_t blocks = (count + 255) / 256;
    return blocks > 65536 ? 65536u : (blocks == 0 ? 1u : (unsigned)blocks);
}

extern "C" cudaError_t cb_coll_launch_fill(void *buf, cb_coll_dtype t, size_t count, uint64_t seed,
                                           int rank, size_t index0, cudaStream_t s)
{
    fill_kernel<<<grid_for(count), 256, 0, s>>>(buf, t, count, seed, rank, index0);
    return cudaGetLastError();
}

extern "C" cudaError_t cb_coll_launch_check(const void *buf, cb_coll_dtype t, size_t count,
                                            uint64_t seed, cb_coll_expect expect, int nranks,
                                            int rank, size_t index0, unsigned long long *bad,
                                            cudaStream_t s)
{
    check_kernel<<<grid_for(count), 256, 0, s>>>(buf, t, count, seed, expect, nranks, rank, index0,
                                                 bad);
    return cudaGetLastError();
}
