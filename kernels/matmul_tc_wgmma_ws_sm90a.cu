/* matmul_tc_wgmma_ws_sm90a.cu - tensor-core rung 4 (Hopper, sm_90a):
 * rung 3 with warp specialisation, a larger tile and a persistent grid.
 *
 *   - Warp specialisation: warpgroup 0 is the producer; one of its threads
 *     only waits for empty stages and issues TMA. Warpgroups 1 and 2 are
 *     consumers that only wait for full stages, issue wgmma and store C.
 *     No consumer ever waits on the producer's bookkeeping (rung 3's
 *     thread 0 held up its warpgroup at every refill).
 *   - setmaxnreg: the producer gives registers back (down to 40) and the
 *     consumers take them (up to 232): 128 x 40 + 256 x 232 = 64512 of
 *     the SM's 65536, so each consumer holds a 64 x 256 FP32 accumulator
 *     (128 registers) with room to spare, without spilling.
 *   - 128 x 256 tiles, 4 stages of 48 KiB (192 KiB): twice rung 3's
 *     arithmetic per byte of shared memory read (m64n256 wgmmas), and a
 *     deeper ring to hide DRAM latency. One block per SM.
 *   - Persistent grid: one block per SM walks tiles t = blockIdx.x,
 *     + gridDim.x, ... in grouped order (8 tile rows at a time, column by
 *     column; matmul_tc_layout.h), so blocks running together share A rows
 *     and B columns in L2, no block pays a launch, and the producer fills
 *     the next tile's stages while the consumers store this tile's C.
 *
 * The pipeline state (stage index, phase) runs on across tiles: it counts
 * k-slices from the block's first tile. Each consumer warp releases a stage
 * once the wgmmas that read it are done (wait_group 1 one slice later,
 * wait_group 0 at the end of a tile), 8 arrivals per stage use.
 *
 * Same constraints as rung 3. */
#include "matmul_tc_sm90.h"

/* Outside the sm_90a pass (a build without 90 compiles this file for every
 * architecture it has) the kernels here are stubs, which leaves the tile
 * constants unreferenced: nvcc's warning 177, an error under -Werror. */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#pragma nv_diag_suppress 177
#endif

namespace
{

constexpr int kBM = 128, kBN = 256, kStages = 4, kThreads = 384, kGroupM = 8;
constexpr int kProducerRegs = 40, kConsumerRegs = 232;

template <cb_tc_precision P>
__global__ void __launch_bounds__(kThreads, 1)
    cb_tc_wgmma_ws_kernel(const __grid_constant__ CUtensorMap map_a,
                          const __grid_constant__ CUtensorMap map_b, cb_tc_args g, int tiles_m,
                          int tiles_n)
{
#if CB_TC_SM90A_DEVICE
    typedef cb_wg_cfg<P, kBM, kBN> C;
    extern __shared__ uint8_t smem_raw[];
    uint8_t *smem = cb_wg_align_smem(smem_raw);
    uint64_t *full = reinterpret_cast<uint64_t *>(smem + kStages * C::STAGE);
    uint64_t *empty = full + kStages;
    const uint32_t sa0 = cb_tc_smem_addr(smem), sb0 = sa0 + kStages * C::STAGE_A;
    const int tid = threadIdx.x, wg = tid / 128, lane = tid % 32;
    const int kt_count = (g.k + C::BK - 1) / C::BK;
    const int tiles = tiles_m * tiles_n;

    if (tid == 0) {
        for (int s = 0; s < kStages; s++) {
            cb_mbar_init(&full[s], 1);
            cb_mbar_init(&empty[s], 8); /* the 8 consumer warps */
        }
        cb_mbar_init_fence();
    }
    __syncthreads();

    if (wg == 0) {
        cb_setmaxnreg_dec<kProducerRegs>();
        if (tid == 0) {
            uint32_t it = 0; /* k-slices issued by this block so far */
            for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
                int tm, tn;
                cb_tc_tile_coords(t, tiles_m, tiles_n, kGroupM, &tm, &tn);
                for (int kt = 0; kt < kt_count; kt++, it++) {
                    const uint32_t s = it % kStages;
                    cb_mbar_wait(&empty[s], ((it / kStages) & 1) ^ 1);
                    cb_wg_load_stage<P, kBM, kBN>(sa0 + s * C::STAGE_A, sb0 + s * C::STAGE_B,
                                                  &full[s], &map_a, &map_b, tm * kBM, tn * kBN, kt);
                }
            }
        }
    } else {
        cb_setmaxnreg_inc<kConsumerRegs>();
        const int cw = wg - 1; /* rows 64 cw .. 64 cw + 63 of each tile */
        float acc[kBN / 2];
#pragma unroll
        for (int i = 0; i < kBN / 2; i++)
            acc[i] = 0.0f;
        cb_wgmma_fence_regs(acc); /* keeps the zeroing out of the wgmma pipeline (ptxas C7515) */
        uint32_t it = 0;          /* k-slices consumed by this block so far */
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tm, tn;
            cb_tc_tile_coords(t, tiles_m, tiles_n, kGroupM, &tm, &tn);
            for (int kt = 0; kt < kt_count; kt++, it++) {
                const uint32_t s = it % kStages;
                cb_mbar_wait(&full[s], (it / kStages) & 1);
                cb_wgmma_fence();
                cb_wg_mma_slice<P, kBN>(acc, sa0 + s * C::STAGE_A + cw * 64 * 128,
                                        sb0 + s * C::STAGE_B, kt > 0);
                cb_wgmma_commit();
                cb_wgmma_wait<1>();
                if (kt > 0 && lane == 0) cb_mbar_arrive(&empty[(it - 1) % kStages]);
            }
            cb_wgmma_wait<0>();
            if (lane == 0) cb_mbar_arrive(&empty[(it - 1) % kStages]);
            cb_wgmma_fence_regs(acc);
            cb_wg_store<kBN>(g, acc, tm * kBM + cw * 64, tn * kBN);
        }
    }
#endif
}

typedef void (*cb_ws_kernel_fn)(const CUtensorMap, const CUtensorMap, cb_tc_args, int, int);

cb_ws_kernel_fn cb_ws_pick(cb_tc_precision prec)
{
    return prec == CB_TC_BF16 ? cb_tc_wgmma_ws_kernel<CB_TC_BF16>
                              : cb_tc_wgmma_ws_kernel<CB_TC_TF32>;
}

constexpr int kSmem = kStages * (kBM + kBN) * 128 + 2 * kStages * 8 + 1024;

} // namespace

static cudaError_t cb_tc_wgmma_ws_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    if (!cb_tc_sm90a_built()) return cudaErrorInvalidValue;
    cudaError_t err = cb_tc_wgmma_maps(p, kBM, kBN);
    if (err != cudaSuccess) return err;
    int dev = 0, sms = 0;
    err = cudaGetDevice(&dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess) return err;
    p->tiles_m = cb_tc_cdiv(p->args.m, kBM);
    p->tiles_n = cb_tc_cdiv(p->args.n, kBN);
    const long long tiles = (long long)p->tiles_m * p->tiles_n;
    if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
    p->variant = 0;
    p->block = dim3(kThreads);
    p->grid = dim3((unsigned)(tiles < sms ? tiles : sms));
    p->smem_bytes = kSmem;
    err = cudaFuncSetAttribute(cb_ws_pick(p->prec), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               p->smem_bytes);
    if (err != cudaSuccess) return err;
    char desc[96];
    snprintf(desc, sizeof desc, "128x256x%d, producer + 2 consumer WGs, %d stages, persistent%s",
             p->prec == CB_TC_BF16 ? 64 : 32, kStages, p->prec == CB_TC_BF16 ? "" : ", B^T first");
    return cb_tc_fill_info(cb_ws_pick(p->prec), p, desc, info);
}

static cudaError_t cb_tc_wgmma_ws_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    if (p->prec == CB_TC_TF32) {
        cudaError_t err = cb_tc_transpose_tf32(static_cast<const float *>(p->args.b),
                                               static_cast<float *>(p->args.workspace), p->args.k,
                                               p->args.n, stream);
        if (err != cudaSuccess) return err;
    }
    cb_ws_pick(p->prec)<<<p->grid, p->block, p->smem_bytes, stream>>>(p->map_a, p->map_b, p->args,
                                                                      p->tiles_m, p->tiles_n);
    return cudaGetLastError();
}

extern "C" const cb_tc_rung cb_tc_rung_wgmma_ws = {
    .name = "wgmma_ws",
    .min_cc = 90,
    .max_cc = 90,
    .feature = "wgmma + TMA, sm_90a code",
    .sm90a = true,
    .rows = CB_TC_ROWS_TMA,
    .persistent = true,
    .prepare = cb_tc_wgmma_ws_prepare,
    .launch = cb_tc_wgmma_ws_launch,
};
