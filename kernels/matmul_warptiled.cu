/* matmul_warptiled.cu - rung 7: warp tiling (see matmul_warptile.h).
 *
 * Same 128x128x8 tile and 8x8 micro-tile as the vectorized rung, but each
 * warp owns a 32x64 region and each lane four 4x4 sub-tiles spread over it,
 * which makes every LDS.128 conflict-free and halves the distinct A values
 * a warp reads. Single-buffered: global latency still stalls each slice. */
#include "matmul_warptile.h"

/* 4 x 2 warps of 32 x 64, 2 x 2 sub-tiles of 4 x 4 per lane, BK = 8. */
CB_MATMUL_SINGLE_RUNG(warptiled, (cb_wt_launch<4, 2, 2, 2, 8, false>),
                      (cb_wt_query<4, 2, 2, 2, 8, false>));
