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
#include "common_axes.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct vecadd_state {
    const cb_vecadd_kernel *kernel; /* the variant (kernels/vecadd_<variant>.cu) */
    cb_vecadd_launch launch;        /* pointers, n, grid, block and knobs        */
    void *scratch;
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
    cudaFree((void *)st->launch.a);
    cudaFree((void *)st->launch.b);
    cudaFree(st->launch.c);
    cudaFree(st->scratch);
    free(st);
}

/* The launch of this point, checked before any CUDA call: block and knobs
 * within what the device and the kernels take. */
static cb_status vecadd_plan(const cb_point *p, const cb_vecadd_kernel *k,
                             const cb_device_info *dev, cb_vecadd_launch *l, cb_msg *why)
{
    l->n = (size_t)cb_point_int(p, "n");
    l->block = (int)cb_point_int(p, "block");
    l->ilp = cb_point_has(p, "ilp") ? (int)cb_point_int(p, "ilp") : 1;
    l->stream_hint = cb_point_has(p, "hint") && cb_point_is(p, "hint", "stream");
    if (l->block > dev->max_threads_per_block) {
        cb_msg_set(why, "block %d exceeds the device limit of %d threads", l->block,
                   dev->max_threads_per_block);
        return CB_SKIP;
    }
    if (l->ilp != 1 && l->ilp != 2 && l->ilp != 4) {
        cb_msg_set(why, "ilp %d is not compiled (1, 2 or 4)", l->ilp);
        return CB_SKIP;
    }
    /* a, b and c: 3 n floats (n = 2^62 overflows 64 bits: a skip, not a wrap). */
    cb_status fit =
        cb_mem_check_device(cb_mem_bytes(cb_mem_bytes((uint64_t)l->n, 3), sizeof(float)), why);
    if (fit != CB_OK) return fit;
    if (k->grid_stride) {
        int64_t g = cb_point_int(p, "grid");
        if (g > 0x7fffffff) {
            cb_msg_set(why, "grid %lld exceeds 2^31-1 blocks", (long long)g);
            return CB_SKIP;
        }
        l->grid = (int)g; /* CB_AXIS_WORD (auto) until the occupancy is known */
    } else if ((l->n / (size_t)k->elems_per_thread + (size_t)l->block - 1) / (size_t)l->block >
               0x7fffffff) {
        cb_msg_set(why, "n / block exceeds 2^31-1 blocks");
        return CB_SKIP;
    }
    return CB_OK;
}

/* The occupancy, and the grid of a grid-stride kernel: its `grid` axis,
 * `auto` = one full wave of resident blocks. */
static cb_status vecadd_occupancy(const cb_vecadd_kernel *k, const cb_device_info *dev,
                                  cb_vecadd_launch *l, cb_point_info *info, cb_msg *why)
{
    int per_sm = 0;
    CB_CUDA(k->blocks_per_sm(l, &per_sm));
    info->occupancy = (double)per_sm * l->block / dev->max_threads_per_sm;
    if (!k->grid_stride) return CB_OK;
    if (l->grid == CB_AXIS_WORD) l->grid = per_sm * dev->sm_count;
    snprintf(info->note, sizeof info->note, "grid %d blocks (%.3g per SM)", l->grid,
             (double)l->grid / dev->sm_count);
    return CB_OK;
}

static cb_status vecadd_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                              cb_point_info *info, cb_msg *why)
{
    const cb_vecadd_kernel *kernel = ctx->param;
    cb_vecadd_launch l = {0};
    cb_status s = vecadd_plan(p, kernel, ctx->dev, &l, why);
    if (s == CB_OK) s = vecadd_occupancy(kernel, ctx->dev, &l, info, why);
    if (s != CB_OK) return s;
    vecadd_state *st = cb_mem_state_new(sizeof *st, "out of host memory", why);
    if (!st) return CB_SKIP;
    *state = st;
    st->kernel = kernel;
    st->seed_a = cb_mix64(ctx->seed ^ 0xa);
    st->seed_b = cb_mix64(ctx->seed ^ 0xb);
    float *a = NULL, *b = NULL;
    CB_CUDA(cudaMalloc((void **)&a, l.n * sizeof(float)));
    l.a = a;
    CB_CUDA(cudaMalloc((void **)&b, l.n * sizeof(float)));
    l.b = b;
    CB_CUDA(cudaMalloc((void **)&l.c, l.n * sizeof(float)));
    st->launch = l;
    CB_CUDA(cudaMalloc(&st->scratch, sizeof(cb_vecadd_check)));
    CB_CUDA(cb_launch_fill_random(a, l.n, st->seed_a, ctx->stream));
    CB_CUDA(cb_launch_fill_random(b, l.n, st->seed_b, ctx->stream));
    /* Poison: all-ones bytes are NaN, so an unwritten element cannot pass. */
    CB_CUDA(cudaMemsetAsync(l.c, 0xff, l.n * sizeof(float), ctx->stream));
    CB_CUDA(cudaStreamSynchronize(ctx->stream));
    return CB_OK;
}

static cb_status vecadd_run(void *state, cudaStream_t s, cb_msg *why)
{
    vecadd_state *st = state;
    CB_CUDA(st->kernel->launch(&st->launch, s));
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
    CB_CUDA(cb_check_vecadd(st->launch.c, st->launch.n, st->seed_a, st->seed_b, st->scratch, &chk,
                            NULL));
    *error = chk.max_abs_error;
    if (chk.mismatches) {
        cb_msg_set(why, "%llu of %zu elements wrong, first at index %llu (max |error| %g)",
                   chk.mismatches, st->launch.n, chk.first_bad, (double)chk.max_abs_error);
        return CB_FAIL;
    }
    /* Independent CPU spot check: ends of the vector and scattered indices. */
    enum { SPOTS = 96 };
    const size_t n = st->launch.n;
    for (int k = 0; k < SPOTS; k++) {
        size_t i = k < 32   ? (size_t)k
                   : k < 64 ? n - 1 - (size_t)(k - 32) % n
                            : (size_t)(cb_mix64((uint64_t)k) % n);
        if (i >= n) continue;
        float got;
        CB_CUDA(cudaMemcpy(&got, st->launch.c + i, sizeof got, cudaMemcpyDeviceToHost));
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

/* The vector lengths of the GPU variants: 1 Ki to 256 Mi floats in x4 steps. */
#define N_DEFAULTS "2^10:2^28:x4"
/* The grid of the grid-stride variants. */
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
 * a median 6% slower (up to 9.5%) in an earlier H200 run, a lesson worth a
 * point. */
static const cb_axis_def axes_thread_per_elem[] = {CB_VECADD_N_AXIS(N_DEFAULTS),
                                                   CB_BLOCK_AXIS("32,128,256,1024")};
static const cb_axis_def axes_grid_stride[] = {
    CB_VECADD_N_AXIS(N_DEFAULTS), CB_BLOCK_AXIS("256,1024"), GRID_AXIS("auto,2sm,8sm,32sm")};
static const cb_axis_def axes_float4[] = {
    CB_VECADD_N_AXIS("2^16:2^28:x4"),
    CB_BLOCK_AXIS("256,1024"),
    GRID_AXIS("auto,32sm"),
    {.name = "ilp",
     .kind = CB_AXIS_INT,
     .defaults = "1,4",
     .min_value = 1,
     .help = "float4 pairs loaded per thread before the first store (1, 2, 4)"},
    {.name = "hint",
     CB_AXIS_ENUM_ALL("none,stream"),
     .help = "cache hint of loads and stores: none, or stream (evict-first, __ldcs/__stcs)"}};

/* The variants, declared from the list (kernels/vecadd_<variant>.cu). */
#define CB_VECADD_VARIANT(variant, ...) extern const cb_vecadd_kernel cb_vecadd_kernel_##variant;
#include "vecadd_variants.def"
#undef CB_VECADD_VARIANT

/* The family defaults: 12 bytes per element against the DRAM peak. */
#define CB_VECADD_GPU                                                                              \
    .target = CB_TARGET_CUDA, .peak = CB_PEAK_DRAM, .bytes = vecadd_bytes, .flops = vecadd_flops,  \
    .setup = vecadd_setup, .run = vecadd_run, .verify = vecadd_verify,                             \
    .teardown = vecadd_teardown, .key_figures = vecadd_key
#define CB_VECADD_VARIANT(variant, ...)                                                            \
    {.name = "vecadd/" #variant, .param = &cb_vecadd_kernel_##variant, CB_VECADD_GPU, __VA_ARGS__},

static const cb_key_figure vecadd_key[] = {{.name = "vecadd"}, {0}};

static const cb_bench vecadd_benches[] = {
#include "vecadd_variants.def"
    {.name = "vecadd/host",
     .summary = "c = a + b on the CPU with threads: the baseline that runs anywhere",
     .target = CB_TARGET_HOST,
     CB_AXES(cb_vecadd_host_axes),
     .peak = CB_PEAK_NONE,
     .bytes = vecadd_bytes,
     .flops = vecadd_flops,
     .setup = cb_vecadd_host_setup,
     .run = cb_vecadd_host_run,
     .verify = cb_vecadd_host_verify,
     .teardown = cb_vecadd_host_teardown,
     .key_figures = (const cb_key_figure[]){{.name = "vecadd/host", .rule = CB_KEY_LARGEST}, {0}}},
};
#undef CB_VECADD_VARIANT

const cb_family cb_family_vecadd = {
    .name = "vecadd", .benches = vecadd_benches, .count = CB_ARRAY_LEN(vecadd_benches)};
