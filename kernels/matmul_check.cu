/* matmul_check.cu - the matmul family's device-side setup and checks
 * (matmul_check_kernels.h): BF16 copies of the inputs, the comparison of C
 * with a reference over every entry, the inputs' largest magnitude (the
 * error metric's scale) and the gather of sampled entries.
 *
 * The comparison reduces with one atomic per warp: a non-negative double
 * orders like its bit pattern as an unsigned 64-bit integer, so atomicMax on
 * the bits is a max of the values; a second pass finds the first index that
 * reaches the maximum (atomicMin), which is the entry the host check names. */
#include "matmul_check_kernels.h"

#include <math.h>
#include <string.h>

namespace
{

/* The device copy of cb_matmul_diff's reductions (integers only: atomics). */
struct diff_scratch {
    unsigned long long max_bits; /* bits of max |c - r| (a non-negative double) */
    unsigned long long worst;
    unsigned long long nonfinite_c, first_nonfinite_c;
    unsigned long long nonfinite_r;
    unsigned int absmax_bits; /* bits of max |x| (a non-negative float)        */
    float c_worst, r_worst, c_first_nonfinite;
};

constexpr int kThreads = 256;

int grid_for(size_t n)
{
    /* A grid-stride loop covers the rest: 2048 blocks fill any GPU and keep
     * the atomics to 16K per pass. */
    size_t blocks = (n + kThreads - 1) / kThreads;
    return blocks > 2048 ? 2048 : (blocks == 0 ? 1 : (int)blocks);
}

__device__ unsigned long long warp_max(unsigned long long v)
{
    for (int off = 16; off > 0; off >>= 1) {
        unsigned long long o = __shfl_down_sync(0xffffffffu, v, off);
        v = o > v ? o : v;
    }
    return v;
}

__device__ unsigned long long warp_min(unsigned long long v)
{
    for (int off = 16; off > 0; off >>= 1) {
        unsigned long long o = __shfl_down_sync(0xffffffffu, v, off);
        v = o < v ? o : v;
    }
    return v;
}

__device__ unsigned long long warp_sum(unsigned long long v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

/* |c - r| in FP64, as the host check computes it. */
__device__ double entry_diff(float c, float r)
{
    return fabs((double)c - (double)r);
}

__global__ void __launch_bounds__(kThreads)
    compare_kernel(const float *c, const float *r, size_t n, diff_scratch *out)
{
    unsigned long long max_bits = 0, bad_c = 0, first_c = ~0ull, bad_r = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float cv = c[i], rv = r[i];
        const bool c_ok = isfinite(cv), r_ok = isfinite(rv);
        if (!c_ok) {
            bad_c++;
            first_c = i < first_c ? i : first_c;
        }
        bad_r += !r_ok;
        if (c_ok && r_ok) {
            const unsigned long long bits =
                (unsigned long long)__double_as_longlong(entry_diff(cv, rv));
            max_bits = bits > max_bits ? bits : max_bits;
        }
    }
    max_bits = warp_max(max_bits);
    first_c = warp_min(first_c);
    bad_c = warp_sum(bad_c);
    bad_r = warp_sum(bad_r);
    if ((threadIdx.x & 31) == 0) {
        if (max_bits) atomicMax(&out->max_bits, max_bits);
        if (bad_c) {
            atomicAdd(&out->nonfinite_c, bad_c);
            atomicMin(&out->first_nonfinite_c, first_c);
        }
        if (bad_r) atomicAdd(&out->nonfinite_r, bad_r);
    }
}

__global__ void __launch_bounds__(kThreads)
    locate_kernel(const float *c, const float *r, size_t n, diff_scratch *out)
{
    const unsigned long long want = out->max_bits;
    unsigned long long first = ~0ull;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const float cv = c[i], rv = r[i];
        if (isfinite(cv) && isfinite(rv) &&
            (unsigned long long)__double_as_longlong(entry_diff(cv, rv)) == want) {
            first = i; /* a thread's indices only grow: its first match is its least */
            break;
        }
    }
    first = warp_min(first);
    if ((threadIdx.x & 31) == 0 && first != ~0ull) atomicMin(&out->worst, first);
}

/* The values the host message names, read where the passes pointed. */
__global__ void fetch_kernel(const float *c, const float *r, diff_scratch *out)
{
    if (out->worst == ~0ull) out->worst = 0; /* no finite entry: as the host check */
    out->c_worst = c[out->worst];
    out->r_worst = r[out->worst];
    if (out->nonfinite_c) out->c_first_nonfinite = c[out->first_nonfinite_c];
}

__global__ void __launch_bounds__(kThreads)
    absmax_kernel(const float *x, size_t n, diff_scratch *out)
{
    unsigned long long m = 0;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned long long bits = __float_as_uint(fabsf(x[i]));
        m = bits > m ? bits : m;
    }
    m = warp_max(m);
    if ((threadIdx.x & 31) == 0 && m) atomicMax(&out->absmax_bits, (unsigned int)m);
}

/* Round to nearest even on the bits, as the host's cb_matmul_float_to_bf16
 * (the inputs are finite: the generator makes no NaN, but keep it NaN). */
__device__ uint16_t to_bf16(float x)
{
    unsigned int u = __float_as_uint(x);
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0)
        return (uint16_t)((u >> 16) | 0x0040u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

__global__ void __launch_bounds__(kThreads) to_bf16_kernel(const float *x, uint16_t *y, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        y[i] = to_bf16(x[i]);
}

__global__ void gather_kernel(const float *x, const unsigned long long *idx, int count, float *out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) out[t] = x[idx[t]];
}

cudaError_t reset_scratch(void *scratch, cudaStream_t s)
{
    diff_scratch init = {};
    init.worst = ~0ull;
    init.first_nonfinite_c = ~0ull;
    return cudaMemcpyAsync(scratch, &init, sizeof init, cudaMemcpyHostToDevice, s);
}

cudaError_t read_scratch(const void *scratch, diff_scratch *host, cudaStream_t s)
{
    cudaError_t e = cudaMemcpyAsync(host, scratch, sizeof *host, cudaMemcpyDeviceToHost, s);
    return e != cudaSuccess ? e : cudaStreamSynchronize(s);
}

} // namespace

extern "C" size_t cb_matmul_check_scratch_bytes(void)
{
    return sizeof(diff_scratch);
}

extern "C" cudaError_t cb_matmul_launch_to_bf16(const float *x, uint16_t *y, size_t n,
                                                cudaStream_t s)
{
    to_bf16_kernel<<<grid_for(n), kThreads, 0, s>>>(x, y, n);
    return cudaGetLastError();
}

extern "C" cudaError_t cb_matmul_compare(const float *c, const float *r, size_t count,
                                         void *scratch, cb_matmul_diff *out, cudaStream_t s)
{
    diff_scratch *d = (diff_scratch *)scratch;
    cudaError_t e = reset_scratch(scratch, s);
    if (e != cudaSuccess) return e;
    compare_kernel<<<grid_for(count), kThreads, 0, s>>>(c, r, count, d);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    locate_kernel<<<grid_for(count), kThreads, 0, s>>>(c, r, count, d);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    if (count > 0) {
        fetch_kernel<<<1, 1, 0, s>>>(c, r, d);
        if ((e = cudaGetLastError()) != cudaSuccess) return e;
    }
    diff_scratch h;
    if ((e = read_scratch(scratch, &h, s)) != cudaSuccess) return e;
    double max_diff;
    memcpy(&max_diff, &h.max_bits, sizeof max_diff);
    *out = cb_matmul_diff{max_diff,
                          h.worst,
                          h.c_worst,
                          h.r_worst,
                          h.nonfinite_c,
                          h.first_nonfinite_c,
                          h.c_first_nonfinite,
                          h.nonfinite_r};
    return cudaSuccess;
}

extern "C" cudaError_t cb_matmul_absmax(const float *x, size_t n, void *scratch, float *out,
                                        cudaStream_t s)
{
    cudaError_t e = reset_scratch(scratch, s);
    if (e != cudaSuccess) return e;
    absmax_kernel<<<grid_for(n), kThreads, 0, s>>>(x, n, (diff_scratch *)scratch);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    diff_scratch h;
    if ((e = read_scratch(scratch, &h, s)) != cudaSuccess) return e;
    memcpy(out, &h.absmax_bits, sizeof *out);
    return cudaSuccess;
}

extern "C" cudaError_t cb_matmul_launch_gather(const float *x, const unsigned long long *idx,
                                               int count, float *out, cudaStream_t s)
{
    if (count <= 0) return cudaSuccess;
    gather_kernel<<<(count + kThreads - 1) / kThreads, kThreads, 0, s>>>(x, idx, count, out);
    return cudaGetLastError();
}
