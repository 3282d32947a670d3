/* vecadd_float4_per_thread.cu - one float4 per thread and no loop: the
 * textbook kernel with 16-byte accesses (BabelStream's shape, one wide
 * element per thread). */
#include "vecadd_cuda.h"

static __global__ void
vecadd_float4_per_thread(const float4 *__restrict__ a, const float4 *__restrict__ b,
                         float4 *__restrict__ c, size_t n4, const float *__restrict__ at,
                         const float *__restrict__ bt, float *__restrict__ ct, size_t tail)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) c[i] = cb_add4(a[i], b[i]);
    if (i < tail) ct[i] = at[i] + bt[i];
}

/* A thread per float4 (vecadd_cuda.h sizes the grid from that share). */
static cudaError_t launch(const cb_vecadd_launch *l, cudaStream_t s)
{
    return cb_vecadd_launch4_share(vecadd_float4_per_thread, 1, l, s);
}

extern "C" const cb_vecadd_kernel cb_vecadd_kernel_float4_per_thread = {
    .name = "float4_per_thread",
    .launch = launch,
    .blocks_per_sm = cb_vecadd_blocks_per_sm<vecadd_float4_per_thread>,
    .elems_per_thread = 4,
    .grid_stride = false,
};
