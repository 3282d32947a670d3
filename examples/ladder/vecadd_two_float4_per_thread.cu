/* vecadd_two_float4_per_thread.cu - a vecadd variant added the way
 * docs/adding-a-benchmark.md shows: two float4 per thread (8 elements), no
 * loop, half the blocks of float4_per_thread. Its table line is
 * vecadd_variant.line beside this file; the tests build and run both. */
#include "vecadd_cuda.h"

static __global__ void vecadd_two_float4(const float4 *__restrict__ a, const float4 *__restrict__ b,
                                         float4 *__restrict__ c, size_t n4,
                                         const float *__restrict__ at, const float *__restrict__ bt,
                                         float *__restrict__ ct, size_t tail)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t half = (n4 + 1) / 2; /* thread i takes float4 i and i + half */
    if (i < half) c[i] = cb_add4(a[i], b[i]);
    if (i + half < n4) c[i + half] = cb_add4(a[i + half], b[i + half]);
    if (i < tail) ct[i] = at[i] + bt[i];
}

/* Two float4s a thread: (n / 4 + 1) / 2 threads, as the kernel's `half`
 * (vecadd_cuda.h sizes the grid from that share and launches). */
static cudaError_t launch(const cb_vecadd_launch *l, cudaStream_t s)
{
    return cb_vecadd_launch4_share(vecadd_two_float4, 2, l, s);
}

extern "C" const cb_vecadd_kernel cb_vecadd_kernel_two_float4_per_thread = {
    .name = "two_float4_per_thread",
    .launch = launch,
    .blocks_per_sm = cb_vecadd_blocks_per_sm<vecadd_two_float4>,
    .elems_per_thread = 8,
    .grid_stride = false,
};
