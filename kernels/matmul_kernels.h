/* matmul_kernels.h - the FP32 SGEMM kernel ladder: launchers and launch facts.
 *
 * Every kernel computes, for row-major matrices,
 *     C (m x n) = alpha * A (m x k) * B (k x n) + beta * C
 * for any m, n, k >= 1: edges are bounds-checked (loads outside the matrix
 * read zero, stores outside are skipped). When beta == 0, C is never read,
 * as in BLAS, so a NaN-poisoned C is fully overwritten.
 *
 * Each rung is one cb_matmul_rung in its own kernels/matmul_<file>.cu,
 * its launcher and query with the same signatures, so the benchmark table
 * (bench/matmul_rungs.def) holds rungs as data:
 *   launch - enqueue the kernel on `stream`; returns the launch error
 *            (cudaErrorInvalidValue for a variant the rung does not have).
 *   query  - what that launch would be: block size, static shared memory,
 *            registers, resident blocks per SM and a one-line description;
 *            never launches.
 * `variant` selects a rung's template instance (the tile edge for
 * smem_tiled, a cb_matmul_config for pipelined, 0 otherwise), from the
 * point's value on the rung's `variant_axis`. A plan (as the tensor-core
 * ladder's) checks the launch once and then runs it any number of times.
 * Launchers never synchronize, time or print.
 */
#ifndef CB_MATMUL_KERNELS_H
#define CB_MATMUL_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cb_matmul_args {
    int m, n, k;
    float alpha, beta;
    const float *a; /* m x k, row-major, leading dimension k */
    const float *b; /* k x n, row-major, leading dimension n */
    float *c;       /* m x n, row-major, leading dimension n */
    /* Device memory of the query's workspace_bytes, or NULL where it asks
     * for none (cb_matmul_plan_make allocates it and sets both). */
    void *workspace;
    size_t workspace_bytes;
} cb_matmul_args;

typedef struct cb_matmul_launch_info {
    int threads; /* per block */
    int grid_x, grid_y;
    int regs;               /* per thread (cudaFuncGetAttributes) */
    int smem_bytes;         /* static shared memory per block */
    int local_bytes;        /* local memory per thread: non-zero means spills */
    int blocks_per_sm;      /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
    char desc[96];          /* "128x128x8 tile, 8x8/thread, vec4 edges" */
    size_t workspace_bytes; /* device scratch the launch needs (stream-K) */
} cb_matmul_launch_info;

typedef cudaError_t (*cb_matmul_launch_fn)(const cb_matmul_args *args, int variant,
                                           cudaStream_t stream);
typedef cudaError_t (*cb_matmul_query_fn)(const cb_matmul_args *args, int variant,
                                          cb_matmul_launch_info *info);

/* Tile configurations of the pipelined rung: block tile MxN, k-slice K.
 * CB_MATMUL_CONFIG_NAMES lists them in enum order (the `config` axis). */
typedef enum cb_matmul_config {
    CB_MATMUL_M128N128K8 = 0,     /* 256 threads, 8x8 per thread (the default) */
    CB_MATMUL_M128N128K16,        /* 256 threads, 8x8, deeper k-slice */
    CB_MATMUL_M128N64K8,          /* 128 threads, 8x8: twice the blocks */
    CB_MATMUL_M64N128K8,          /* 128 threads, 8x8 */
    CB_MATMUL_M64N64K8,           /* 64 threads, 8x8: small matrices */
    CB_MATMUL_M128N256K8,         /* 256 threads, 16x8 per thread */
    CB_MATMUL_M256N128K8,         /* 256 threads, 16x8 per thread */
    CB_MATMUL_M128N128K8_STREAMK, /* the default tile, a stream-K last wave */
    CB_MATMUL_NARROW_N,           /* n <= 8: warp per row(s) of A, lanes over k */
    CB_MATMUL_SHORT_M,            /* m <= 8: lanes over B's columns, k split */
    CB_MATMUL_CONFIG_COUNT
} cb_matmul_config;

#define CB_MATMUL_CONFIG_NAMES                                                                     \
    "m128n128k8,m128n128k16,m128n64k8,m64n128k8,m64n64k8,m128n256k8,m256n128k8,"                   \
    "m128n128k8_streamk,narrow_n,short_m"

/* The config `config=auto` picks: narrow_n for n <= 8 (n < m), short_m for
 * m <= 8; otherwise the largest of 128x128, 128x64 and 64x64 whose grid
 * still fills every SM once (small matrices get smaller tiles), and for
 * 128x128 over more than one wave with a last wave at most 85 % full, its
 * stream-K tail. */
cb_matmul_config cb_matmul_config_auto(int m, int n, int sm_count);

/* One rung of the ladder: its code and how a point picks its instance. */
typedef struct cb_matmul_rung {
    const char *name; /* "pipelined" */
    cb_matmul_launch_fn launch;
    cb_matmul_query_fn query;
    /* The axis naming the template instance ("tile", "config"); NULL: one. */
    const char *variant_axis;
    /* The instance the axis value `text` names for an m x n product on
     * sm_count SMs (`auto` may depend on them); -1 with a reason in `why`
     * when the rung has no such instance. */
    int (*variant_of)(const char *text, int m, int n, int sm_count, char *why, size_t len);
} cb_matmul_rung;

/* A planned product: the rung, its instance and the checked launch. */
typedef struct cb_matmul_plan {
    const cb_matmul_rung *rung;
    int variant;
    cb_matmul_args args;
} cb_matmul_plan;

/* Plan `rung`'s instance `variant` for `args`: the query (a variant the
 * rung lacks is cudaErrorInvalidValue) fills `info`, and the workspace it
 * asks for is allocated (args->workspace is not used); nothing launches.
 * A plan made is released with cb_matmul_plan_release. */
cudaError_t cb_matmul_plan_make(const cb_matmul_rung *rung, int variant, const cb_matmul_args *args,
                                cb_matmul_plan *plan, cb_matmul_launch_info *info);

/* Free the plan's workspace (none: nothing to do). */
void cb_matmul_plan_release(cb_matmul_plan *plan);

/* Enqueue the planned product on `stream`. */
cudaError_t cb_matmul_plan_run(const cb_matmul_plan *plan, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
