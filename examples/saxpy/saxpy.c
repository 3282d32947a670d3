/* saxpy.c - the example family: a whole benchmark family in one file, the
 * way docs/adding-a-benchmark.md walks through it.
 *
 *   axes       n (elements) and block (threads per block), with defaults
 *   work model 12 bytes per element (read x, read y, write y), 2 flops
 *   setup      sizes checked, inputs random, y poisoned after the copy the
 *              verify needs
 *   run        one launch on the runner's stream, nothing else
 *   verify     every element against a host reference
 *   variants   one table entry each; `.param` says which kernel
 */
#include "saxpy_kernels.h"
#include "saxpy_example.h"
#include "mem_budget.h"
#include "common_axes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { SAXPY_FAMILY_SEED = 0x5a3 };

typedef struct saxpy_state {
    cb_example_saxpy_kind kind;
    float a;
    float *x, *y;         /* device                                 */
    float *hx, *hy0, *hy; /* host: x, y before the run, y after     */
    size_t n;
    int block;
    cudaStream_t stream;
} saxpy_state;

static double saxpy_bytes(const cb_point *p)
{
    return 12.0 * (double)cb_point_int(p, "n");
}
static double saxpy_flops(const cb_point *p)
{
    return 2.0 * (double)cb_point_int(p, "n");
}

static void saxpy_teardown(void *state)
{
    saxpy_state *st = state;
    cudaFree(st->x);
    cudaFree(st->y);
    free(st->hx);
    free(st->hy0);
    free(st->hy);
    free(st);
}

/* A deterministic pseudo-random value in [-1, 1), never all zeros. */
static float random_value(uint64_t seed, size_t i)
{
    uint64_t z = seed + 0x9e3779b97f4a7c15ull * (i + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return (float)((double)(z >> 40) / (double)(1ull << 24) * 2.0 - 1.0);
}

static cb_status saxpy_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                             cb_point_info *info, cb_msg *why)
{
    const cb_example_saxpy_kind kind = *(const cb_example_saxpy_kind *)ctx->param;
    int64_t n = cb_point_int(p, "n");
    int block = (int)cb_point_int(p, "block");
    if (block > ctx->dev->max_threads_per_block) {
        cb_msg_set(why, "block %d exceeds the device limit of %d threads", block,
                   ctx->dev->max_threads_per_block);
        return CB_SKIP;
    }
    /* Two device vectors and three host copies must fit; say so, not crash. */
    if ((uint64_t)n > ((uint64_t)1 << 40) / sizeof(float)) {
        cb_msg_set(why, "n=%lld is beyond this example's 4 TiB limit", (long long)n);
        return CB_SKIP;
    }
    size_t bytes = (size_t)n * sizeof(float);
    size_t free_b = 0, total_b = 0;
    CB_CUDA(cudaMemGetInfo(&free_b, &total_b));
    if (2 * bytes > free_b) {
        cb_msg_set(why, "needs %.3g GB of device memory, %.3g GB free", 2e-9 * bytes,
                   1e-9 * free_b);
        return CB_SKIP;
    }
    saxpy_state *st = cb_mem_state_new(sizeof *st, "out of host memory", why);
    if (!st) return CB_SKIP;
    *state = st; /* from here the runner calls teardown */
    st->kind = kind;
    st->a = 1.5f;
    st->n = (size_t)n;
    st->block = block;
    st->stream = ctx->stream;
    st->hx = malloc(bytes);
    st->hy0 = malloc(bytes);
    st->hy = malloc(bytes);
    if (!st->hx || !st->hy0 || !st->hy) {
        cb_msg_set(why, "out of host memory for 3 x %zu bytes", bytes);
        return CB_SKIP;
    }
    for (size_t i = 0; i < st->n; i++) {
        st->hx[i] = random_value(ctx->seed ^ SAXPY_FAMILY_SEED, i);
        st->hy0[i] = random_value(ctx->seed ^ (SAXPY_FAMILY_SEED << 1), i);
    }
    CB_CUDA(cudaMalloc((void **)&st->x, bytes > 0 ? bytes : 4));
    CB_CUDA(cudaMalloc((void **)&st->y, bytes > 0 ? bytes : 4));
    CB_CUDA(cudaMemcpyAsync(st->x, st->hx, bytes, cudaMemcpyHostToDevice, st->stream));
    CB_CUDA(cudaMemcpyAsync(st->y, st->hy0, bytes, cudaMemcpyHostToDevice, st->stream));
    CB_CUDA(cudaStreamSynchronize(st->stream));
    info->occupancy = -1.0;
    return CB_OK;
}

static cb_status saxpy_run(void *state, cudaStream_t stream, cb_msg *why)
{
    saxpy_state *st = state;
    CB_CUDA(cb_example_saxpy(st->kind, st->a, st->x, st->y, st->n, st->block, stream));
    return CB_OK;
}

/* The runner verifies the first run only, so y holds a x + y0 exactly once:
 * the same float operation on the host gives the same bits. */
static cb_status saxpy_verify(void *state, double *error, cb_msg *why)
{
    saxpy_state *st = state;
    CB_CUDA(cudaMemcpy(st->hy, st->y, st->n * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < st->n; i++) {
        float want = st->a * st->hx[i] + st->hy0[i];
        double err = isfinite(st->hy[i]) ? fabs((double)st->hy[i] - want) : INFINITY;
        /* fma or not: one rounding apart at most. */
        if (err > 1e-6 * (fabs(want) + 1)) {
            if (bad++ == 0) first = i;
        }
        if (err > worst) worst = err;
    }
    *error = worst;
    if (bad) {
        cb_msg_set(why, "%zu of %zu elements wrong, first at %zu", bad, st->n, first);
        return CB_FAIL;
    }
    return CB_OK;
}

static const cb_axis_def saxpy_axes[] = {
    {.name = "n",
     .kind = CB_AXIS_INT,
     .defaults = "2^16:2^26:x16",
     .min_value = 1,
     .help = "elements (float32)"},
    /* The block axis every 1-D launch shares (common_axes.h). */
    CB_BLOCK_AXIS("256"),
};

static const cb_example_saxpy_kind saxpy_kinds[] = {CB_EXAMPLE_SAXPY_SCALAR,
                                                    CB_EXAMPLE_SAXPY_FLOAT4};

#define SAXPY_COMMON                                                                               \
    .target = CB_TARGET_CUDA, CB_AXES(saxpy_axes), .peak = CB_PEAK_DRAM, .bytes = saxpy_bytes,     \
    .flops = saxpy_flops, .setup = saxpy_setup, .run = saxpy_run, .verify = saxpy_verify,          \
    .teardown = saxpy_teardown

static const cb_bench saxpy_benches[] = {
    {.name = "saxpy/scalar",
     .summary = "y = a x + y, one float per thread",
     .param = &saxpy_kinds[0],
     SAXPY_COMMON},
    {.name = "saxpy/float4",
     .summary = "y = a x + y, one float4 per thread",
     .param = &saxpy_kinds[1],
     .ref_bench = "saxpy/scalar",
     SAXPY_COMMON},
};

const cb_family cb_example_family_saxpy = {
    .name = "saxpy", .benches = saxpy_benches, .count = CB_ARRAY_LEN(saxpy_benches)};
