/* common_kernels.cu - the random fill that families share. */
#include "cb_random.h"
#include "common_kernels.h"

#include <math.h>

static __global__ void fill_random_kernel(float *x, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = cb_random_value(seed, i);
}

static int grid_for(size_t n, int block)
{
    size_t blocks = (n + block - 1) / block;
    /* A grid-stride loop covers the rest; 64K blocks saturate any GPU. */
    return blocks > 65536 ? 65536 : (blocks == 0 ? 1 : (int)blocks);
}

extern "C" cudaError_t cb_launch_fill_random(float *x, size_t n, uint64_t seed, cudaStream_t s)
{
    fill_random_kernel<<<grid_for(n, 256), 256, 0, s>>>(x, n, seed);
    return cudaGetLastError();
}
