/* vecadd_thread_per_elem.cu - one thread per element: the textbook kernel;
 * the grid grows with n, so large n launches millions of blocks. */
#include "vecadd_cuda.h"

static __global__ void vecadd_thread_per_elem(const float *__restrict__ a,
                                              const float *__restrict__ b, float *__restrict__ c,
                                              size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

static cudaError_t launch(const cb_vecadd_launch *l, cudaStream_t s)
{
    unsigned blocks = cb_vecadd_blocks(l->n, l->block);
    if (!blocks) return cudaErrorInvalidConfiguration;
    return cb_vecadd_launch1(vecadd_thread_per_elem, blocks, l, s);
}

static cudaError_t blocks_per_sm(const cb_vecadd_launch *l, int *blocks)
{
    return cb_vecadd_occupancy(vecadd_thread_per_elem, l, blocks);
}

extern "C" const cb_vecadd_kernel cb_vecadd_kernel_thread_per_elem = {
    .name = "thread_per_elem",
    .launch = launch,
    .blocks_per_sm = blocks_per_sm,
    .elems_per_thread = 1,
    .grid_stride = false,
};
