/* matmul_tc_sm90.h - the Hopper building blocks of the WGMMA rungs (CUDA
 * C++, included only by the *_sm90a.cu files): mbarriers, TMA tile loads,
 * wgmma with shared-memory descriptors, setmaxnreg, and the pieces both
 * Hopper kernels share (loading a stage, one k-slice of wgmmas for one
 * consumer warpgroup, the epilogue).
 *
 * Everything that needs sm_90a is compiled only when the device pass has
 * it (__CUDA_ARCH_FEAT_SM90_ALL, set by -gencode arch=compute_90a,...); in
 * any other pass the kernels are empty, and cb_tc_supported refuses them
 * ("built without sm_90a") before they could run.
 *
 * Shared-memory tiles (all 128-byte swizzled, see matmul_tc_layout.h):
 *   A   BM rows of one 128-byte k-slice (64 BF16, 32 FP32 or 128 FP8):
 *       K-major;
 *   B   BF16: BN / 64 blocks, each BK = 64 rows (k) of 64 columns (n), i.e.
 *       MN-major, read with imm-trans-b = 1 (row-major B as it is);
 *       TF32: BN rows (n) of one 32-float k-slice of B^T: K-major (wgmma
 *       transposes only 16-bit types, so the run transposes B first);
 *       FP8: BN rows (n) of one 128-byte k-slice of B, which FP8 callers
 *       give K-major.
 * One TMA box per operand block lands each of them, and TMA's 128-byte
 * swizzle is the pattern the descriptors declare (mode 1), with every
 * stage 1024-byte aligned so the pattern's phase is 0 (base offset 0).
 */
#ifndef CB_MATMUL_TC_SM90_H
#define CB_MATMUL_TC_SM90_H

#include "matmul_tc_plan.h"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define CB_TC_SM90A_DEVICE 1
#else
#define CB_TC_SM90A_DEVICE 0
#endif

/* ---- mbarriers (count arrivals; TMA adds the bytes it delivers) ---- */

__device__ __forceinline__ void cb_mbar_init(uint64_t *bar, uint32_t count)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(cb_tc_smem_addr(bar)), "r"(count)
                 : "memory");
#endif
}

/* Make the initialised barriers visible to the async proxy (TMA) and to
 * the other threads (with the __syncthreads that follows). */
__device__ __forceinline__ void cb_mbar_init_fence()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

/* One arrival that also announces `bytes` of TMA traffic for this phase. */
__device__ __forceinline__ void cb_mbar_expect_tx(uint64_t *bar, uint32_t bytes)
{
#if CB_TC_SM90A_DEVICE
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(cb_tc_smem_addr(bar)),
        "r"(bytes)
        : "memory");
#endif
}

__device__ __forceinline__ void cb_mbar_arrive(uint64_t *bar)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(cb_tc_smem_addr(bar)) : "memory");
#endif
}

/* Nanoseconds a pipeline wait may last before the kernel gives up (a
 * barrier that never completes means a wrong byte count, phase or arrival
 * count: a bug). __trap() ends the launch with an error the runner reports
 * as a failed point, where an endless spin would hang the run. 10 s is
 * orders of magnitude above any correct wait, also under compute-sanitizer. */
#define CB_TC_WAIT_LIMIT_NS 10000000000ull

__device__ __forceinline__ uint64_t cb_tc_globaltimer()
{
    uint64_t t = 0;
#if CB_TC_SM90A_DEVICE
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
#endif
    return t;
}

/* One try_wait on `parity` (.acquire.cluster where other CTAs arrive). */
template <bool CLUSTER> __device__ __forceinline__ bool cb_mbar_try(uint32_t addr, uint32_t parity)
{
    uint32_t done = 1;
#if CB_TC_SM90A_DEVICE
    if constexpr (CLUSTER)
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(addr), "r"(parity)
                     : "memory");
    else
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(addr), "r"(parity)
                     : "memory");
#endif
    return done != 0;
}

/* Wait until the phase of parity `parity` has completed. A fresh barrier
 * is in phase 0, and parity 1 then names the (complete) phase before it:
 * a producer's first wait on an "empty" barrier passes at once. The clock
 * is read only after a try_wait failed (try_wait itself suspends the
 * thread for a while), so a wait that succeeds at once costs nothing more. */
template <bool CLUSTER>
__device__ __forceinline__ void cb_mbar_wait_impl(uint64_t *bar, uint32_t parity)
{
    const uint32_t addr = cb_tc_smem_addr(bar);
    if (cb_mbar_try<CLUSTER>(addr, parity)) return;
    const uint64_t t0 = cb_tc_globaltimer();
    while (!cb_mbar_try<CLUSTER>(addr, parity))
        if (cb_tc_globaltimer() - t0 > CB_TC_WAIT_LIMIT_NS) __trap();
}

__device__ __forceinline__ void cb_mbar_wait(uint64_t *bar, uint32_t parity)
{
    cb_mbar_wait_impl<false>(bar, parity);
}

/* ---- TMA: a 2D box of `map` at element coordinates (x inner, y outer)
 * into shared memory at `dst`, completing on `bar` ---- */

__device__ __forceinline__ void cb_tma_load_2d(uint32_t dst, const CUtensorMap *map, uint64_t *bar,
                                               int x, int y)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(cb_tc_smem_addr(bar)), "r"(x), "r"(y)
                 : "memory");
#endif
}

/* Fetch both tensor maps (__grid_constant__ kernel parameters), and a third
 * where the loads use one (rung 4's last-slice B), into the TMA unit's
 * descriptor cache before the first load needs them. Every thread
 * calls it first thing in the kernel; thread 0, the one that issues the
 * loads, fetches, so the fetch overlaps the barriers' set-up instead of
 * delaying the first k-slice.
 * It matters only where the kernel is that first slice and little more:
 * at 1000 x 3000 x 200 (one tile per block) the cluster rung's kernel went
 * from 8.58-8.61 to 8.54 us in four processes each (CUPTI); rung 4's
 * stayed at 7.94-7.97 us, and 4096^3 and 8192^3 did not move. */
__device__ __forceinline__ void cb_tma_prefetch_maps(const CUtensorMap *map_a,
                                                     const CUtensorMap *map_b,
                                                     const CUtensorMap *map_third = nullptr)
{
#if CB_TC_SM90A_DEVICE
    if (threadIdx.x != 0) return; /* the thread that issues the loads */
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map_a)) : "memory");
    asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map_b)) : "memory");
    if (map_third)
        asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map_third))
                     : "memory");
#endif
}

/* ---- clusters (rung 5: two CTAs that share B) ---- */

__device__ __forceinline__ uint32_t cb_cluster_ctarank()
{
    uint32_t r = 0;
#if CB_TC_SM90A_DEVICE
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
#endif
    return r;
}

/* The cluster barrier in two halves, for a thread with work between them
 * (cb_cluster_sync: none). The arrive's release orders the thread's
 * earlier memory operations (remote arrivals on the peer's barriers)
 * before it, and waits for them: arriving before a tile's stores rather
 * than after keeps the stores out of that wait. Each thread arrives once,
 * then waits once. */
__device__ __forceinline__ void cb_cluster_arrive()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ void cb_cluster_wait()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

/* Every thread of every CTA of the cluster arrives, then waits for all. */
__device__ __forceinline__ void cb_cluster_sync()
{
    cb_cluster_arrive();
    cb_cluster_wait();
}

/* Arrive on the barrier at the same shared-memory offset in CTA `cta` of
 * the cluster. Default (.release.cta) semantics, as the local arrive: what
 * the arrival publishes is that this warp's wgmmas finished reading the
 * stage, and those reads are complete at wgmma.wait_group; an explicit
 * .release.cluster costs a MEMBAR.ALL.GPU per arrival (seen in the SASS). */
__device__ __forceinline__ void cb_mbar_arrive_cluster(uint64_t *bar, uint32_t cta)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("{\n.reg .b32 ra;\n"
                 "mapa.shared::cluster.u32 ra, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [ra];\n}" ::"r"(cb_tc_smem_addr(bar)),
                 "r"(cta)
                 : "memory");
#endif
}

/* cb_mbar_wait for a barrier that other CTAs of the cluster arrive on. */
__device__ __forceinline__ void cb_mbar_wait_cluster(uint64_t *bar, uint32_t parity)
{
    cb_mbar_wait_impl<true>(bar, parity);
}

/* cb_tma_load_2d into the same offset of every CTA in `cta_mask`, each
 * copy completing on the barrier at `bar`'s offset in its own CTA. */
__device__ __forceinline__ void cb_tma_load_2d_multicast(uint32_t dst, const CUtensorMap *map,
                                                         uint64_t *bar, int x, int y,
                                                         uint16_t cta_mask)
{
#if CB_TC_SM90A_DEVICE
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(cb_tc_smem_addr(bar)), "r"(x), "r"(y),
                 "h"(cta_mask)
                 : "memory");
#endif
}

/* ---- wgmma bookkeeping ---- */

__device__ __forceinline__ void cb_wgmma_fence()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#endif
}

__device__ __forceinline__ void cb_wgmma_commit()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
#endif
}

/* Wait until at most N committed groups are still running. */
template <int N> __device__ __forceinline__ void cb_wgmma_wait()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
#endif
}

/* Tell the compiler the accumulators may have changed here (wgmma writes
 * them asynchronously): no read of them moves above a wait. */
template <int R> __device__ __forceinline__ void cb_wgmma_fence_regs(float (&d)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        asm volatile("" : "+f"(d[i])::"memory");
}

/* A consumer's accumulators set to zero before its first wgmma, fenced so
 * that the zeroing stays out of the wgmma pipeline (ptxas C7515). */
template <int R> __device__ __forceinline__ void cb_wg_zero_acc(float (&acc)[R])
{
#pragma unroll
    for (int i = 0; i < R; i++)
        acc[i] = 0.0f;
    cb_wgmma_fence_regs(acc);
}

template <int R> __device__ __forceinline__ void cb_setmaxnreg_inc()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(R));
#endif
}

template <int R> __device__ __forceinline__ void cb_setmaxnreg_dec()
{
#if CB_TC_SM90A_DEVICE
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(R));
#endif
}

#include "matmul_tc_wgmma_ops.h"

/* ---- the pieces the Hopper kernels share ---- */

template <cb_tc_precision P, int BM, int BN> struct cb_wg_cfg {
    static constexpr int ESIZE = P == CB_TC_BF16 ? 2 : P == CB_TC_TF32 ? 4 : 1;
    static constexpr int BK = 128 / ESIZE;   /* k per stage: one 128-byte row */
    static constexpr int KSTEP = 32 / ESIZE; /* k per wgmma: 32 bytes of a K-major row */
    static constexpr int STAGE_A = BM * 128, STAGE_B = BN * 128;
    static constexpr int STAGE = STAGE_A + STAGE_B;
    static_assert(BN % 64 == 0 && BN <= 256 && BM % 64 == 0, "wgmma tile shape");
    /* The k-steps of the last k-slice that hold data (k = 200: 1 of 4):
     * TMA zero-fills the rest, whose wgmmas would only add zeros. */
    static __host__ __device__ int tail_steps(int k)
    {
        const int last = k - ((k + BK - 1) / BK - 1) * BK; /* k in the last slice */
        return (last + KSTEP - 1) / KSTEP;
    }
};

/* Issue the TMA loads of k-slice kt of the tile at (bm, bn) into the stage
 * at (sa, sb), arming `full` with the bytes they will deliver. The byte
 * count is the whole boxes': TMA writes zeros for the parts outside the
 * matrix and counts them too. */
template <cb_tc_precision P, int BM, int BN>
__device__ __forceinline__ void cb_wg_load_stage(uint32_t sa, uint32_t sb, uint64_t *full,
                                                 const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                 int bm, int bn, int kt)
{
    typedef cb_wg_cfg<P, BM, BN> C;
    cb_mbar_expect_tx(full, C::STAGE);
    cb_tma_load_2d(sa, map_a, full, kt * C::BK, bm); /* box: BK x BM */
    if constexpr (P == CB_TC_BF16) {
#pragma unroll
        for (int j = 0; j < BN / 64; j++) /* box: 64 n x BK k, one per 64 columns */
            cb_tma_load_2d(sb + j * C::BK * 128, map_b, full, bn + j * 64, kt * C::BK);
    } else {
        cb_tma_load_2d(sb, map_b, full, kt * C::BK, bn); /* B^T / FP8 B: box BK k x BN n */
    }
}

/* The last k-slice of a BF16 tile whose k ends inside the slice: A's box
 * as cb_wg_load_stage's, B's boxes only `rows` k-rows deep (map_b_tail),
 * so the stage fills with what the last k-steps read, not with zeros past
 * k. Each box's rows land where a full box's first rows do, so the
 * swizzle and the descriptors are the same. */
template <int BM, int BN>
__device__ __forceinline__ void
cb_wg_load_last_bf16(uint32_t sa, uint32_t sb, uint64_t *full, const CUtensorMap *map_a,
                     const CUtensorMap *map_b_tail, int bm, int bn, int kt, int rows)
{
    typedef cb_wg_cfg<CB_TC_BF16, BM, BN> C;
    cb_mbar_expect_tx(full, C::STAGE_A + BN / 64 * rows * 128);
    cb_tma_load_2d(sa, map_a, full, kt * C::BK, bm);
#pragma unroll
    for (int j = 0; j < BN / 64; j++)
        cb_tma_load_2d(sb + j * C::BK * 128, map_b_tail, full, bn + j * 64, kt * C::BK);
}

/* One wgmma of the precision and width: D (64 x BN) += A B. */
template <cb_tc_precision P, int BN>
__device__ __forceinline__ void cb_wg_mma(float (&acc)[BN / 2], uint64_t da, uint64_t db,
                                          uint32_t scale_d)
{
    if constexpr (P == CB_TC_BF16) {
        if constexpr (BN == 256) cb_wgmma_bf16_n256<1>(acc, da, db, scale_d);
        if constexpr (BN == 192) cb_wgmma_bf16_n192<1>(acc, da, db, scale_d);
        if constexpr (BN == 128) cb_wgmma_bf16_n128<1>(acc, da, db, scale_d);
    } else if constexpr (P == CB_TC_TF32) {
        if constexpr (BN == 256) cb_wgmma_tf32_n256(acc, da, db, scale_d);
        if constexpr (BN == 192) cb_wgmma_tf32_n192(acc, da, db, scale_d);
        if constexpr (BN == 128) cb_wgmma_tf32_n128(acc, da, db, scale_d);
    } else {
        if constexpr (BN == 256) cb_wgmma_e4m3_n256(acc, da, db, scale_d);
        if constexpr (BN == 192) cb_wgmma_e4m3_n192(acc, da, db, scale_d);
        if constexpr (BN == 128) cb_wgmma_e4m3_n128(acc, da, db, scale_d);
    }
}

/* The wgmmas of one k-slice for one consumer warpgroup: its 64 rows of A
 * (at sa) times the stage's B (at sb). The descriptors step through the
 * slice: 32 bytes along a K-major row per k-step (16 BF16 / 8 TF32 / 32
 * FP8), or 16 rows of 128 bytes down an MN-major BF16 block. `accumulate`
 * false starts the sums (the first slice of a tile). */
template <cb_tc_precision P, int BN,
          int STEPS = cb_wg_cfg<P, 64, BN>::BK / cb_wg_cfg<P, 64, BN>::KSTEP>
__device__ __forceinline__ void cb_wg_mma_slice(float (&acc)[BN / 2], uint32_t sa, uint32_t sb,
                                                bool accumulate)
{
    typedef cb_wg_cfg<P, 64, BN> C;
#pragma unroll
    for (int kk = 0; kk < STEPS; kk++) {
        const uint32_t scale_d = accumulate || kk > 0 ? 1u : 0u;
        const uint64_t da = cb_tc_desc(sa + kk * 32, 16, 1024, CB_TC_SWIZZLE_128B);
        const uint64_t db =
            P == CB_TC_BF16
                ? cb_tc_desc(sb + kk * C::KSTEP * 128, C::BK * 128, 1024, CB_TC_SWIZZLE_128B)
                : cb_tc_desc(sb + kk * 32, 16, 1024, CB_TC_SWIZZLE_128B);
        cb_wg_mma<P, BN>(acc, da, db, scale_d);
    }
}

/* Shared memory a consumer warp stages its C through (cb_wg_store): 16
 * rows of a 32-column chunk, rows padded by 4 floats. The 8 consumer warps'
 * stages lie after the ring's barriers (cb_wg_ring::c_stage), 16-byte
 * aligned: CB_WG_C_STAGES_BYTES more dynamic shared memory at launch. */
constexpr int CB_WG_STAGE_LD = 36, CB_WG_STAGE_FLOATS = 16 * CB_WG_STAGE_LD;
constexpr int CB_WG_C_STAGES_BYTES = 8 * CB_WG_STAGE_FLOATS * 4 + 16;

/* Write one consumer warpgroup's 64 x BN accumulators at (row0, col0):
 * warp w of the group holds rows 16w .. 16w+15, and every 8 columns the
 * m16n8 accumulator layout repeats (acc[4j .. 4j+3] for columns 8j ..).
 * Every store is bounds-checked unless the whole 64 x BN block is inside C.
 * `stage`: this warp's CB_WG_STAGE_FLOATS of shared memory, through which a
 * whole tile goes out (NULL: stores straight from the registers). */
template <int BN>
__device__ __forceinline__ void cb_wg_store(const cb_tc_args &g, const float (&acc)[BN / 2],
                                            int row0, int col0, float *stage = nullptr)
{
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32 % 4;
    const int row = row0 + w * 16 + lane / 4, col = col0 + 2 * (lane % 4);
    const bool pairs = cb_tc_pairs(g);
    if (stage && g.beta == 0.0f && pairs && row0 + 64 <= g.m && col0 + BN <= g.n &&
        (g.ldc & 3) == 0 && ((uintptr_t)g.c & 15) == 0) {
        /* A whole tile through the warp's shared-memory stage, 32 columns
         * at a time: the accumulators' layout (8 rows x 32 bytes per warp
         * store, 8 lines touched) becomes 16-byte stores of whole 128-byte
         * row segments (4 lines per warp store): a quarter of the line
         * requests per byte, where a block writes its whole tile of C at
         * the end (1000 x 3000 x 200: one 96 KiB tile per block). */
        const int r = lane / 4, q = lane % 4;
        float *out = g.c + (size_t)(row0 + w * 16) * g.ldc + col0;
#pragma unroll
        for (int c = 0; c < BN / 32; c++) {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int a = 4 * (4 * c + j);
                *reinterpret_cast<float2 *>(stage + r * CB_WG_STAGE_LD + 8 * j + 2 * q) =
                    make_float2(g.alpha * acc[a], g.alpha * acc[a + 1]);
                *reinterpret_cast<float2 *>(stage + (r + 8) * CB_WG_STAGE_LD + 8 * j + 2 * q) =
                    make_float2(g.alpha * acc[a + 2], g.alpha * acc[a + 3]);
            }
            __syncwarp();
#pragma unroll
            for (int t = 0; t < 4; t++) {
                const int sr = lane / 8 + 4 * t, sc = 4 * (lane % 8);
                *reinterpret_cast<float4 *>(out + (size_t)sr * g.ldc + 32 * c + sc) =
                    *reinterpret_cast<const float4 *>(stage + sr * CB_WG_STAGE_LD + sc);
            }
            __syncwarp();
        }
        return;
    }
    if (g.beta == 0.0f && pairs && row0 + 64 <= g.m && col0 + BN <= g.n) {
        /* The common case, a whole tile and no C to read: no checks. */
        float *p = g.c + (size_t)row * g.ldc + col, *p8 = p + (size_t)8 * g.ldc;
        if (g.alpha == 1.0f) {
            /* The accumulators stored as they are. alpha * acc goes through
             * a few temporary registers, and each product then waits until
             * the store that last read its register has taken the value:
             * at 1000 x 3000 x 200 (one 96 KiB tile of C per block, written
             * at the end) Nsight Compute found 27 % of the kernel's warp
             * samples on those multiplies (long scoreboard) and 7 % more
             * draining the stores at exit. */
#pragma unroll
            for (int j = 0; j < BN / 8; j++) {
                *reinterpret_cast<float2 *>(p + 8 * j) = make_float2(acc[4 * j], acc[4 * j + 1]);
                *reinterpret_cast<float2 *>(p8 + 8 * j) =
                    make_float2(acc[4 * j + 2], acc[4 * j + 3]);
            }
            return;
        }
#pragma unroll
        for (int j = 0; j < BN / 8; j++) {
            *reinterpret_cast<float2 *>(p + 8 * j) =
                make_float2(g.alpha * acc[4 * j], g.alpha * acc[4 * j + 1]);
            *reinterpret_cast<float2 *>(p8 + 8 * j) =
                make_float2(g.alpha * acc[4 * j + 2], g.alpha * acc[4 * j + 3]);
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < BN / 8; j++) {
        cb_tc_store_pair(g, pairs, row, col + 8 * j, acc[4 * j], acc[4 * j + 1]);
        cb_tc_store_pair(g, pairs, row + 8, col + 8 * j, acc[4 * j + 2], acc[4 * j + 3]);
    }
}

/* The producer of a persistent warp-specialised kernel (one thread): it
 * walks the block's tiles t = blockIdx.x, + gridDim.x, ... in grouped order
 * (cb_tc_tile_coords) and, for each of a tile's kt_count k-slices, waits
 * until the slice's stage of the ring r is empty, then calls load(s, tm,
 * tn, kt) to issue its TMA loads into stage s. The stage index and phase
 * run on across tiles (`it` counts the block's k-slices), as the
 * consumers' do; parity 1 of a fresh `empty` barrier passes at once. */
template <int STAGES, typename Ring, typename Load>
__device__ __forceinline__ void cb_wg_produce(const Ring &r, int tiles_m, int tiles_n, int group_m,
                                              int kt_count, Load &&load)
{
    const int tiles = tiles_m * tiles_n;
    uint32_t it = 0;
    for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
        int tm, tn;
        cb_tc_tile_coords(t, tiles_m, tiles_n, group_m, &tm, &tn);
        for (int kt = 0; kt < kt_count; kt++, it++) {
            const uint32_t s = it % STAGES;
            cb_mbar_wait(&r.empty[s], ((it / STAGES) & 1) ^ 1);
            load(s, tm, tn, kt);
        }
    }
}

/* A consumer warpgroup's k-slice in stage s of the ring r: wait for the
 * stage to be full (`parity`), issue the slice's wgmmas into acc with A's
 * rows at a_off bytes into the stage (`accumulate` false starts the sums),
 * commit them, and wait until only this slice's wgmmas may still run: the
 * slice before it is then done and its stage may be released. */
template <cb_tc_precision P, int BN, typename Ring>
__device__ __forceinline__ void cb_wg_consume_slice(const Ring &r, float (&acc)[BN / 2], uint32_t s,
                                                    uint32_t parity, uint32_t a_off,
                                                    bool accumulate)
{
    cb_mbar_wait(&r.full[s], parity);
    cb_wgmma_fence();
    cb_wg_mma_slice<P, BN>(acc, r.a(s) + a_off, r.b(s), accumulate);
    cb_wgmma_commit();
    cb_wgmma_wait<1>();
}

/* The same for a tile's last slice, of which only the first `steps`
 * k-steps hold data (TMA zero-filled the k past the matrix): their wgmmas
 * alone, 1 of 4 at k = 200. A separate function so that the main loop's
 * slices keep one straight-line body. */
template <cb_tc_precision P, int BN, typename Ring>
__device__ __forceinline__ void cb_wg_consume_last_slice(const Ring &r, float (&acc)[BN / 2],
                                                         uint32_t s, uint32_t parity,
                                                         uint32_t a_off, bool accumulate, int steps)
{
    static_assert(cb_wg_cfg<P, 64, BN>::BK / cb_wg_cfg<P, 64, BN>::KSTEP == 4, "k-steps per slice");
    cb_mbar_wait(&r.full[s], parity);
    cb_wgmma_fence();
    if (steps >= 4)
        cb_wg_mma_slice<P, BN, 4>(acc, r.a(s) + a_off, r.b(s), accumulate);
    else if (steps == 3)
        cb_wg_mma_slice<P, BN, 3>(acc, r.a(s) + a_off, r.b(s), accumulate);
    else if (steps == 2)
        cb_wg_mma_slice<P, BN, 2>(acc, r.a(s) + a_off, r.b(s), accumulate);
    else
        cb_wg_mma_slice<P, BN, 1>(acc, r.a(s) + a_off, r.b(s), accumulate);
    cb_wgmma_commit();
    cb_wgmma_wait<1>();
}

/* FP8: the per-tensor scales folded into alpha (read once per thread). */
__device__ __forceinline__ float cb_wg_fp8_alpha(const cb_tc_args &g)
{
    return g.alpha * (g.scale_a ? *g.scale_a : 1.0f) * (g.scale_b ? *g.scale_b : 1.0f);
}

/* Round the dynamic shared memory up to the 1024-byte alignment the
 * 128-byte swizzle pattern repeats at (the launch asks for 1 KiB extra). */
__device__ __forceinline__ uint8_t *cb_wg_align_smem(uint8_t *raw)
{
    const uint32_t a = cb_tc_smem_addr(raw);
    return raw + ((1024u - (a & 1023u)) & 1023u);
}

/* The ring of S pipeline stages every Hopper kernel here keeps in dynamic
 * shared memory, aligned to 1 KiB: S stages of A (STAGE_A bytes each)
 * from sa0, S of B (STAGE_B each) from sb0, then a `full` and an `empty`
 * mbarrier per stage. `full` completes on the producer's expect_tx (one
 * arrival and the bytes), `empty` on `releases` arrivals (the consumer
 * warps that hand a stage back). Thread 0 initialises the barriers; the
 * kernel makes them visible (__syncthreads, or a cluster barrier where the
 * peer CTA arrives) before any use. BYTES is the dynamic shared memory to
 * launch with: the stages, the barriers and 1 KiB to align. */
template <int S, int STAGE_A, int STAGE_B> struct cb_wg_ring {
    static constexpr int BYTES = S * (STAGE_A + STAGE_B) + 2 * S * 8 + 1024;
    uint8_t *smem; /* the aligned base: the first stage of A */
    uint64_t *full, *empty;
    uint32_t sa0, sb0;

    __device__ __forceinline__ cb_wg_ring(uint8_t *raw, uint32_t releases)
        : smem(cb_wg_align_smem(raw)),
          full(reinterpret_cast<uint64_t *>(smem + S * (STAGE_A + STAGE_B))), empty(full + S),
          sa0(cb_tc_smem_addr(smem)), sb0(sa0 + S * STAGE_A)
    {
        if (threadIdx.x == 0) {
            for (int s = 0; s < S; s++) {
                cb_mbar_init(&full[s], 1);
                cb_mbar_init(&empty[s], releases);
            }
            cb_mbar_init_fence();
        }
    }
    /* Shared-memory addresses of stage s of A and of B. */
    __device__ __forceinline__ uint32_t a(uint32_t s) const { return sa0 + s * STAGE_A; }
    __device__ __forceinline__ uint32_t b(uint32_t s) const { return sb0 + s * STAGE_B; }
    /* Consumer warp w's (0..7) C stage, past the barriers (cb_wg_store);
     * the launch adds CB_WG_C_STAGES_BYTES for them. */
    __device__ __forceinline__ float *c_stage(int w) const
    {
        const uintptr_t end = reinterpret_cast<uintptr_t>(empty + S);
        return reinterpret_cast<float *>((end + 15) & ~uintptr_t(15)) + w * CB_WG_STAGE_FLOATS;
    }
    /* Stage s of B for loads by hand (TF32's register fragments). */
    __device__ __forceinline__ const uint8_t *b_ptr(uint32_t s) const
    {
        return smem + S * STAGE_A + s * STAGE_B;
    }
};

#endif
