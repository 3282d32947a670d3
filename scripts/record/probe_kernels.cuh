// probe_kernels.cuh - what the standalone probes (sample_order.cu,
// placement_probe.cu) share: a checked CUDA call, the float4 vector add
// they time, and the L2 flush that opens a cold sample (a read of a
// buffer twice the L2, as cubench's runner flushes).
#ifndef CB_PROBE_KERNELS_CUH
#define CB_PROBE_KERNELS_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

__global__ void add4(const float4 *a, const float4 *b, float4 *c, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) { float4 x = a[i], y = b[i]; c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}

__global__ void flush(const float4 *buf, size_t n4, float *sink)
{
    size_t stride = (size_t)gridDim.x * blockDim.x; float acc = 0;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) { float4 v = buf[i]; acc += v.x + v.y + v.z + v.w; }
    if (acc == 1234567.f) *sink = acc;
}

#endif
