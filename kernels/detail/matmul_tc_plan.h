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

#include "matmul_tc_cuda.h"

#include <stdio.h>
#include <cuda.h> /* CUtensorMap (types only: the driver is reached through its entry points) */

struct cb_tc_plan {
    const cb_tc_rung *rung;
    cb_tc_precision prec;
    cb_tc_args args;
    dim3 grid, block;
    int smem_bytes;       /* dynamic shared memory of the GEMM kernel */
    int variant;          /* rung-specific: the edge path (rung 1), clusters that fit (rung 5) */
    int tiles_m, tiles_n; /* persistent rungs (rung 5: tiles_m counts pairs of tile rows) */
    CUtensorMap map_a, map_b; /* Hopper rungs: A and B (TF32: B transposed) */
};

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
    snprintf(info->desc, sizeof info->desc, "%s", desc);
    return cudaSuccess;
}

/* The Hopper rungs' tensor maps for a bm x bn tile (matmul_tc_wgmma_sm90a.cu). */
cudaError_t cb_tc_wgmma_maps(cb_tc_plan *p, int bm, int bn);

/* TMA: a 2D row-major tensor of `rows` x `cols` elements (row pitch
 * `cols` elements) cut into boxes of box_rows x box_cols, 128-byte
 * swizzled, zero fill outside (matmul_tc_tma.cu). */
cudaError_t cb_tc_tensor_map_2d(CUtensorMap *map, const void *base, bool bf16, int rows, int cols,
                                int box_rows, int box_cols);

/* TF32 WGMMA rungs: bt (n x k) = B^T rounded to TF32, B k x n
 * (matmul_tc_transpose.cu). */
cudaError_t cb_tc_transpose_tf32(const float *b, float *bt, int k, int n, cudaStream_t stream);

#endif
