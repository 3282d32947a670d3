/* transfers_pattern.cu - fill a buffer with the transfers pattern and count
 * the bytes that differ from it (or from another buffer), on the GPU.
 *
 * These run in setup and verify, never in a timed run. They read and write
 * 16 bytes per thread per trip; the last bytes % 16 are done one byte per
 * thread. A 1 GiB check takes ~0.3 ms from HBM and ~20 ms through PCIe from
 * mapped host memory, against ~0.3 s for a CPU loop. */
#include "transfers_kernels.h"
#include "transfers_pattern.h"

static int grid_for(size_t items, int block)
{
    size_t blocks = (items + block - 1) / block;
    /* A grid-stride loop covers the rest; 4096 x 256 threads keep any GPU
     * (and the PCIe link, for mapped host memory) busy. */
    return blocks > 4096 ? 4096 : (blocks == 0 ? 1 : (int)blocks);
}

static bool misaligned(const void *p)
{
    return ((uintptr_t)p & 15) != 0;
}

static __global__ void fill_kernel(ulonglong2 *buf, size_t n16, size_t bytes, uint64_t seed,
                                   uint64_t flip)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = tid; k < n16; k += stride) {
        ulonglong2 w;
        w.x = cb_xfer_word(seed, 2 * k) ^ flip;
        w.y = cb_xfer_word(seed, 2 * k + 1) ^ flip;
        buf[k] = w;
    }
    size_t b = n16 * 16 + tid;
    if (b < bytes) ((uint8_t *)buf)[b] = (uint8_t)(cb_xfer_byte(seed, b) ^ (uint8_t)flip);
}

/* Sum a per-thread count over the warp and add it once per warp. */
static __device__ void add_warp_total(unsigned long long local, unsigned long long *count)
{
    for (int off = 16; off > 0; off >>= 1)
        local += __shfl_down_sync(0xffffffffu, local, off);
    if ((threadIdx.x & 31) == 0 && local) atomicAdd(count, local);
}

static __global__ void count_kernel(const ulonglong2 *buf, size_t n16, size_t bytes, uint64_t seed,
                                    unsigned long long *count)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long local = 0;
    for (size_t k = tid; k < n16; k += stride) {
        ulonglong2 w = buf[k];
        local += cb_xfer_bytes_differ(w.x, cb_xfer_word(seed, 2 * k));
        local += cb_xfer_bytes_differ(w.y, cb_xfer_word(seed, 2 * k + 1));
    }
    size_t b = n16 * 16 + tid;
    if (b < bytes) local += ((const uint8_t *)buf)[b] != cb_xfer_byte(seed, b);
    add_warp_total(local, count);
}

static __global__ void compare_kernel(const ulonglong2 *a, const ulonglong2 *b, size_t n16,
                                      size_t bytes, unsigned long long *count)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    unsigned long long local = 0;
    for (size_t k = tid; k < n16; k += stride) {
        ulonglong2 x = a[k], y = b[k];
        local += cb_xfer_bytes_differ(x.x, y.x) + cb_xfer_bytes_differ(x.y, y.y);
    }
    size_t t = n16 * 16 + tid;
    if (t < bytes) local += ((const uint8_t *)a)[t] != ((const uint8_t *)b)[t];
    add_warp_total(local, count);
}

extern "C" cudaError_t cb_xfer_launch_fill(void *buf, size_t bytes, uint64_t seed, int complement,
                                           cudaStream_t s)
{
    if (misaligned(buf)) return cudaErrorInvalidValue;
    size_t n16 = bytes / 16;
    fill_kernel<<<grid_for(n16, 256), 256, 0, s>>>((ulonglong2 *)buf, n16, bytes, seed,
                                                   complement ? ~0ull : 0ull);
    return cudaGetLastError();
}

extern "C" cudaError_t cb_xfer_launch_count(const void *buf, size_t bytes, uint64_t seed,
                                            unsigned long long *count, cudaStream_t s)
{
    if (misaligned(buf)) return cudaErrorInvalidValue;
    size_t n16 = bytes / 16;
    count_kernel<<<grid_for(n16, 256), 256, 0, s>>>((const ulonglong2 *)buf, n16, bytes, seed,
                                                    count);
    return cudaGetLastError();
}

extern "C" cudaError_t cb_xfer_launch_compare(const void *a, const void *b, size_t bytes,
                                              unsigned long long *count, cudaStream_t s)
{
    if (misaligned(a) || misaligned(b)) return cudaErrorInvalidValue;
    size_t n16 = bytes / 16;
    compare_kernel<<<grid_for(n16, 256), 256, 0, s>>>((const ulonglong2 *)a, (const ulonglong2 *)b,
                                                      n16, bytes, count);
    return cudaGetLastError();
}
