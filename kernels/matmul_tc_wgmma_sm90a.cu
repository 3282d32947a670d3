/* matmul_tc_wgmma_sm90a.cu - tensor-core rung 3 (Hopper, sm_90a): wgmma
 * on shared-memory operands that TMA loads, in a 3-stage mbarrier ring.
 *
 * What changes against rung 2:
 *   - wgmma.mma_async: a warpgroup (4 warps) issues one 64 x 128 x 16
 *     product (BF16; x 8 for TF32) that reads A and B straight from shared
 *     memory through descriptors, with no ldmatrix and no fragment
 *     registers; the accumulators stay in registers (64 per thread). It is
 *     asynchronous: the warps go on while the tensor cores work, and
 *     commit/wait groups say when a stage may be reused.
 *   - TMA (cp.async.bulk.tensor): one thread asks for a whole 128 x 64 BF16
 *     box of A (or of B) with one instruction; the copy engine computes the
 *     addresses, fills zeros outside the matrix, writes the tile swizzled
 *     the way wgmma reads it, and reports the bytes on an mbarrier.
 *   - mbarriers instead of __syncthreads: per stage, `full` completes when
 *     its bytes have landed, `empty` when all 8 warps have finished reading
 *     it. Thread 0 refills a stage as soon as it is empty.
 *
 * Block: 256 threads = 2 warpgroups, a 128 x 128 tile, each warpgroup 64
 * rows of it. Each k-slice's wgmmas are committed as one group and waited
 * for one slice later (wait_group 1), so the tensor cores always have the
 * next slice queued while a warp releases the previous one. 3 stages of
 * 32 KiB leave room for 2 blocks per SM.
 *
 * Thread 0 is both a consumer and the producer, and waits for `empty`
 * inside the k-loop: its warpgroup issues its next wgmma only after that
 * wait. Rung 4 moves the producer into a warpgroup of its own.
 *
 * Constraints (TMA: row pitches multiples of 16 bytes): BF16 k and n
 * multiples of 8; TF32 k a multiple of 4 (B is transposed into the
 * workspace first, any n). */
#include "matmul_tc_sm90.h"

namespace
{

constexpr int kBM = 128, kBN = 128, kStages = 3, kThreads = 256;
typedef cb_wg_ring<kStages, kBM * 128, kBN * 128> Ring; /* 128-byte rows of k */

template <cb_tc_precision P>
__global__ void __launch_bounds__(kThreads)
    cb_tc_wgmma_kernel(const __grid_constant__ CUtensorMap map_a,
                       const __grid_constant__ CUtensorMap map_b, cb_tc_args g)
{
#if CB_TC_SM90A_DEVICE
    typedef cb_wg_cfg<P, kBM, kBN> C;
    extern __shared__ uint8_t smem_raw[];
    cb_tma_prefetch_maps(&map_a, &map_b);
    const Ring r(smem_raw, kThreads / 32); /* empty: one arrival per warp */
    const int tid = threadIdx.x, wg = tid / 128, lane = tid % 32;
    const int bm = blockIdx.y * kBM, bn = blockIdx.x * kBN;
    const int kt_count = (g.k + C::BK - 1) / C::BK;
    __syncthreads();
    if (tid == 0)
        for (int s = 0; s < kStages && s < kt_count; s++)
            cb_wg_load_stage<P, kBM, kBN>(r.a(s), r.b(s), &r.full[s], &map_a, &map_b, bm, bn, s);

    float acc[kBN / 2];
    cb_wg_zero_acc(acc);

    for (int kt = 0; kt < kt_count; kt++) {
        const int s = kt % kStages;
        cb_mbar_wait(&r.full[s], (kt / kStages) & 1);
        cb_wgmma_fence();
        cb_wg_mma_slice<P, kBN>(acc, r.a(s) + wg * 64 * 128, r.b(s), kt > 0);
        cb_wgmma_commit();
        cb_wgmma_wait<1>(); /* slice kt - 1 is done: release its stage */
        if (kt > 0) {
            const int ps = (kt - 1) % kStages;
            if (lane == 0) cb_mbar_arrive(&r.empty[ps]);
            if (tid == 0 && kt - 1 + kStages < kt_count) {
                cb_mbar_wait(&r.empty[ps], ((kt - 1) / kStages) & 1);
                cb_wg_load_stage<P, kBM, kBN>(r.a(ps), r.b(ps), &r.full[ps], &map_a, &map_b, bm, bn,
                                              kt - 1 + kStages);
            }
            __syncwarp();
        }
    }
    cb_wgmma_wait<0>();
    cb_wgmma_fence_regs(acc);
    cb_wg_store<kBN>(g, acc, bm + wg * 64, bn);
#endif
}

typedef void (*cb_wg_kernel_fn)(const CUtensorMap, const CUtensorMap, cb_tc_args);

cb_wg_kernel_fn cb_wg_pick(cb_tc_precision prec)
{
    return prec == CB_TC_BF16 ? cb_tc_wgmma_kernel<CB_TC_BF16> : cb_tc_wgmma_kernel<CB_TC_TF32>;
}

constexpr int kSmem = Ring::BYTES;

} // namespace

extern "C" bool cb_tc_sm90a_built(void)
{
#ifdef CB_TC_BUILT_SM90A
    return true;
#else
    return false;
#endif
}

/* The tensor maps of a Hopper rung (matmul_tc_plan.h), over what the plan
 * points the kernel at: the caller's operands, their staged copies, or B^T
 * in the workspace, each with its row pitch and the real row and column
 * counts, so TMA zero-fills everything past the matrix. */
cudaError_t cb_tc_wgmma_maps(cb_tc_plan *p, int bm, int bn)
{
    const cb_tc_args &g = p->args;
    const cb_tc_layout &l = p->layout;
    const int bk = 128 / cb_tc_element_bytes(p->prec); /* one 128-byte k-slice */
    cudaError_t err = cb_tc_tensor_map_2d(&p->map_a, p->a, p->prec, g.m, g.k, l.lda_read, bm, bk);
    if (err != cudaSuccess) return err;
    if (p->prec == CB_TC_BF16)
        return cb_tc_tensor_map_2d(&p->map_b, p->b, p->prec, g.k, g.n, l.ldb_read, bk, 64);
    /* TF32 B^T and FP8 B, both K-major: n rows of k */
    return cb_tc_tensor_map_2d(&p->map_b, p->b, p->prec, g.n, g.k, l.ldb_read, bn, bk);
}

static cudaError_t cb_tc_wgmma_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    if (!cb_tc_sm90a_built()) return cudaErrorInvalidValue;
    cudaError_t err = cb_tc_wgmma_maps(p, kBM, kBN);
    if (err != cudaSuccess) return err;
    p->variant = 0;
    p->block = dim3(kThreads);
    p->grid = dim3(cb_tc_cdiv(p->args.n, kBN), cb_tc_cdiv(p->args.m, kBM));
    p->smem_bytes = kSmem;
    err = cudaFuncSetAttribute(cb_wg_pick(p->prec), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               p->smem_bytes);
    if (err != cudaSuccess) return err;
    char desc[96];
    snprintf(desc, sizeof desc, "128x128x%d tile, 2 warpgroups, wgmma m64n128k%d, TMA, %d stages%s",
             p->prec == CB_TC_BF16 ? 64 : 32, p->prec == CB_TC_BF16 ? 16 : 8, kStages,
             p->prec == CB_TC_BF16 ? "" : ", B transposed first");
    return cb_tc_fill_info(cb_wg_pick(p->prec), p, desc, info);
}

static cudaError_t cb_tc_wgmma_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    cb_wg_pick(p->prec)<<<p->grid, p->block, p->smem_bytes, stream>>>(p->map_a, p->map_b, p->args);
    return cudaGetLastError();
}

/* cb_tc_rung_wgmma (matmul_tc_kernels.h). */
CB_TC_RUNG(wgmma, CB_TC_NEEDS_SM90A("wgmma + TMA, sm_90a code"),
           .precisions = CB_TC_PREC_BIT(CB_TC_BF16) | CB_TC_PREC_BIT(CB_TC_TF32),
           .rows = CB_TC_ROWS_TMA, .tf32_bt = true, .persistent = false);
