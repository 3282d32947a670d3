/* saxpy_kernels.cu - the example family's kernels: y = a * x + y in float32,
 * one element per thread or one float4 per thread. Like every file in
 * kernels/, it includes nothing of cubench: a launcher takes plain pointers
 * and a stream and returns the launch error. */
#include "saxpy_kernels.h"

static __global__ void saxpy_scalar(float a, const float *__restrict__ x, float *__restrict__ y,
                                    size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

/* n4 float4 groups, then the n % 4 tail by the first threads. */
static __global__ void saxpy_float4(float a, const float4 *__restrict__ x, float4 *__restrict__ y,
                                    size_t n4, const float *xt, float *yt, int tail)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 xv = x[i], yv = y[i];
        y[i] = make_float4(a * xv.x + yv.x, a * xv.y + yv.y, a * xv.z + yv.z, a * xv.w + yv.w);
    }
    if (i < (size_t)tail) yt[i] = a * xt[i] + yt[i];
}

extern "C" cudaError_t cb_example_saxpy(cb_example_saxpy_kind kind, float a, const float *x,
                                        float *y, size_t n, int block, cudaStream_t s)
{
    if (n == 0) return cudaSuccess;
    if (kind == CB_EXAMPLE_SAXPY_SCALAR) {
        size_t grid = (n + block - 1) / block;
        saxpy_scalar<<<(unsigned)grid, block, 0, s>>>(a, x, y, n);
    } else {
        size_t n4 = n / 4, groups = n4 > 0 ? n4 : 1;
        size_t grid = (groups + block - 1) / block;
        int tail = (int)(n % 4);
        saxpy_float4<<<(unsigned)grid, block, 0, s>>>(a, (const float4 *)x, (float4 *)y, n4,
                                                      x + 4 * n4, y + 4 * n4, tail);
    }
    return cudaGetLastError();
}
