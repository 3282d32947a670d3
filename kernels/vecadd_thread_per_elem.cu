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
    return cb_vecadd_launch1_threads(vecadd_thread_per_elem, l->n, l, s);
}

extern "C" const cb_vecadd_kernel cb_vecadd_kernel_thread_per_elem = {
    .name = "thread_per_elem",
    .launch = launch,
    .blocks_per_sm = cb_vecadd_blocks_per_sm<vecadd_thread_per_elem>,
    .elems_per_thread = 1,
    .grid_stride = false,
};
