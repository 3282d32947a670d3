/* matmul_regblock.cu - rungs 4 and 5: register blocking.
 *
 * The shared-memory rung does one FMA per two shared-memory loads, so it is
 * bound by shared-memory bandwidth. Computing several outputs per thread
 * lets a value loaded into a register be reused:
 *   regblock_1d - 64x64 block tile, k-slice 8, 512 threads; each thread
 *                 owns a column of 8 outputs: one shared load of B feeds 8
 *                 FMAs (the A values are warp-wide broadcasts);
 *   regblock_2d - 128x128 block tile, k-slice 8, 256 threads; each thread
 *                 owns an 8x8 tile: per k step it loads 8 values of A and 8
 *                 of B into registers and does 64 FMAs (an outer product),
 *                 4 FMAs per shared load, and twice the global reuse.
 * Loads are scalar and bounds-checked with zero fill (any m, n, k). */
#include "matmul_cuda.h"

#define CB_R1_BM      64
#define CB_R1_BN      64
#define CB_R1_BK      8
#define CB_R1_TM      8
#define CB_R1_THREADS (CB_R1_BM * CB_R1_BN / CB_R1_TM)

__global__ void __launch_bounds__(CB_R1_THREADS)
    cb_matmul_regblock_1d_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                                 const float *__restrict__ b, float beta, float *__restrict__ c)
{
    __shared__ float as[CB_R1_BM][CB_R1_BK];
    __shared__ float bs[CB_R1_BK][CB_R1_BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * CB_R1_BM, n0 = blockIdx.x * CB_R1_BN;
    const int tcol = tid % CB_R1_BN;            /* this thread's column in the tile */
    const int trow = tid / CB_R1_BN * CB_R1_TM; /* first of its 8 rows     */
    /* One element of each tile per thread (512 = 64 x 8 = 8 x 64). */
    const int a_r = tid / CB_R1_BK, a_c = tid % CB_R1_BK;
    const int b_r = tid / CB_R1_BN, b_c = tid % CB_R1_BN;
    float acc[CB_R1_TM] = {0.0f};
    for (int p0 = 0; p0 < k; p0 += CB_R1_BK) {
        as[a_r][a_c] = (m0 + a_r < m && p0 + a_c < k) ? a[(size_t)(m0 + a_r) * k + p0 + a_c] : 0.0f;
        bs[b_r][b_c] = (p0 + b_r < k && n0 + b_c < n) ? b[(size_t)(p0 + b_r) * n + n0 + b_c] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < CB_R1_BK; p++) {
            const float bv = bs[p][tcol];
#pragma unroll
            for (int i = 0; i < CB_R1_TM; i++)
                acc[i] = fmaf(as[trow + i][p], bv, acc[i]);
        }
        __syncthreads();
    }
    const int col = n0 + tcol;
    if (col >= n) return;
#pragma unroll
    for (int i = 0; i < CB_R1_TM; i++) {
        const int row = m0 + trow + i;
        if (row < m) {
            cb_matmul_store(c + (size_t)row * n + col, alpha * acc[i], beta);
        }
    }
}

#define CB_R2_BM      128
#define CB_R2_BN      128
#define CB_R2_BK      8
#define CB_R2_TM      8
#define CB_R2_TN      8
#define CB_R2_THREADS (CB_R2_BM * CB_R2_BN / (CB_R2_TM * CB_R2_TN))

__global__ void __launch_bounds__(CB_R2_THREADS)
    cb_matmul_regblock_2d_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                                 const float *__restrict__ b, float beta, float *__restrict__ c)
{
    __shared__ float as[CB_R2_BM][CB_R2_BK];
    __shared__ float bs[CB_R2_BK][CB_R2_BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * CB_R2_BM, n0 = blockIdx.x * CB_R2_BN;
    const int trow = tid / (CB_R2_BN / CB_R2_TN) * CB_R2_TM;
    const int tcol = tid % (CB_R2_BN / CB_R2_TN) * CB_R2_TN;
    float acc[CB_R2_TM][CB_R2_TN] = {{0.0f}};
    float ra[CB_R2_TM], rb[CB_R2_TN];
    for (int p0 = 0; p0 < k; p0 += CB_R2_BK) {
        /* 1024 elements per tile, 4 per thread, consecutive threads on
         * consecutive addresses of one row. */
#pragma unroll
        for (int e = tid; e < CB_R2_BM * CB_R2_BK; e += CB_R2_THREADS) {
            const int r = e / CB_R2_BK, q = e % CB_R2_BK;
            as[r][q] = (m0 + r < m && p0 + q < k) ? a[(size_t)(m0 + r) * k + p0 + q] : 0.0f;
        }
#pragma unroll
        for (int e = tid; e < CB_R2_BK * CB_R2_BN; e += CB_R2_THREADS) {
            const int r = e / CB_R2_BN, q = e % CB_R2_BN;
            bs[r][q] = (p0 + r < k && n0 + q < n) ? b[(size_t)(p0 + r) * n + n0 + q] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < CB_R2_BK; p++) {
#pragma unroll
            for (int i = 0; i < CB_R2_TM; i++)
                ra[i] = as[trow + i][p];
#pragma unroll
            for (int j = 0; j < CB_R2_TN; j++)
                rb[j] = bs[p][tcol + j];
            cb_matmul_outer_fma(acc, ra, rb); /* 64 FMAs from 16 registers */
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < CB_R2_TM; i++) {
        const int row = m0 + trow + i;
        if (row >= m) break;
#pragma unroll
        for (int j = 0; j < CB_R2_TN; j++) {
            const int col = n0 + tcol + j;
            if (col < n) cb_matmul_store(c + (size_t)row * n + col, alpha * acc[i][j], beta);
        }
    }
}

static cb_matmul_launch_plan cb_r1_plan(const cb_matmul_args *g)
{
    return {cb_matmul_regblock_1d_kernel, dim3(cb_cdiv(g->n, CB_R1_BN), cb_cdiv(g->m, CB_R1_BM)),
            dim3(CB_R1_THREADS), "64x64x8 tile, 8x1 per thread"};
}

static cb_matmul_launch_plan cb_r2_plan(const cb_matmul_args *g)
{
    return {cb_matmul_regblock_2d_kernel, dim3(cb_cdiv(g->n, CB_R2_BN), cb_cdiv(g->m, CB_R2_BM)),
            dim3(CB_R2_THREADS), "128x128x8 tile, 8x8 per thread"};
}

CB_MATMUL_PLANNED_RUNG(regblock_1d, cb_r1_plan);
CB_MATMUL_PLANNED_RUNG(regblock_2d, cb_r2_plan);
