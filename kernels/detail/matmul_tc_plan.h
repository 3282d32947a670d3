/* matmul_tc_plan.h - what a planned tensor-core product holds, and the
 * per-rung entry points behind cb_tc_plan_create / cb_tc_plan_run (CUDA
 * C++ only; matmul_tc.cu dispatches to the rung files through these).
 *
 * Each rung file defines `prepare` (choose the kernel for the shape, raise
 * its shared-memory limit, fill the grid and the launch facts) and `launch`
 * (enqueue it). The Hopper rungs live in *_sm90a.cu files that the build
 * compiles for sm_90a only; their prepare refuses when that code is not in
 * the binary. */
#ifndef CB_MATMUL_TC_PLAN_H
#define CB_MATMUL_TC_PLAN_H

#include "common_kernels.h"
#include "matmul_tc_cuda.h"

#include <stdio.h>
#include <cuda.h> /* CUtensorMap (types only: the driver is reached through its entry points) */

struct cb_tc_plan {
    const cb_tc_rung *rung;
    cb_tc_precision prec;
    cb_tc_args args;              /* the caller's, leading dimensions resolved */
    cb_tc_layout layout;          /* staging and B^T (cb_tc_layout_plan)       */
    void *stage_a, *stage_b, *bt; /* device buffers the plan owns, or NULL */
    const void *a, *b;            /* what the GEMM kernel's loads read: args.a / args.b,
                                   * or their staged copies, or B^T (TF32)          */
    dim3 grid, block;
    int smem_bytes;       /* dynamic shared memory of the GEMM kernel */
    int variant;          /* rung-specific: the edge path (rung 1), clusters that fit (rung 5) */
    int tile_n;           /* persistent rungs: the tile width chosen for the shape */
    int tiles_m, tiles_n; /* persistent rungs (rung 5: tiles_m counts pairs of tile rows) */
    CUtensorMap map_a, map_b; /* Hopper rungs: A and B (TF32: B^T or B as it lies) */
    /* Rung 4 BF16: B's boxes for the last k-slice, only as many k-rows as
     * hold data (rounded up to a k-step); map_b where that is all 64. */
    CUtensorMap map_b_tail;
};

/* What a rung needs of the hardware, the same for every rung of a
 * generation (cb_tc_rung's min_cc, max_cc, feature and sm90a, in that
 * order): the mma.sync rungs run on any GPU from Ampere (8.0) on; the
 * Hopper rungs' sm_90a code runs on 9.0 only, and only where the build
 * compiled it. `what` names the feature for the capability check's
 * message. */
#define CB_TC_NEEDS_SM80(what)  .min_cc = 80, .max_cc = 0, .feature = what, .sm90a = false
#define CB_TC_NEEDS_SM90A(what) .min_cc = 90, .max_cc = 90, .feature = what, .sm90a = true

/* The descriptor cb_tc_rung_<rung> (matmul_tc_kernels.h) of a rung file:
 * its name, what it needs (CB_TC_NEEDS_*), then the fields that set it
 * apart (precisions, rows, tf32_bt, persistent) and last its entry points,
 * which the file defines as cb_tc_<rung>_prepare and cb_tc_<rung>_launch. */
#define CB_TC_RUNG(rung, needs, ...)                                                               \
    extern "C" const cb_tc_rung cb_tc_rung_##rung = {                                              \
        .name = #rung,                                                                             \
        needs,                                                                                     \
        __VA_ARGS__,                                                                               \
        .prepare = cb_tc_##rung##_prepare,                                                         \
        .launch = cb_tc_##rung##_launch,                                                           \
    }

/* Fill `info` for `kernel` launched as the plan says. */
template <typename Kernel>
static cudaError_t cb_tc_fill_info(Kernel kernel, const cb_tc_plan *p, const char *desc,
                                   cb_matmul_launch_info *info)
{
    cudaFuncAttributes fa;
    cudaError_t err = cudaFuncGetAttributes(&fa, (const void *)kernel);
    if (err != cudaSuccess) return err;
    info->threads = (int)(p->block.x * p->block.y * p->block.z);
    info->grid_x = (int)p->grid.x;
    info->grid_y = (int)p->grid.y;
    info->regs = fa.numRegs;
    info->smem_bytes = (int)fa.sharedSizeBytes + p->smem_bytes;
    info->local_bytes = (int)fa.localSizeBytes;
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info->blocks_per_sm, kernel, info->threads,
                                                        p->smem_bytes);
    if (err != cudaSuccess) return err;
    const cb_tc_layout &l = p->layout;
    const char *staged = l.stage_a && l.stage_b ? "; staged A+B"
                         : l.stage_a            ? "; staged A"
                         : l.stage_b            ? "; staged B"
                                                : "";
    snprintf(info->desc, sizeof info->desc, "%.80s%s", desc, staged);
    return cudaSuccess;
}

/* The Hopper rungs' tensor maps for a bm x bn tile (matmul_tc_wgmma_sm90a.cu):
 * A in boxes of bm rows of one 128-byte k-slice; B as the precision and the
 * layout have it (BF16: 64 k-rows x 64 columns; TF32: B^T in boxes of bn
 * rows x 32 floats; FP8: B K-major in boxes of bn rows x 128 bytes). */
cudaError_t cb_tc_wgmma_maps(cb_tc_plan *p, int bm, int bn);

/* TMA: a 2D row-major tensor of `rows` x `cols` elements of `prec` with a
 * row pitch of `pitch` elements (pitch x element bytes a multiple of 16),
 * cut into boxes of box_rows x box_cols, 128-byte swizzled, zero fill
 * outside (matmul_tc_tma.cu). */
cudaError_t cb_tc_tensor_map_2d(CUtensorMap *map, const void *base, cb_tc_precision prec, int rows,
                                int cols, long long pitch, int box_rows, int box_cols);

/* TF32 WGMMA rungs: bt (n x k, row pitch ldbt) = B^T rounded to TF32, from
 * B (k x n, row pitch ldb) (matmul_tc_transpose.cu). */
cudaError_t cb_tc_transpose_tf32(const float *b, long long ldb, float *bt, long long ldbt, int k,
                                 int n, cudaStream_t stream);

/* dst = rows x cols elements of `esize` bytes from src (row pitch
 * src_pitch elements, any alignment) into rows of dst_pitch elements, a
 * multiple of 16 bytes, with zeros past cols (matmul_tc_stage.cu). */
cudaError_t cb_tc_stage_rows(const void *src, long long src_pitch, void *dst, long long dst_pitch,
                             int rows, int cols, int esize, cudaStream_t stream);

/* The TF32 kernel of rung 4 (matmul_tc_wgmma_ws_tf32_sm90a.cu): operands
 * swapped (C^T = B^T A^T) so that B is read N-major as it lies. */
cudaError_t cb_tc_ws_tf32_prepare(cb_tc_plan *p, cb_matmul_launch_info *info);
cudaError_t cb_tc_ws_tf32_launch(const cb_tc_plan *p, cudaStream_t stream);

#endif
