// probe_kernels.cuh - what the standalone probes (sample_order.cu,
// placement_probe.cu, l2_flush_probe.cu, buffer_levels_probe.cu,
// hold_order_probe.cu, pageable_probe.cu, fp32_cp_probe.cu, store_probe.cu) share: a checked CUDA (and
// cuBLAS) call, the float4 vector add they time, random inputs, the L2
// flush that opens a cold sample and the hold after it (the runner's device
// code, harness/timing/detail/l2_flush_device.cuh; the probes choose how
// much the flush reads), and one event-timed piece of work.
#ifndef CB_PROBE_KERNELS_CUH
#define CB_PROBE_KERNELS_CUH

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "../../harness/timing/detail/l2_flush_device.cuh"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1);} } while (0)

// A cuBLAS call's status (0 is CUBLAS_STATUS_SUCCESS), without needing cuBLAS's header here.
#define CB(x) do { int s_ = (int)(x); if (s_ != 0) { fprintf(stderr, "%s:%d cublas status %d\n", __FILE__, __LINE__, s_); exit(1);} } while (0)

__global__ void add4(const float4 *a, const float4 *b, float4 *c, size_t n4)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) { float4 x = a[i], y = b[i]; c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}

__global__ void flush(const float4 *buf, size_t n4, float *sink)
{
    flush_reads(buf, n4, sink);
}

// The runner's hold: one thread reads the global timer until ns have passed.
__global__ void hold(unsigned long long ns)
{
    hold_for(ns);
}

// Values in [-0.5, 0.5) from a hash of the index: random, never zeros.
__global__ void fill_random(float *p, size_t n, unsigned seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { unsigned x = (unsigned)i * 2654435761u ^ seed; x ^= x >> 13; x *= 0x5bd1e995; x ^= x >> 15; p[i] = (x & 0xffff) / 65536.f - 0.5f; }
}

// Microseconds between two events around `work` enqueued on `s`, waited for.
template <class Work> float time_us(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, Work work)
{
    CK(cudaEventRecord(e0, s));
    work();
    CK(cudaEventRecord(e1, s));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1000;
}

#endif
