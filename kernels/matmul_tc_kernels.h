/* matmul_tc_kernels.h - the tensor-core GEMM ladder: what a caller needs to plan,
 * launch and describe one product on the tensor cores.
 *
 *     C (m x n, FP32) = alpha * A (m x k) * B (k x n) + beta * C
 *
 * row-major like the FP32 ladder (matmul_kernels.h), with A and B either BF16
 * (stored as raw uint16_t bits, FP32 accumulation) or FP32 read by the
 * tensor cores as TF32 (10-bit mantissa, FP32 accumulation). When beta == 0
 * C is never read, so a NaN-poisoned C is fully overwritten.
 *
 * The rungs, each adding one idea (docs/matmul-ladder.md, tensor cores):
 *   MMA       mma.sync m16n8k16 (BF16) / m16n8k8 (TF32) fed from a padded
 *             shared-memory tile; any m, n, k (sm_80+)
 *   LDMATRIX  + ldmatrix from XOR-swizzled shared memory and a 3-stage
 *             cp.async pipeline (sm_80+)
 *   WGMMA     Hopper: wgmma.mma_async on shared-memory operands that TMA
 *             loads, 3-stage mbarrier pipeline, two consumer warpgroups
 *             (sm_90a)
 *   WGMMA_WS  + warp specialisation (a producer warpgroup that only issues
 *             TMA, two consumer warpgroups with setmaxnreg), 128x256 tiles,
 *             4 stages, persistent grid with grouped tile order (sm_90a)
 *   WGMMA_CLUSTER  + clusters of two CTAs on vertically adjacent tiles that
 *             load half of B each and multicast it to both (sm_90a)
 *
 * A product is planned once (tensor maps encoded, shared-memory limits
 * raised, launch facts read) and then run any number of times; running
 * only enqueues work on the stream. Constraints a rung cannot lift are
 * reported by cb_tc_supported before anything is allocated.
 */
#ifndef CB_MATMUL_TC_H
#define CB_MATMUL_TC_H

#include "matmul_kernels.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cb_tc_precision {
    CB_TC_BF16 = 0, /* A, B: bfloat16 bits; FP32 accumulation and C */
    CB_TC_TF32,     /* A, B: float, multiplied as TF32; FP32 accumulation */
} cb_tc_precision;

typedef struct cb_tc_args {
    int m, n, k;
    float alpha, beta;
    const void *a;   /* m x k, row-major, leading dimension k                 */
    const void *b;   /* k x n, row-major, leading dimension n                 */
    float *c;        /* m x n, row-major, leading dimension n                 */
    void *workspace; /* set by the plan (TF32 WGMMA rungs: B^T); callers leave it NULL */
} cb_tc_args;

/* Which row pitches a rung's loads need (16-byte chunks: cp.async copies
 * them whole, and TMA needs every row pitch to be a multiple of 16 bytes). */
typedef enum cb_tc_rows {
    CB_TC_ROWS_ANY,      /* any k and n                                      */
    CB_TC_ROWS_CP_ASYNC, /* k and n multiples of 8 (BF16) or 4 (TF32)        */
    CB_TC_ROWS_TMA,      /* BF16: k and n multiples of 8; TF32: k of 4 (B is
                          * transposed into the workspace first)             */
} cb_tc_rows;

typedef struct cb_tc_plan cb_tc_plan;

/* A rung: what it needs and how it plans and launches. Every fact about a
 * rung is here, once: the runner's capability check (bench.h `needs`, read
 * through the family) and cb_tc_supported below both read these fields. */
typedef struct cb_tc_rung {
    const char *name;    /* "wgmma_ws"                                        */
    int min_cc, max_cc;  /* compute capability (major x 10 + minor) the code
                          * needs; max_cc 0: no upper bound                   */
    const char *feature; /* what needs it: "wgmma + TMA, sm_90a code"          */
    bool sm90a;          /* built for sm_90a only (cb_tc_sm90a_built)          */
    cb_tc_rows rows;     /* the row pitches its loads take                     */
    bool persistent;     /* a persistent grid (else tile rows along grid.y)   */
    cudaError_t (*prepare)(cb_tc_plan *p, cb_matmul_launch_info *info);
    cudaError_t (*launch)(const cb_tc_plan *p, cudaStream_t stream);
} cb_tc_rung;

/* The rungs, each defined in its kernels/matmul_tc_<rung>*.cu. */
extern const cb_tc_rung cb_tc_rung_mma, cb_tc_rung_ldmatrix, cb_tc_rung_wgmma, cb_tc_rung_wgmma_ws,
    cb_tc_rung_wgmma_cluster;

/* Can `rung` compute an (m, n, k) product in `prec` on a device of compute
 * capability cc_major.cc_minor in this build? false with a one-line reason
 * in `why` (shape constraint, missing feature, or a build without sm_90a). */
bool cb_tc_supported(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n, int k,
                     int cc_major, int cc_minor, char *why, size_t why_len);

/* Was the Hopper (sm_90a) code compiled into this build? */
bool cb_tc_sm90a_built(void);

/* Device memory a plan allocates besides its inputs (TF32 WGMMA rungs:
 * B transposed, n x k floats), so a caller can check it fits first. */
size_t cb_tc_workspace_bytes(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n, int k);

/* Plan one product: checks cb_tc_supported for the current device (a
 * refusal is cudaErrorInvalidValue), allocates the workspace, encodes the
 * TMA tensor maps, raises the kernels' shared-memory limit, and fills
 * `info` (block, grid, registers, shared memory, resident blocks per SM, a
 * one-line description). The pointers in `args` are kept: run the plan
 * only while they are valid. */
cudaError_t cb_tc_plan_create(const cb_tc_rung *rung, cb_tc_precision prec, const cb_tc_args *args,
                              cb_tc_plan **out, cb_matmul_launch_info *info);

/* Enqueue the product on `stream` (the TF32 WGMMA rungs enqueue a transpose
 * of B into the workspace first: part of the run, so part of the time). */
cudaError_t cb_tc_plan_run(const cb_tc_plan *plan, cudaStream_t stream);

/* Free the plan and its workspace; NULL is fine. */
void cb_tc_plan_destroy(cb_tc_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
