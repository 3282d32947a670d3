// buffer_levels_probe.cu - what sets a short cold kernel's level in one
// process: the flush buffer, or where the kernel's own buffers lie?
// Six kernels' worth of data, three kinds of point: a vector add over 1M
// floats (three 4 MiB vectors), cuBLAS SGEMM and BF16 GEMM at 256^3. Mode
// `grid` (default): 4 flush buffers (2 x L2 each, allocated once) x 4 data
// sets (fresh cudaMalloc each), 5 rounds interleaved over all 16
// combinations and the three kernels, 15 cold samples each ([flush, start
// event, kernel, stop event], read before the next): the median per
// (kernel, flush buffer, data set). Then the flush-size check: the kernel
// run twice (its data in L2), a flush over 0.5 ... 4 x L2 from one large
// buffer, one timed run, 60 times; and each flush size's cost. Mode
// `offsets`: one flush buffer, 8 data sets whose every array starts at a
// 2 MiB boundary (sets 0-3) or 512 KiB, 1 MiB + 64 KiB, 1.5 MiB or
// 2 MiB - 64 KiB after one (sets 4-7): does the offset inside a 2 MiB page
// set the level? Output lines: `TAG KERNEL fF dD median_us ...`,
// `TAG flushsize KERNEL xQ median_us ... flush_us ...`.
// Note: this probe's flush always launches 65536 blocks (the runner sizes
// its grid to the buffer), so its flush_us reads higher than the runner's.
// Build: nvcc -O2 -arch=native -o buffer_levels_probe buffer_levels_probe.cu -lcublas
// Run:   ./buffer_levels_probe TAG [grid|offsets]
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>

#include "probe_kernels.cuh"
#include <cstdint>
#include <cstring>

__global__ void vadd(const float *a, const float *b, float *c, size_t n) {
  size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i];
}
struct Data { float *a, *b, *c; __nv_bfloat16 *ha, *hb; float *hc; };
static const int M = 256; static const size_t VN = 1 << 20;
static const size_t PG = (size_t)2 << 20;
// One array: its own cudaMalloc (off < 0), or `off` bytes past the first
// 2 MiB boundary inside a larger one.
static char *carve(size_t bytes, long off) {
  char *p;
  if (off < 0) { CK(cudaMalloc(&p, bytes)); return p; }
  CK(cudaMalloc(&p, bytes + 2 * PG + off));
  return (char *)(((uintptr_t)p + PG - 1) & ~(uintptr_t)(PG - 1)) + off;
}
static Data mkdata(unsigned seed, long off) {
  Data d; size_t gm = (size_t)M * M;
  size_t n = std::max(VN, gm);
  d.a = (float *)carve(n * 4, off); d.b = (float *)carve(n * 4, off); d.c = (float *)carve(n * 4, off);
  d.ha = (__nv_bfloat16 *)carve(gm * 2, off); d.hb = (__nv_bfloat16 *)carve(gm * 2, off); d.hc = (float *)carve(gm * 4, off);
  fill_random<<<(n + 255) / 256, 256>>>(d.a, n, seed); fill_random<<<(n + 255) / 256, 256>>>(d.b, n, seed + 1);
  CK(cudaMemset(d.ha, 0x3c, gm * 2)); CK(cudaMemset(d.hb, 0x3c, gm * 2));
  CK(cudaGetLastError()); CK(cudaDeviceSynchronize()); return d;
}
int main(int argc, char **argv) {
  const char *tag = argc > 1 ? argv[1] : "p";
  const bool offsets = argc > 2 && strcmp(argv[2], "offsets") == 0;
  const int NF = offsets ? 1 : 4, ND = offsets ? 8 : 4, ROUNDS = 5, S = 15;
  int dev = 0; CK(cudaSetDevice(dev));
  int l2 = 0; CK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  cublasHandle_t h; CB(cublasCreate(&h)); CB(cublasSetStream(h, s));
  size_t fb = 2 * (size_t)l2;
  std::vector<float *> fl(NF); float *sink; CK(cudaMalloc(&sink, 4));
  for (int i = 0; i < NF; i++) { CK(cudaMalloc(&fl[i], fb)); CK(cudaMemset(fl[i], 0, fb)); }
  const long offs[8] = {0, 0, 0, 0, 512 << 10, (1 << 20) + (64 << 10), 3 << 19, (2 << 20) - (64 << 10)};
  std::vector<Data> ds;
  for (int i = 0; i < ND; i++) ds.push_back(mkdata(100 + i, offsets ? offs[i] : -1));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  const char *kn[3] = {"vadd_1M", "sgemm256", "bf16gemm256"};
  // samples[k][f][d]
  std::vector<float> v[3][8][8];
  float one = 1, zero = 0;
  auto run = [&](int k, Data &d) {
    if (k == 0) vadd<<<VN / 256, 256, 0, s>>>(d.a, d.b, d.c, VN);
    else if (k == 1) CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, d.a, M, d.b, M, &zero, d.c, M));
    else CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, d.ha, CUDA_R_16BF, M, d.hb, CUDA_R_16BF, M, &zero, d.hc, CUDA_R_32F, M, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  // warm-up
  for (int k = 0; k < 3; k++) for (int i = 0; i < 5; i++) run(k, ds[0]);
  CK(cudaStreamSynchronize(s));
  for (int r = 0; r < ROUNDS; r++)
    for (int f = 0; f < NF; f++)
      for (int d = 0; d < ND; d++)
        for (int k = 0; k < 3; k++)
          for (int i = 0; i < S; i++) {
            flush<<<65536, 512, 0, s>>>((const float4 *)fl[f], fb / 16, sink);
            v[k][f][d].push_back(time_us(s, e0, e1, [&] { run(k, ds[d]); }));
          }
  for (int k = 0; k < 3; k++)
    for (int f = 0; f < NF; f++)
      for (int d = 0; d < ND; d++) {
        auto &x = v[k][f][d]; std::sort(x.begin(), x.end());
        printf("%s %s f%d d%d median_us %.3f p10 %.3f p90 %.3f\n", tag, kn[k], f, d, x[x.size() / 2], x[x.size() / 10], x[x.size() * 9 / 10]);
      }
  if (offsets) return 0;
  // flush size check: warm kernel data into L2, flush with fraction, time
  double fr[] = {0.5, 1.0, 1.5, 2.0, 4.0};
  float *big; size_t bb = 4 * (size_t)l2; CK(cudaMalloc(&big, bb)); CK(cudaMemset(big, 0, bb));
  for (int k = 0; k < 3; k++)
    for (double q : fr) {
      std::vector<float> x;
      for (int i = 0; i < 60; i++) {
        run(k, ds[0]); run(k, ds[0]);
        size_t by = ((size_t)(q * l2)) & ~(size_t)15;
        flush<<<65536, 512, 0, s>>>((const float4 *)big, by / 16, sink);
        x.push_back(time_us(s, e0, e1, [&] { run(k, ds[0]); }));
      }
      std::sort(x.begin(), x.end());
      // flush cost
      float us = time_us(s, e0, e1, [&] { for (int i = 0; i < 20; i++) flush<<<65536, 512, 0, s>>>((const float4 *)big, (((size_t)(q * l2)) & ~(size_t)15) / 16, sink); });
      printf("%s flushsize %s x%.1f median_us %.3f p10 %.3f p90 %.3f flush_us %.2f\n", tag, kn[k], q, x[30], x[6], x[54], us / 20);
    }
  // no flush (hot) for reference
  for (int k = 0; k < 3; k++) {
    std::vector<float> x;
    for (int i = 0; i < 60; i++) x.push_back(time_us(s, e0, e1, [&] { run(k, ds[0]); }));
    std::sort(x.begin(), x.end()); printf("%s hot %s median_us %.3f\n", tag, kn[k], x[30]);
  }
  printf("%s l2_bytes %d\n", tag, l2);
  return 0;
}
