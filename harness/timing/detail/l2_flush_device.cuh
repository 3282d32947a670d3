/* l2_flush_device.cuh - the device side of the runner's cold-sample
 * hygiene (CUDA only): one thread's share of the reads that evict L2, and
 * a hold on the global timer. harness/timing/l2_flush.cu builds its kernels
 * from them; the standalone probes under scripts/record include this file
 * too (through probe_kernels.cuh), so that what they measure is the
 * runner's code, not a copy of it. */
#ifndef CB_L2_FLUSH_DEVICE_CUH
#define CB_L2_FLUSH_DEVICE_CUH

#include <cuda_runtime.h>
#include <stddef.h>

/* This thread's share of reading buf[0..n4). */
static __device__ void flush_reads(const float4 *buf, size_t n4, float *sink)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    float acc = 0.f;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = buf[i];
        acc += v.x + v.y + v.z + v.w;
    }
    /* The buffer is never written, so it holds zeros (cudaMemset) or garbage;
     * acc is never exactly this value in practice, and the branch keeps the
     * loads from being optimised away. */
    if (acc == 1234567.f) *sink = acc;
}

/* Poll the global timer (ns) until `ns` have passed: the stream is held
 * without touching memory, so the hold costs neither L2 state nor much
 * power. */
static __device__ void hold_for(unsigned long long ns)
{
    unsigned long long t0, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do {
        __nanosleep(256);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - t0 < ns);
}

#endif
