/* test_matmul_stream_k.c - the stream-K split of the FP32 pipelined rung
 * (kernels/detail/matmul_stream_k.h), on the CPU: for many tile counts,
 * slot counts and k-slice counts,
 *   - whole waves stay whole tiles and the stream-K part is the partial
 *     last wave (or every tile of a grid under one wave), on at most
 *     `slots` blocks, none of them with an empty run;
 *   - the blocks' runs cover every iteration once, and cb_sk_block_of
 *     names the block whose run holds an iteration;
 *   - walking the runs as the kernel does (matmul_warptile_sk.h), a run
 *     is at most two units (the second starting a tile), every block writes
 *     at most one partial, an owner waits only for blocks after it, and
 *     owner plus partials cover each shared tile's k-slices exactly once.
 * The GPU test checks the kernel's numbers. */
/* test links: cubench_kernels */
#include "cb_test.h"
#include "matmul_stream_k.h"

#include <stdlib.h>
#include <string.h>

/* One block's walk over its run, as the kernel takes it: per unit the
 * tile, the k-slices t_begin .. t_end - 1. Returns units walked. */
typedef struct unit {
    int tile, t_begin, t_end;
} unit;

static int walk(const cb_sk_partition *p, int g, unit *out, int max)
{
    long long x = cb_sk_begin(p, g);
    const long long end = cb_sk_begin(p, g + 1);
    int n = 0;
    while (x < end && n < max) {
        const int tile = (int)(x / p->iters_per_tile);
        const long long first = (long long)tile * p->iters_per_tile;
        const long long tile_end = first + p->iters_per_tile;
        out[n].tile = tile;
        out[n].t_begin = (int)(x - first);
        out[n].t_end = (int)((end < tile_end ? end : tile_end) - first);
        x = first + out[n].t_end;
        n++;
    }
    return n;
}

static void check_split(int tiles, int slots, int iters_per_tile)
{
    const cb_sk_partition p = cb_sk_partition_of(tiles, slots, iters_per_tile);
    CB_CHECK_EQ_INT(p.dp_tiles + p.sk_tiles, tiles);
    CB_CHECK(p.dp_tiles % slots == 0);
    CB_CHECK(p.sk_tiles < slots || tiles < slots);
    CB_CHECK(p.sk_blocks <= slots);
    if (p.sk_tiles == 0) {
        CB_CHECK_EQ_INT(p.sk_blocks, 0);
        return;
    }
    const long long iters = cb_sk_iters(&p);
    CB_CHECK(p.sk_blocks >= 1 && p.sk_blocks <= iters);
    CB_CHECK(cb_sk_begin(&p, 0) == 0 && cb_sk_begin(&p, p.sk_blocks) == iters);
    for (int g = 0; g < p.sk_blocks; g++) {
        const long long lo = cb_sk_begin(&p, g), hi = cb_sk_begin(&p, g + 1);
        CB_CHECK(hi > lo); /* no empty run */
        CB_CHECK_EQ_INT(cb_sk_block_of(&p, lo), g);
        CB_CHECK_EQ_INT(cb_sk_block_of(&p, hi - 1), g);
    }
    /* The kernel's walk: who writes a partial, who owns, what adds up. */
    int *covered = calloc((size_t)p.sk_tiles, sizeof *covered);
    int *partial_of = malloc((size_t)p.sk_blocks * sizeof *partial_of); /* tile, or -1 */
    unit *u = malloc(((size_t)p.sk_tiles + 2) * sizeof *u);
    CB_CHECK(covered && partial_of && u);
    if (!covered || !partial_of || !u) return;
    for (int g = 0; g < p.sk_blocks; g++) {
        partial_of[g] = -1;
        const int n = walk(&p, g, u, p.sk_tiles + 2);
        /* The kernel writes a run out as two units at most, the second
         * starting a tile. */
        CB_CHECK(n >= 1 && n <= 2);
        if (n == 2) CB_CHECK_EQ_INT(u[1].t_begin, 0);
        for (int i = 0; i < n; i++)
            if (u[i].t_begin > 0) {
                CB_CHECK_EQ_INT(partial_of[g], -1); /* at most one partial a block */
                CB_CHECK_EQ_INT(i, 0);              /* and only as its first unit */
                partial_of[g] = u[i].tile;
            }
    }
    for (int g = 0; g < p.sk_blocks; g++) {
        const int n = walk(&p, g, u, p.sk_tiles + 2);
        for (int i = 0; i < n; i++) {
            if (u[i].t_begin > 0) continue;
            int slices = u[i].t_end - u[i].t_begin;
            if (u[i].t_end < p.iters_per_tile) {
                const long long tile_end = (long long)(u[i].tile + 1) * p.iters_per_tile;
                const int last = cb_sk_block_of(&p, tile_end - 1);
                CB_CHECK(last > g); /* an owner waits only for later blocks */
                for (int q = g + 1; q <= last; q++) {
                    CB_CHECK_EQ_INT(partial_of[q], u[i].tile);
                    unit v = {0, 0, 0};
                    CB_CHECK_EQ_INT(walk(&p, q, &v, 1), 1);
                    slices += v.t_end - v.t_begin;
                }
            }
            CB_CHECK_EQ_INT(slices, p.iters_per_tile); /* every k-slice once */
            covered[u[i].tile]++;
        }
    }
    for (int t = 0; t < p.sk_tiles; t++)
        CB_CHECK_EQ_INT(covered[t], 1); /* every tile stored once */
    free(covered);
    free(partial_of);
    free(u);
}

int main(void)
{
    /* The H200's 4096^2 and 8192^2 in 128 x 128 tiles on 264 slots. */
    cb_sk_partition p = cb_sk_partition_of(1024, 264, 512);
    CB_CHECK_EQ_INT(p.dp_tiles, 792);
    CB_CHECK_EQ_INT(p.sk_tiles, 232);
    CB_CHECK_EQ_INT(p.sk_blocks, 264);
    p = cb_sk_partition_of(4096, 264, 1024);
    CB_CHECK_EQ_INT(p.sk_tiles, 136);
    p = cb_sk_partition_of(1056, 264, 512); /* whole waves */
    CB_CHECK_EQ_INT(p.sk_blocks, 0);
    CB_CHECK_EQ_INT(p.dp_tiles, 1056);
    p = cb_sk_partition_of(4, 264, 9); /* 129 x 131 x 67: 36 iterations, 36 blocks */
    CB_CHECK_EQ_INT(p.sk_blocks, 36);
    CB_CHECK_EQ_INT(p.dp_tiles, 0);

    const int slot_counts[] = {1, 2, 7, 64, 132, 264, 1000};
    const int iter_counts[] = {1, 2, 3, 9, 64, 512, 1024};
    const int tile_counts[] = {1, 2, 3, 4, 63, 192, 256, 263, 264, 265, 1024, 1055, 4096, 4160};
    for (size_t s = 0; s < sizeof slot_counts / sizeof *slot_counts; s++)
        for (size_t i = 0; i < sizeof iter_counts / sizeof *iter_counts; i++)
            for (size_t t = 0; t < sizeof tile_counts / sizeof *tile_counts; t++)
                check_split(tile_counts[t], slot_counts[s], iter_counts[i]);
    /* The kernel walks in 32 bits: a stream-K part of 2^31 iterations or
     * more is left as whole tiles; just under, the split's products (64
     * bits) stay exact. */
    p = cb_sk_partition_of(263, 264, 1 << 28);
    CB_CHECK_EQ_INT(p.sk_tiles, 0);
    CB_CHECK_EQ_INT(p.sk_blocks, 0);
    CB_CHECK_EQ_INT(p.dp_tiles, 263);
    p = cb_sk_partition_of(7, 264, (1 << 28) + 5);
    CB_CHECK(cb_sk_iters(&p) == 7LL * ((1 << 28) + 5) && cb_sk_iters(&p) < 2147483647LL);
    CB_CHECK_EQ_INT(p.sk_blocks, 264);
    CB_CHECK_EQ_INT(cb_sk_block_of(&p, cb_sk_iters(&p) - 1), 263);
    CB_CHECK(cb_sk_begin(&p, 263) < cb_sk_iters(&p));
    return cb_test_finish("test_matmul_stream_k");
}
