/* matmul_cuda.h - CUDA-only helpers shared by the kernels/matmul_*.cu files
 * (not for C code): ceiling division, the edge-handling modes, the store of
 * alpha * acc + beta * C, the register tile's zeroing and outer-product
 * step, the common body of every rung's query, and the
 * entry points of a rung that is one kernel launch. */
#ifndef CB_MATMUL_CUDA_H
#define CB_MATMUL_CUDA_H

#include "matmul_kernels.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline int cb_cdiv(int a, int b)
{
    return (a + b - 1) / b;
}

/* How a tiled kernel treats the matrix edges, chosen per launch:
 *   FULL   - every dimension is a multiple of the tile: float4 loads and
 *            stores with no bounds checks at all (the fast path);
 *   VEC4   - k and n are multiples of 4 and the pointers 16-byte aligned:
 *            float4 loads (a float4 is either fully inside or fully
 *            outside);
 *   SCALAR - anything else: scalar loads;
 *   SCALAR_B - (the warp-tiled kernels only, cb_wt_edge_mode) SCALAR for
 *            B and C, but A's rows are float4s (k a multiple of 4, A
 *            16-byte aligned): n off a multiple of 4 alone.
 * How a kernel keeps VEC4 and SCALAR loads inside the matrices is its own
 * (the warp-tiled kernels clamp the addresses and check k only in the last
 * k-slice, matmul_warptile.h; the simpler rungs check every load). */
enum cb_edge_mode { CB_EDGE_FULL = 0, CB_EDGE_VEC4 = 1, CB_EDGE_SCALAR = 2, CB_EDGE_SCALAR_B = 3 };

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
    return mode == CB_EDGE_FULL       ? "full tiles"
           : mode == CB_EDGE_VEC4     ? "vec4 edges"
           : mode == CB_EDGE_SCALAR_B ? "scalar edges, float4 A"
                                      : "scalar edges";
}

/* *out = v + beta * *out, where v already carries alpha; C is read only
 * when beta != 0 (so C may hold garbage, as BLAS allows for beta = 0). */
static __device__ __forceinline__ void cb_matmul_store(float *out, float v, float beta)
{
    *out = beta == 0.0f ? v : fmaf(beta, *out, v);
}

/* The same for four consecutive floats of C, 16-byte aligned. */
static __device__ __forceinline__ void cb_matmul_store4(float *out, float4 v, float beta)
{
    float4 *p = reinterpret_cast<float4 *>(out);
    if (beta != 0.0f) {
        const float4 old = *p;
        v.x = fmaf(beta, old.x, v.x);
        v.y = fmaf(beta, old.y, v.y);
        v.z = fmaf(beta, old.z, v.z);
        v.w = fmaf(beta, old.w, v.w);
    }
    *p = v;
}

/* A thread's TM x TN register tile of C, zeroed before the k-loop. */
template <int TM, int TN> __device__ __forceinline__ void cb_matmul_zero_tile(float (&acc)[TM][TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
}

/* One k-step of a register tile: acc += ra rb^T, the outer product of the
 * TM values of A's column and the TN of B's row at that k (TM x TN FMAs
 * from TM + TN registers, the reuse register blocking is for). */
template <int TM, int TN>
__device__ __forceinline__ void cb_matmul_outer_fma(float (&acc)[TM][TN], const float (&ra)[TM],
                                                    const float (&rb)[TN])
{
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = fmaf(ra[i], rb[j], acc[i][j]);
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

/* A `config` axis value: `auto` is auto_config; else its position in the
 * comma-separated `names` ("a,b,c", in enum order), or -1 with the reason
 * in `why`. */
static inline int cb_matmul_config_of(const char *text, const char *names, int auto_config,
                                      char *why, size_t len)
{
    if (strcmp(text, "auto") == 0) return auto_config;
    const char *list = names;
    const size_t want = strlen(text);
    for (int i = 0; *list; i++) {
        const size_t item = strcspn(list, ",");
        if (item == want && strncmp(list, text, want) == 0) return i;
        list += item + (list[item] == ',');
    }
    snprintf(why, len, "config=%s: not one of auto,%s", text, names);
    return -1;
}

/* A rung that is one kernel of the FP32 signature, launched without
 * dynamic shared memory: what its plan function says for a shape. */
typedef void (*cb_matmul_kernel_fn)(int m, int n, int k, float alpha, const float *a,
                                    const float *b, float beta, float *c);
struct cb_matmul_launch_plan {
    cb_matmul_kernel_fn kernel;
    dim3 grid, block;
    const char *desc; /* the query's description */
};
typedef cb_matmul_launch_plan (*cb_matmul_plan_fn)(const cb_matmul_args *g);

/* Launch the planned kernel and return the launch error. A grid over
 * 65535 blocks in y is refused as the launch itself would refuse it. */
template <cb_matmul_plan_fn PLAN>
static cudaError_t cb_matmul_planned_launch(const cb_matmul_args *g, cudaStream_t stream)
{
    const cb_matmul_launch_plan p = PLAN(g);
    if (p.grid.y > 65535) return cudaErrorInvalidConfiguration;
    p.kernel<<<p.grid, p.block, 0, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b, g->beta, g->c);
    return cudaGetLastError();
}

template <cb_matmul_plan_fn PLAN>
static cudaError_t cb_matmul_planned_query(const cb_matmul_args *g, cb_matmul_launch_info *info)
{
    const cb_matmul_launch_plan p = PLAN(g);
    return cb_matmul_fill_info(p.kernel, (int)(p.block.x * p.block.y * p.block.z), p.grid, p.desc,
                               info);
}

/* One compiled instance of a rung: the variant that selects it and its
 * entry points (the rung's launch and query without the variant). */
struct cb_matmul_instance {
    int variant;
    cudaError_t (*launch)(const cb_matmul_args *g, cudaStream_t stream);
    cudaError_t (*query)(const cb_matmul_args *g, cb_matmul_launch_info *info);
};

/* The instance of `variant` among the n of `table`, or NULL. */
static inline const cb_matmul_instance *cb_matmul_instance_of(const cb_matmul_instance *table,
                                                              size_t n, int variant)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].variant == variant) return &table[i];
    return NULL;
}

/* The descriptor cb_matmul_rung_<rung> over the array `table` of its
 * compiled instances (a variant not there is cudaErrorInvalidValue), with
 * the axis that names them and the function that parses its values. */
#define CB_MATMUL_RUNG_OF(rung, table, axis, variant_of_fn)                                        \
    static cudaError_t cb_matmul_##rung##_launch(const cb_matmul_args *g, int variant,             \
                                                 cudaStream_t stream)                              \
    {                                                                                              \
        const cb_matmul_instance *in =                                                             \
            cb_matmul_instance_of(table, sizeof table / sizeof *table, variant);                   \
        return in ? in->launch(g, stream) : cudaErrorInvalidValue;                                 \
    }                                                                                              \
    static cudaError_t cb_matmul_##rung##_query(const cb_matmul_args *g, int variant,              \
                                                cb_matmul_launch_info *info)                       \
    {                                                                                              \
        const cb_matmul_instance *in =                                                             \
            cb_matmul_instance_of(table, sizeof table / sizeof *table, variant);                   \
        return in ? in->query(g, info) : cudaErrorInvalidValue;                                    \
    }                                                                                              \
    extern "C" const cb_matmul_rung cb_matmul_rung_##rung = {                                      \
        .name = #rung,                                                                             \
        .launch = cb_matmul_##rung##_launch,                                                       \
        .query = cb_matmul_##rung##_query,                                                         \
        .variant_axis = axis,                                                                      \
        .variant_of = variant_of_fn,                                                               \
    }

/* A rung without a variant axis: one instance, variant 0, from `launch(g,
 * stream)` and `query(g, info)`. A name with template arguments goes in
 * parentheses. */
#define CB_MATMUL_SINGLE_RUNG(rung, launch_fn, query_fn)                                           \
    static const cb_matmul_instance cb_matmul_##rung##_instances[] = {{0, launch_fn, query_fn}};   \
    CB_MATMUL_RUNG_OF(rung, cb_matmul_##rung##_instances, NULL, NULL)

/* The same for a rung that is one planned kernel (cb_matmul_plan_fn). */
#define CB_MATMUL_PLANNED_RUNG(rung, plan_fn)                                                      \
    CB_MATMUL_SINGLE_RUNG(rung, cb_matmul_planned_launch<plan_fn>, cb_matmul_planned_query<plan_fn>)

#endif
