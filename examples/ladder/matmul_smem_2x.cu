/* matmul_smem_2x.cu - an FP32 ladder rung added the way
 * docs/adding-a-benchmark.md shows: the shared-memory tiles of smem_tiled
 * (16 x 16), but a 16 x 8 block in which each thread computes two rows of
 * C, so every value of B read from shared memory feeds two FMAs: the first
 * step towards register blocking. Its table line is matmul_rung.line beside
 * this file; the tests build and run both. Any m, n, k: loads outside the
 * matrices read zero, stores outside are skipped. */
#include "matmul_cuda.h"

enum { TILE = 16, ROWS = 2 };

static __global__ void __launch_bounds__(TILE *TILE / ROWS)
    cb_matmul_smem_2x_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                             const float *__restrict__ b, float beta, float *__restrict__ c)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y; /* 16 x 8 threads */
    const int col = blockIdx.x * TILE + tx;
    const int row0 = blockIdx.y * TILE + ty, row1 = row0 + TILE / ROWS;
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int p0 = 0; p0 < k; p0 += TILE) {
        for (int r = ty; r < TILE; r += TILE / ROWS) {
            const int arow = blockIdx.y * TILE + r;
            as[r][tx] = (arow < m && p0 + tx < k) ? a[(size_t)arow * k + p0 + tx] : 0.0f;
            bs[r][tx] = (p0 + r < k && col < n) ? b[(size_t)(p0 + r) * n + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE; p++) {
            const float bv = bs[p][tx];
            acc0 = fmaf(as[ty][p], bv, acc0);
            acc1 = fmaf(as[ty + TILE / ROWS][p], bv, acc1);
        }
        __syncthreads();
    }
    if (col >= n) return;
    const float acc[ROWS] = {acc0, acc1};
    const int rows[ROWS] = {row0, row1};
    for (int r = 0; r < ROWS; r++) {
        if (rows[r] >= m) continue;
        cb_matmul_store(c + (size_t)rows[r] * n + col, alpha * acc[r], beta);
    }
}

/* The launch: 16 x 8 threads per 16 x 16 tile of C (matmul_cuda.h's plan,
 * which the rung's launcher and query both read). */
static cb_matmul_launch_plan plan(const cb_matmul_args *g)
{
    return {cb_matmul_smem_2x_kernel, dim3(cb_cdiv(g->n, TILE), cb_cdiv(g->m, TILE)),
            dim3(TILE, TILE / ROWS), "16x16 smem tiles, 2 rows of C per thread"};
}

/* cb_matmul_rung_smem_2x (kernels/matmul_kernels.h): no variant axis. */
CB_MATMUL_PLANNED_RUNG(smem_2x, plan);
