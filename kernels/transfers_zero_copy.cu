/* transfers_zero_copy.cu - a kernel that copies through mapped pinned host
 * memory: the GPU's own loads or stores cross PCIe, no copy engine, no
 * staging. One 16-byte load and store per thread per trip; the many threads
 * in flight are what hide the ~1-2 us PCIe round trip of each load. */
#include "transfers_kernels.h"

#include <stdint.h>

static __global__ void kernel_copy(ulonglong2 *dst, const ulonglong2 *src, size_t n16, size_t bytes)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t k = tid; k < n16; k += stride)
        dst[k] = src[k];
    size_t b = n16 * 16 + tid;
    if (b < bytes) ((uint8_t *)dst)[b] = ((const uint8_t *)src)[b];
}

extern "C" cudaError_t cb_xfer_launch_kernel_copy(void *dst, const void *src, size_t bytes,
                                                  int grid, cudaStream_t s)
{
    if (((uintptr_t)dst | (uintptr_t)src) & 15) return cudaErrorInvalidValue;
    size_t n16 = bytes / 16;
    /* Never more blocks than 16-byte items (but at least one, for the tail). */
    size_t need = (n16 + 255) / 256;
    if (need == 0) need = 1;
    if (grid < 1) grid = 1;
    if ((size_t)grid > need) grid = (int)need;
    kernel_copy<<<grid, 256, 0, s>>>((ulonglong2 *)dst, (const ulonglong2 *)src, n16, bytes);
    return cudaGetLastError();
}
