/* matmul_tc_ws.h - the warp-specialised persistent WGMMA kernel of rung 4
 * (CUDA C++, sm_90a), as a template over the precision and the tile width,
 * so the BF16 rung (matmul_tc_wgmma_ws_sm90a.cu) and the FP8 rung
 * (matmul_tc_wgmma_fp8_sm90a.cu) share one body. What it does and why is
 * in matmul_tc_wgmma_ws_sm90a.cu's header.
 *
 * Tiles are 128 x BN (BN = 256, 192 or 128, chosen per shape by
 * cb_tc_pick_tile_n), 4 stages of (128 + BN) x 128 bytes. Both operands
 * of FP8 are K-major (FP8 wgmma reads no other layout), BF16 B is MN-major
 * (B as it lies); TF32 has its own kernel (matmul_tc_wgmma_ws_tf32_sm90a.cu). */
#ifndef CB_MATMUL_TC_WS_H
#define CB_MATMUL_TC_WS_H

#include "matmul_tc_sm90.h"

namespace cb_ws
{

constexpr int kBM = 128, kStages = 4, kThreads = 384, kGroupM = 8;
constexpr int kProducerRegs = 40, kConsumerRegs = 232;

/* Stages of 128-byte rows of k: kBM of A, BN of B. */
template <int BN> using ring = cb_wg_ring<kStages, kBM * 128, BN * 128>;

template <cb_tc_precision P, int BN>
__global__ void __launch_bounds__(kThreads, 1)
    kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
           const __grid_constant__ CUtensorMap map_b_tail, cb_tc_args g, int tiles_m, int tiles_n)
{
#if CB_TC_SM90A_DEVICE
    typedef cb_wg_cfg<P, kBM, BN> C;
    extern __shared__ uint8_t smem_raw[];
    cb_tma_prefetch_maps(&map_a, &map_b, P == CB_TC_BF16 ? &map_b_tail : nullptr);
    const ring<BN> r(smem_raw, 8); /* empty: the 8 consumer warps */
    const int tid = threadIdx.x, wg = tid / 128, lane = tid % 32;
    const int kt_count = (g.k + C::BK - 1) / C::BK;
    const int tail_steps = C::tail_steps(g.k);
    const int tiles = tiles_m * tiles_n;
    __syncthreads();

    if (wg == 0) {
        cb_setmaxnreg_dec<kProducerRegs>();
        if (tid == 0)
            cb_wg_produce<kStages>(
                r, tiles_m, tiles_n, kGroupM, kt_count, [&](uint32_t s, int tm, int tn, int kt) {
                    if (P == CB_TC_BF16 && kt == kt_count - 1 && tail_steps < C::BK / C::KSTEP)
                        cb_wg_load_last_bf16<kBM, BN>(r.a(s), r.b(s), &r.full[s], &map_a,
                                                      &map_b_tail, tm * kBM, tn * BN, kt,
                                                      tail_steps * C::KSTEP);
                    else
                        cb_wg_load_stage<P, kBM, BN>(r.a(s), r.b(s), &r.full[s], &map_a, &map_b,
                                                     tm * kBM, tn * BN, kt);
                });
    } else {
        cb_setmaxnreg_inc<kConsumerRegs>();
        if constexpr (P == CB_TC_FP8) g.alpha = cb_wg_fp8_alpha(g);
        const int cw = wg - 1; /* rows 64 cw .. 64 cw + 63 of each tile */
        float acc[BN / 2];
        cb_wg_zero_acc(acc);
        uint32_t it = 0; /* k-slices consumed by this block so far */
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tm, tn;
            cb_tc_tile_coords(t, tiles_m, tiles_n, kGroupM, &tm, &tn);
            int kt = 0;
            for (; kt + 1 < kt_count; kt++, it++) {
                cb_wg_consume_slice<P, BN>(r, acc, it % kStages, (it / kStages) & 1, cw * 64 * 128,
                                           kt > 0);
                if (kt > 0 && lane == 0) cb_mbar_arrive(&r.empty[(it - 1) % kStages]);
            }
            cb_wg_consume_last_slice<P, BN>(r, acc, it % kStages, (it / kStages) & 1, cw * 64 * 128,
                                            kt > 0, tail_steps);
            if (kt > 0 && lane == 0) cb_mbar_arrive(&r.empty[(it - 1) % kStages]);
            it++;
            cb_wgmma_wait<0>();
            if (lane == 0) cb_mbar_arrive(&r.empty[(it - 1) % kStages]);
            cb_wgmma_fence_regs(acc);
            cb_wg_store<BN>(g, acc, tm * kBM + cw * 64, tn * BN, r.c_stage(tid / 32 - 4));
        }
    }
#endif
}

typedef void (*kernel_fn)(const CUtensorMap, const CUtensorMap, const CUtensorMap, cb_tc_args, int,
                          int);

template <cb_tc_precision P> kernel_fn pick(int bn)
{
    return bn == 256 ? kernel<P, 256> : bn == 192 ? kernel<P, 192> : kernel<P, 128>;
}

inline int smem_for(int bn)
{
    return CB_WG_C_STAGES_BYTES + (bn == 256   ? ring<256>::BYTES
                                   : bn == 192 ? ring<192>::BYTES
                                               : ring<128>::BYTES);
}

/* Plan the persistent launch of kernel<P, bn>: tile width for the shape,
 * tensor maps, grid of one block per SM (or per tile when fewer). */
template <cb_tc_precision P>
cudaError_t prepare(cb_tc_plan *p, cb_matmul_launch_info *info, const char *what)
{
    if (!cb_tc_sm90a_built()) return cudaErrorInvalidValue;
    int sms = 0;
    cudaError_t err = cb_context_sm_count(&sms);
    if (err != cudaSuccess) return err;
    p->tile_n = cb_tc_pick_tile_n(p->args.m, p->args.n, sms, kBM);
    err = cb_tc_wgmma_maps(p, kBM, p->tile_n);
    if (err != cudaSuccess) return err;
    p->map_b_tail = p->map_b;
    if constexpr (P == CB_TC_BF16) {
        /* B's last k-slice in boxes of the k-rows that hold data (k = 200:
         * 16 of 64), where that is fewer than the slice's. */
        typedef cb_wg_cfg<P, kBM, 256> C;
        const int rows = C::tail_steps(p->args.k) * C::KSTEP;
        if (rows < C::BK)
            err = cb_tc_tensor_map_2d(&p->map_b_tail, p->b, P, p->args.k, p->args.n,
                                      p->layout.ldb_read, rows, 64);
        if (err != cudaSuccess) return err;
    }
    p->tiles_m = cb_tc_cdiv(p->args.m, kBM);
    p->tiles_n = cb_tc_cdiv(p->args.n, p->tile_n);
    const long long tiles = (long long)p->tiles_m * p->tiles_n;
    if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
    p->variant = 0;
    p->block = dim3(kThreads);
    p->grid = dim3((unsigned)(tiles < sms ? tiles : sms));
    p->smem_bytes = smem_for(p->tile_n);
    const kernel_fn k = pick<P>(p->tile_n);
    err = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, p->smem_bytes);
    if (err != cudaSuccess) return err;
    char desc[96];
    snprintf(desc, sizeof desc, "128x%dx%d, producer + 2 consumer WGs, %d stages, persistent%s",
             p->tile_n, cb_wg_cfg<P, kBM, 256>::BK, kStages, what);
    return cb_tc_fill_info(k, p, desc, info);
}

template <cb_tc_precision P> cudaError_t launch(const cb_tc_plan *p, cudaStream_t stream)
{
    pick<P>(p->tile_n)<<<p->grid, p->block, p->smem_bytes, stream>>>(
        p->map_a, p->map_b, p->map_b_tail, p->args, p->tiles_m, p->tiles_n);
    return cudaGetLastError();
}

} // namespace cb_ws

#endif
