/* matmul_stream_k.h - how the FP32 pipelined rung's stream-K tail splits a
 * product's tiles between whole-tile blocks and stream-K blocks (C and
 * CUDA; the CPU tests check it).
 *
 * A grid of whole tiles runs in waves of `slots` blocks (SMs x resident
 * blocks per SM). When the tile count is not a multiple of the slots, the
 * last wave leaves SMs idle for a whole tile's time: 4096^2 in 128 x 128
 * tiles is 1024 tiles, 3.88 waves of 264 on an H200, run as 4. The
 * stream-K tail keeps whole waves of whole tiles (dp_tiles) and spreads the
 * k-slices of the remaining sk_tiles evenly over sk_blocks blocks, each
 * taking one contiguous run of (tile, k-slice) iterations: a tile may be
 * shared by several blocks. The block that holds a shared tile's first
 * k-slice owns it: it adds the others' partial sums (from a workspace, in
 * block order, so the result does not depend on timing) and stores the
 * tile; the others write their partial sums and raise a flag.
 *
 * Iteration x (tile x / iters_per_tile, k-slice x % iters_per_tile) of the
 * sk_tiles * iters_per_tile belongs to block g when
 * cb_sk_begin(g) <= x < cb_sk_begin(g + 1). */
#ifndef CB_MATMUL_STREAM_K_H
#define CB_MATMUL_STREAM_K_H

#ifdef __CUDACC__
#define CB_SK_HD static inline __host__ __device__
#else
#define CB_SK_HD static inline
#endif

typedef struct cb_sk_partition {
    int tiles;          /* all of the product's tiles                     */
    int dp_tiles;       /* tiles 0 .. dp_tiles-1: one block each           */
    int sk_tiles;       /* the rest, shared by the stream-K blocks         */
    int sk_blocks;      /* stream-K blocks (blockIdx 0 .. sk_blocks-1)     */
    int iters_per_tile; /* k-slices of one tile                           */
} cb_sk_partition;

/* The split for `tiles` tiles of `iters_per_tile` k-slices on `slots`
 * resident blocks: whole waves stay whole tiles, the partial last wave (or
 * a grid under one wave) is stream-K over at most `slots` blocks, and no
 * block gets an empty range. A grid of whole waves has no stream-K part,
 * nor one whose stream-K iterations would pass 2^31 - 1. */
CB_SK_HD cb_sk_partition cb_sk_partition_of(int tiles, int slots, int iters_per_tile)
{
    cb_sk_partition p;
    p.tiles = tiles;
    p.iters_per_tile = iters_per_tile;
    p.sk_tiles = slots > 0 && tiles >= slots ? tiles % slots : tiles;
    const long long iters = (long long)p.sk_tiles * iters_per_tile;
    if (iters > 2147483647LL) p.sk_tiles = 0; /* the kernel walks in 32 bits */
    p.dp_tiles = tiles - p.sk_tiles;
    p.sk_blocks = p.sk_tiles == 0 ? 0 : iters < slots ? (int)iters : slots;
    return p;
}

/* The stream-K iterations in all. */
CB_SK_HD long long cb_sk_iters(const cb_sk_partition *p)
{
    return (long long)p->sk_tiles * p->iters_per_tile;
}

/* The first iteration of stream-K block g (g = sk_blocks: the end). */
CB_SK_HD long long cb_sk_begin(const cb_sk_partition *p, int g)
{
    return cb_sk_iters(p) * g / p->sk_blocks;
}

/* The stream-K block whose run holds iteration x: the largest g with
 * floor(I g / G) <= x, i.e. I g < (x + 1) G. */
CB_SK_HD int cb_sk_block_of(const cb_sk_partition *p, long long x)
{
    const long long iters = cb_sk_iters(p);
    return (int)(((x + 1) * p->sk_blocks + iters - 1) / iters - 1);
}

#endif
