/* matmul_tc_kernels.h - the tensor-core GEMM ladder: what a caller needs to plan,
 * launch and describe one product on the tensor cores.
 *
 *     C (m x n, FP32) = alpha * A (m x k) * B (k x n) + beta * C
 *
 * row-major like the FP32 ladder (matmul_kernels.h), with A and B either BF16
 * (stored as raw uint16_t bits, FP32 accumulation), FP32 read by the tensor
 * cores as TF32 (10-bit mantissa, FP32 accumulation), or FP8 E4M3 with a
 * scale per tensor (FP32 accumulation, B stored K-major). When beta == 0 C
 * is never read, so a NaN-poisoned C is fully overwritten.
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
 *             TMA, two consumer warpgroups with setmaxnreg), 128x256 tiles
 *             (narrower where they leave SMs idle), 4 stages, persistent
 *             grid with grouped tile order; TF32 with the operands swapped
 *             so that B is read as it lies (sm_90a)
 *   WGMMA_CLUSTER  + clusters of two CTAs on vertically adjacent tiles that
 *             load half of B each and multicast it to both (sm_90a)
 *   WGMMA_FP8 the WGMMA_WS kernel on FP8 E4M3 operands (sm_90a)
 * The Hopper rungs from WGMMA_WS on run every shape and leading dimension:
 * an operand whose rows TMA cannot address is staged (cb_tc_layout_plan).
 *
 * A product is planned once (tensor maps encoded, shared-memory limits
 * raised, staging buffers allocated, launch facts read) and then run any
 * number of times; running only enqueues work on the stream. Constraints a
 * rung cannot lift are reported by cb_tc_supported before anything is
 * allocated.
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
    CB_TC_FP8,      /* A, B: FP8 E4M3 bytes, one FP32 scale per tensor; FP32
                     * accumulation and C; B given K-major (see cb_tc_args) */
    CB_TC_PRECISIONS
} cb_tc_precision;

/* A rung's `precisions`: a bit per cb_tc_precision it computes. */
#define CB_TC_PREC_BIT(p) (1u << (unsigned)(p))

/* Bytes per element of A and B in memory. */
int cb_tc_element_bytes(cb_tc_precision prec);

typedef struct cb_tc_args {
    int m, n, k;
    float alpha, beta;
    const void *a; /* m x k, row-major, leading dimension lda                   */
    /* BF16, TF32: B (k x n), row-major, leading dimension ldb. FP8: B stored
     * K-major, i.e. B^T (n x k) row-major with leading dimension ldb: the
     * layout FP8 tensor cores (and cuBLASLt's FP8 GEMM) read. */
    const void *b;
    float *c;          /* m x n, row-major, leading dimension ldc               */
    int lda, ldb, ldc; /* in elements; 0 means packed: k, n (FP8: k), n          */
    /* FP8: device pointers to the per-tensor dequantisation scales, so that
     * C = alpha * (s_a A8) (s_b B8) + beta * C; NULL means 1. Ignored for
     * BF16 and TF32. */
    const float *scale_a, *scale_b;
} cb_tc_args;

/* Which row pitches a rung's loads need (16-byte chunks: cp.async copies
 * them whole, and TMA needs every row pitch to be a multiple of 16 bytes). */
typedef enum cb_tc_rows {
    CB_TC_ROWS_ANY,      /* any k and n                                      */
    CB_TC_ROWS_CP_ASYNC, /* k and n multiples of 8 (BF16) or 4 (TF32)        */
    CB_TC_ROWS_TMA,      /* BF16: k and n multiples of 8; TF32: k of 4 (B is
                          * transposed into the workspace first)             */
    CB_TC_ROWS_STAGED,   /* any k, n and leading dimensions: the plan copies
                          * an operand whose row pitch TMA cannot take (not a
                          * multiple of 16 bytes, or a base not 16-byte
                          * aligned) into a padded buffer before each run    */
} cb_tc_rows;

typedef struct cb_tc_plan cb_tc_plan;

/* A rung: what it needs and how it plans and launches. Every fact about a
 * rung is here, once: the runner's capability check (bench.h `needs`, read
 * through the family) and cb_tc_supported below both read these fields.
 * Only CB_TC_ROWS_STAGED rungs take leading dimensions other than the
 * packed ones for A and B; every rung takes any ldc >= n. */
typedef struct cb_tc_rung {
    const char *name;    /* "wgmma_ws"                                        */
    int min_cc, max_cc;  /* compute capability (major x 10 + minor) the code
                          * needs; max_cc 0: no upper bound                   */
    const char *feature; /* what needs it: "wgmma + TMA, sm_90a code"          */
    bool sm90a;          /* built for sm_90a only (cb_tc_sm90a_built)          */
    unsigned precisions; /* CB_TC_PREC_BIT of each precision it computes       */
    cb_tc_rows rows;     /* the row pitches its loads take                     */
    bool tf32_bt;        /* TF32: reads B^T (K-major), which each run writes
                          * into the plan's workspace first                   */
    bool persistent;     /* a persistent grid (else tile rows along grid.y)   */
    cudaError_t (*prepare)(cb_tc_plan *p, cb_matmul_launch_info *info);
    cudaError_t (*launch)(const cb_tc_plan *p, cudaStream_t stream);
} cb_tc_rung;

/* The rungs, each defined in its kernels/matmul_tc_<rung>*.cu (CB_TC_RUNG,
 * detail/matmul_tc_plan.h). */
extern const cb_tc_rung cb_tc_rung_mma, cb_tc_rung_ldmatrix, cb_tc_rung_wgmma, cb_tc_rung_wgmma_ws,
    cb_tc_rung_wgmma_cluster, cb_tc_rung_wgmma_fp8;

/* How a plan lays out what the GEMM kernel reads (cb_tc_layout_plan). */
typedef struct cb_tc_layout {
    int lda, ldb, ldc;      /* the caller's, 0 resolved to the packed value   */
    bool stage_a, stage_b;  /* copied into a padded buffer before every run   */
    bool b_transposed;      /* TF32 B^T written into the workspace every run  */
    int lda_read, ldb_read; /* row pitches (elements) of what the kernel reads:
                             * the caller's, or the staged / transposed copy's */
    size_t stage_a_bytes, stage_b_bytes, bt_bytes; /* device buffers the plan owns */
} cb_tc_layout;

/* The layout of one product on `rung`: which operands are staged into
 * 16-byte row pitches and how large the buffers are. Only the pointers'
 * alignment is read from args->a and args->b (NULL counts as aligned).
 * false with a reason for leading dimensions the rung cannot take (smaller
 * than a row, or not packed on a rung that does not stage). */
bool cb_tc_layout_plan(const cb_tc_rung *rung, cb_tc_precision prec, const cb_tc_args *args,
                       cb_tc_layout *out, char *why, size_t why_len);

/* Can `rung` compute an (m, n, k) product in `prec` on a device of compute
 * capability cc_major.cc_minor in this build? false with a one-line reason
 * in `why` (shape constraint, missing feature, or a build without sm_90a). */
bool cb_tc_supported(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n, int k,
                     int cc_major, int cc_minor, char *why, size_t why_len);

/* Was the Hopper (sm_90a) code compiled into this build? */
bool cb_tc_sm90a_built(void);

/* Device memory a plan of a packed (m, n, k) product allocates besides its
 * inputs (staged copies, the TF32 B^T), so a caller can check it fits. */
size_t cb_tc_workspace_bytes(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n, int k);

/* Plan one product: checks cb_tc_supported for the current device and
 * cb_tc_layout_plan (a refusal is cudaErrorInvalidValue), allocates the
 * staging buffers and the workspace, encodes the
 * TMA tensor maps, raises the kernels' shared-memory limit, and fills
 * `info` (block, grid, registers, shared memory, resident blocks per SM, a
 * one-line description). The pointers in `args` are kept: run the plan
 * only while they are valid. */
cudaError_t cb_tc_plan_create(const cb_tc_rung *rung, cb_tc_precision prec, const cb_tc_args *args,
                              cb_tc_plan **out, cb_matmul_launch_info *info);

/* Enqueue the product on `stream`: the staging copies and the TF32 B^T
 * the layout asks for first (part of the run, so part of the time), then
 * the GEMM kernel. */
cudaError_t cb_tc_plan_run(const cb_tc_plan *plan, cudaStream_t stream);

/* Free the plan and its workspace; NULL is fine. */
void cb_tc_plan_destroy(cb_tc_plan *plan);

#ifdef __cplusplus
}
#endif

#endif
