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

__global__ void __launch_bounds__(CB_NAIVE_BX *CB_NAIVE_BY)
    cb_matmul_naive_uncoalesced_kernel(int m, int n, int k, float alpha,
                                       const float *__restrict__ a, const float *__restrict__ b,
                                       float beta, float *__restrict__ c)
{
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    const int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    const float *arow = a + (size_t)row * k;
    float acc = 0.0f;
    for (int p = 0; p < k; p++)
        acc = fmaf(arow[p], b[(size_t)p * n + col], acc);
    float *out = c + (size_t)row * n + col;
    *out = beta == 0.0f ? alpha * acc : fmaf(beta, *out, alpha * acc);
}

__global__ void __launch_bounds__(CB_NAIVE_BX *CB_NAIVE_BY)
    cb_matmul_naive_coalesced_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                                     const float *__restrict__ b, float beta, float *__restrict__ c)
{
    const int col = blockIdx.x * blockDim.x + threadIdx.x;
    const int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= m || col >= n) return;
    const float *arow = a + (size_t)row * k;
    float acc = 0.0f;
    for (int p = 0; p < k; p++)
        acc = fmaf(arow[p], b[(size_t)p * n + col], acc);
    float *out = c + (size_t)row * n + col;
    *out = beta == 0.0f ? alpha * acc : fmaf(beta, *out, alpha * acc);
}

/* uncoalesced: x runs over rows (m), y over columns (n). */
static dim3 cb_naive_grid_rows(const cb_matmul_args *g)
{
    return dim3(cb_cdiv(g->m, CB_NAIVE_BX), cb_cdiv(g->n, CB_NAIVE_BY));
}

/* coalesced: x runs over columns (n), y over rows (m). */
static dim3 cb_naive_grid_cols(const cb_matmul_args *g)
{
    return dim3(cb_cdiv(g->n, CB_NAIVE_BX), cb_cdiv(g->m, CB_NAIVE_BY));
}

static cudaError_t cb_matmul_naive_uncoalesced(const cb_matmul_args *g, int variant,
                                               cudaStream_t stream)
{
    if (variant != 0) return cudaErrorInvalidValue;
    dim3 grid = cb_naive_grid_rows(g);
    if (grid.y > 65535) return cudaErrorInvalidConfiguration;
    cb_matmul_naive_uncoalesced_kernel<<<grid, dim3(CB_NAIVE_BX, CB_NAIVE_BY), 0, stream>>>(
        g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta, g->c);
    return cudaGetLastError();
}

static cudaError_t cb_matmul_naive_uncoalesced_query(const cb_matmul_args *g, int variant,
                                                     cb_matmul_launch_info *info)
{
    if (variant != 0) return cudaErrorInvalidValue;
    return cb_matmul_fill_info(cb_matmul_naive_uncoalesced_kernel, CB_NAIVE_BX * CB_NAIVE_BY,
                               cb_naive_grid_rows(g), "32x16 threads, threadIdx.x -> row", info);
}

static cudaError_t cb_matmul_naive_coalesced(const cb_matmul_args *g, int variant,
                                             cudaStream_t stream)
{
    if (variant != 0) return cudaErrorInvalidValue;
    dim3 grid = cb_naive_grid_cols(g);
    if (grid.y > 65535) return cudaErrorInvalidConfiguration;
    cb_matmul_naive_coalesced_kernel<<<grid, dim3(CB_NAIVE_BX, CB_NAIVE_BY), 0, stream>>>(
        g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta, g->c);
    return cudaGetLastError();
}

static cudaError_t cb_matmul_naive_coalesced_query(const cb_matmul_args *g, int variant,
                                                   cb_matmul_launch_info *info)
{
    if (variant != 0) return cudaErrorInvalidValue;
    return cb_matmul_fill_info(cb_matmul_naive_coalesced_kernel, CB_NAIVE_BX * CB_NAIVE_BY,
                               cb_naive_grid_cols(g), "32x16 threads, threadIdx.x -> column", info);
}

extern "C" const cb_matmul_rung cb_matmul_rung_naive_uncoalesced = {
    .name = "naive_uncoalesced",
    .launch = cb_matmul_naive_uncoalesced,
    .query = cb_matmul_naive_uncoalesced_query,
    .variant_axis = NULL,
    .variant_of = NULL,
};

extern "C" const cb_matmul_rung cb_matmul_rung_naive_coalesced = {
    .name = "naive_coalesced",
    .launch = cb_matmul_naive_coalesced,
    .query = cb_matmul_naive_coalesced_query,
    .variant_axis = NULL,
    .variant_of = NULL,
};
