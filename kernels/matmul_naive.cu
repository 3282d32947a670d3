/* matmul_naive.cu - rungs 1 and 2: one thread per element of C, every
 * operand read straight from global memory.
 *
 * The two kernels differ only in which index threadIdx.x walks:
 *   uncoalesced - consecutive threads own consecutive ROWS of C, so a warp
 *                 reads 32 different rows of A (32 sectors per load) and
 *                 writes C with a stride of n floats;
 *   coalesced   - consecutive threads own consecutive COLUMNS, so a warp
 *                 reads one contiguous 128-byte line of B, one broadcast
 *                 value of A, and writes one line of C.
 * Same arithmetic, same instruction count: the gap is memory coalescing. */
#include "matmul_cuda.h"

/* 32 x 16 threads: measured on the H200 at 4096^3 (coalesced rung), 32x8
 * gave 5.89, 32x16 6.29 and 32x32 5.88 TFLOP/s - 16 warps per block share
 * each B line in L1 while still fitting 4 blocks per SM. */
#define CB_NAIVE_BX 32
#define CB_NAIVE_BY 16

/* One element of C per thread. kRowsOnX: threadIdx.x walks the rows of C
 * (uncoalesced: a warp reads 32 rows of A and writes C n floats apart);
 * otherwise it walks the columns (coalesced: a warp reads one line of B). */
template <bool kRowsOnX>
static __device__ __forceinline__ void
cb_naive_element(int m, int n, int k, float alpha, const float *__restrict__ a,
                 const float *__restrict__ b, float beta, float *__restrict__ c)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int row = kRowsOnX ? x : y, col = kRowsOnX ? y : x;
    if (row >= m || col >= n) return;
    const float *arow = a + (size_t)row * k;
    float acc = 0.0f;
    for (int p = 0; p < k; p++)
        acc = fmaf(arow[p], b[(size_t)p * n + col], acc);
    cb_matmul_store(c + (size_t)row * n + col, alpha * acc, beta);
}

__global__ void __launch_bounds__(CB_NAIVE_BX *CB_NAIVE_BY)
    cb_matmul_naive_uncoalesced_kernel(int m, int n, int k, float alpha,
                                       const float *__restrict__ a, const float *__restrict__ b,
                                       float beta, float *__restrict__ c)
{
    cb_naive_element<true>(m, n, k, alpha, a, b, beta, c);
}

__global__ void __launch_bounds__(CB_NAIVE_BX *CB_NAIVE_BY)
    cb_matmul_naive_coalesced_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                                     const float *__restrict__ b, float beta, float *__restrict__ c)
{
    cb_naive_element<false>(m, n, k, alpha, a, b, beta, c);
}

/* uncoalesced: x runs over rows (m), y over columns (n). */
static cb_matmul_launch_plan cb_naive_rows_plan(const cb_matmul_args *g)
{
    return {cb_matmul_naive_uncoalesced_kernel,
            dim3(cb_cdiv(g->m, CB_NAIVE_BX), cb_cdiv(g->n, CB_NAIVE_BY)),
            dim3(CB_NAIVE_BX, CB_NAIVE_BY), "32x16 threads, threadIdx.x -> row"};
}

/* coalesced: x runs over columns (n), y over rows (m). */
static cb_matmul_launch_plan cb_naive_cols_plan(const cb_matmul_args *g)
{
    return {cb_matmul_naive_coalesced_kernel,
            dim3(cb_cdiv(g->n, CB_NAIVE_BX), cb_cdiv(g->m, CB_NAIVE_BY)),
            dim3(CB_NAIVE_BX, CB_NAIVE_BY), "32x16 threads, threadIdx.x -> column"};
}

CB_MATMUL_PLANNED_RUNG(naive_uncoalesced, cb_naive_rows_plan);
CB_MATMUL_PLANNED_RUNG(naive_coalesced, cb_naive_cols_plan);
