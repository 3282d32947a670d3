/* The judge calling CUDA: must NOT link (compare reads files only and links
 * no CUDA library). Some machines put the CUDA headers on the system
 * include path, so the include alone cannot be the proof; the call is. */
#include <cuda_runtime_api.h>

int main(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess ? 0 : 1;
}
