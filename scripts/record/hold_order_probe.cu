// hold_order_probe.cu - do cold samples alternate between two levels, and
// what makes them? One sample is cubench's cold sample, taken one at a time
// and read before the next: [flush of 2 x L2 by reads, optionally a
// one-thread 32 us hold, start event, kernel, stop event]. The kernel is
// the same arithmetic loop on 132 blocks, launched with 4 bytes of
// parameters or with a 2 KiB __grid_constant__ struct (about what a GEMM
// with tensor maps passes). Four repeats of each of the four combinations,
// 1500 samples each; then, as a check of the flush itself, a compute-only
// kernel and one that reads and writes 384 KiB, at six buffer placements,
// after no flush, reads of 1, 2 or 3 x L2, or a memset of 1 x L2.
// Prints per case: the lag-1 autocorrelation of the samples (near -1 when
// they alternate), the median, and the medians of the even and the odd
// samples.
// Build: nvcc -O2 -std=c++17 -arch=native -o hold_order_probe hold_order_probe.cu
#include "probe_kernels.cuh"

#include <algorithm>
#include <vector>

__global__ void compute_only(float *out, int iters)
{
    float a = threadIdx.x;
    for (int i = 0; i < iters; i++)
        a = a * 1.0001f + 0.5f;
    if (a == -1.f) out[blockIdx.x] = a;
}

struct Big {
    float v[512]; // 2 KiB of kernel parameters
};

__global__ void compute_big(float *out, int iters, const __grid_constant__ Big b)
{
    float a = threadIdx.x + b.v[threadIdx.x % 512];
    for (int i = 0; i < iters; i++)
        a = a * 1.0001f + 0.5f;
    if (a == -1.f) out[blockIdx.x] = a;
}

__global__ void touch(const float4 *x, float4 *y, size_t n4)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        v.x += 1;
        y[i] = v;
    }
}

struct Stat {
    double rho, median, even, odd;
};

static Stat stat(std::vector<float> t)
{
    double m = 0;
    for (float v : t)
        m += v / t.size();
    double num = 0, den = 0;
    for (size_t i = 0; i < t.size(); i++) {
        den += (t[i] - m) * (t[i] - m);
        if (i + 1 < t.size()) num += (t[i] - m) * (t[i + 1] - m);
    }
    std::vector<float> ev, od;
    for (size_t i = 0; i < t.size(); i++)
        (i % 2 ? od : ev).push_back(t[i]);
    std::sort(ev.begin(), ev.end());
    std::sort(od.begin(), od.end());
    std::sort(t.begin(), t.end());
    return {den > 0 ? num / den : 0, t[t.size() / 2], ev[ev.size() / 2], od[od.size() / 2]};
}

int main()
{
    int l2 = 0;
    CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    const size_t flush_bytes = (size_t)3 * l2;
    float4 *buf;
    float *sink, *out;
    CK(cudaMalloc(&buf, flush_bytes));
    CK(cudaMemset(buf, 0, flush_bytes));
    CK(cudaMalloc(&sink, 4));
    CK(cudaMalloc(&out, 4096 * 4));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("L2 %d bytes\n", l2);

    Big big;
    for (int i = 0; i < 512; i++)
        big.v[i] = 0.f;
    for (int rep = 0; rep < 4; rep++)
        for (int big_params = 0; big_params < 2; big_params++)
            for (int held = 0; held < 2; held++) {
                std::vector<float> t;
                for (int k = 0; k < 1500; k++) {
                    flush<<<1024, 512, 0, s>>>(buf, (size_t)2 * l2 / 16, sink);
                    if (held) hold<<<1, 1, 0, s>>>(32000);
                    t.push_back(time_us(s, e0, e1, [&] {
                        if (big_params)
                            compute_big<<<132, 256, 0, s>>>(out, 200, big);
                        else
                            compute_only<<<132, 256, 0, s>>>(out, 200);
                    }));
                }
                CK(cudaGetLastError());
                Stat st = stat(t);
                printf(
                    "rep %d params %-5s hold %d: rho1 %5.2f median %7.3f us even %7.3f odd %7.3f\n",
                    rep, big_params ? "2KiB" : "small", held, st.rho, st.median, st.even, st.odd);
            }

    const char *flush_name[] = {"none", "read 1xL2", "read 2xL2", "read 3xL2", "memset 1xL2"};
    for (int place = 0; place < 6; place++) {
        void *pad; // a fresh placement each time: a pad of 1-64 MiB first, kept
        CK(cudaMalloc(&pad, (size_t)(1 + rand() % 64) << 20));
        const size_t nb = 384 << 10;
        float4 *x, *y;
        CK(cudaMalloc(&x, nb));
        CK(cudaMalloc(&y, nb));
        CK(cudaMemset(x, 1, nb));
        for (int kind = 0; kind < 2; kind++)
            for (int f = 0; f < 5; f++) {
                std::vector<float> t;
                for (int k = 0; k < 1500; k++) {
                    if (f >= 1 && f <= 3)
                        flush<<<1024, 512, 0, s>>>(buf, (size_t)f * l2 / 16, sink);
                    if (f == 4) CK(cudaMemsetAsync(buf, k & 0xff, l2, s));
                    t.push_back(time_us(s, e0, e1, [&] {
                        if (kind == 0)
                            compute_only<<<132, 256, 0, s>>>(out, 2000);
                        else
                            touch<<<264, 256, 0, s>>>(x, y, nb / 16);
                    }));
                }
                CK(cudaGetLastError());
                Stat st = stat(t);
                printf(
                    "place %d %-13s flush %-11s: rho1 %5.2f median %7.3f us even %7.3f odd %7.3f\n",
                    place, kind ? "touch 384KiB" : "compute", flush_name[f], st.rho, st.median,
                    st.even, st.odd);
            }
        CK(cudaFree(x));
        CK(cudaFree(y));
    }
    return 0;
}
