/* matmul_tc_wgmma_cluster_sm90a.cu - tensor-core rung 5 (Hopper, sm_90a):
 * rung 4 in clusters of two CTAs that share B through TMA multicast.
 *
 * Rung 4 reads 48 KiB from L2 per 128x256x64 k-slice and block: at ~650
 * TFLOP/s over 132 SMs that is about 7 TB/s of L2 -> SM traffic, close to
 * what L2 delivers. Two CTAs of a cluster compute vertically adjacent tiles
 * (tile rows 2i and 2i+1, same columns), so they need the same B slice:
 * each loads its own A (16 KiB) and half of B (16 KiB), and multicast
 * writes that half into both CTAs' shared memory. L2 traffic drops by a
 * third (32 KiB instead of 48 per CTA and slice).
 *
 * What the sharing costs in synchronisation:
 *   - a CTA's producer overwrites stage s in both CTAs (its half of B goes
 *     to both), so it waits until the consumers of both have released s:
 *     every consumer warp arrives on `empty` in its own CTA and in the peer
 *     (16 arrivals per stage use);
 *   - `full` in each CTA expects the whole 48 KiB: its own A and B half
 *     from its own producer, the other half from the peer's;
 *   - the barriers must be initialised in both CTAs before the first
 *     remote write or arrival (a cluster barrier after init), and neither
 *     CTA may exit while the peer can still arrive on its barriers (a
 *     cluster barrier at the end, by every thread; the consumers arrive
 *     at it before their last tile's stores and wait after them).
 * The cluster walks cluster tiles (2 x 128 rows by 256 or 192 columns) in
 * grouped order, one cluster per 2 SMs, persistently. The width is rung
 * 4's choice for the shape (cb_tc_pick_tile_n), 128 read as 192: where
 * 256-wide tiles would leave a last wave mostly empty (1000 x 3000 is 96
 * tiles of 256 on 132 SMs, 128 of 192), the narrower tile keeps every SM
 * busy, and in a cluster it still halves B's L2 traffic; with a tile or
 * two per SM that traffic, all loaded at once, is what the block waits
 * for before its first wgmma. With an odd number of tile
 * rows the second CTA of the last row computes a tile of zeros past m
 * (TMA fills it; the stores are guarded) so that its half of B still
 * reaches the first.
 *
 * FP8 runs here too (rung 4's FP8 kernel is matmul_tc_wgmma_fp8_sm90a.cu):
 * at the FP8 rate each byte of B feeds twice the flops, so halving B's
 * L2 traffic may pay where it did not in BF16.
 *
 * Any shape and leading dimension, as rung 4: operands whose rows TMA
 * cannot address are staged by the plan, and TF32 B^T is written with rows
 * padded to 16 bytes. (TF32 keeps rung 3's transpose pass here: the
 * multicast halves of B^T are whole TMA boxes; rung 4's TF32 kernel reads B
 * as it lies instead.) */
#include "matmul_tc_sm90.h"

/* Outside the sm_90a pass (a build without 90 compiles this file for every
 * architecture it has) the kernels here are stubs, which leaves the tile
 * constants unreferenced: nvcc's warning 177, an error under -Werror. */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#pragma nv_diag_suppress 177
#endif

namespace
{

constexpr int kBM = 128, kStages = 4, kThreads = 384, kCluster = 2;
constexpr int kGroupM = 4; /* cluster rows per group: 8 tile rows, as rung 4 */
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
template <int BN> using Ring = cb_wg_ring<kStages, kBM * 128, BN * 128>; /* 128-byte rows of k */

/* This CTA's loads of k-slice kt: its A box, and its half of B for both. */
template <cb_tc_precision P, int BN>
__device__ __forceinline__ void cb_mc_load_stage(uint32_t sa, uint32_t sb, uint64_t *full,
                                                 const CUtensorMap *map_a, const CUtensorMap *map_b,
                                                 int bm, int bn, int kt, uint32_t rank)
{
    typedef cb_wg_cfg<P, kBM, BN> C;
    cb_mbar_expect_tx(full, C::STAGE); /* own A + both halves of B */
    cb_tma_load_2d(sa, map_a, full, kt * C::BK, bm);
    if constexpr (P == CB_TC_BF16) {
        /* BN / 64 boxes of 64 columns: rank 0 multicasts the first half,
         * rounded up (2 of 3 at BN = 192), rank 1 the rest. */
        constexpr int boxes = BN / 64, first = (boxes + 1) / 2;
        const int j0 = rank == 0 ? 0 : first, j1 = rank == 0 ? first : boxes;
        for (int j = j0; j < j1; j++)
            cb_tma_load_2d_multicast(sb + j * C::BK * 128, map_b, full, bn + j * 64, kt * C::BK,
                                     (uint16_t)0x3);
    } else { /* K-major B (TF32 B^T, FP8 B): rows bn + BN/2 rank .. + BN/2 - 1, 128 bytes of k
              * each; BN/2 rows are whole 1024-byte swizzle atoms (BN a multiple of 64) */
        cb_tma_load_2d_multicast(sb + rank * (BN / 2) * 128, map_b, full, kt * C::BK,
                                 bn + BN / 2 * (int)rank, (uint16_t)0x3);
    }
}

template <cb_tc_precision P, int BN>
__global__ void __launch_bounds__(kThreads, 1)
    cb_tc_wgmma_cluster_kernel(const __grid_constant__ CUtensorMap map_a,
                               const __grid_constant__ CUtensorMap map_b, cb_tc_args g,
                               int cluster_rows, int tiles_n)
{
#if CB_TC_SM90A_DEVICE
    typedef cb_wg_cfg<P, kBM, BN> C;
    extern __shared__ uint8_t smem_raw[];
    cb_tma_prefetch_maps(&map_a, &map_b);
    const Ring<BN> r(smem_raw, 2 * 8); /* empty: 8 consumer warps in each CTA */
    const int tid = threadIdx.x, wg = tid / 128, lane = tid % 32;
    const uint32_t rank = cb_cluster_ctarank(), peer = rank ^ 1u;
    const int cluster = blockIdx.x / kCluster, clusters = gridDim.x / kCluster;
    const int kt_count = (g.k + C::BK - 1) / C::BK;
    const int tail_steps = C::tail_steps(g.k);
    const int ctiles = cluster_rows * tiles_n;

    cb_cluster_sync(); /* both CTAs' barriers exist before any remote use */

    if (wg == 0) {
        cb_setmaxnreg_dec<kProducerRegs>();
        if (tid == 0) {
            uint32_t it = 0;
            for (int t = cluster; t < ctiles; t += clusters) {
                int tm2, tn;
                cb_tc_tile_coords(t, cluster_rows, tiles_n, kGroupM, &tm2, &tn);
                const int bm = (2 * tm2 + (int)rank) * kBM, bn = tn * BN;
                for (int kt = 0; kt < kt_count; kt++, it++) {
                    const uint32_t s = it % kStages;
                    cb_mbar_wait_cluster(&r.empty[s], ((it / kStages) & 1) ^ 1);
                    cb_mc_load_stage<P, BN>(r.a(s), r.b(s), &r.full[s], &map_a, &map_b, bm, bn, kt,
                                            rank);
                }
            }
        }
        __syncwarp();
        cb_cluster_sync(); /* no exit while the peer may still arrive here */
    } else {
        cb_setmaxnreg_inc<kConsumerRegs>();
        if constexpr (P == CB_TC_FP8) g.alpha = cb_wg_fp8_alpha(g);
        const int cw = wg - 1;
        float acc[BN / 2];
        cb_wg_zero_acc(acc);
        uint32_t it = 0;
        /* The exit barrier (neither CTA leaves while the peer may still
         * arrive on its barriers) is arrived at before the last tile's
         * stores and waited for after them: arriving after the stores made
         * the arrive's release wait for them to drain, and each CTA wait
         * for its peer's stores too. */
        bool arrived = false;
        for (int t = cluster; t < ctiles; t += clusters) {
            int tm2, tn;
            cb_tc_tile_coords(t, cluster_rows, tiles_n, kGroupM, &tm2, &tn);
            const int bm = (2 * tm2 + (int)rank) * kBM, bn = tn * BN;
            int kt = 0;
            for (; kt + 1 < kt_count; kt++, it++) {
                cb_wg_consume_slice<P, BN>(r, acc, it % kStages, (it / kStages) & 1, cw * 64 * 128,
                                           kt > 0);
                if (kt > 0 && lane == 0) {
                    const uint32_t ps = (it - 1) % kStages;
                    cb_mbar_arrive(&r.empty[ps]);
                    cb_mbar_arrive_cluster(&r.empty[ps], peer);
                }
            }
            cb_wg_consume_last_slice<P, BN>(r, acc, it % kStages, (it / kStages) & 1, cw * 64 * 128,
                                            kt > 0, tail_steps);
            if (kt > 0 && lane == 0) {
                const uint32_t ps = (it - 1) % kStages;
                cb_mbar_arrive(&r.empty[ps]);
                cb_mbar_arrive_cluster(&r.empty[ps], peer);
            }
            it++;
            cb_wgmma_wait<0>();
            if (lane == 0) {
                const uint32_t ps = (it - 1) % kStages;
                cb_mbar_arrive(&r.empty[ps]);
                cb_mbar_arrive_cluster(&r.empty[ps], peer);
            }
            cb_wgmma_fence_regs(acc);
            if (t + clusters >= ctiles) { /* the CTA's last remote arrival is behind us */
                __syncwarp();
                cb_cluster_arrive();
                arrived = true;
            }
            cb_wg_store<BN>(g, acc, bm + cw * 64, bn, r.c_stage(tid / 32 - 4));
        }
        __syncwarp();
        if (!arrived) cb_cluster_arrive();
        cb_cluster_wait();
    }
#endif
}

typedef void (*cb_mc_kernel_fn)(const CUtensorMap, const CUtensorMap, cb_tc_args, int, int);

template <int BN> cb_mc_kernel_fn cb_mc_pick_width(cb_tc_precision prec)
{
    return prec == CB_TC_BF16   ? cb_tc_wgmma_cluster_kernel<CB_TC_BF16, BN>
           : prec == CB_TC_TF32 ? cb_tc_wgmma_cluster_kernel<CB_TC_TF32, BN>
                                : cb_tc_wgmma_cluster_kernel<CB_TC_FP8, BN>;
}

cb_mc_kernel_fn cb_mc_pick(cb_tc_precision prec, int bn)
{
    return bn == 256 ? cb_mc_pick_width<256>(prec) : cb_mc_pick_width<192>(prec);
}

/* Rung 4's tile width for the shape; 128 becomes 192 (two widths keep the
 * build's sm_90a instances at six). */
int cb_mc_tile_n(int m, int n, int sms)
{
    return cb_tc_pick_tile_n(m, n, sms, kBM) == 256 ? 256 : 192;
}

cudaLaunchConfig_t cb_mc_config(const cb_tc_plan *p, cudaLaunchAttribute *attr, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = p->grid;
    cfg.blockDim = p->block;
    cfg.dynamicSmemBytes = (size_t)p->smem_bytes;
    cfg.stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = kCluster;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    return cfg;
}

} // namespace

static cudaError_t cb_tc_wgmma_cluster_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    if (!cb_tc_sm90a_built()) return cudaErrorInvalidValue;
    int sms = 0;
    cudaError_t err = cb_context_sm_count(&sms);
    if (err != cudaSuccess) return err;
    p->tile_n = cb_mc_tile_n(p->args.m, p->args.n, sms);
    /* TF32 and FP8 (K-major B): each CTA multicasts half of the tile's rows. */
    err = cb_tc_wgmma_maps(p, kBM, p->tile_n / kCluster);
    if (err != cudaSuccess) return err;
    const cb_mc_kernel_fn kernel = cb_mc_pick(p->prec, p->tile_n);
    p->smem_bytes = CB_WG_C_STAGES_BYTES + (p->tile_n == 256 ? Ring<256>::BYTES : Ring<192>::BYTES);
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, p->smem_bytes);
    if (err != cudaSuccess) return err;
    p->tiles_m = cb_tc_cdiv(cb_tc_cdiv(p->args.m, kBM), kCluster); /* cluster rows */
    p->tiles_n = cb_tc_cdiv(p->args.n, p->tile_n);
    const long long ctiles = (long long)p->tiles_m * p->tiles_n;
    if (ctiles > 0x3fffffffLL) return cudaErrorInvalidValue;
    /* As many clusters as fit at once (one CTA per SM, two SMs of a GPC
     * per cluster), or one per cluster tile when there are fewer. */
    p->block = dim3(kThreads);
    p->grid = dim3(kCluster);
    cudaLaunchAttribute attr;
    cudaLaunchConfig_t cfg = cb_mc_config(p, &attr, 0);
    int fit = 0;
    err = cudaOccupancyMaxActiveClusters(&fit, kernel, &cfg);
    if (err != cudaSuccess) return err;
    if (fit < 1) return cudaErrorInvalidConfiguration;
    p->grid = dim3((unsigned)(kCluster * (ctiles < fit ? ctiles : fit)));
    p->variant = fit;
    char desc[96];
    snprintf(desc, sizeof desc,
             "rung 4 in 2-CTA clusters, 128x%d tiles, B multicast, %d clusters%s", p->tile_n,
             (int)p->grid.x / kCluster,
             p->prec == CB_TC_BF16   ? ""
             : p->prec == CB_TC_TF32 ? ", B^T first"
                                     : ", E4M3");
    return cb_tc_fill_info(kernel, p, desc, info);
}

static cudaError_t cb_tc_wgmma_cluster_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    cudaLaunchAttribute attr;
    const cudaLaunchConfig_t cfg = cb_mc_config(p, &attr, stream);
    return cudaLaunchKernelEx(&cfg, cb_mc_pick(p->prec, p->tile_n), p->map_a, p->map_b, p->args,
                              p->tiles_m, p->tiles_n);
}

/* cb_tc_rung_wgmma_cluster (matmul_tc_kernels.h). */
CB_TC_RUNG(wgmma_cluster, CB_TC_NEEDS_SM90A("wgmma + TMA multicast, sm_90a code"),
           .precisions = CB_TC_PREC_BIT(CB_TC_BF16) | CB_TC_PREC_BIT(CB_TC_TF32) |
                         CB_TC_PREC_BIT(CB_TC_FP8),
           .rows = CB_TC_ROWS_STAGED, .tf32_bt = true, .persistent = true);
