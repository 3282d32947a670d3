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
 *     deeper ring to hide DRAM latency. One block per SM. Where 256-wide
 *     tiles leave many SMs idle (a last wave under 80 % full), 192 or 128
 *     wide ones (cb_tc_pick_tile_n): 1000 x 3000 is 96 tiles of 256 on 132
 *     SMs, or 128 of 192.
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
 * Any shape and leading dimension: the plan stages an operand whose rows
 * TMA cannot address (matmul_tc_stage.cu), TMA zero-fills past m, n and k,
 * and the epilogue checks every store outside whole tiles. Where k ends
 * inside the last 64-wide slice, B's boxes for that slice hold only the
 * k-rows its k-steps read (a second tensor map, map_b_tail): at 1024 x
 * 4000 x 136 the kernel went from 8.51 to 8.26 us on the H200.
 *
 * TF32 runs a kernel of its own (matmul_tc_wgmma_ws_tf32_sm90a.cu): the
 * operands swapped so that B is read as it lies, with no transpose pass. */
#include "matmul_tc_ws.h"

static cudaError_t cb_tc_wgmma_ws_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    if (p->prec == CB_TC_TF32) return cb_tc_ws_tf32_prepare(p, info);
    return cb_ws::prepare<CB_TC_BF16>(p, info, "");
}

static cudaError_t cb_tc_wgmma_ws_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    if (p->prec == CB_TC_TF32) return cb_tc_ws_tf32_launch(p, stream);
    return cb_ws::launch<CB_TC_BF16>(p, stream);
}

/* cb_tc_rung_wgmma_ws (matmul_tc_kernels.h). */
CB_TC_RUNG(wgmma_ws, CB_TC_NEEDS_SM90A("wgmma + TMA, sm_90a code"),
           .precisions = CB_TC_PREC_BIT(CB_TC_BF16) | CB_TC_PREC_BIT(CB_TC_TF32),
           .rows = CB_TC_ROWS_STAGED, .tf32_bt = false, .persistent = true);
