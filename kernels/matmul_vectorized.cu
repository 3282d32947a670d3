/* matmul_vectorized.cu - rung 6: vectorized loads.
 *
 * regblock_2d with wider memory instructions:
 *   - global loads are float4 (LDG.128): a quarter of the load instructions;
 *   - the A tile is stored TRANSPOSED in shared memory (as[k][m]), so the 8
 *     A values a thread needs at one k are contiguous and, like the 8 B
 *     values, come in two LDS.128 instead of eight LDS.32;
 *   - C is written with float4 stores.
 * What is left: each thread owns 8 CONTIGUOUS columns, so the 16 threads of
 * a half-warp read bs[k][0..127] 32 bytes apart and LDS.128 hits the same
 * banks (a 4-way conflict for B); the warp-tiled rung fixes that layout.
 * float4 needs k % 4 == 0, n % 4 == 0 and 16-byte aligned pointers; any
 * other shape takes a scalar, bounds-checked load path. */
#include "matmul_cuda.h"

#define CB_V_BM      128
#define CB_V_BN      128
#define CB_V_BK      8
#define CB_V_TM      8
#define CB_V_TN      8
#define CB_V_THREADS (CB_V_BM * CB_V_BN / (CB_V_TM * CB_V_TN))

template <bool kVec>
__global__ void __launch_bounds__(CB_V_THREADS)
    cb_matmul_vectorized_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                                const float *__restrict__ b, float beta, float *__restrict__ c)
{
    __shared__ __align__(16) float as[CB_V_BK][CB_V_BM]; /* transposed: as[k][m] */
    __shared__ __align__(16) float bs[CB_V_BK][CB_V_BN];
    const int tid = threadIdx.x;
    const int m0 = blockIdx.y * CB_V_BM, n0 = blockIdx.x * CB_V_BN;
    const int trow = tid / (CB_V_BN / CB_V_TN) * CB_V_TM;
    const int tcol = tid % (CB_V_BN / CB_V_TN) * CB_V_TN;
    /* One float4 of each tile per thread: A row tid/2, k-quad tid%2;
     * B row tid/32, column quad tid%32. */
    const int a_r = tid / (CB_V_BK / 4), a_q = tid % (CB_V_BK / 4) * 4;
    const int b_r = tid / (CB_V_BN / 4), b_q = tid % (CB_V_BN / 4) * 4;
    float acc[CB_V_TM][CB_V_TN] = {{0.0f}};
    float ra[CB_V_TM], rb[CB_V_TN];
    for (int p0 = 0; p0 < k; p0 += CB_V_BK) {
        float4 va, vb;
        const int ar = m0 + a_r, ak = p0 + a_q, bk = p0 + b_r, bn = n0 + b_q;
        if (kVec) {
            /* k % 4 == 0 and n % 4 == 0: a float4 is wholly in or out. */
            va = (ar < m && ak < k) ? *reinterpret_cast<const float4 *>(a + (size_t)ar * k + ak)
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            vb = (bk < k && bn < n) ? *reinterpret_cast<const float4 *>(b + (size_t)bk * n + bn)
                                    : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        } else {
            const float *ap = a + (size_t)ar * k + ak;
            const float *bp = b + (size_t)bk * n + bn;
            const bool ain = ar < m, bin = bk < k;
            va.x = (ain && ak + 0 < k) ? ap[0] : 0.0f;
            va.y = (ain && ak + 1 < k) ? ap[1] : 0.0f;
            va.z = (ain && ak + 2 < k) ? ap[2] : 0.0f;
            va.w = (ain && ak + 3 < k) ? ap[3] : 0.0f;
            vb.x = (bin && bn + 0 < n) ? bp[0] : 0.0f;
            vb.y = (bin && bn + 1 < n) ? bp[1] : 0.0f;
            vb.z = (bin && bn + 2 < n) ? bp[2] : 0.0f;
            vb.w = (bin && bn + 3 < n) ? bp[3] : 0.0f;
        }
        as[a_q + 0][a_r] = va.x;
        as[a_q + 1][a_r] = va.y;
        as[a_q + 2][a_r] = va.z;
        as[a_q + 3][a_r] = va.w;
        *reinterpret_cast<float4 *>(&bs[b_r][b_q]) = vb;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < CB_V_BK; p++) {
            /* Copy float4s member-wise: casting a register array to float4 *
             * would force it into local memory. */
#pragma unroll
            for (int i = 0; i < CB_V_TM; i += 4) {
                const float4 v = *reinterpret_cast<const float4 *>(&as[p][trow + i]);
                ra[i] = v.x, ra[i + 1] = v.y, ra[i + 2] = v.z, ra[i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < CB_V_TN; j += 4) {
                const float4 v = *reinterpret_cast<const float4 *>(&bs[p][tcol + j]);
                rb[j] = v.x, rb[j + 1] = v.y, rb[j + 2] = v.z, rb[j + 3] = v.w;
            }
            cb_matmul_outer_fma(acc, ra, rb);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < CB_V_TM; i++) {
        const int row = m0 + trow + i;
        if (row >= m) break;
        float *crow = c + (size_t)row * n;
#pragma unroll
        for (int j = 0; j < CB_V_TN; j += 4) {
            const int col = n0 + tcol + j;
            if (kVec) {
                if (col >= n) break;
                cb_matmul_store4(crow + col,
                                 make_float4(alpha * acc[i][j], alpha * acc[i][j + 1],
                                             alpha * acc[i][j + 2], alpha * acc[i][j + 3]),
                                 beta);
            } else {
#pragma unroll
                for (int jj = 0; jj < 4; jj++) {
                    if (col + jj < n)
                        cb_matmul_store(crow + col + jj, alpha * acc[i][j + jj], beta);
                }
            }
        }
    }
}

/* float4 wherever k and n allow it (whole tiles or not), else scalar edges. */
static cb_matmul_launch_plan cb_v_plan(const cb_matmul_args *g)
{
    const dim3 grid(cb_cdiv(g->n, CB_V_BN), cb_cdiv(g->m, CB_V_BM));
    if (cb_edge_mode_for(g, CB_V_BM, CB_V_BN, CB_V_BK) == CB_EDGE_SCALAR)
        return {cb_matmul_vectorized_kernel<false>, grid, dim3(CB_V_THREADS),
                "128x128x8 tile, 8x8 per thread, scalar edges"};
    return {cb_matmul_vectorized_kernel<true>, grid, dim3(CB_V_THREADS),
            "128x128x8 tile, 8x8 per thread, float4"};
}

CB_MATMUL_PLANNED_RUNG(vectorized, cb_v_plan);
