/* build_probe.h - does the running binary hold code for the current GPU? */
#ifndef CB_BUILD_PROBE_H
#define CB_BUILD_PROBE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* cudaFuncGetAttributes on a kernel of the engine, which is built for the
 * same CMAKE_CUDA_ARCHITECTURES as kernels/: cudaSuccess when device
 * `ordinal` can run the build's code (SASS, or PTX the driver JIT-compiled
 * just now), else the driver's reason (cudaErrorNoKernelImageForDevice,
 * cudaErrorUnsupportedPtxVersion, ...). The error is cleared, not sticky. */
cudaError_t cb_build_probe(int ordinal);

#ifdef __cplusplus
}
#endif

#endif
