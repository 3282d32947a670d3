/* matmul_multistage.cu - the FP32 SIMT ladder with the tensor-core rungs'
 * memory pipeline (matmul_multistage_kernels.h).
 *
 * What changes against the pipelined rung (matmul_warptile.h):
 *   - cp.async, STAGES deep: each thread issues 16-byte global -> shared
 *     copies of slice t + STAGES - 1 and moves on; nothing passes through
 *     registers, so the ~12 registers of staged float4s and their pointers
 *     are free, and the copies of two slices are in flight behind the FFMAs
 *     instead of one. One barrier per slice (after it, every warp has
 *     finished the slice whose stage the next copies overwrite).
 *   - A stays row-major in shared memory: cp.async cannot transpose, and
 *     the transposing scalar stores of the pipelined rung (4 STS.32 per
 *     float4 of A) go. A lane reads its A values as float4 along k, one per
 *     row: 8 LDS.128 give 8 rows x 4 k, the A operands of 4 k-steps, so a
 *     lane still spends 4 LDS.128 (2 of A, 2 of B) per k on its 64 FFMAs.
 *   - XOR swizzle on A's 16-byte chunks: the 4 lane rows of a warp read
 *     rows 4 apart at the same k, which in plain rows of 16 or 32 floats
 *     sit in the same banks (rows of 64 or 128 bytes). Chunk c of row r is
 *     stored at chunk c ^ ((r / 4) mod (BK / 4)): those 4 rows land in 4
 *     different bank groups, and the cp.async writes (8 lanes, two rows of
 *     4 chunks or one row of 8) stay conflict-free as well. B is read as
 *     the pipelined rung reads it: 8 lanes take 8 consecutive float4.
 *   - k-slices of 16 or 32 (one barrier per 1024 or 2048 FFMAs a thread).
 * The lane layout and the 8x8 micro-tile are the warptiled rung's (4 x 8
 * lanes, 4x4 sub-tiles 16 rows and 32 columns apart).
 *
 * Edges: when k and n are multiples of 4 and A, B 16-byte aligned, a
 * 16-byte chunk is entirely inside or outside the matrix and cp.async
 * zero-fills the outside ones (src-size 0); otherwise every element is a
 * 4-byte cp.async (the same pipeline, 4x the copy instructions: at k = 16
 * that is 16 copies against 1024 FFMAs per thread and slice). C is stored
 * as float4 where n is a multiple of 4 and C aligned, else per element;
 * blocks past an edge check every row and column. */
#include "cb_cp_async.h"
#include "matmul_cuda.h"
#include "matmul_multistage_kernels.h"
#include "matmul_multistage_layout.h"

#include <math.h>
#include <string.h>

/* Below sm_80 (no cp.async) the kernels compile to stubs; the benchmark
 * needs 8.0. The stubs leave constants unreferenced: warning 177. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#pragma nv_diag_suppress 177
#endif

namespace
{

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES> struct cb_ms_shape {
    static constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N; /* per warp */
    static constexpr int SUB_M = WM / 16, SUB_N = WN / 32;     /* 4x4 sub-tiles per lane */
    static constexpr int TM = 4 * SUB_M, TN = 4 * SUB_N;
    static constexpr int KC = BK / 4; /* 16-byte chunks in A's rows */
    static constexpr int STAGE_FLOATS = BM * BK + BK * BN;
    static constexpr int SMEM = STAGES * STAGE_FLOATS * 4;
    /* 8x8 per thread needs about 90 registers for accumulators and
     * fragments: 128 a thread leaves two blocks of 256 per SM. The blocks
     * of 128 threads get 168 (three per SM): at 128 they spilled. */
    static constexpr int MIN_BLOCKS = THREADS >= 256 ? 2 : THREADS == 128 ? 3 : 8;
    static_assert(WM % 16 == 0 && WN % 32 == 0, "warp tile: whole 4x4 sub-tiles of the lanes");
    static_assert(KC == 4 || KC == 8, "A rows of 4 or 8 chunks (the swizzle's period)");
    static_assert(BM * KC % THREADS == 0 && BK * BN / 4 % THREADS == 0, "copies per thread");
    static_assert(THREADS % BK == 0 && THREADS % BN == 0 && (THREADS / KC) % 4 == 0,
                  "copy rows: whole rows per pass, the same swizzle for every pass");
};

/* Float offset of A(r, kk) in a stage: chunk kk / 4 of row r swizzled
 * (matmul_multistage_layout.h). */
template <int BK> __device__ __forceinline__ int cb_ms_a_off(int r, int kk)
{
    return cb_ms_a_offset(r, kk, BK);
}

/* cp.async of W floats into a stage (cb_cp_async.h), from generic
 * shared-memory pointers: 16 bytes (.cg), or 4 (.ca, the only caching a
 * copy under 16 bytes may use). */
template <int W> __device__ __forceinline__ void cb_ms_cp(float *dst, const float *src, bool ok)
{
    const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
    if constexpr (W == 4)
        cb_cp_async_cg16(d, src, ok);
    else
        cb_cp_async_ca4(d, src, ok);
}

/* The copies of slice t (k from t BK) into stage `as` / `bs`. */
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, bool VEC>
__device__ __forceinline__ void cb_ms_load(float *as, float *bs, const float *__restrict__ a,
                                           const float *__restrict__ b, int m, int n, int k, int m0,
                                           int n0, int k0)
{
    using S = cb_ms_shape<BM, BN, BK, WARPS_M, WARPS_N, STAGES>;
    const int tid = threadIdx.x;
    /* A thread's copies are RSTEP rows apart in the same column, so one
     * source pointer and a row step give them all (keeping a pointer per
     * copy live across the k-loop spilled). VEC: a copy moves a 16-byte
     * chunk (W = 4 floats), and the loops stay rolled; else one float, 4x
     * the copies, unrolled by 4. */
    constexpr int W = VEC ? 4 : 1, UNROLL = VEC ? 1 : 4;
    constexpr int A_COLS = BK / W, B_COLS = BN / W; /* copies across a row of A, of B */
    constexpr int A_STEP = S::THREADS / A_COLS, B_STEP = S::THREADS / B_COLS;
    const int ar = tid / A_COLS, ak = tid % A_COLS * W;
    const bool ak_ok = k0 + ak < k;
    const float *asrc = a + (size_t)(m0 + ar) * k + k0 + ak;
#pragma unroll UNROLL
    for (int i = 0; i < BM / A_STEP; i++) {
        const bool ok = ak_ok && m0 + ar + i * A_STEP < m;
        cb_ms_cp<W>(as + cb_ms_a_off<BK>(ar + i * A_STEP, ak),
                    ok ? asrc + (size_t)i * A_STEP * k : a, ok);
    }
    const int br = tid / B_COLS, bq = tid % B_COLS * W;
    const bool bq_ok = n0 + bq < n;
    const float *bsrc = b + (size_t)(k0 + br) * n + n0 + bq;
#pragma unroll UNROLL
    for (int i = 0; i < BK / B_STEP; i++) {
        const bool ok = bq_ok && k0 + br + i * B_STEP < k;
        cb_ms_cp<W>(bs + (br + i * B_STEP) * BN + bq, ok ? bsrc + (size_t)i * B_STEP * n : b, ok);
    }
}

/* One slice from shared memory: per two k, 8 LDS.64 of A (the lane's 8
 * rows) and 2 LDS.128 of B per k, 64 FFMAs per k. */
template <int BN, int BK, int TM, int TN>
__device__ __forceinline__ void cb_ms_compute(float (&acc)[TM][TN], const float *as,
                                              const float *bs, int tr, int tc)
{
#pragma unroll
    for (int kh = 0; kh < BK / 2; kh++) {
        float fa[TM][2]; /* rows of the lane x k = 2 kh, 2 kh + 1 */
#pragma unroll
        for (int i = 0; i < TM; i++) {
            const int r = tr + (i / 4) * 16 + i % 4;
            const float2 v = *reinterpret_cast<const float2 *>(as + cb_ms_a_off<BK>(r, 2 * kh));
            fa[i][0] = v.x, fa[i][1] = v.y;
        }
#pragma unroll
        for (int kq = 0; kq < 2; kq++) {
            float fb[TN];
#pragma unroll
            for (int j = 0; j < TN / 4; j++) {
                const float4 v =
                    *reinterpret_cast<const float4 *>(bs + (2 * kh + kq) * BN + tc + j * 32);
                fb[4 * j] = v.x, fb[4 * j + 1] = v.y, fb[4 * j + 2] = v.z, fb[4 * j + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++)
                    acc[i][j] = fmaf(fa[i][kq], fb[j], acc[i][j]);
        }
    }
}

/* C[row][col .. col + 3] = alpha r + beta C, the columns inside n only;
 * `vec`: n % 4 == 0 and C aligned, so the float4 is all in or all out. */
__device__ __forceinline__ void cb_ms_store4(float *crow, int col, int n, bool vec, const float *r,
                                             float alpha, float beta)
{
    if (vec) {
        if (col >= n) return;
        cb_matmul_store4(crow + col,
                         make_float4(alpha * r[0], alpha * r[1], alpha * r[2], alpha * r[3]), beta);
        return;
    }
#pragma unroll
    for (int j = 0; j < 4; j++)
        if (col + j < n) cb_matmul_store(crow + col + j, alpha * r[j], beta);
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES, bool VEC>
__global__ void __launch_bounds__(cb_ms_shape<BM, BN, BK, WARPS_M, WARPS_N, STAGES>::THREADS,
                                  cb_ms_shape<BM, BN, BK, WARPS_M, WARPS_N, STAGES>::MIN_BLOCKS)
    cb_matmul_ms_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                        const float *__restrict__ b, float beta, float *__restrict__ c)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    using S = cb_ms_shape<BM, BN, BK, WARPS_M, WARPS_N, STAGES>;
    constexpr int TM = S::TM, TN = S::TN;
    extern __shared__ __align__(16) float smem[];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
    const int tr = (warp / WARPS_N) * S::WM + (lane >> 3) * 4; /* the lane's first row */
    const int tc = (warp % WARPS_N) * S::WN + (lane & 7) * 4;  /* ... and column */
    const int slices = (k + BK - 1) / BK;
    auto stage_a = [&](int s) { return smem + s * S::STAGE_FLOATS; };
    auto stage_b = [&](int s) { return smem + s * S::STAGE_FLOATS + BM * BK; };

    float acc[TM][TN];
    cb_matmul_zero_tile(acc);

    /* Prologue: slices 0 .. STAGES - 2 in flight, a group each (empty groups
     * past the end keep the count uniform). */
#pragma unroll
    for (int s = 0; s < STAGES - 1; s++) {
        if (s < slices)
            cb_ms_load<BM, BN, BK, WARPS_M, WARPS_N, STAGES, VEC>(stage_a(s), stage_b(s), a, b, m,
                                                                  n, k, m0, n0, s * BK);
        cb_cp_async_commit();
    }
    for (int t = 0; t < slices; t++) {
        /* Groups committed: t + STAGES - 1; at most STAGES - 2 pending
         * leaves slice t landed (for this thread; the barrier: for all). */
        cb_cp_async_wait<STAGES - 2>();
        __syncthreads();
        const int next = t + STAGES - 1;
        if (next < slices)
            cb_ms_load<BM, BN, BK, WARPS_M, WARPS_N, STAGES, VEC>(
                stage_a(next % STAGES), stage_b(next % STAGES), a, b, m, n, k, m0, n0, next * BK);
        cb_cp_async_commit();
        cb_ms_compute<BN, BK, TM, TN>(acc, stage_a(t % STAGES), stage_b(t % STAGES), tr, tc);
    }
    cb_cp_async_wait<0>(); /* nothing may still be writing shared memory at exit */

    /* Epilogue: rows tr + 16 s + i, columns tc + 32 u + j. */
    const bool vec_c = n % 4 == 0 && ((uintptr_t)c & 15u) == 0;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        const int row = m0 + tr + (i / 4) * 16 + i % 4;
        if (row >= m) continue;
#pragma unroll
        for (int u = 0; u < S::SUB_N; u++)
            cb_ms_store4(c + (size_t)row * n, n0 + tc + u * 32, n, vec_c, acc[i] + 4 * u, alpha,
                         beta);
    }
#endif
}

/* One configuration: its two kernels (16-byte or 4-byte copies). */
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int STAGES> struct cb_ms_config {
    using S = cb_ms_shape<BM, BN, BK, WARPS_M, WARPS_N, STAGES>;
    static bool vec(const cb_matmul_args *g)
    {
        return g->k % 4 == 0 && g->n % 4 == 0 && cb_aligned16(g->a) && cb_aligned16(g->b);
    }
    static cudaError_t launch(const cb_matmul_args *g, cudaStream_t stream)
    {
        const dim3 grid(cb_cdiv(g->n, BN), cb_cdiv(g->m, BM));
        if (grid.y > 65535u) return cudaErrorInvalidValue;
        if (vec(g))
            cb_matmul_ms_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, true>
                <<<grid, S::THREADS, S::SMEM, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b,
                                                        g->beta, g->c);
        else
            cb_matmul_ms_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, false>
                <<<grid, S::THREADS, S::SMEM, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b,
                                                        g->beta, g->c);
        return cudaGetLastError();
    }
    static cudaError_t query(const cb_matmul_args *g, cb_matmul_launch_info *info)
    {
        const bool v = vec(g);
        auto kernel = v ? cb_matmul_ms_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, true>
                        : cb_matmul_ms_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, false>;
        /* Both kernels may run in one process: raise both limits here. */
        cudaError_t err =
            cudaFuncSetAttribute(cb_matmul_ms_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, true>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM);
        if (err == cudaSuccess)
            err = cudaFuncSetAttribute(
                cb_matmul_ms_kernel<BM, BN, BK, WARPS_M, WARPS_N, STAGES, false>,
                cudaFuncAttributeMaxDynamicSharedMemorySize, S::SMEM);
        if (err != cudaSuccess) return err;
        const dim3 grid(cb_cdiv(g->n, BN), cb_cdiv(g->m, BM));
        char desc[96];
        snprintf(desc, sizeof desc, "m%dn%dk%ds%d: %d-stage cp.async%s, %dx%d/thread, swizzled A",
                 BM, BN, BK, STAGES, STAGES, v ? "" : " (4-byte)", S::TM, S::TN);
        cudaFuncAttributes fa;
        err = cudaFuncGetAttributes(&fa, (const void *)kernel);
        if (err != cudaSuccess) return err;
        info->threads = S::THREADS;
        info->grid_x = (int)grid.x;
        info->grid_y = (int)grid.y;
        info->regs = fa.numRegs;
        info->smem_bytes = S::SMEM;
        info->local_bytes = (int)fa.localSizeBytes;
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info->blocks_per_sm, kernel,
                                                            S::THREADS, S::SMEM);
        snprintf(info->desc, sizeof info->desc, "%s", desc);
        return err;
    }
};

/* Template arguments per config: BM, BN, BK, warps (M, N), stages. */
#define CB_MS_CONFIGS(X)                                                                           \
    X(CB_MATMUL_MS_M128N128K16S3, 128, 128, 16, 4, 2, 3)                                           \
    X(CB_MATMUL_MS_M128N128K16S4, 128, 128, 16, 4, 2, 4)                                           \
    X(CB_MATMUL_MS_M128N128K32S3, 128, 128, 32, 4, 2, 3)                                           \
    X(CB_MATMUL_MS_M128N64K16S3, 128, 64, 16, 4, 1, 3)                                             \
    X(CB_MATMUL_MS_M64N128K16S3, 64, 128, 16, 2, 2, 3)                                             \
    X(CB_MATMUL_MS_M64N64K16S3, 64, 64, 16, 2, 1, 3)

} // namespace

static const cb_matmul_instance cb_ms_instances[] = {
#define CB_X(cfg, bm, bn, bk, wm, wn, st)                                                          \
    {cfg, cb_ms_config<bm, bn, bk, wm, wn, st>::launch,                                            \
     cb_ms_config<bm, bn, bk, wm, wn, st>::query},
    CB_MS_CONFIGS(CB_X)
#undef CB_X
};

/* ---- choosing a configuration ---- */

namespace
{

/* The autotuned choices: on a GPU with `sms` SMs the fastest configuration
 * measured at (m, n) by the sweep of scripts/record/gemm.sh, whose
 * scripts/record/gemm_tune.py prints these rows from its results.csv. A
 * row with sms 0 ends the table. */
struct cb_ms_tuned {
    int sms, m, n;
    cb_matmul_ms_config config;
};
const cb_ms_tuned cb_ms_table[] = {
    /* recorded on an NVIDIA H200 (132 SMs), driver 580.159.04, CUDA 13.0,
     * SM clock 1980 MHz in every row (tests/data/h200-r3/gemm/tune-*): */
    {132, 1000, 3000, CB_MATMUL_MS_M64N128K16S3},  /* 28.5 TFLOP/s, 87.9 % of cuBLAS */
    {132, 4093, 4093, CB_MATMUL_MS_M128N128K32S3}, /* 27.0 TFLOP/s, 57.3 % of cuBLAS */
    {132, 4096, 4096, CB_MATMUL_MS_M64N128K16S3},  /* 35.7 TFLOP/s, 69.9 % of cuBLAS */
    {132, 8192, 8192, CB_MATMUL_MS_M64N128K16S3},  /* 36.8 TFLOP/s, 72.0 % of cuBLAS */
    {0, 0, 0, CB_MATMUL_MS_M128N128K16S3},
};

/* Without a recorded choice: the largest tile whose grid still gives every
 * SM two blocks (the pipelined rung's rule, with the occupancy of these
 * kernels: two 256-thread blocks per SM). */
cb_matmul_ms_config cb_ms_rule(int m, int n, int sm_count)
{
    const long long need = 2LL * (sm_count > 0 ? sm_count : 1);
    if ((long long)cb_cdiv(m, 128) * cb_cdiv(n, 128) >= need) return CB_MATMUL_MS_M128N128K16S3;
    if ((long long)cb_cdiv(m, 128) * cb_cdiv(n, 64) >= need) return CB_MATMUL_MS_M128N64K16S3;
    return CB_MATMUL_MS_M64N64K16S3;
}

} // namespace

/* The recorded row of this SM count nearest to (m, n) in log scale, if one
 * is within a factor of 2 in both; else the rule. */
extern "C" int cb_matmul_ms_auto(int m, int n, int sm_count, bool *from_table)
{
    double best = 1e300;
    int pick = -1;
    for (const cb_ms_tuned *t = cb_ms_table; t->sms; t++) {
        if (t->sms != sm_count) continue;
        const double dm = fabs(log2((double)m / t->m)), dn = fabs(log2((double)n / t->n));
        if (dm <= 1.0 && dn <= 1.0 && dm + dn < best) best = dm + dn, pick = (int)t->config;
    }
    if (from_table) *from_table = pick >= 0;
    return pick >= 0 ? pick : (int)cb_ms_rule(m, n, sm_count);
}

/* The `config` axis: `auto` or one of CB_MATMUL_MS_CONFIG_NAMES. */
static int cb_ms_variant_of(const char *text, int m, int n, int sm_count, char *why, size_t len)
{
    return cb_matmul_config_of(text, CB_MATMUL_MS_CONFIG_NAMES,
                               cb_matmul_ms_auto(m, n, sm_count, nullptr), why, len);
}

CB_MATMUL_RUNG_OF(multistage, cb_ms_instances, "config", cb_ms_variant_of);
