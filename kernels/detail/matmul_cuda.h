/* matmul_cuda.h - CUDA-only helpers shared by the kernels/matmul_*.cu files
 * (not for C code): ceiling division, the edge-handling modes and the common
 * body of every rung's query. */
#ifndef CB_MATMUL_CUDA_H
#define CB_MATMUL_CUDA_H

#include "matmul_kernels.h"

#include <stdint.h>
#include <stdio.h>

static inline int cb_cdiv(int a, int b)
{
    return (a + b - 1) / b;
}

/* How a tiled kernel treats the matrix edges, chosen per launch:
 *   FULL   - every dimension is a multiple of the tile: float4 loads and
 *            stores with no bounds checks at all (the fast path);
 *   VEC4   - k and n are multiples of 4 and the pointers 16-byte aligned:
 *            float4 loads predicated as a whole (a float4 is either fully
 *            inside or fully outside), zero fill outside;
 *   SCALAR - anything else: one bounds check per element. */
enum cb_edge_mode { CB_EDGE_FULL = 0, CB_EDGE_VEC4 = 1, CB_EDGE_SCALAR = 2 };

static inline bool cb_aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

static inline int cb_edge_mode_for(const cb_matmul_args *g, int bm, int bn, int bk)
{
    bool vec = g->k % 4 == 0 && g->n % 4 == 0 && cb_aligned16(g->a) && cb_aligned16(g->b) &&
               cb_aligned16(g->c);
    if (!vec) return CB_EDGE_SCALAR;
    if (g->m % bm == 0 && g->n % bn == 0 && g->k % bk == 0) return CB_EDGE_FULL;
    return CB_EDGE_VEC4;
}

static inline const char *cb_edge_mode_name(int mode)
{
    return mode == CB_EDGE_FULL   ? "full tiles"
           : mode == CB_EDGE_VEC4 ? "vec4 edges"
                                  : "scalar edges";
}

/* Fill `info` for `kernel` launched with `threads` x `grid`. */
template <typename Kernel>
static cudaError_t cb_matmul_fill_info(Kernel kernel, int threads, dim3 grid, const char *desc,
                                       cb_matmul_launch_info *info)
{
    cudaFuncAttributes fa;
    cudaError_t err = cudaFuncGetAttributes(&fa, (const void *)kernel);
    if (err != cudaSuccess) return err;
    info->threads = threads;
    info->grid_x = (int)grid.x;
    info->grid_y = (int)grid.y;
    info->regs = fa.numRegs;
    info->smem_bytes = (int)fa.sharedSizeBytes;
    info->local_bytes = (int)fa.localSizeBytes;
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&info->blocks_per_sm, kernel, threads, 0);
    if (err != cudaSuccess) return err;
    snprintf(info->desc, sizeof info->desc, "%s", desc);
    return cudaSuccess;
}

#endif
