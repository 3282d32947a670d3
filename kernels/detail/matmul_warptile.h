/* matmul_warptile.h - the warp-tiled SGEMM kernel template behind the
 * warptiled and pipelined rungs (CUDA only; included by their .cu files).
 *
 * Layout of work (WARPS_M x WARPS_N warps, each SUB_M x SUB_N sub-tiles):
 *   - a block computes a BM x BN tile of C, walking k in slices of BK;
 *   - a warp computes a WM x WN = (16 SUB_M) x (32 SUB_N) part of it, with
 *     its 32 lanes laid out 4 (rows) x 8 (columns);
 *   - a lane computes SUB_M x SUB_N sub-tiles of 4x4, spaced 16 rows and 32
 *     columns apart, i.e. a (4 SUB_M) x (4 SUB_N) micro-tile in registers.
 * Why this layout: at each k a lane reads its A values as SUB_M float4 and
 * its B values as SUB_N float4 from shared memory (LDS.128). The 8 lanes
 * of a row read 8 consecutive float4 of B (128 contiguous bytes, no bank
 * conflict) and the 4 lane rows read 4 consecutive float4 of A, each a
 * broadcast to 8 lanes. Per k a lane does (4 SUB_M)(4 SUB_N) FMAs for
 * SUB_M + SUB_N shared loads: 64 FMAs per 4 LDS.128 for 8x8.
 *
 * Shared memory: A is stored transposed (as[k][m]) so a lane's A values
 * at one k are contiguous; its rows are padded by 4 floats so the scalar
 * transposing stores of two k-quads land in different banks (the padded
 * row stays 16-byte aligned for LDS.128). B is stored as is.
 *
 * Pipelined (kPipelined): two shared-memory stages and two register
 * fragments. While the block computes slice t from stage s, each thread
 * already has slice t+1 in flight from global memory into registers; at
 * the last k of slice t it stores them into stage s^1, and one barrier per
 * slice separates the stages (a thread can only write stage s^1 after
 * every thread passed the previous barrier, i.e. finished reading it). The
 * fragments of k+1 are read from shared memory while k's FMAs run.
 * Without kPipelined: one stage, load -> barrier -> compute -> barrier, so
 * global latency is exposed every slice (the warptiled rung).
 *
 * kMode is a cb_edge_mode: FULL has no bounds checks; VEC4 (float4 loads)
 * and SCALAR (4 scalar loads per float4) clamp their addresses into the
 * matrices and check k in the last k-slice only (see load_global);
 * SCALAR_B loads A as VEC4 does and B and C as SCALAR does. */
#ifndef CB_MATMUL_WARPTILE_H
#define CB_MATMUL_WARPTILE_H

#include "matmul_cuda.h"

/* The stream-K kernel's FMA column order (cb_wt_outer_fma, kOrder 1). */
#define CB_WT_SK_COLS 6, 7, 3, 2, 0, 5, 4, 1

template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK> struct cb_wt_shape {
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int TM = 4 * SUB_M, TN = 4 * SUB_N;   /* per thread */
    static constexpr int WM = 16 * SUB_M, WN = 32 * SUB_N; /* per warp */
    static constexpr int BM = WARPS_M * WM, BN = WARPS_N * WN;
    static constexpr int AS_LD = BM + 4; /* padded row of the transposed A tile */
    static constexpr int A_VECS = BM * BK / 4 / THREADS;
    static constexpr int B_VECS = BK * BN / 4 / THREADS;
    /* Registers a thread needs: accumulators, two fragment slots, the
     * staged float4s with their source pointers, ~24 for indices. The
     * launch bound asks for as many resident blocks as that allows (65536
     * registers per SM, split in 4 quarters of 16384, one per scheduler,
     * each holding whole warps), so ptxas neither spills nor wastes
     * occupancy: 8x8 at 256 threads -> 128 registers, 2 blocks per SM. */
    static constexpr int REG_EST =
        TM * TN + 2 * (TM + TN) + 6 * (A_VECS + B_VECS) + 24 - 4 * (A_VECS + B_VECS == 2);
    static constexpr int WARPS_PER_SCHEDULER = 16384 / (32 * REG_EST);
    static constexpr int MIN_BLOCKS = 4 * WARPS_PER_SCHEDULER / (WARPS_M * WARPS_N) > 0
                                          ? 4 * WARPS_PER_SCHEDULER / (WARPS_M * WARPS_N)
                                          : 1;
    static_assert(BM * BK / 4 % THREADS == 0, "A tile must split evenly into float4 per thread");
    static_assert(BK * BN / 4 % THREADS == 0, "B tile must split evenly into float4 per thread");
    static_assert(BK % 4 == 0 && BK % 2 == 0, "BK must be a multiple of 4");
};

/* One k-step of the lane's micro-tile: acc += a b^T, like
 * cb_matmul_outer_fma but in another order of its TM x TN independent FMAs.
 * Each accumulator still gets its k terms in k order, so the sums are
 * bit-identical; only the SASS differs. Why: an FFMA reads its three sources
 * from two register banks (register index mod 2) unless an operand hits the
 * operand reuse cache, i.e. repeats the previous FFMA's register in the same
 * slot. A serpentine walk keeps one fragment register in the cache at every
 * step (also across each turn); what is left is the accumulator and the
 * other fragment register, which conflict when both are even or both odd,
 * and that pairing is ptxas's register allocation. Plain row-major order
 * made ptxas (CUDA 13.0, sm_90) rename most accumulators from k-step to
 * k-step in the 128-register 8x8 configs and pair them with same-parity
 * fragments (~320 of 512 main-loop FFMAs conflicting). For 8x8 the columns
 * are walked in the order of kCols, serpentine down and up the rows, which
 * leaves ~120 with the same instruction count; other tiles (16x8) walk
 * serpentine rows. Both orders were found by searching orders against a
 * static count of the SASS: the choice is ptxas's and can change with its
 * version, so count again (scripts/record/ffma_banks.py; gemm.sh does). */
template <int TM, int TN, int kOrder = 0>
__device__ __forceinline__ void cb_wt_outer_fma(float (&acc)[TM][TN], const float (&a)[TM],
                                                const float (&b)[TN])
{
    /* kOrder 0: the whole-tile kernels; 1: the stream-K kernel
     * (matmul_warptile_sk.h), whose walk around the k-loop leaves ptxas
     * fewer registers to pair, so its order was searched for on its own. */
    constexpr int kCols[2][8] = {{7, 6, 5, 4, 1, 0, 3, 2}, {CB_WT_SK_COLS}};
    if constexpr (TM == 8 && TN == 8) {
#pragma unroll
        for (int q = 0; q < TN; q++) {
            const int j = kCols[kOrder][q % 8];
#pragma unroll
            for (int p = 0; p < TM; p++) {
                const int i = q % 2 ? TM - 1 - p : p;
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < TM; i++) {
#pragma unroll
            for (int q = 0; q < TN; q++) {
                const int j = i % 2 ? TN - 1 - q : q;
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
        }
    }
}

/* The shared-memory stages of a block of the kernel below (A transposed). */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, bool kPipelined>
struct cb_wt_stages {
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    static constexpr int COUNT = kPipelined ? 2 : 1;
    typedef float a_t[COUNT][BK][S::AS_LD];
    typedef float b_t[COUNT][BK][S::BN];
};

/* The block's BM x BN tile at (m0, n0) summed over k-slices t_begin ..
 * t_end - 1 into acc (zeroed first): the whole k range for a tile of its
 * own, a part of it for a stream-K block (matmul_warptile_sk.h). The stages
 * must be free: a block that runs this again waits for all its threads
 * first. */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, bool kPipelined, int kMode,
          int kOrder = 0>
__device__ __forceinline__ void
cb_wt_mainloop(typename cb_wt_stages<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined>::a_t &as,
               typename cb_wt_stages<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined>::b_t &bs,
               int m, int n, int k, const float *__restrict__ a, const float *__restrict__ b,
               int m0, int n0, int t_begin, int t_end,
               float (&acc)[cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::TM]
                           [cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::TN])
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    constexpr int THREADS = S::THREADS, BN = S::BN, TM = S::TM, TN = S::TN;

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    /* First row / column of this lane's sub-tile 0 within the block tile. */
    const int tr = (warp / WARPS_N) * S::WM + (lane >> 3) * 4;
    const int tc = (warp % WARPS_N) * S::WN + (lane & 7) * 4;

    /* Global -> register staging: float4 v of A is row f / (BK/4), k-quad
     * f % (BK/4) of the tile; of B row f / (BN/4), column quad f % (BN/4),
     * with f = tid + v * THREADS (consecutive threads, consecutive bytes).
     *
     * Edges without a predicate per load: a row of A past m reads row
     * m - 1, and a column of B past n a column inside B (VEC4: the last
     * quad, n % 4 == 0; SCALAR: element j of a quad reads column
     * min(col + j, n - 1), b_lim[v] = the last j inside). Every load then
     * stays inside the matrices, and what such a load brings only reaches
     * accumulators of rows past m or columns past n, which the epilogue
     * never stores. Loads past k are different: they would add into
     * stored outputs, so they must read 0. Only the last k-slice can reach
     * past k (every other one ends at or before it), so only that slice
     * is loaded with the k checks (load_global's `last`); the others load
     * unconditionally. FULL needs neither the clamps nor the checks (its
     * selects below are always the first operand; they are kept so that its
     * code stays exactly what it was measured as). */
    const float *a_src[S::A_VECS];
    const float *b_src[S::B_VECS];
    int b_lim[S::B_VECS];
#pragma unroll
    for (int v = 0; v < S::A_VECS; v++) {
        const int f = tid + v * THREADS, r = f / (BK / 4), q = f % (BK / 4) * 4;
        const int row = kMode == CB_EDGE_FULL ? (m0 + r < m ? m0 + r : 0) : min(m0 + r, m - 1);
        a_src[v] = a + (size_t)row * k + q;
    }
#pragma unroll
    for (int v = 0; v < S::B_VECS; v++) {
        const int f = tid + v * THREADS, r = f / (BN / 4), q = f % (BN / 4) * 4;
        const int col = kMode == CB_EDGE_FULL   ? (n0 + q < n ? n0 + q : 0)
                        : kMode == CB_EDGE_VEC4 ? min(n0 + q, n - 4)
                                                : min(n0 + q, n - 1);
        b_lim[v] = n - 1 - col;
        b_src[v] = b + (size_t)r * n + col;
    }
    float4 ra[S::A_VECS], rb[S::B_VECS];

    /* Fetch the slice starting at k = p0 into ra / rb; `last`: the last
     * slice, whose elements at or past k read 0. Called with a constant
     * `last`, so the other slices' loads carry no predicate. SCALAR: A's
     * rows (k floats) and B's (n floats) are not 16-byte aligned, so a
     * float4 is 4 scalar loads. */
    auto load_global = [&](int p0, bool last) {
#pragma unroll
        for (int v = 0; v < S::A_VECS; v++) {
            const int q = (tid + v * THREADS) % (BK / 4) * 4;
            const float *src = a_src[v] + p0;
            if (kMode == CB_EDGE_FULL) {
                ra[v] = *reinterpret_cast<const float4 *>(src);
            } else if (kMode == CB_EDGE_VEC4 || kMode == CB_EDGE_SCALAR_B) {
                ra[v] = (!last || p0 + q < k) ? *reinterpret_cast<const float4 *>(src)
                                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            } else {
                ra[v].x = (!last || p0 + q + 0 < k) ? src[0] : 0.0f;
                ra[v].y = (!last || p0 + q + 1 < k) ? src[1] : 0.0f;
                ra[v].z = (!last || p0 + q + 2 < k) ? src[2] : 0.0f;
                ra[v].w = (!last || p0 + q + 3 < k) ? src[3] : 0.0f;
            }
        }
#pragma unroll
        for (int v = 0; v < S::B_VECS; v++) {
            const int r = (tid + v * THREADS) / (BN / 4);
            const float *src = b_src[v] + (size_t)p0 * n;
            if (kMode == CB_EDGE_FULL) {
                rb[v] = *reinterpret_cast<const float4 *>(src);
            } else if (kMode == CB_EDGE_VEC4) {
                rb[v] = (!last || p0 + r < k) ? *reinterpret_cast<const float4 *>(src)
                                              : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            } else {
                const bool ok = !last || p0 + r < k;
                const int lim = b_lim[v];
                rb[v].x = ok ? src[0] : 0.0f;
                rb[v].y = ok ? src[min(1, lim)] : 0.0f;
                rb[v].z = ok ? src[min(2, lim)] : 0.0f;
                rb[v].w = ok ? src[min(3, lim)] : 0.0f;
            }
        }
    };

    /* Registers -> shared stage st (A transposed). */
    auto store_shared = [&](int st) {
#pragma unroll
        for (int v = 0; v < S::A_VECS; v++) {
            const int f = tid + v * THREADS, r = f / (BK / 4), q = f % (BK / 4) * 4;
            as[st][q + 0][r] = ra[v].x;
            as[st][q + 1][r] = ra[v].y;
            as[st][q + 2][r] = ra[v].z;
            as[st][q + 3][r] = ra[v].w;
        }
#pragma unroll
        for (int v = 0; v < S::B_VECS; v++) {
            const int f = tid + v * THREADS, r = f / (BN / 4), q = f % (BN / 4) * 4;
            *reinterpret_cast<float4 *>(&bs[st][r][q]) = rb[v];
        }
    };

    cb_matmul_zero_tile(acc);
    float fa[2][TM], fb[2][TN];

    /* Fragments of k-row kk of stage st into register slot `slot`. */
    auto load_frag = [&](int st, int kk, int slot) {
#pragma unroll
        for (int s = 0; s < SUB_M; s++) {
            const float4 v = *reinterpret_cast<const float4 *>(&as[st][kk][tr + s * 16]);
            fa[slot][4 * s + 0] = v.x, fa[slot][4 * s + 1] = v.y;
            fa[slot][4 * s + 2] = v.z, fa[slot][4 * s + 3] = v.w;
        }
#pragma unroll
        for (int t = 0; t < SUB_N; t++) {
            const float4 v = *reinterpret_cast<const float4 *>(&bs[st][kk][tc + t * 32]);
            fb[slot][4 * t + 0] = v.x, fb[slot][4 * t + 1] = v.y;
            fb[slot][4 * t + 2] = v.z, fb[slot][4 * t + 3] = v.w;
        }
    };

    auto outer_product = [&](int slot) {
        cb_wt_outer_fma<TM, TN, kOrder>(acc, fa[slot], fb[slot]);
    };

    /* Slice t is the product's last when t + 1 == slices: only then (and
     * never in FULL) load_global checks k. */
    const int slices = (k + BK - 1) / BK;
    if (kPipelined) {
        if (kMode != CB_EDGE_FULL && t_begin + 1 == slices)
            load_global(t_begin * BK, true);
        else
            load_global(t_begin * BK, false);
        store_shared(0);
        __syncthreads();
        load_frag(0, 0, 0);
        int st = 0;
        for (int t = t_begin; t < t_end; t++) {
            const bool more = t + 1 < t_end;
            if (more) { /* in flight during this slice */
                if (kMode != CB_EDGE_FULL && t + 2 == slices)
                    load_global((t + 1) * BK, true);
                else
                    load_global((t + 1) * BK, false);
            }
#pragma unroll
            for (int kk = 0; kk < BK; kk++) {
                if (kk < BK - 1) {
                    load_frag(st, kk + 1, (kk + 1) & 1);
                } else if (more) {
                    store_shared(st ^ 1);
                    __syncthreads();
                    load_frag(st ^ 1, 0, 0);
                }
                outer_product(kk & 1);
            }
            st ^= 1;
        }
    } else {
        for (int t = t_begin; t < t_end; t++) {
            if (kMode != CB_EDGE_FULL && t + 1 == slices)
                load_global(t * BK, true);
            else
                load_global(t * BK, false);
            store_shared(0);
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < BK; kk++) {
                load_frag(0, kk, 0);
                outer_product(0);
            }
            __syncthreads();
        }
    }
}

/* Epilogue: alpha acc + beta C into the tile at (m0, n0); each lane writes
 * SUB_M x SUB_N sub-tiles, a float4 per row. */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, int kMode>
__device__ __forceinline__ void
cb_wt_store_tile(float (&acc)[cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::TM]
                             [cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::TN],
                 int m, int n, float alpha, float beta, float *__restrict__ c, int m0, int n0)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int tr = (warp / WARPS_N) * S::WM + (lane >> 3) * 4;
    const int tc = (warp % WARPS_N) * S::WN + (lane & 7) * 4;
#pragma unroll
    for (int s = 0; s < SUB_M; s++) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = m0 + tr + s * 16 + i;
            if (kMode != CB_EDGE_FULL && row >= m) continue;
            float *crow = c + (size_t)row * n;
#pragma unroll
            for (int t = 0; t < SUB_N; t++) {
                const int col = n0 + tc + t * 32;
                const float *r = acc[4 * s + i] + 4 * t;
                if (kMode == CB_EDGE_SCALAR || kMode == CB_EDGE_SCALAR_B) {
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        if (col + j < n) cb_matmul_store(crow + col + j, alpha * r[j], beta);
                    }
                    continue;
                }
                if (kMode == CB_EDGE_VEC4 && col >= n) continue;
                cb_matmul_store4(
                    crow + col, make_float4(alpha * r[0], alpha * r[1], alpha * r[2], alpha * r[3]),
                    beta);
            }
        }
    }
}

/* One block per tile of C, the whole k range: the tile at (blockIdx.y,
 * blockIdx.x), or with kLinear tile blockIdx.x of the row-major order (the
 * whole tiles before a stream-K tail, matmul_warptile_sk.h). */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, bool kPipelined, int kMode,
          bool kLinear = false>
__global__ void __launch_bounds__(cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::THREADS,
                                  cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::MIN_BLOCKS)
    cb_matmul_warptile_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                              const float *__restrict__ b, float beta, float *__restrict__ c)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    using St = cb_wt_stages<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined>;
    __shared__ __align__(16) typename St::a_t as;
    __shared__ __align__(16) typename St::b_t bs;
    const int tiles_x = (n + S::BN - 1) / S::BN, t = blockIdx.x;
    const int m0 = kLinear ? t / tiles_x * S::BM : blockIdx.y * S::BM;
    const int n0 = kLinear ? t % tiles_x * S::BN : blockIdx.x * S::BN;
    float acc[S::TM][S::TN];
    cb_wt_mainloop<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined, kMode>(
        as, bs, m, n, k, a, b, m0, n0, 0, (k + BK - 1) / BK, acc);
    cb_wt_store_tile<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kMode>(acc, m, n, alpha, beta, c, m0, n0);
}

/* The edge mode of a warp-tiled launch: cb_edge_mode_for, and SCALAR_B
 * where only n (or B, or C) keeps B and C from float4s. Why A's float4s
 * matter there: at 4093 x 4093 x 4096 the scalar path read A as 4 loads
 * of one float each from rows 16 KiB apart and ran at 76 % of cuBLAS FP32,
 * against 95 % at 4093^3 (rows 16372 bytes apart). */
static inline int cb_wt_edge_mode(const cb_matmul_args *g, int bm, int bn, int bk)
{
    const int mode = cb_edge_mode_for(g, bm, bn, bk);
    return mode == CB_EDGE_SCALAR && g->k % 4 == 0 && cb_aligned16(g->a) ? CB_EDGE_SCALAR_B : mode;
}

/* Launch (or describe) one configuration, picking the edge mode from the
 * shape and the pointers' alignment. */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, bool kPipelined>
static cudaError_t cb_wt_launch(const cb_matmul_args *g, cudaStream_t stream)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    const dim3 grid(cb_cdiv(g->n, S::BN), cb_cdiv(g->m, S::BM));
    switch (cb_wt_edge_mode(g, S::BM, S::BN, BK)) {
    case CB_EDGE_FULL:
        cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined, CB_EDGE_FULL>
            <<<grid, S::THREADS, 0, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta,
                                              g->c);
        break;
    case CB_EDGE_VEC4:
        cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined, CB_EDGE_VEC4>
            <<<grid, S::THREADS, 0, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta,
                                              g->c);
        break;
    case CB_EDGE_SCALAR_B:
        cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined, CB_EDGE_SCALAR_B>
            <<<grid, S::THREADS, 0, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta,
                                              g->c);
        break;
    default:
        cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined, CB_EDGE_SCALAR>
            <<<grid, S::THREADS, 0, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta,
                                              g->c);
        break;
    }
    return cudaGetLastError();
}

template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, bool kPipelined>
static cudaError_t cb_wt_query(const cb_matmul_args *g, cb_matmul_launch_info *info)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    const dim3 grid(cb_cdiv(g->n, S::BN), cb_cdiv(g->m, S::BM));
    const int mode = cb_wt_edge_mode(g, S::BM, S::BN, BK);
    char desc[96];
    snprintf(desc, sizeof desc, "%dx%dx%d tile, %dx%d/thread, %d threads, %s%s", S::BM, S::BN, BK,
             S::TM, S::TN, S::THREADS, cb_edge_mode_name(mode),
             kPipelined ? ", double-buffered" : "");
    switch (mode) {
    case CB_EDGE_FULL:
        return cb_matmul_fill_info(
            cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined, CB_EDGE_FULL>,
            S::THREADS, grid, desc, info);
    case CB_EDGE_VEC4:
        return cb_matmul_fill_info(
            cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kPipelined, CB_EDGE_VEC4>,
            S::THREADS, grid, desc, info);
    case CB_EDGE_SCALAR_B:
        return cb_matmul_fill_info(cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK,
                                                             kPipelined, CB_EDGE_SCALAR_B>,
                                   S::THREADS, grid, desc, info);
    default:
        return cb_matmul_fill_info(cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK,
                                                             kPipelined, CB_EDGE_SCALAR>,
                                   S::THREADS, grid, desc, info);
    }
}

#endif
