/* matmul_smem.cu - rung 3: shared-memory tiling.
 *
 * A TILE x TILE block of threads computes a TILE x TILE block of C, one
 * element per thread. For each k-slice the block stages a TILE x TILE tile
 * of A and of B in shared memory with coalesced loads, then every thread
 * reads TILE values of each from shared memory: each global element is
 * loaded once per block instead of once per thread, cutting global traffic
 * by a factor TILE. Still one FMA per two shared loads, which is what the
 * register-blocked rungs attack next.
 *
 * TILE 8 gives 64-thread blocks (too few warps per block to hide latency
 * and too little reuse), 16 and 32 show the trade-off. */
#include "matmul_cuda.h"

#include <stdlib.h>
#include <string.h>

template <int TILE>
__global__ void __launch_bounds__(TILE *TILE)
    cb_matmul_smem_tiled_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                                const float *__restrict__ b, float beta, float *__restrict__ c)
{
    __shared__ float as[TILE][TILE];
    /* +1 column is not needed: threads of a warp read one row of bs and
     * one broadcast value of as. */
    __shared__ float bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty;
    const int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += TILE) {
        /* Zero fill outside the matrices so the inner loop needs no checks. */
        as[ty][tx] = (row < m && p0 + tx < k) ? a[(size_t)row * k + p0 + tx] : 0.0f;
        bs[ty][tx] = (p0 + ty < k && col < n) ? b[(size_t)(p0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE; p++)
            acc = fmaf(as[ty][p], bs[p][tx], acc);
        __syncthreads();
    }
    if (row < m && col < n) cb_matmul_store(c + (size_t)row * n + col, alpha * acc, beta);
}

/* The same algorithm for shapes made of whole tiles: no bounds checks, and
 * the operands are walked with pointer increments instead of recomputed
 * 64-bit indices. On the H200 at 4096^3 and TILE 32 this took the rung from
 * 8.55 to 9.12 TFLOP/s (the guarded kernel stays for every other shape). */
template <int TILE>
__global__ void __launch_bounds__(TILE *TILE)
    cb_matmul_smem_tiled_full_kernel(int n, int k, float alpha, const float *__restrict__ a,
                                     const float *__restrict__ b, float beta, float *__restrict__ c)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const float *ap = a + (size_t)(blockIdx.y * TILE + ty) * k + tx;
    const float *bp = b + (size_t)ty * n + blockIdx.x * TILE + tx;
    const size_t b_step = (size_t)TILE * n;
    float acc = 0.0f;
    for (int p0 = 0; p0 < k; p0 += TILE) {
        as[ty][tx] = *ap;
        bs[ty][tx] = *bp;
        ap += TILE;
        bp += b_step;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < TILE; p++)
            acc = fmaf(as[ty][p], bs[p][tx], acc);
        __syncthreads();
    }
    cb_matmul_store(c + (size_t)(blockIdx.y * TILE + ty) * n + blockIdx.x * TILE + tx, alpha * acc,
                    beta);
}

template <int TILE> static bool cb_smem_full(const cb_matmul_args *g)
{
    return g->m % TILE == 0 && g->n % TILE == 0 && g->k % TILE == 0;
}

template <int TILE> static cudaError_t cb_smem_launch(const cb_matmul_args *g, cudaStream_t stream)
{
    dim3 grid(cb_cdiv(g->n, TILE), cb_cdiv(g->m, TILE));
    if (grid.y > 65535) return cudaErrorInvalidConfiguration;
    if (cb_smem_full<TILE>(g))
        cb_matmul_smem_tiled_full_kernel<TILE><<<grid, dim3(TILE, TILE), 0, stream>>>(
            g->n, g->k, g->alpha, g->a, g->b, g->beta, g->c);
    else
        cb_matmul_smem_tiled_kernel<TILE><<<grid, dim3(TILE, TILE), 0, stream>>>(
            g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta, g->c);
    return cudaGetLastError();
}

template <int TILE>
static cudaError_t cb_smem_query(const cb_matmul_args *g, cb_matmul_launch_info *info)
{
    char desc[64];
    bool full = cb_smem_full<TILE>(g);
    snprintf(desc, sizeof desc, "%dx%d tile, 1 element/thread, %s", TILE, TILE,
             full ? "full tiles" : "guarded edges");
    dim3 grid(cb_cdiv(g->n, TILE), cb_cdiv(g->m, TILE));
    if (full)
        return cb_matmul_fill_info(cb_matmul_smem_tiled_full_kernel<TILE>, TILE * TILE, grid, desc,
                                   info);
    return cb_matmul_fill_info(cb_matmul_smem_tiled_kernel<TILE>, TILE * TILE, grid, desc, info);
}

/* The compiled tiles; the variant is the tile's edge. */
static const cb_matmul_instance cb_smem_instances[] = {
    {8, cb_smem_launch<8>, cb_smem_query<8>},
    {16, cb_smem_launch<16>, cb_smem_query<16>},
    {32, cb_smem_launch<32>, cb_smem_query<32>},
};

/* The `tile` axis: the edge of the square tile, one of the compiled 8, 16, 32. */
static int cb_smem_variant_of(const char *text, int m, int n, int sm_count, char *why, size_t len)
{
    (void)m, (void)n, (void)sm_count;
    if (strcmp(text, "8") == 0 || strcmp(text, "16") == 0 || strcmp(text, "32") == 0)
        return atoi(text);
    snprintf(why, len, "tile=%s: smem_tiled is built for tiles 8, 16 and 32", text);
    return -1;
}

CB_MATMUL_RUNG_OF(smem_tiled, cb_smem_instances, "tile", cb_smem_variant_of);
