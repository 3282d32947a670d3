/* vecadd.c - the vector add family on the GPU: c = a + b, float32.
 *
 * Work model: 12 bytes per element (a and b read once, c written once); the
 * GB/s column is those bytes over the median time, against the DRAM peak.
 * Inputs come from the counter-based generator (kernels/cb_random.h), so the
 * check recomputes every expected element on the device from its index, and
 * a CPU spot check recomputes a sample of them on the host. */
#include "registry.h"
#include "cb_random.h"
#include "common_kernels.h"
#include "vecadd_kernels.h"
#include "vecadd_host.h"
#include "mem_budget.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vecadd_state {
    cb_vecadd_variant variant;
    float *a, *b, *c;
    void *scratch;
    size_t n;
    int grid, block, ilp;
    bool stream_hint;
    uint64_t seed_a, seed_b;
} vecadd_state;

static double vecadd_bytes(const cb_point *p)
{
    return 12.0 * (double)cb_point_int(p, "n");
}
static double vecadd_flops(const cb_point *p)
{
    return (double)cb_point_int(p, "n");
}

static void vecadd_teardown(void *state)
{
    vecadd_state *st = state;
    cudaFree(st->a);
    cudaFree(st->b);
    cudaFree(st->c);
    cudaFree(st->scratch);
    free(st);
}

static cb_status vecadd_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                              cb_point_info *info, cb_msg *why)
{
    const cb_vecadd_variant variant = *(const cb_vecadd_variant *)ctx->param;
    const cb_device_info *dev = ctx->dev;
    int64_t n = cb_point_int(p, "n");
    int block = (int)cb_point_int(p, "block");
    if (block > dev->max_threads_per_block) {
        cb_msg_set(why, "block %d exceeds the device limit of %d threads", block,
                   dev->max_threads_per_block);
        return CB_SKIP;
    }
    int ilp = variant == CB_VECADD_FLOAT4 ? (int)cb_point_int(p, "ilp") : 1;
    if (ilp != 1 && ilp != 2 && ilp != 4) {
        cb_msg_set(why, "ilp %d is not compiled (1, 2 or 4)", ilp);
        return CB_SKIP;
    }
    bool stream_hint = variant == CB_VECADD_FLOAT4 && cb_point_is(p, "hint", "stream");
    /* a, b and c: 3 n floats (n = 2^62 overflows 64 bits: a skip, not a wrap). */
    cb_status fit =
        cb_mem_check_device(cb_mem_bytes(cb_mem_bytes((uint64_t)n, 3), sizeof(float)), why);
    if (fit != CB_OK) return fit;

    int per_sm = 0;
    CB_CUDA(cb_vecadd_blocks_per_sm(variant, block, ilp, stream_hint, &per_sm));
    info->occupancy = (double)per_sm * block / dev->max_threads_per_sm;

    int grid = 0;
    if (variant == CB_VECADD_GRID_STRIDE || variant == CB_VECADD_FLOAT4) {
        int64_t g = cb_point_int(p, "grid");
        /* auto: exactly one full wave of resident blocks. */
        grid = g == CB_AXIS_WORD ? per_sm * dev->sm_count : (int)g;
        if (g > 0x7fffffff) {
            cb_msg_set(why, "grid %lld exceeds 2^31-1 blocks", (long long)g);
            return CB_SKIP;
        }
        snprintf(info->note, sizeof info->note, "grid %d blocks (%.3g per SM)", grid,
                 (double)grid / dev->sm_count);
    } else if ((n / (variant == CB_VECADD_FLOAT4_PER_THREAD ? 4 : 1) + block - 1) / block >
               0x7fffffff) {
        cb_msg_set(why, "n / block exceeds 2^31-1 blocks");
        return CB_SKIP;
    }

    vecadd_state *st = calloc(1, sizeof *st);
    if (!st) {
        cb_msg_set(why, "out of host memory");
        return CB_SKIP;
    }
    *state = st;
    st->variant = variant;
    st->n = (size_t)n;
    st->grid = grid;
    st->block = block;
    st->ilp = ilp;
    st->stream_hint = stream_hint;
    st->seed_a = cb_mix64(ctx->seed ^ 0xa);
    st->seed_b = cb_mix64(ctx->seed ^ 0xb);
    CB_CUDA(cudaMalloc((void **)&st->a, st->n * sizeof(float)));
    CB_CUDA(cudaMalloc((void **)&st->b, st->n * sizeof(float)));
    CB_CUDA(cudaMalloc((void **)&st->c, st->n * sizeof(float)));
    CB_CUDA(cudaMalloc(&st->scratch, sizeof(cb_vecadd_check)));
    CB_CUDA(cb_launch_fill_random(st->a, st->n, st->seed_a, ctx->stream));
    CB_CUDA(cb_launch_fill_random(st->b, st->n, st->seed_b, ctx->stream));
    /* Poison: all-ones bytes are NaN, so an unwritten element cannot pass. */
    CB_CUDA(cudaMemsetAsync(st->c, 0xff, st->n * sizeof(float), ctx->stream));
    CB_CUDA(cudaStreamSynchronize(ctx->stream));
    return CB_OK;
}

static cb_status vecadd_run(void *state, cudaStream_t s, cb_msg *why)
{
    vecadd_state *st = state;
    CB_CUDA(cb_launch_vecadd(st->variant, st->a, st->b, st->c, st->n, st->grid, st->block, st->ilp,
                             st->stream_hint, s));
    return CB_OK;
}

/* Host-side reference for one element, from the generator alone. */
static float reference_element(const vecadd_state *st, size_t i)
{
    return cb_random_value(st->seed_a, i) + cb_random_value(st->seed_b, i);
}

static cb_status vecadd_verify(void *state, double *error, cb_msg *why)
{
    vecadd_state *st = state;
    cb_vecadd_check chk;
    CB_CUDA(cb_check_vecadd(st->c, st->n, st->seed_a, st->seed_b, st->scratch, &chk, NULL));
    *error = chk.max_abs_error;
    if (chk.mismatches) {
        cb_msg_set(why, "%llu of %zu elements wrong, first at index %llu (max |error| %g)",
                   chk.mismatches, st->n, chk.first_bad, (double)chk.max_abs_error);
        return CB_FAIL;
    }
    /* Independent CPU spot check: ends of the vector and scattered indices. */
    enum { SPOTS = 96 };
    for (int k = 0; k < SPOTS; k++) {
        size_t i = k < 32   ? (size_t)k
                   : k < 64 ? st->n - 1 - (size_t)(k - 32) % st->n
                            : (size_t)(cb_mix64((uint64_t)k) % st->n);
        if (i >= st->n) continue;
        float got;
        CB_CUDA(cudaMemcpy(&got, st->c + i, sizeof got, cudaMemcpyDeviceToHost));
        float want = reference_element(st, i);
        if (got != want) {
            cb_msg_set(why, "CPU spot check: c[%zu] = %.9g, expected %.9g", i, (double)got,
                       (double)want);
            *error = isfinite(got) ? fabs((double)got - want) : INFINITY;
            return CB_FAIL;
        }
    }
    return CB_OK;
}

#define N_AXIS                                                                                     \
    {                                                                                              \
        .name = "n", .kind = CB_AXIS_INT, .defaults = "2^10:2^28:x4", .min_value = 1,              \
        .help = "elements per vector (float32)"                                                    \
    }
#define BLOCK_AXIS(def)                                                                            \
    {                                                                                              \
        .name = "block", .kind = CB_AXIS_INT, .defaults = def, .min_value = 1,                     \
        .help = "threads per block"                                                                \
    }
#define GRID_AXIS(def)                                                                             \
    {                                                                                              \
        .name = "grid", .kind = CB_AXIS_INT, .defaults = def, .choices = "auto", .min_value = 1,   \
        .help = "blocks; `auto` = one full wave (resident blocks per SM x SMs), `4sm` = 4 x SMs"   \
    }

/* Default sweeps: each value teaches something, since the default suite
 * runs them all. Blocks: 32 (a warp: occupancy-limited by blocks per SM),
 * 128, 256 and 1024 (the usual choices); grids: one wave, a few blocks per
 * SM, many. The float4 variant's sweep starts at 2^16: below that every
 * vecadd is one launch (~5 us on the H200) and the other variants already
 * show that floor; its hint axis stays, since evict-first made n >= 2^24
 * a median 6% slower (up to 9.5%) in round 1's H200 run, a lesson worth a
 * point. */
static const cb_axis_def axes_thread_per_elem[] = {N_AXIS, BLOCK_AXIS("32,128,256,1024")};
static const cb_axis_def axes_grid_stride[] = {N_AXIS, BLOCK_AXIS("256,1024"),
                                               GRID_AXIS("auto,2sm,8sm,32sm")};
static const cb_axis_def axes_float4[] = {
    {.name = "n",
     .kind = CB_AXIS_INT,
     .defaults = "2^16:2^28:x4",
     .min_value = 1,
     .help = "elements per vector (float32)"},
    BLOCK_AXIS("256,1024"),
    GRID_AXIS("auto,32sm"),
    {.name = "ilp",
     .kind = CB_AXIS_INT,
     .defaults = "1,4",
     .min_value = 1,
     .help = "float4 pairs loaded per thread before the first store (1, 2, 4)"},
    {.name = "hint",
     .kind = CB_AXIS_ENUM,
     .defaults = "none,stream",
     .choices = "none,stream",
     .help = "cache hint of loads and stores: none, or stream (evict-first, __ldcs/__stcs)"}};

#define VECADD_COMMON                                                                              \
    .target = CB_TARGET_CUDA, .peak = CB_PEAK_DRAM, .bytes = vecadd_bytes, .flops = vecadd_flops,  \
    .setup = vecadd_setup, .run = vecadd_run, .verify = vecadd_verify, .teardown = vecadd_teardown

/* The variants' parameters, indexed by cb_vecadd_variant. */
static const cb_vecadd_variant vecadd_variants[] = {CB_VECADD_THREAD_PER_ELEM,
                                                    CB_VECADD_GRID_STRIDE, CB_VECADD_FLOAT4,
                                                    CB_VECADD_FLOAT4_PER_THREAD};

static const cb_bench vecadd_benches[] = {
    {.name = "vecadd/thread_per_elem",
     .summary = "c = a + b, one element per thread (grid = ceil(n / block))",
     .axes = axes_thread_per_elem,
     .n_axes = CB_ARRAY_LEN(axes_thread_per_elem),
     .param = &vecadd_variants[CB_VECADD_THREAD_PER_ELEM],
     VECADD_COMMON},
    {.name = "vecadd/float4_per_thread",
     .summary = "c = a + b, one float4 per thread (grid = ceil(n / 4 / block))",
     .axes = axes_thread_per_elem,
     .n_axes = CB_ARRAY_LEN(axes_thread_per_elem),
     .param = &vecadd_variants[CB_VECADD_FLOAT4_PER_THREAD],
     VECADD_COMMON},
    {.name = "vecadd/grid_stride",
     .summary = "c = a + b, grid-stride loop over floats; the grid is an axis",
     .axes = axes_grid_stride,
     .n_axes = CB_ARRAY_LEN(axes_grid_stride),
     .param = &vecadd_variants[CB_VECADD_GRID_STRIDE],
     VECADD_COMMON},
    {.name = "vecadd/grid_stride_float4",
     .summary = "c = a + b, grid-stride loop over float4 with ilp loads in flight",
     .axes = axes_float4,
     .n_axes = CB_ARRAY_LEN(axes_float4),
     .param = &vecadd_variants[CB_VECADD_FLOAT4],
     VECADD_COMMON},
    {.name = "vecadd/host",
     .summary = "c = a + b on the CPU with threads: the baseline that runs anywhere",
     .target = CB_TARGET_HOST,
     .axes = cb_vecadd_host_axes,
     .n_axes = CB_VECADD_HOST_N_AXES,
     .peak = CB_PEAK_NONE,
     .bytes = vecadd_bytes,
     .flops = vecadd_flops,
     .setup = cb_vecadd_host_setup,
     .run = cb_vecadd_host_run,
     .verify = cb_vecadd_host_verify,
     .teardown = cb_vecadd_host_teardown},
};
const cb_family cb_family_vecadd = {
    .name = "vecadd", .benches = vecadd_benches, .count = CB_ARRAY_LEN(vecadd_benches)};
