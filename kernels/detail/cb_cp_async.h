/* cb_cp_async.h - the cp.async PTX (sm_80+) that the FP32 multistage rung
 * and the tensor-core rungs share: 16- or 4-byte copies global -> shared
 * that bypass registers, their commit groups and the wait for them (CUDA
 * only). Below sm_80 they compile to nothing: the kernels calling them are
 * guarded to sm_80+ themselves. */
#ifndef CB_CP_ASYNC_H
#define CB_CP_ASYNC_H

#include <stdint.h>

/* 16 bytes to shared address `dst`; `valid` false writes 16 zero bytes and
 * reads nothing (src-size 0), which is how tiles past the matrix edge
 * become zeros. .cg: L2 only, the tile is reused from shared memory, not
 * L1. */
__device__ __forceinline__ void cb_cp_async_cg16(uint32_t dst, const void *src, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0)
                 : "memory");
#endif
}

/* 4 bytes, likewise (.ca: the only caching a copy under 16 bytes may use). */
__device__ __forceinline__ void cb_cp_async_ca4(uint32_t dst, const void *src, bool valid)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(dst), "l"(src),
                 "r"(valid ? 4 : 0)
                 : "memory");
#endif
}

__device__ __forceinline__ void cb_cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}

/* Wait until at most N committed groups are still in flight. */
template <int N> __device__ __forceinline__ void cb_cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
#endif
}

#endif
