/* vecadd_grid_stride.cu - a fixed grid walks the vector: fewer blocks, each
 * thread does several elements; the grid is an axis. */
#include "vecadd_cuda.h"

static __global__ void vecadd_grid_stride(const float *__restrict__ a, const float *__restrict__ b,
                                          float *__restrict__ c, size_t n)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        c[i] = a[i] + b[i];
}

static cudaError_t launch(const cb_vecadd_launch *l, cudaStream_t s)
{
    return cb_vecadd_launch1(vecadd_grid_stride, (unsigned)l->grid, l, s);
}

extern "C" const cb_vecadd_kernel cb_vecadd_kernel_grid_stride = {
    .name = "grid_stride",
    .launch = launch,
    .blocks_per_sm = cb_vecadd_blocks_per_sm<vecadd_grid_stride>,
    .elems_per_thread = 1,
    .grid_stride = true,
};
