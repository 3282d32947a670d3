// sample_order.cu - how the order in which cold event-timed samples are
// queued changes what a short kernel reads. Times a float4 vector add of n
// elements (argument 1, default 65536) N times (argument 2, default 3000),
// each sample [L2 flush, start event, kernel, stop event], under eight
// ways of queuing them, and writes every sample to sample_order.csv
// (mode, index, ns). The modes:
//   ahead2           one sample queued ahead, two event pairs (the runner's
//                    old cold path)
//   ahead2_stats     the same, the host busy 300 us every 8th sample (the
//                    stopping rule's check at large n)
//   sync1            each sample read before the next is queued (the
//                    runner's cold path now)
//   ahead2_gate      one ahead, a one-thread kernel before the start event
//                    that waits until the host has queued the stop event
//   ahead2_noflush   one ahead without the flush
//   sync1_gate       one at a time, behind the gate
//   ahead3           two ahead, three event pairs
//   ahead2_hostsleep one ahead, the host busy 50 us per sample (the GPU
//                    drains between samples)
// Build: nvcc -O2 -std=c++17 -arch=native -o sample_order sample_order.cu
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <vector>
#include <cuda_runtime.h>

#include "probe_kernels.cuh"

__global__ void gate(volatile unsigned *flag, unsigned want)
{
    while (*flag < want) { }
}

static double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
static void busy(double s) { double t = now(); while (now() - t < s) {} }

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], 0, 0) : 65536;
    int N = argc > 2 ? atoi(argv[2]) : 3000;
    CK(cudaSetDevice(0));
    int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t fb = 2 * (size_t)l2 & ~(size_t)15;
    float4 *a, *b, *c, *fbuf; float *sink;
    size_t n4 = n / 4;
    CK(cudaMalloc(&a, n4 * 16)); CK(cudaMalloc(&b, n4 * 16)); CK(cudaMalloc(&c, n4 * 16));
    CK(cudaMalloc(&fbuf, fb)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(fbuf, 0, fb));
    CK(cudaMemset(a, 0, n4 * 16)); CK(cudaMemset(b, 0, n4 * 16));
    unsigned *hflag, *dflag;
    CK(cudaHostAlloc(&hflag, 4, cudaHostAllocMapped)); *hflag = 0;
    CK(cudaHostGetDevicePointer(&dflag, hflag, 0));
    cudaStream_t s; CK(cudaStreamCreate(&s));
    const int K = 4;
    cudaEvent_t st[K], sp[K];
    for (int i = 0; i < K; i++) { CK(cudaEventCreate(&st[i])); CK(cudaEventCreate(&sp[i])); }
    int grid = (int)((n4 + 255) / 256);
    unsigned gate_no = 0;
    auto enqueue = [&](int slot, bool fl, bool gated) {
        if (fl) { flush<<<65536 < fb / 16 / 512 ? 65536 : (int)(fb / 16 / 512), 512, 0, s>>>(fbuf, fb / 16, sink); CK(cudaGetLastError()); }
        if (gated) { gate<<<1, 1, 0, s>>>(dflag, ++gate_no); CK(cudaGetLastError()); }
        CK(cudaEventRecord(st[slot], s));
        add4<<<grid, 256, 0, s>>>(a, b, c, n4); CK(cudaGetLastError());
        CK(cudaEventRecord(sp[slot], s));
        if (gated) { __atomic_store_n(hflag, gate_no, __ATOMIC_SEQ_CST); }
    };
    auto read = [&](int slot) { CK(cudaEventSynchronize(sp[slot])); float ms; CK(cudaEventElapsedTime(&ms, st[slot], sp[slot])); return ms * 1e6; };
    FILE *f = fopen("sample_order.csv", "w");
    fprintf(f, "mode,i,ns\n");
    const char *modes[] = {"ahead2", "ahead2_stats", "sync1", "ahead2_gate", "ahead2_noflush", "sync1_gate", "ahead3", "ahead2_hostsleep"};
    for (int m = 0; m < 8; m++) {
        // warm
        for (int w = 0; w < 20; w++) { enqueue(0, true, false); read(0); }
        std::vector<double> v;
        const char *mode = modes[m];
        bool gated = strstr(mode, "gate"), fl = !strstr(mode, "noflush");
        if (!strncmp(mode, "sync1", 5)) {
            for (int i = 0; i < N; i++) { enqueue(0, fl, gated); v.push_back(read(0)); }
        } else {
            int ahead = !strcmp(mode, "ahead3") ? 2 : 1;
            int slots = ahead + 1;
            for (int q = 0; q < ahead; q++) enqueue(q, fl, gated);
            for (int i = 0; i < N; i++) {
                enqueue((i + ahead) % slots, fl, gated);
                v.push_back(read(i % slots));
                if (!strcmp(mode, "ahead2_stats") && i % 8 == 0) busy(300e-6);
                if (!strcmp(mode, "ahead2_hostsleep")) busy(50e-6);
            }
            for (int q = 0; q < ahead; q++) read((N + q) % slots);
        }
        for (int i = 0; i < N; i++) fprintf(f, "%s,%d,%.0f\n", mode, i, v[i]);
    }
    fclose(f);
    printf("ok n=%zu N=%d l2=%d\n", n, N, l2);
    return 0;
}
