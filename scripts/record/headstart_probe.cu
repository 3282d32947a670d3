// headstart_probe.cu - the L2 flush before a cold sample is also the host's
// head start: the GPU is busy with it while the host enqueues the start
// event and the run. How long must it last? Five runs, each timed cold
// 200 times per variant, rounds interleaved: 1 KiB and 256 KiB
// device-to-host and 1 KiB host-to-device copies to pinned memory, cuBLAS
// SGEMM at 256^3, a float4 vector add of 64K elements. Variants: the
// runner's flush kernel over 1 x the L2 (17 us on the H200) and 2 x (31 us),
// and 1 x followed by a one-thread kernel that spins 15 or 30 us (the GPU
// busy longer, no memory traffic). Per run and variant: the median and 90th
// percentile of the event-timed run, the host's time to enqueue start
// event, run and stop event (median, p90), and `late`: samples whose start
// event had already completed when the host finished enqueuing (the GPU
// idled before the run: host time inside the sample).
// Build: nvcc -O2 -arch=native -o headstart_probe headstart_probe.cu -lcublas
// Run:   ./headstart_probe TAG
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <chrono>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "probe_kernels.cuh"
__global__ void spin_ns(long long ns) {
  long long t0; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  long long t = t0; while (t - t0 < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
}
static int grid_for(size_t n, int block) { size_t b = (n + block - 1) / block; return b > 65536 ? 65536 : (b == 0 ? 1 : (int)b); }
static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main(int argc, char **argv) {
  const char *tag = argc > 1 ? argv[1] : "p";
  CK(cudaSetDevice(0));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cublasHandle_t h; CB(cublasCreate(&h)); CB(cublasSetStream(h, s));
  size_t big = 2 * (size_t)l2; float *fb, *sink; CK(cudaMalloc(&fb, big)); CK(cudaMalloc(&sink, 4)); CK(cudaMemset(fb, 0, big));
  float *a, *b, *c; size_t n = 256 * 256; CK(cudaMalloc(&a, n * 4)); CK(cudaMalloc(&b, n * 4)); CK(cudaMalloc(&c, n * 4));
  fill_random<<<(n + 255) / 256, 256>>>(a, n, 1); fill_random<<<(n + 255) / 256, 256>>>(b, n, 2);
  void *hp, *dp; CK(cudaMallocHost(&hp, 1 << 20)); CK(cudaMalloc(&dp, 1 << 20)); CK(cudaMemset(dp, 1, 1 << 20));
  float *va, *vb, *vc; size_t vn = 65536; CK(cudaMalloc(&va, vn * 4)); CK(cudaMalloc(&vb, vn * 4)); CK(cudaMalloc(&vc, vn * 4));
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  float one = 1, zero = 0;
  const char *kn[5] = {"d2h_1KiB", "h2d_1KiB", "d2h_256KiB", "sgemm256", "add4_64K"};
  auto run = [&](int k) {
    if (k == 0) CK(cudaMemcpyAsync(hp, dp, 1024, cudaMemcpyDeviceToHost, s));
    else if (k == 1) CK(cudaMemcpyAsync(dp, hp, 1024, cudaMemcpyHostToDevice, s));
    else if (k == 2) CK(cudaMemcpyAsync(hp, dp, 256 << 10, cudaMemcpyDeviceToHost, s));
    else if (k == 3) CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 256, 256, 256, &one, a, 256, b, 256, &zero, c, 256));
    else { add4<<<(vn / 4 + 255) / 256, 256, 0, s>>>((const float4 *)va, (const float4 *)vb, (float4 *)vc, vn / 4); CK(cudaGetLastError()); }
  };
  const char *vnm[4] = {"x1", "x2", "x1+spin15", "x1+spin30"};
  auto flushv = [&](int v) {
    size_t by = (v == 1 ? 2 : 1) * (size_t)l2;
    flush<<<grid_for(by / 16, 512), 512, 0, s>>>((const float4 *)fb, by / 16, sink);
    if (v == 2) spin_ns<<<1, 1, 0, s>>>(15000);
    if (v == 3) spin_ns<<<1, 1, 0, s>>>(30000);
    CK(cudaGetLastError());
  };
  for (int k = 0; k < 5; k++) for (int i = 0; i < 5; i++) run(k);
  CK(cudaDeviceSynchronize());
  std::vector<float> t[4][5]; std::vector<double> enq[4][5]; int late[4][5] = {};
  for (int r = 0; r < 200; r++)
    for (int v = 0; v < 4; v++)
      for (int k = 0; k < 5; k++) {
        flushv(v);
        double h0 = now_us();
        CK(cudaEventRecord(e0, s)); run(k); CK(cudaEventRecord(e1, s));
        enq[v][k].push_back(now_us() - h0);
        if (cudaEventQuery(e0) == cudaSuccess) late[v][k]++;
        CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t[v][k].push_back(ms * 1000);
      }
  for (int k = 0; k < 5; k++) {
    printf("%s %-10s", tag, kn[k]);
    for (int v = 0; v < 4; v++) {
      auto &x = t[v][k]; std::sort(x.begin(), x.end()); auto &y = enq[v][k]; std::sort(y.begin(), y.end());
      printf(" | %s med %.3f p90 %.3f enq_med %.1f enq_p90 %.1f late %d", vnm[v], x[x.size() / 2], x[x.size() * 9 / 10], y[y.size() / 2], y[y.size() * 9 / 10], late[v][k]);
    }
    printf("\n");
  }
  return 0;
}
