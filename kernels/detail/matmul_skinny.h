/* matmul_skinny.h - the skinny-product kernels of the pipelined rung
 * (kernels/matmul_skinny.cu), as entries of its instance table: launch and
 * query for the `narrow_n` and `short_m` configurations. Any m, n, k >= 1
 * is right; the shapes they are fast for are in matmul_skinny.cu. */
#ifndef CB_MATMUL_SKINNY_H
#define CB_MATMUL_SKINNY_H

#include "matmul_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* narrow n: C's column j of a row is A's row (streamed once) dotted with
 * B's column j; a warp per few rows of A, lanes across k. */
cudaError_t cb_skinny_narrow_n_launch(const cb_matmul_args *g, cudaStream_t stream);
cudaError_t cb_skinny_narrow_n_query(const cb_matmul_args *g, cb_matmul_launch_info *info);

/* short m: C's row i is A's row i times B (streamed once); threads across
 * B's columns, k split over the lanes and warps of a block. */
cudaError_t cb_skinny_short_m_launch(const cb_matmul_args *g, cudaStream_t stream);
cudaError_t cb_skinny_short_m_query(const cb_matmul_args *g, cb_matmul_launch_info *info);

#ifdef __cplusplus
}
#endif

#endif
