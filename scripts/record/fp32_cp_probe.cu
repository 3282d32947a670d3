/* fp32_cp_probe.cu - does the FP32 SIMT rung gain from cuBLAS's shape of
 * pipeline? A standalone probe, not part of cubench: one kernel in the
 * shape cuBLAS FP32 uses on the H200 (its CUPTI name:
 * sm80_xmma_gemm_..._tilesize256x128x8_stage3_warpsize4x2x1_ffma), full
 * tiles only, beside cuBLAS FP32 (COMPUTE_32F_PEDANTIC) and the pipelined
 * rung's 128 x 128 x 8 kernel (kernels/detail/matmul_warptile.h), timed
 * alternately in one process with CUDA events.
 *
 * The kernel: 256 x 128 tiles, 256 threads as 4 x 2 warps of 64 x 64,
 * 16 x 8 outputs per thread (the rung's lane layout: 4 row groups x 8
 * column groups per warp, sub-tiles 16 rows and 32 columns apart).
 * STAGES k-slices of 8 in shared memory, filled by cp.async straight from
 * global memory (no register staging, no stores in the loop). A stays
 * k-contiguous in shared memory (row = 8 floats) and is read along k, a
 * float4 per row covering four k-steps, so no transposing store is
 * needed; the eight lanes of a 128-bit load phase share their rows, so
 * every A read is a broadcast. B is read along n as in the rung.
 *
 * Variants at build time: CP_STAGES (3 or 4 shared-memory stages) and
 * CP_ORDER, the order of a k-quad's 512 FMAs per thread, the three the
 * record measured (0: row by row, serpentine columns; 1: k-step, then
 * rows; 4: row by row with the column permutation P0..P7, e.g. -DP0=0 -DP1=1 -DP2=3 -DP3=6 -DP4=2
 * -DP5=5 -DP6=4 -DP7=7, given as eight macros because nvcc splits -D values at commas). Each
 * accumulator adds its k terms in k order in every variant, so the
 * results are bit for bit those of the rung (and of cuBLAS where it does
 * not split k). Recorded on the H200: tests/data/h200-r3/fp32-cp-probe.
 *
 * Build (sm_90):  nvcc -O3 -std=c++17 -arch=sm_90 -Ikernels -Ikernels/detail
 *                 -Iharness/core scripts/record/fp32_cp_probe.cu -lcublas -o fp32_cp_probe
 * Run:            ./fp32_cp_probe [M N K] ...   (default 4096^3 and 8192^3)
 * Prints per shape and kernel the error of 4096 sampled elements against
 * an FP64 dot product, over the sum of the |a b| terms (bound: 2 k 2^-24),
 * and the largest |difference| to cuBLAS over all of C (C poisoned with
 * NaN before each run); then the median of 15 alternating trials of 20
 * launches each (TFLOP/s = 1e12 FLOP/s of 2 m n k). Exit 1 when a result is
 * off. */
#include "matmul_warptile.h"
#include "probe_kernels.cuh"

#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <algorithm>

namespace cp
{
constexpr int BM = 256, BN = 128, BK = 8, THREADS = 256;
#ifndef CP_ORDER
#define CP_ORDER 0
#endif
#if CP_ORDER == 0 /* the identity permutation */
#define P0 0
#define P1 1
#define P2 2
#define P3 3
#define P4 4
#define P5 5
#define P6 6
#define P7 7
#endif
#ifndef CP_STAGES
#define CP_STAGES 3
#endif
constexpr int STAGES = CP_STAGES;
constexpr int TM = 16, TN = 8;

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_commit()
{
    asm volatile("cp.async.commit_group;\n" ::);
}
template <int N> __device__ __forceinline__ void cp_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__global__ void __launch_bounds__(THREADS, 1)
    kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
           const float *__restrict__ b, float *__restrict__ c)
{
    __shared__ __align__(16) float as[STAGES][BM][BK];
    __shared__ __align__(16) float bs[STAGES][BK][BN];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tr = (warp / 2) * 64 + (lane >> 3) * 4; /* row of sub-tile 0 */
    const int tc = (warp % 2) * 64 + (lane & 7) * 4;  /* column of sub-tile 0 */

    /* This thread's cp.async chunks: A rows f / 2, k-quads f % 2 for f = tid
     * and tid + 256; B row tid / 32, column quad tid % 32. */
    const float *ga0 = a + (size_t)(m0 + tid / 2) * k + (tid % 2) * 4;
    const float *ga1 = ga0 + (size_t)128 * k;
    const float *gb = b + (size_t)(tid / 32) * n + n0 + (tid % 32) * 4;
    auto load_stage = [&](int st, int p0) {
        cp_async16(&as[st][tid / 2][(tid % 2) * 4], ga0 + p0);
        cp_async16(&as[st][128 + tid / 2][(tid % 2) * 4], ga1 + p0);
        cp_async16(&bs[st][tid / 32][(tid % 32) * 4], gb + (size_t)p0 * n);
    };

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    const int slices = k / BK;
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < slices) load_stage(s, s * BK);
        cp_commit();
    }
    for (int t = 0; t < slices; t++) {
        cp_wait<STAGES - 2>();
        __syncthreads();
        /* The stage slice t - 1 used: every thread has passed the barrier,
         * so none still reads it. */
        const int next = t + STAGES - 1;
        if (next < slices) load_stage(next % STAGES, next * BK);
        cp_commit();
        const int st = t % STAGES;
#pragma unroll
        for (int kq = 0; kq < BK / 4; kq++) {
            float4 av[TM];
#pragma unroll
            for (int i = 0; i < TM; i++)
                av[i] =
                    *reinterpret_cast<const float4 *>(&as[st][tr + (i / 4) * 16 + i % 4][4 * kq]);
            float bv[4][TN];
#pragma unroll
            for (int kk = 0; kk < 4; kk++)
#pragma unroll
                for (int u = 0; u < 2; u++) {
                    const float4 v =
                        *reinterpret_cast<const float4 *>(&bs[st][4 * kq + kk][tc + 32 * u]);
                    bv[kk][4 * u] = v.x, bv[kk][4 * u + 1] = v.y;
                    bv[kk][4 * u + 2] = v.z, bv[kk][4 * u + 3] = v.w;
                }
                /* The k-quad's FMAs in the order CP_ORDER names (header). */
#if CP_ORDER == 0 || CP_ORDER == 4
            constexpr int kPerm[8] = {P0, P1, P2, P3, P4, P5, P6, P7};
#pragma unroll
            for (int i = 0; i < TM; i++) {
                const float ak[4] = {av[i].x, av[i].y, av[i].z, av[i].w};
#pragma unroll
                for (int kk = 0; kk < 4; kk++)
#pragma unroll
                    for (int q = 0; q < TN; q++) {
                        const int j = kPerm[(i + kk) % 2 ? TN - 1 - q : q];
                        acc[i][j] = fmaf(ak[kk], bv[kk][j], acc[i][j]);
                    }
            }
#else /* 1 */
#pragma unroll
            for (int kk = 0; kk < 4; kk++)
#pragma unroll
                for (int i = 0; i < TM; i++) {
                    const float ak[4] = {av[i].x, av[i].y, av[i].z, av[i].w};
#pragma unroll
                    for (int q = 0; q < TN; q++) {
                        const int j = i % 2 ? TN - 1 - q : q;
                        acc[i][j] = fmaf(ak[kk], bv[kk][j], acc[i][j]);
                    }
                }
#endif
        }
    }
    cp_wait<0>();

#pragma unroll
    for (int i = 0; i < TM; i++) {
        float *crow = c + (size_t)(m0 + tr + (i / 4) * 16 + i % 4) * n + n0 + tc;
#pragma unroll
        for (int u = 0; u < 2; u++)
            *reinterpret_cast<float4 *>(crow + 32 * u) =
                make_float4(alpha * acc[i][4 * u], alpha * acc[i][4 * u + 1],
                            alpha * acc[i][4 * u + 2], alpha * acc[i][4 * u + 3]);
    }
}
} // namespace cp

static void fill(std::vector<float> &v, unsigned seed)
{
    for (auto &x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = (float)((seed >> 8) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
    }
}

static float median(std::vector<float> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char **argv)
{
    std::vector<int> shapes;
    for (int i = 1; i + 2 < argc; i += 3)
        for (int j = 0; j < 3; j++)
            shapes.push_back(atoi(argv[i + j]));
    if (shapes.empty()) shapes = {4096, 4096, 4096, 8192, 8192, 8192};
    cublasHandle_t h;
    CB(cublasCreate(&h));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CB(cublasSetStream(h, s));
    int bad = 0;
    for (size_t q = 0; q + 2 < shapes.size(); q += 3) {
        const int m = shapes[q], n = shapes[q + 1], k = shapes[q + 2];
        if (m % cp::BM || n % cp::BN || k % cp::BK || m % 128 || n % 128) {
            fprintf(stderr, "%d x %d x %d: full tiles only (m %% 256, n %% 128, k %% 8)\n", m, n,
                    k);
            return 2;
        }
        std::vector<float> ha((size_t)m * k), hb((size_t)k * n), hc((size_t)m * n),
            hr((size_t)m * n);
        fill(ha, 1u + q), fill(hb, 7u + q);
        float *da, *db, *dc, *dr;
        CK(cudaMalloc(&da, ha.size() * 4));
        CK(cudaMalloc(&db, hb.size() * 4));
        CK(cudaMalloc(&dc, hc.size() * 4));
        CK(cudaMalloc(&dr, hr.size() * 4));
        CK(cudaMemcpy(da, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
        CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH));
        const float one = 1.0f, zero = 0.0f;
        auto run_cublas = [&]() {
            CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, db, CUDA_R_32F, n, da,
                            CUDA_R_32F, k, &zero, dr, CUDA_R_32F, n, CUBLAS_COMPUTE_32F_PEDANTIC,
                            CUBLAS_GEMM_DEFAULT));
        };
        auto run_cp = [&]() {
            cp::kernel<<<dim3(n / cp::BN, m / cp::BM), cp::THREADS, 0, s>>>(m, n, k, 1.0f, da, db,
                                                                            dc);
            CK(cudaGetLastError());
        };
        auto run_rung = [&]() {
            cb_matmul_warptile_kernel<4, 2, 2, 2, 8, true, CB_EDGE_FULL>
                <<<dim3(n / 128, m / 128), 256, 0, s>>>(m, n, k, 1.0f, da, db, 0.0f, dc);
            CK(cudaGetLastError());
        };
        /* Verify: C poisoned, the probe's kernel and the rung's against
         * cuBLAS, and sampled elements against an FP64 dot product. */
        const char *names[2] = {"cp256x128", "rung128x128"};
        for (int v = 0; v < 2; v++) {
            CK(cudaMemsetAsync(dc, 0xff, hc.size() * 4, s)); /* NaN */
            CK(cudaMemsetAsync(dr, 0xff, hr.size() * 4, s));
            run_cublas();
            if (v == 0)
                run_cp();
            else
                run_rung();
            CK(cudaStreamSynchronize(s));
            CK(cudaMemcpy(hc.data(), dc, hc.size() * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(hr.data(), dr, hr.size() * 4, cudaMemcpyDeviceToHost));
            /* Recursive FP32 summation: |error| <= k u sum|a b| (u = 2^-24),
             * doubled for the products' own rounding. */
            const double bound = 2.0 * k * ldexp(1.0, -24);
            double worst = 0.0;
            unsigned seed = 12345u;
            for (int t = 0; t < 4096; t++) {
                seed = seed * 1664525u + 1013904223u;
                const int i = (int)(seed % (unsigned)m);
                seed = seed * 1664525u + 1013904223u;
                const int j = (int)(seed % (unsigned)n);
                double ref = 0.0, mag = 0.0;
                for (int p = 0; p < k; p++) {
                    const double t2 = (double)ha[(size_t)i * k + p] * hb[(size_t)p * n + j];
                    ref += t2, mag += fabs(t2);
                }
                const double e1 = fabs(hc[(size_t)i * n + j] - ref) / mag;
                const double e2 = fabs(hr[(size_t)i * n + j] - ref) / mag;
                if (!(e1 <= bound) || !(e2 <= bound)) worst = INFINITY;
                worst = std::max(worst, std::max(e1, e2));
            }
            double maxdiff = 0.0;
            for (size_t e = 0; e < hc.size(); e++) {
                const double d = fabs((double)hc[e] - hr[e]);
                if (!(d <= 1e-2)) maxdiff = INFINITY;
                maxdiff = std::max(maxdiff, d);
            }
            const bool ok = isfinite(worst) && isfinite(maxdiff);
            bad += !ok;
            printf("%d x %d x %d %s: sampled error / sum|ab| %.2e, max |C - cuBLAS| %.2e: %s\n", m,
                   n, k, names[v], worst, maxdiff, ok ? "ok" : "WRONG");
        }
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        const int reps = 20, trials = 15;
        std::vector<float> tc, tp, tr;
        auto timed = [&](auto f) { /* ms per launch over reps launches */
                                   return time_us(s, e0, e1,
                                                  [&]() {
                                                      for (int r = 0; r < reps; r++)
                                                          f();
                                                  }) /
                                          1000.0f / reps;
        };
        for (int r = 0; r < 3; r++)
            run_cublas(), run_cp(), run_rung();
        for (int t = 0; t < trials; t++) {
            tc.push_back(timed(run_cublas));
            tp.push_back(timed(run_cp));
            tr.push_back(timed(run_rung));
        }
        const double fl = 2.0 * m * n * (double)k;
        const float mc = median(tc), mp = median(tp), mr = median(tr);
        printf("%d x %d x %d: cuBLAS %.3f ms %.2f TFLOP/s | cp256x128 %.3f ms %.2f (%.1f %%) | "
               "rung128x128 %.3f ms %.2f (%.1f %%)\n",
               m, n, k, mc, fl / mc / 1e9, mp, fl / mp / 1e9, 100.0 * mc / mp, mr, fl / mr / 1e9,
               100.0 * mc / mr);
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
        CK(cudaFree(da));
        CK(cudaFree(db));
        CK(cudaFree(dc));
        CK(cudaFree(dr));
    }
    CB(cublasDestroy(h));
    CK(cudaStreamDestroy(s));
    return bad ? 1 : 0;
}
