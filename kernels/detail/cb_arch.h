/* cb_arch.h - device code for the architectures that have its instructions.
 *
 * A default build compiles every kernel for every architecture from sm_75 up
 * (cmake/CubenchCudaArchs.cmake), so a kernel that uses an instruction of a
 * later architecture (cp.async and BF16 mma from sm_80; wgmma and TMA of
 * sm_90a) must still compile for sm_75. Its body is guarded, and the lower
 * architectures get a stub that traps if it is ever launched - which the
 * runner prevents: the benchmark declares the need in its table entry
 * (bench.h `needs`) and is a `skip` row on such a GPU.
 *
 *   __global__ void cb_copy_async_kernel(...)
 *   {
 *   #if CB_ARCH_AT_LEAST(800)
 *       ... cp.async ...
 *   #else
 *       CB_ARCH_STUB();
 *   #endif
 *   }
 *
 * sm_90a code (wgmma, setmaxnreg) tests CB_ARCH_SM90A instead: nvcc defines
 * __CUDA_ARCH_FEAT_SM90_ALL only when compiling for the arch-specific target,
 * whose SASS runs on compute capability 9.0 alone (needs.min_cc = max_cc =
 * 90). On the host pass __CUDA_ARCH__ is undefined: both tests are 0 and the
 * stub is what the host compiler sees, which it never runs. */
#ifndef CB_ARCH_H
#define CB_ARCH_H

#if defined(__CUDA_ARCH__)
#define CB_ARCH_AT_LEAST(arch) (__CUDA_ARCH__ >= (arch))
#else
#define CB_ARCH_AT_LEAST(arch) 0
#endif

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CB_ARCH_SM90A 1
#else
#define CB_ARCH_SM90A 0
#endif

/* A launch on an architecture without the feature is a bug of the caller:
 * stop the kernel loudly (cudaErrorLaunchFailure) rather than compute junk. */
#define CB_ARCH_STUB() __trap()

#endif
