/* transfers_overlap.cu - the compute stage of the copy/compute overlap
 * pipeline and the fill of its input.
 *
 * One element per thread, `fma` dependent FMAs each (2 flops per FMA). With
 * a full GPU of threads the chain latency is hidden and the kernel runs at
 * the FP32 FMA rate; `fma` = 2048 makes it take about as long as copying the
 * same bytes over PCIe Gen5 on an H100/H200 (see docs/transfers.md). */
#include "transfers_kernels.h"
#include "transfers_pattern.h"

static int grid_for(size_t n, int block)
{
    size_t blocks = (n + block - 1) / block;
    return blocks > (1u << 20) ? (1 << 20) : (blocks == 0 ? 1 : (int)blocks);
}

static __global__ void overlap_fill_kernel(float *x, size_t n, uint64_t seed)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        x[i] = cb_xfer_overlap_input(seed, i);
}

static __global__ void overlap_compute_kernel(float *out, const float *in, size_t n, int fma)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = cb_xfer_overlap_value(in[i], fma);
}

extern "C" cudaError_t cb_xfer_launch_overlap_fill(float *x, size_t n, uint64_t seed,
                                                   cudaStream_t s)
{
    overlap_fill_kernel<<<grid_for(n, 256), 256, 0, s>>>(x, n, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t cb_xfer_launch_overlap_compute(float *out, const float *in, size_t n,
                                                      int fma, cudaStream_t s)
{
    overlap_compute_kernel<<<grid_for(n, 256), 256, 0, s>>>(out, in, n, fma);
    return cudaGetLastError();
}
