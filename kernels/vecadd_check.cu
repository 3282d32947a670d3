/* vecadd_check.cu - the device-side check of c = a + b against the
 * counter-based generator: every element, recomputed from its index. */
#include "cb_random.h"
#include "vecadd_kernels.h"

#include <math.h>

static int check_grid_for(size_t n, int block)
{
    size_t blocks = (n + block - 1) / block;
    /* A grid-stride loop covers the rest; 64K blocks saturate any GPU. */
    return blocks > 65536 ? 65536 : (blocks == 0 ? 1 : (int)blocks);
}

static __global__ void check_vecadd_kernel(const float *c, size_t n, uint64_t seed_a,
                                           uint64_t seed_b, cb_vecadd_check *out)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        float expect = cb_random_value(seed_a, i) + cb_random_value(seed_b, i);
        float got = c[i];
        if (got != expect) {
            atomicAdd(&out->mismatches, 1ull);
            atomicMin(&out->first_bad, (unsigned long long)i);
            float err = isfinite(got) ? fabsf(got - expect) : INFINITY;
            /* Non-negative floats order like their bit patterns. */
            atomicMax((unsigned int *)&out->max_abs_error, __float_as_uint(err));
        }
    }
}

extern "C" cudaError_t cb_check_vecadd(const float *c, size_t n, uint64_t seed_a, uint64_t seed_b,
                                       void *scratch, cb_vecadd_check *out, cudaStream_t s)
{
    cb_vecadd_check init = {0ull, ~0ull, 0.0f};
    cudaError_t e = cudaMemcpyAsync(scratch, &init, sizeof init, cudaMemcpyHostToDevice, s);
    if (e != cudaSuccess) return e;
    check_vecadd_kernel<<<check_grid_for(n, 256), 256, 0, s>>>(c, n, seed_a, seed_b,
                                                               (cb_vecadd_check *)scratch);
    e = cudaGetLastError();
    if (e != cudaSuccess) return e;
    e = cudaMemcpyAsync(out, scratch, sizeof *out, cudaMemcpyDeviceToHost, s);
    if (e != cudaSuccess) return e;
    return cudaStreamSynchronize(s);
}
