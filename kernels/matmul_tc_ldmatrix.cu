/* matmul_tc_ldmatrix.cu - tensor-core rung 2: rung 1's 128x128 block and
 * 64x32 warp tiles, with the three things that keep mma.sync busy on
 * Ampere and Hopper:
 *
 *   - cp.async: 16-byte copies global -> shared that skip registers and
 *     run in the background; a 3-stage ring of k-slices (one slice is 128
 *     bytes of k: 64 BF16 or 32 FP32) keeps two slices in flight while the
 *     warps compute on the third. One barrier per slice: after it, every
 *     warp has finished the slice computed before, whose stage the next
 *     copies overwrite.
 *   - ldmatrix: one instruction loads a warp's whole 16x16 A fragment (x4,
 *     four 8x8 matrices of 16-bit elements), and .trans loads B fragments
 *     straight from the row-major (k, n) tile, where rung 1 needed two
 *     16-bit loads and a shift per register. TF32 A uses the same
 *     instruction: an 8x8 b16 matrix is an 8x4 FP32 one, and lane l gets
 *     word l % 4 of row l / 4, exactly the m16n8k8 A layout. TF32 B (no
 *     32-bit transpose exists) is read one float per lane.
 *   - XOR swizzle instead of padding (matmul_tc_layout.h): the 8 row
 *     addresses of each 8x8 matrix fall in 8 different 16-byte bank groups,
 *     so every ldmatrix is conflict-free, and cp.async keeps writing whole
 *     aligned 16-byte chunks.
 *
 * Constraint: k and n multiples of 8 (BF16) or 4 (TF32), so that each
 * 16-byte chunk of a row is entirely inside or outside the matrix (the
 * zero-filling cp.async handles every edge of m, n and k otherwise). */
#include "matmul_tc_plan.h"

#include <type_traits>

/* Below sm_80 the kernels here compile to stubs (the default build carries
 * sm_75 too; the runner never launches them there), which leaves the tile
 * constants unreferenced: nvcc's warning 177, an error under -Werror. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#pragma nv_diag_suppress 177
#endif

namespace
{

constexpr int kBM = 128, kBN = 128, kThreads = 256, kStages = 3;
constexpr int kWarpsN = 4;      /* 2 x 4 warps of 64 x 32 */
constexpr int kMT = 4, kNT = 4; /* m16 and n8 tiles per warp */
constexpr int kRowBytesA = 128; /* one k-slice of an A row */
constexpr int kStageA = kBM * kRowBytesA;

template <cb_tc_precision P> struct cb_ldm_cfg {
    typedef typename std::conditional<P == CB_TC_BF16, uint16_t, float>::type elem;
    static constexpr int ESIZE = (int)sizeof(elem);
    static constexpr int BK = kRowBytesA / ESIZE; /* 64 BF16 or 32 FP32 */
    static constexpr int VEC = 16 / ESIZE;        /* elements per chunk */
    static constexpr int KSTEP = P == CB_TC_BF16 ? 16 : 8;
    static constexpr int B_ROW_BYTES = kBN * ESIZE;  /* 256 or 512 */
    static constexpr int B_CPR = B_ROW_BYTES / 16;   /* 16 or 32 chunks */
    static constexpr int STAGE_B = BK * B_ROW_BYTES; /* 16 KiB either way */
    static constexpr int STAGE = kStageA + STAGE_B;
    static constexpr int SMEM = kStages * STAGE; /* 96 KiB */
};

template <cb_tc_precision P>
__device__ __forceinline__ void cb_ldm_load_stage(const cb_tc_args &g, uint32_t sa, uint32_t sb,
                                                  int bm, int bn, int k0, int tid)
{
    typedef cb_ldm_cfg<P> C;
    typedef typename C::elem T;
    const T *A = static_cast<const T *>(g.a), *B = static_cast<const T *>(g.b);
#pragma unroll
    for (int i = 0; i < kStageA / 16 / kThreads; i++) { /* 4 chunks of A per thread */
        const int id = tid + i * kThreads, r = id / 8, c = id % 8;
        const int gr = bm + r, gk = k0 + c * C::VEC;
        const bool ok = gr < g.m && gk < g.k;
        cb_cp_async_cg16(sa + r * kRowBytesA + cb_tc_swizzle_row128(r, c) * 16,
                         ok ? A + (size_t)gr * g.k + gk : A, ok);
    }
#pragma unroll
    for (int i = 0; i < C::STAGE_B / 16 / kThreads; i++) { /* 4 chunks of B per thread */
        const int id = tid + i * kThreads, r = id / C::B_CPR, c = id % C::B_CPR;
        const int gk = k0 + r, gn = bn + c * C::VEC;
        const bool ok = gk < g.k && gn < g.n;
        const int pc = P == CB_TC_BF16 ? cb_tc_swizzle_bf16_b(r, c) : cb_tc_swizzle_tf32_b(r, c);
        cb_cp_async_cg16(sb + r * C::B_ROW_BYTES + pc * 16, ok ? B + (size_t)gk * g.n + gn : B, ok);
    }
}

template <cb_tc_precision P>
__global__ void __launch_bounds__(kThreads, 2) cb_tc_ldmatrix_kernel(cb_tc_args g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    typedef cb_ldm_cfg<P> C;
    extern __shared__ __align__(128) uint8_t smem[];
    const uint32_t sbase = cb_tc_smem_addr(smem);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gq = lane / 4, q = lane % 4;
    const int wm = warp / kWarpsN, wn = warp % kWarpsN;
    const int bm = blockIdx.y * kBM, bn = blockIdx.x * kBN;
    const int kt_count = (g.k + C::BK - 1) / C::BK;

    float acc[kMT][kNT][4];
    cb_tc_zero_tiles(acc);

    /* Prologue: slices 0 .. kStages-2 in flight, one commit group each
     * (empty groups past the end keep the group count uniform). */
#pragma unroll
    for (int s = 0; s < kStages - 1; s++) {
        if (s < kt_count)
            cb_ldm_load_stage<P>(g, sbase + s * C::STAGE, sbase + s * C::STAGE + kStageA, bm, bn,
                                 s * C::BK, tid);
        cb_cp_async_commit();
    }

    for (int kt = 0; kt < kt_count; kt++) {
        /* Groups committed so far: kt + kStages - 1; allowing kStages - 2
         * pending leaves slice kt complete (for this thread; the barrier
         * makes it complete for all and frees slice kt - 1's stage). */
        cb_cp_async_wait<kStages - 2>();
        __syncthreads();
        const int next = kt + kStages - 1;
        if (next < kt_count) {
            const uint32_t st = sbase + (next % kStages) * C::STAGE;
            cb_ldm_load_stage<P>(g, st, st + kStageA, bm, bn, next * C::BK, tid);
        }
        cb_cp_async_commit();

        const uint32_t sa = sbase + (kt % kStages) * C::STAGE, sb = sa + kStageA;
        const uint8_t *sb_ptr = smem + (kt % kStages) * C::STAGE + kStageA;
#pragma unroll
        for (int kk = 0; kk < C::BK / C::KSTEP; kk++) {
            uint32_t af[kMT][4], bf[kNT][2];
#pragma unroll
            for (int i = 0; i < kMT; i++) {
                /* lanes 0-15: rows 0-15 at chunk 2 kk; lanes 16-31: the
                 * next chunk (k + 8 BF16 / k + 4 FP32) */
                const int r = wm * 64 + i * 16 + lane % 16, c = kk * 2 + lane / 16;
                cb_tc_ldmatrix_x4(af[i], sa + r * kRowBytesA + cb_tc_swizzle_row128(r, c) * 16);
                if constexpr (P == CB_TC_TF32) {
#pragma unroll
                    for (int e = 0; e < 4; e++)
                        af[i][e] = cb_tc_to_tf32(__uint_as_float(af[i][e]));
                }
            }
            if constexpr (P == CB_TC_BF16) {
#pragma unroll
                for (int jp = 0; jp < kNT / 2; jp++) {
                    /* matrices: (k 0-7, tile 2jp), (k 8-15, tile 2jp),
                     * (k 0-7, tile 2jp+1), (k 8-15, tile 2jp+1) */
                    const int mi = lane / 8;
                    const int k = kk * 16 + (mi & 1) * 8 + lane % 8;
                    const int chunk = wn * 4 + 2 * jp + (mi >> 1); /* 8 BF16 per chunk */
                    uint32_t r[4];
                    cb_tc_ldmatrix_x4_trans(r, sb + k * C::B_ROW_BYTES +
                                                   cb_tc_swizzle_bf16_b(k, chunk) * 16);
                    bf[2 * jp][0] = r[0], bf[2 * jp][1] = r[1];
                    bf[2 * jp + 1][0] = r[2], bf[2 * jp + 1][1] = r[3];
                }
            } else {
                /* k = kk 8 + q + 4h, so k % 4 = q for every load: the
                 * swizzled chunk of column n is (n / 4) ^ 2q throughout. */
                const uint8_t *row = sb_ptr + (kk * 8 + q) * C::B_ROW_BYTES + gq % 4 * 4;
#pragma unroll
                for (int j = 0; j < kNT; j++) {
                    const int chunk = cb_tc_swizzle_tf32_b(q, wn * 8 + 2 * j + gq / 4);
#pragma unroll
                    for (int h = 0; h < 2; h++)
                        bf[j][h] = cb_tc_to_tf32(*reinterpret_cast<const float *>(
                            row + 4 * h * C::B_ROW_BYTES + chunk * 16));
                }
            }
            cb_tc_mma_tiles<P>(acc, af, bf);
        }
    }
    cb_cp_async_wait<0>(); /* nothing may be left writing shared memory at exit */

    cb_tc_store_tiles(g, acc, bm + wm * 64, bn + wn * 32, gq, q);
#endif
}

typedef void (*cb_ldm_kernel_fn)(cb_tc_args);

cb_ldm_kernel_fn cb_ldm_pick(cb_tc_precision prec)
{
    return prec == CB_TC_BF16 ? cb_tc_ldmatrix_kernel<CB_TC_BF16>
                              : cb_tc_ldmatrix_kernel<CB_TC_TF32>;
}

int cb_ldm_smem(cb_tc_precision prec)
{
    return prec == CB_TC_BF16 ? cb_ldm_cfg<CB_TC_BF16>::SMEM : cb_ldm_cfg<CB_TC_TF32>::SMEM;
}

} // namespace

static cudaError_t cb_tc_ldmatrix_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    const cb_tc_args &g = p->args;
    p->variant = 0;
    p->block = dim3(kThreads);
    p->grid = dim3(cb_tc_cdiv(g.n, kBN), cb_tc_cdiv(g.m, kBM));
    p->smem_bytes = cb_ldm_smem(p->prec);
    cudaError_t err = cudaFuncSetAttribute(
        cb_ldm_pick(p->prec), cudaFuncAttributeMaxDynamicSharedMemorySize, p->smem_bytes);
    if (err != cudaSuccess) return err;
    char desc[96];
    snprintf(desc, sizeof desc, "128x128x%d tile, %d-stage cp.async, ldmatrix%s, swizzled smem",
             p->prec == CB_TC_BF16 ? 64 : 32, kStages, p->prec == CB_TC_BF16 ? "(.trans)" : "");
    return cb_tc_fill_info(cb_ldm_pick(p->prec), p, desc, info);
}

static cudaError_t cb_tc_ldmatrix_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    cb_ldm_pick(p->prec)<<<p->grid, p->block, p->smem_bytes, stream>>>(p->args);
    return cudaGetLastError();
}

/* cb_tc_rung_ldmatrix (matmul_tc_kernels.h). */
CB_TC_RUNG(ldmatrix, CB_TC_NEEDS_SM80("cp.async and mma.sync with BF16/TF32"),
           .precisions = CB_TC_PREC_BIT(CB_TC_BF16) | CB_TC_PREC_BIT(CB_TC_TF32),
           .rows = CB_TC_ROWS_CP_ASYNC, .tf32_bt = false, .persistent = false);
