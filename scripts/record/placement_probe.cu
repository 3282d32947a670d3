// placement_probe.cu - does where a short kernel's buffers lie change its
// cold time? A float4 vector add of n elements (argument 1, default 1024)
// timed cold one sample at a time ([L2 flush, start event, kernel, stop
// event], read before the next), S samples (argument 2, default 150) per
// placement, the median kept. Placements, each K times (argument 3,
// default 48) and every sweep twice (pass 0 and 1, to see whether a
// placement's time repeats):
//   packed   a, b, c back to back at offset k x 8 MiB of one 512 MiB
//            allocation (one 2 MiB page for small n)
//   spread   a, b, c 2 MiB apart from that offset
//   malloc   a, b, c from three cudaMalloc calls, freed after trial k (as
//            the runner's rounds set a point up afresh)
// Writes placement.csv (mode, n, k, pass, median_ns, q1_ns, q3_ns).
// With a fourth argument `timeline`, instead: the packed placement measured
// over and over through phases (60 medians each) - at start, after the GPU
// idled 3 s, after 3 s of back-to-back flush kernels, after 3 s more idle -
// into timeline.csv (phase, t_s since the first sample, median_ns): does
// the time a cold short kernel takes depend on how long the GPU has been
// busy, rather than on where its buffers lie? With `settle` instead: the
// packed placement at offset 0 measured (30 medians) at start, after 640
// flush kernels alone, after the kernel ran 5 samples at each of 128
// other placements (4 MiB apart), and after 3 s idle, into settle.csv:
// which of these moves it from one state to the other?
// Build: nvcc -O2 -std=c++17 -arch=native -o placement_probe placement_probe.cu
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#include "probe_kernels.cuh"

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], 0, 0) : 1024;
    int S = argc > 2 ? atoi(argv[2]) : 150, K = argc > 3 ? atoi(argv[3]) : 48;
    CK(cudaSetDevice(0));
    int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    size_t fb = 2 * (size_t)l2 & ~(size_t)15, n4 = n / 4, bytes = n4 * 16;
    const size_t MiB = 1 << 20, arena_bytes = 512 * MiB;
    if (bytes > 2 * MiB || (size_t)K * 8 * MiB + 6 * MiB > arena_bytes) { fprintf(stderr, "n or K too large\n"); return 2; }
    float4 *fbuf; float *sink; char *arena;
    CK(cudaMalloc(&fbuf, fb)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(fbuf, 0, fb));
    CK(cudaMalloc(&arena, arena_bytes)); CK(cudaMemset(arena, 0, arena_bytes));
    cudaStream_t s; CK(cudaStreamCreate(&s));
    cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    int grid = (int)((n4 + 255) / 256), fgrid = (int)std::min<size_t>(65536, fb / 16 / 512);
    auto median_of = [&](float4 *a, float4 *b, float4 *c, double *q1, double *q3) {
        std::vector<double> v;
        for (int i = 0; i < S + 5; i++) {
            flush<<<fgrid, 512, 0, s>>>(fbuf, fb / 16, sink); CK(cudaGetLastError());
            CK(cudaEventRecord(e0, s));
            add4<<<grid, 256, 0, s>>>(a, b, c, n4); CK(cudaGetLastError());
            CK(cudaEventRecord(e1, s));
            CK(cudaEventSynchronize(e1));
            float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
            if (i >= 5) v.push_back(ms * 1e6); // 5 warm-up samples left out
        }
        std::sort(v.begin(), v.end());
        *q1 = v[v.size() / 4]; *q3 = v[3 * v.size() / 4];
        return v[v.size() / 2];
    };
    if (argc > 4 && !strcmp(argv[4], "timeline")) {
        FILE *t = fopen("timeline.csv", "w");
        if (!t) { perror("timeline.csv"); return 1; }
        fprintf(t, "phase,t_s,median_ns\n");
        auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
        const double t0 = clock();
        float4 *a = (float4 *)arena, *b = (float4 *)(arena + bytes), *c = (float4 *)(arena + 2 * bytes);
        const char *phases[] = {"start", "after_idle", "after_busy", "after_idle2"};
        for (int ph = 0; ph < 4; ph++) {
            if (ph == 1 || ph == 3) std::this_thread::sleep_for(std::chrono::seconds(3));
            if (ph == 2) {
                double until = clock() + 3.0;
                while (clock() < until) { flush<<<fgrid, 512, 0, s>>>(fbuf, fb / 16, sink); CK(cudaGetLastError()); CK(cudaStreamSynchronize(s)); }
            }
            for (int k = 0; k < 60; k++) { double q1, q3, med = median_of(a, b, c, &q1, &q3); fprintf(t, "%s,%.3f,%.0f\n", phases[ph], clock() - t0, med); }
        }
        fclose(t);
        printf("ok timeline n=%zu S=%d\n", n, S);
        return 0;
    }
    if (argc > 4 && !strcmp(argv[4], "settle")) {
        FILE *t = fopen("settle.csv", "w");
        if (!t) { perror("settle.csv"); return 1; }
        fprintf(t, "phase,k,median_ns\n");
        float4 *a = (float4 *)arena, *b = (float4 *)(arena + bytes), *c = (float4 *)(arena + 2 * bytes);
        auto measure = [&](const char *phase) {
            for (int k = 0; k < 30; k++) { double q1, q3, med = median_of(a, b, c, &q1, &q3); fprintf(t, "%s,%d,%.0f\n", phase, k, med); }
        };
        measure("start");
        for (int i = 0; i < 640; i++) { flush<<<fgrid, 512, 0, s>>>(fbuf, fb / 16, sink); CK(cudaGetLastError()); }
        CK(cudaStreamSynchronize(s));
        measure("after_flushes");
        for (int k = 1; k <= 128; k++) {
            char *base = arena + (size_t)k * 4 * MiB - 3 * bytes;
            for (int i = 0; i < 5; i++) {
                flush<<<fgrid, 512, 0, s>>>(fbuf, fb / 16, sink); CK(cudaGetLastError());
                add4<<<grid, 256, 0, s>>>((float4 *)base, (float4 *)(base + bytes), (float4 *)(base + 2 * bytes), n4); CK(cudaGetLastError());
            }
        }
        CK(cudaStreamSynchronize(s));
        measure("after_sweep");
        std::this_thread::sleep_for(std::chrono::seconds(3));
        measure("after_idle");
        fclose(t);
        printf("ok settle n=%zu S=%d\n", n, S);
        return 0;
    }
    FILE *f = fopen("placement.csv", "w");
    if (!f) { perror("placement.csv"); return 1; }
    fprintf(f, "mode,n,k,pass,median_ns,q1_ns,q3_ns\n");
    const char *modes[] = {"packed", "spread", "malloc"};
    for (int pass = 0; pass < 2; pass++)
        for (int m = 0; m < 3; m++)
            for (int k = 0; k < K; k++) {
                float4 *a, *b, *c;
                char *base = arena + (size_t)k * 8 * MiB;
                if (m == 0) { a = (float4 *)base; b = (float4 *)(base + bytes); c = (float4 *)(base + 2 * bytes); }
                else if (m == 1) { a = (float4 *)base; b = (float4 *)(base + 2 * MiB); c = (float4 *)(base + 4 * MiB); }
                else { CK(cudaMalloc(&a, bytes)); CK(cudaMalloc(&b, bytes)); CK(cudaMalloc(&c, bytes));
                       CK(cudaMemset(a, 0, bytes)); CK(cudaMemset(b, 0, bytes)); }
                double q1, q3, med = median_of(a, b, c, &q1, &q3);
                fprintf(f, "%s,%zu,%d,%d,%.0f,%.0f,%.0f\n", modes[m], n, k, pass, med, q1, q3);
                if (m == 2) { CK(cudaFree(a)); CK(cudaFree(b)); CK(cudaFree(c)); }
            }
    fclose(f);
    printf("ok n=%zu S=%d K=%d l2=%d\n", n, S, K, l2);
    return 0;
}
