// l2_flush_probe.cu - what the runner's L2 flush before a cold sample costs,
// and whether a smaller or different flush leaves the next kernel as cold.
// Variants: the runner's read kernel (harness/timing/l2_flush.cu: one
// float4 load per thread, up to 65536 blocks of 512) over 1, 2 and 4 x the
// L2 size; a persistent-grid read kernel with four loads in flight per
// thread (2, 1.5, 1 x); cudaMemsetAsync (1, 2 x: writes, as some tools
// flush). First each variant's cost (50 back to back, events around them);
// then, 30 rounds interleaved over variants, for six kernels (vector adds
// whose three vectors fill 0.75, 12, 24 and 48 MB, cuBLAS SGEMM and BF16
// GEMM at 256^3): run the kernel twice (its data now in L2), flush, time
// it once with events; the median per kernel and variant, beside a hot
// median (run right after itself, no flush). A flush that leaves the
// kernel's data in L2 reads faster than the others; one that leaves dirty
// lines (writes) reads slower, the write-back charged to the kernel.
// Output: one line per variant `TAG flushcost NAME us X`, one per kernel
// `TAG cold KERNEL NAME=median_us ... hot=median_us`.
// Build: nvcc -O2 -arch=native -o l2_flush_probe l2_flush_probe.cu -lcublas
// Run:   ./l2_flush_probe TAG   (the tag starts every line)
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "probe_kernels.cuh"

static int grid_for(size_t n, int block) { size_t b = (n + block - 1) / block; return b > 65536 ? 65536 : (b == 0 ? 1 : (int)b); }
// persistent grid, 4 independent loads in flight per thread
__global__ void __launch_bounds__(512) flush_wide(const float4 *buf, size_t n4, float *sink) {
  size_t stride = (size_t)gridDim.x * blockDim.x; float acc = 0.f;
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    float4 a = buf[i], b = buf[i + stride], c = buf[i + 2 * stride], d = buf[i + 3 * stride];
    acc += a.x + b.y + c.z + d.w;
  }
  for (; i < n4; i += stride) { float4 v = buf[i]; acc += v.x; }
  if (acc == 1234567.f) *sink = acc;
}
__global__ void vadd(const float *a, const float *b, float *c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i];
}
int main(int argc, char **argv) {
  const char *tag = argc > 1 ? argv[1] : "p";
  CK(cudaSetDevice(0));
  int l2 = 0, sms = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0)); CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cublasHandle_t h; CB(cublasCreate(&h)); CB(cublasSetStream(h, s));
  size_t big = 4 * (size_t)l2; float *fb, *sink; CK(cudaMalloc(&fb, big)); CK(cudaMalloc(&sink, 4));
  fill_random<<<(big / 4 + 255) / 256, 256>>>(fb, big / 4, 7); // random, not zeros (no compression effects)
  const size_t NV = 24u << 20; // up to 24M floats (96 MB per vector)
  float *a, *b, *c; CK(cudaMalloc(&a, NV * 4)); CK(cudaMalloc(&b, NV * 4)); CK(cudaMalloc(&c, NV * 4));
  fill_random<<<(NV + 255) / 256, 256>>>(a, NV, 1); fill_random<<<(NV + 255) / 256, 256>>>(b, NV, 2);
  __nv_bfloat16 *ha, *hb; float *hc; CK(cudaMalloc(&ha, 1 << 17)); CK(cudaMalloc(&hb, 1 << 17)); CK(cudaMalloc(&hc, 1 << 18));
  CK(cudaMemset(ha, 0x3c, 1 << 17)); CK(cudaMemset(hb, 0x3c, 1 << 17));
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  float one = 1, zero = 0;
  size_t vns[4] = {1u << 16, 1u << 20, 2u << 20, 4u << 20}; // 0.75 MB, 12 MB, 24 MB, 48 MB footprints
  auto run = [&](int k) {
    if (k < 4) { size_t n = vns[k]; vadd<<<(n + 255) / 256, 256, 0, s>>>(a, b, c, n); }
    else if (k == 4) CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 256, 256, 256, &one, a, 256, b, 256, &zero, c, 256));
    else CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 256, 256, 256, &one, ha, CUDA_R_16BF, 256, hb, CUDA_R_16BF, 256, &zero, hc, CUDA_R_32F, 256, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CK(cudaGetLastError());
  };
  const char *kn[6] = {"vadd64K", "vadd1M", "vadd2M", "vadd4M", "sgemm256", "bf16gemm256"};
  struct V { const char *name; int kind; double mult; };
  V vs[] = {{"cur_x2", 0, 2}, {"cur_x1", 0, 1}, {"wide_x2", 1, 2}, {"wide_x1.5", 1, 1.5}, {"wide_x1", 1, 1}, {"memset_x1", 2, 1}, {"memset_x2", 2, 2}, {"cur_x4", 0, 4}};
  int nv = sizeof vs / sizeof vs[0];
  auto flush_with = [&](const V &v) {
    size_t by = ((size_t)(v.mult * l2)) & ~(size_t)15;
    if (v.kind == 0) flush<<<grid_for(by / 16, 512), 512, 0, s>>>((const float4 *)fb, by / 16, sink);
    else if (v.kind == 1) flush_wide<<<sms * 4, 512, 0, s>>>((const float4 *)fb, by / 16, sink);
    else CK(cudaMemsetAsync(fb, 0, by, s));
    CK(cudaGetLastError());
  };
  for (int k = 0; k < 6; k++) for (int i = 0; i < 3; i++) run(k);
  CK(cudaDeviceSynchronize());
  // flush cost: 50 back-to-back, and one after a kernel
  for (int vi = 0; vi < nv; vi++) {
    for (int i = 0; i < 5; i++) flush_with(vs[vi]);
    float us = time_us(s, e0, e1, [&] { for (int i = 0; i < 50; i++) flush_with(vs[vi]); });
    printf("%s flushcost %s us %.2f\n", tag, vs[vi].name, us / 50);
  }
  // coldness: warm the kernel's data (run twice), flush, time; rounds interleaved over variants
  std::vector<float> t[8][6];
  for (int r = 0; r < 30; r++)
    for (int vi = 0; vi < nv; vi++)
      for (int k = 0; k < 6; k++) {
        run(k); run(k); flush_with(vs[vi]);
        t[vi][k].push_back(time_us(s, e0, e1, [&] { run(k); }));
      }
  for (int k = 0; k < 6; k++) {
    printf("%s cold %-12s", tag, kn[k]);
    for (int vi = 0; vi < nv; vi++) { auto &x = t[vi][k]; std::sort(x.begin(), x.end()); printf(" %s=%.3f", vs[vi].name, x[x.size() / 2]); }
    // hot reference
    std::vector<float> y; for (int i = 0; i < 30; i++) { run(k); y.push_back(time_us(s, e0, e1, [&] { run(k); })); }
    std::sort(y.begin(), y.end()); printf(" hot=%.3f\n", y[15]);
  }
  printf("%s l2 %d sms %d\n", tag, l2, sms);
  return 0;
}
