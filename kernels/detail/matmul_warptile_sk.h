/* matmul_warptile_sk.h - the pipelined warp-tiled kernel with a stream-K
 * tail (CUDA only; included by matmul_pipelined.cu). matmul_stream_k.h
 * says how the tiles are split; this file runs the split as two launches:
 *
 *   1. the stream-K kernel, one block per slot at most: each walks its run
 *      of (tile, k-slice) iterations over the last tiles;
 *   2. the rung's whole-tile kernel over the first dp_tiles tiles, whole
 *      waves, one block per tile in row-major order (kLinear; its k-loop's
 *      SASS is the 2-D grid's).
 *
 * Two kernels rather than one whose blocks do either, and the stream-K
 * block's two units written out rather than looped over: ptxas allocates
 * the k-loop's registers differently when anything more surrounds it. Of
 * the loop's 512 FFMAs, the whole-tile kernel pairs 118 in a register bank
 * (scripts/record/ffma_banks.py); one kernel doing both, or a loop over
 * units, ~310. The stream-K kernel walks the outer product in an FMA order
 * of its own (CB_WT_SK_COLS, the best of ~400 searched against that
 * count): 171 and 131 in its two k-loops on whole tiles, ~300 on the edge
 * paths, which is why cb_matmul_config_auto takes it only for whole tiles
 * and where the last wave is far from full.
 *
 * The stream-K blocks are at most the slots and launched cooperatively, so
 * all of them are resident at once (cb_wt_sk_enqueue), and a block that
 * owns a shared tile can wait for the partial sums of blocks with higher
 * indices: those run too, and the block holding the last iteration never
 * waits.
 *
 * The workspace (query's workspace_bytes): one partial tile per stream-K
 * block, kept as the threads hold it (float4 j of thread t at j * THREADS
 * + t, so every access is coalesced), then one flag per block. A block
 * writes at most one partial (for the tile whose first k-slice is not
 * its own); the owner that reads it sets the flag back to 0, so every
 * launch finds the flags as the first one did (zeroed at plan time). */
#ifndef CB_MATMUL_WARPTILE_SK_H
#define CB_MATMUL_WARPTILE_SK_H

#include "common_kernels.h"
#include "matmul_stream_k.h"
#include "matmul_warptile.h"

template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK>
static size_t cb_wt_sk_partial_floats()
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    return (size_t)S::THREADS * S::TM * S::TN;
}

/* The workspace a split needs: a partial tile, then a flag, per block. */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK>
static size_t cb_wt_sk_workspace_bytes(const cb_sk_partition *part)
{
    return (size_t)part->sk_blocks *
           (cb_wt_sk_partial_floats<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>() * sizeof(float) +
            sizeof(unsigned));
}

template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, int kMode>
__global__ void __launch_bounds__(cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::THREADS,
                                  cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>::MIN_BLOCKS)
    cb_matmul_warptile_sk_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                                 const float *__restrict__ b, float beta, float *__restrict__ c,
                                 cb_sk_partition part, float4 *__restrict__ partials,
                                 unsigned *__restrict__ flags)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    using St = cb_wt_stages<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, true>;
    constexpr int THREADS = S::THREADS, TM = S::TM, TN = S::TN, VECS = TM * TN / 4;
    __shared__ __align__(16) typename St::a_t as;
    __shared__ __align__(16) typename St::b_t bs;
    const int tiles_x = (n + S::BN - 1) / S::BN, tid = threadIdx.x;
    const int slices = part.iters_per_tile, g = blockIdx.x;
    /* The block's run over the stream-K tiles' iterations, in 32 bits (the
     * split keeps them under 2^31). A run is shorter than a tile (at most
     * as many blocks as slots, fewer stream-K tiles than slots; or one
     * iteration a block), so it is at most two units: the end of one tile,
     * then the start of the next. Written out as two k-loops rather than a
     * loop around one: ptxas pairs far fewer FFMAs in a register bank so
     * (header). */
    int x = (int)cb_sk_begin(&part, g);
    const int end = (int)cb_sk_begin(&part, g + 1);
    float acc[TM][TN];
    /* Owner of a tile whose k-slices end at t_end: the later blocks'
     * partials, then the store. */
    auto finish = [&](int tile_first, int t_end, int m0, int n0) {
        if (t_end < slices) {
            const int last = cb_sk_block_of(&part, tile_first + slices - 1);
            for (int p = g + 1; p <= last; p++) {
                if (tid == 0) {
                    while (atomicAdd(flags + p, 0u) == 0u)
                        __nanosleep(256);
                    flags[p] = 0u;
                    __threadfence();
                }
                __syncthreads();
                const float4 *theirs = partials + (size_t)p * VECS * THREADS;
#pragma unroll
                for (int j = 0; j < VECS; j++) {
                    const float4 v = __ldcg(theirs + j * THREADS + tid);
                    float *r = &acc[j / (TN / 4)][j % (TN / 4) * 4];
                    r[0] += v.x, r[1] += v.y, r[2] += v.z, r[3] += v.w;
                }
            }
        }
        cb_wt_store_tile<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kMode>(acc, m, n, alpha, beta, c, m0,
                                                                    n0);
    };
    { /* the first unit: a tile's end (a partial for its owner), or a
       * tile's start (the block owns it) */
        const int tile = x / slices, tile_first = tile * slices;
        const int t_begin = x - tile_first, t_end = min(end - tile_first, slices);
        const int t = part.dp_tiles + tile;
        const int m0 = t / tiles_x * S::BM, n0 = t % tiles_x * S::BN;
        cb_wt_mainloop<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, true, kMode, 1>(
            as, bs, m, n, k, a, b, m0, n0, t_begin, t_end, acc);
        x = tile_first + t_end;
        if (t_begin > 0) {
            float4 *mine = partials + (size_t)g * VECS * THREADS;
#pragma unroll
            for (int j = 0; j < VECS; j++) {
                const float *r = &acc[j / (TN / 4)][j % (TN / 4) * 4];
                __stcg(mine + j * THREADS + tid, make_float4(r[0], r[1], r[2], r[3]));
            }
            __threadfence();
            __syncthreads();
            if (tid == 0) atomicExch(flags + g, 1u);
        } else {
            finish(tile_first, t_end, m0, n0);
        }
    }
    if (x < end) {       /* the second unit: the next tile's start */
        __syncthreads(); /* every thread is done with the stages */
        const int tile = x / slices, tile_first = tile * slices;
        const int t_end = min(end - tile_first, slices);
        const int t = part.dp_tiles + tile;
        const int m0 = t / tiles_x * S::BM, n0 = t % tiles_x * S::BN;
        cb_wt_mainloop<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, true, kMode, 1>(as, bs, m, n, k, a, b,
                                                                           m0, n0, 0, t_end, acc);
        finish(tile_first, t_end, m0, n0);
    }
}

/* Resident blocks of the stream-K kernel per SM, times the SMs the current
 * context may use: the slots the split is made for. */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK>
static cudaError_t cb_wt_sk_slots(int *slots)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    int sms = 0, per_sm = 0;
    cudaError_t err = cb_context_sm_count(&sms);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm,
            cb_matmul_warptile_sk_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, CB_EDGE_SCALAR>,
            S::THREADS, 0);
    *slots = sms * (per_sm > 0 ? per_sm : 1);
    return err;
}

template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK>
static cudaError_t cb_wt_sk_partition(const cb_matmul_args *g, cb_sk_partition *part)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    int slots = 0;
    cudaError_t err = cb_wt_sk_slots<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>(&slots);
    const int tiles = cb_cdiv(g->n, S::BN) * cb_cdiv(g->m, S::BM);
    *part = cb_sk_partition_of(tiles, slots, cb_cdiv(g->k, BK));
    return err;
}

/* The stream-K blocks go out as a cooperative launch: the owners' waits
 * need the blocks they wait for to run beside them, and a cooperative
 * launch is the one the CUDA model promises that for (the driver starts it
 * only with every block resident). The split is made for the slots of the
 * SMs the current context may use (cb_context_sm_count: a green context's
 * share, not the device's); where the process has fewer still than the
 * driver names (an MPS client's share, if its count says the device's)
 * the driver refuses the launch and every tile runs whole. Without the
 * promise, a split for the whole device still finished on an H200 in a
 * green context of 8 SMs, but only because blocks happen to start in
 * index order, with waiting blocks holding slots the later ones need
 * (tests/gpu/test_matmul_streamk_share runs the split in such a share). */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK, int kMode>
static cudaError_t cb_wt_sk_enqueue(const cb_matmul_args *g, const cb_sk_partition *part,
                                    cudaStream_t stream)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    int whole_tiles = part->dp_tiles;
    if (part->sk_blocks > 0) {
        float4 *partials = static_cast<float4 *>(g->workspace);
        unsigned *flags = reinterpret_cast<unsigned *>(
            partials + (size_t)part->sk_blocks *
                           cb_wt_sk_partial_floats<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>() / 4);
        cudaLaunchAttribute together;
        together.id = cudaLaunchAttributeCooperative;
        together.val.cooperative = 1;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(part->sk_blocks);
        cfg.blockDim = dim3(S::THREADS);
        cfg.stream = stream;
        cfg.attrs = &together;
        cfg.numAttrs = 1;
        const cudaError_t err = cudaLaunchKernelEx(
            &cfg, cb_matmul_warptile_sk_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, kMode>, g->m,
            g->n, g->k, g->alpha, g->a, g->b, g->beta, g->c, *part, partials, flags);
        if (err == cudaErrorCooperativeLaunchTooLarge) {
            (void)cudaGetLastError(); /* refused, not failed: whole tiles instead */
            whole_tiles = part->tiles;
        } else if (err != cudaSuccess) {
            return err;
        }
    }
    if (whole_tiles > 0)
        cb_matmul_warptile_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, true, kMode, true>
            <<<whole_tiles, S::THREADS, 0, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b,
                                                     g->beta, g->c);
    return cudaGetLastError();
}

/* Launch: the split for this device, then its two kernels. Without a
 * workspace as large as the split needs (the plan sized it from the query
 * on the device current then), the launch is refused. */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK>
static cudaError_t cb_wt_sk_launch(const cb_matmul_args *g, cudaStream_t stream)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    cb_sk_partition part;
    cudaError_t err = cb_wt_sk_partition<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>(g, &part);
    if (err != cudaSuccess) return err;
    if (part.sk_blocks > 0 &&
        (!g->workspace ||
         g->workspace_bytes < cb_wt_sk_workspace_bytes<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>(&part)))
        return cudaErrorInvalidValue;
    switch (cb_edge_mode_for(g, S::BM, S::BN, BK)) {
    case CB_EDGE_FULL:
        return cb_wt_sk_enqueue<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, CB_EDGE_FULL>(g, &part, stream);
    case CB_EDGE_VEC4:
        return cb_wt_sk_enqueue<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, CB_EDGE_VEC4>(g, &part, stream);
    default:
        return cb_wt_sk_enqueue<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, CB_EDGE_SCALAR>(g, &part,
                                                                                    stream);
    }
}

/* Query: the kernel's facts, the split in the description, and the
 * workspace the launch needs (the partials, then the flags). */
template <int WARPS_M, int WARPS_N, int SUB_M, int SUB_N, int BK>
static cudaError_t cb_wt_sk_query(const cb_matmul_args *g, cb_matmul_launch_info *info)
{
    using S = cb_wt_shape<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>;
    cb_sk_partition part;
    cudaError_t err = cb_wt_sk_partition<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>(g, &part);
    if (err != cudaSuccess) return err;
    const int mode = cb_edge_mode_for(g, S::BM, S::BN, BK);
    char desc[96];
    snprintf(desc, sizeof desc, "%dx%dx%d tile, %s, stream-K: %d of %d tiles on %d blocks", S::BM,
             S::BN, BK, cb_edge_mode_name(mode), part.sk_tiles, part.tiles, part.sk_blocks);
    /* The facts of the stream-K kernel (registers, occupancy); the grid is
     * both launches' blocks. */
    const dim3 grid(part.sk_blocks + part.dp_tiles, 1);
    switch (mode) {
    case CB_EDGE_FULL:
        err = cb_matmul_fill_info(
            cb_matmul_warptile_sk_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, CB_EDGE_FULL>,
            S::THREADS, grid, desc, info);
        break;
    case CB_EDGE_VEC4:
        err = cb_matmul_fill_info(
            cb_matmul_warptile_sk_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, CB_EDGE_VEC4>,
            S::THREADS, grid, desc, info);
        break;
    default:
        err = cb_matmul_fill_info(
            cb_matmul_warptile_sk_kernel<WARPS_M, WARPS_N, SUB_M, SUB_N, BK, CB_EDGE_SCALAR>,
            S::THREADS, grid, desc, info);
        break;
    }
    info->workspace_bytes = cb_wt_sk_workspace_bytes<WARPS_M, WARPS_N, SUB_M, SUB_N, BK>(&part);
    return err;
}

#endif
