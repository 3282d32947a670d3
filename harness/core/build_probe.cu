/* build_probe.cu - the engine's probe kernel: asking the driver for its
 * attributes loads it for the current GPU, which fails when the binary has
 * neither SASS for that GPU nor PTX the driver can compile. It is never
 * launched. */
#include "build_probe.h"

static __global__ void cb_build_probe_kernel(int *flag)
{
    if (flag) *flag = 1;
}

extern "C" cudaError_t cb_build_probe(int ordinal)
{
    cudaError_t err = cudaSetDevice(ordinal);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return err;
    }
    cudaFuncAttributes attrs;
    err = cudaFuncGetAttributes(&attrs, (const void *)cb_build_probe_kernel);
    (void)cudaGetLastError(); /* a missing image is an answer, not a state */
    return err;
}
