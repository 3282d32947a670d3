/* matmul_tc_layout.h - the index arithmetic of the tensor-core rungs, as
 * plain functions that compile as C (tests/cpu/test_matmul_tc_layout.c
 * checks them without a GPU) and as CUDA (the kernels call them).
 *
 * Shared memory has 32 banks of 4 bytes; a warp's access is conflict-free
 * when its lanes hit 32 different banks (or the same word). The tiles here
 * are stored in rows of 16-byte chunks, and a swizzle moves chunk c of row r
 * to another chunk of the same row so that the 8 rows an ldmatrix (or a
 * fragment load) reads at one logical column land in 8 different 16-byte
 * bank groups:
 *   - 128-byte rows (A tiles of every rung, TMA's SWIZZLE_128B and wgmma's
 *     128-byte swizzle mode): chunk c of row r goes to c ^ (r % 8);
 *   - 256-byte BF16 B rows read by ldmatrix.trans (rung 2): c ^ (r % 8),
 *     the same rule on the low three bits of a 16-chunk row;
 *   - 512-byte TF32 B rows read one float per lane (rung 2): a lane pair
 *     (row k, column n) with k = lane % 4 and n = lane / 4 reads 4 rows of 8
 *     consecutive floats, i.e. 2 chunks per row: c ^ 2 (k % 4) spreads the
 *     4 x 2 chunks over 8 bank groups.
 *
 * wgmma reads its shared-memory operands through a 64-bit matrix
 * descriptor (PTX ISA, "Matrix Descriptor Format"): bits 0-13 start
 * address >> 4, 16-29 leading-dimension byte offset (LBO) >> 4, 32-45
 * stride-dimension byte offset (SBO) >> 4, 49-51 base offset (0 when the
 * 1024-byte swizzle pattern starts at a 1024-aligned address), 62-63 the
 * swizzle mode (1 = 128-byte). For the 128-byte swizzle:
 *   - K-major operand (rows of 64 BF16 / 32 TF32 along k): SBO = 1024, the
 *     step between groups of 8 rows; LBO is unused (1 by convention);
 *   - MN-major operand (rows of 64 BF16 along m or n, one row per k): SBO =
 *     1024, the step between groups of 8 k; LBO = the step between blocks
 *     of 64 columns (each block is its own stack of k rows).
 */
#ifndef CB_MATMUL_TC_LAYOUT_H
#define CB_MATMUL_TC_LAYOUT_H

#include <stdint.h>

#ifdef __CUDACC__
#define CB_TC_HD static inline __host__ __device__
#else
#define CB_TC_HD static inline
#endif

#define CB_TC_SWIZZLE_128B 1u /* descriptor swizzle mode: 128-byte */

/* Physical chunk of logical 16-byte chunk `chunk` in row `row`. */
CB_TC_HD int cb_tc_swizzle_row128(int row, int chunk)
{
    return chunk ^ (row & 7);
}
CB_TC_HD int cb_tc_swizzle_bf16_b(int k, int chunk)
{
    return chunk ^ (k & 7);
}
CB_TC_HD int cb_tc_swizzle_tf32_b(int k, int chunk)
{
    return chunk ^ ((k & 3) << 1);
}

/* A wgmma shared-memory matrix descriptor (byte values; each field keeps
 * 14 bits of value >> 4). */
CB_TC_HD uint64_t cb_tc_desc(uint32_t smem_addr, uint32_t lbo, uint32_t sbo, uint32_t swizzle)
{
    return (uint64_t)((smem_addr & 0x3FFFFu) >> 4) | (uint64_t)((lbo & 0x3FFFFu) >> 4) << 16 |
           (uint64_t)((sbo & 0x3FFFFu) >> 4) << 32 | (uint64_t)(swizzle & 3u) << 62;
}

/* Persistent tile order: tile t of tiles_m x tiles_n walks groups of
 * group_m tile rows, column by column inside a group, so the tiles that run
 * at the same time share a few rows of A and columns of B in L2. A
 * bijection of 0 .. tiles_m tiles_n - 1 onto the tile grid. */
CB_TC_HD void cb_tc_tile_coords(int t, int tiles_m, int tiles_n, int group_m, int *tm, int *tn)
{
    const int per_group = group_m * tiles_n;
    const int group = t / per_group;
    const int first = group * group_m;
    const int rows = tiles_m - first < group_m ? tiles_m - first : group_m;
    const int in_group = t - group * per_group;
    *tm = first + in_group % rows;
    *tn = in_group / rows;
}

/* The TF32 kernel of rung 4 swaps the operands (C^T = B^T A^T): wgmma's A
 * is B^T, 64 n x 8 k per warpgroup and k-step, loaded into registers from
 * a stage of B as TMA lands it (N-major: 4 boxes of 32 k-rows x 32 floats,
 * 4 KiB each, 128-byte swizzled). A fragment row is free to stand for any
 * n as long as the epilogue agrees, so each thread's rows g and g + 8 take
 * two adjacent n (one 8-byte load per k) and the 16 rows of a warp take
 * the chunks {c, c + 1, c + 4, c + 5} of one box row (c = 0 or 2): the four
 * k-rows a half-warp reads then fall in 16 different 8-byte bank slots
 * after the swizzle (XOR with k % 8 keeps c and c + 4 in different halves
 * of the row). tests/cpu/test_matmul_tc_layout.c checks both claims.
 *
 * n (0..63, within the consumer's 64) of fragment row g (0..7) of warp w
 * (0..3); row g + 8 is n + 1. */
CB_TC_HD int cb_tc_tf32_frag_n(int w, int g)
{
    const int half = g / 4, gg = g % 4;
    const int chunk = 2 * (w % 2) + half + 4 * (gg / 2);
    return 32 * (w / 2) + 4 * chunk + 2 * (gg % 2);
}

/* Byte offset of B(k, n) in such a stage (k 0..31, n 0..127). */
CB_TC_HD uint32_t cb_tc_tf32_b_offset(int k, int n)
{
    return (uint32_t)((n / 32) * 4096 + k * 128 + ((n % 32 / 4) ^ (k % 8)) * 16 + n % 4 * 4);
}

/* Tile width of the persistent rungs (tiles of 128 rows x 256, 192 or 128
 * columns; one tile at a time per SM): a persistent grid takes as long as
 * its busiest SM, ceil(tiles / sms) tiles, and a tile's time grows with its
 * width. 256 is the most efficient per flop (the most reuse of each A
 * byte), so it is kept while its last wave fills at least 80 % of the
 * SMs' slots (every large product: 8192^2 on 132 SMs fills 97 %); below
 * that, the width with the least waves x width wins, the wider on a tie.
 * 1000 x 3000 on 132 SMs: 96 tiles of 256 (one 73 % wave, cost 256) or
 * 128 of 192 (one wave, cost 192): 192. */
CB_TC_HD int cb_tc_pick_tile_n(int m, int n, int sms, int bm)
{
    if (sms < 1) return 256;
    const long long rows = (m + bm - 1) / bm;
    int best = 256;
    long long best_cost = 0;
    for (int w = 256; w >= 128; w -= 64) {
        const long long tiles = rows * ((n + w - 1) / w);
        const long long waves = (tiles + sms - 1) / sms;
        if (w == 256 && tiles * 5 >= waves * sms * 4) return 256;
        const long long cost = waves * w;
        if (w == 256 || cost < best_cost) best = w, best_cost = cost;
    }
    return best;
}

#endif
