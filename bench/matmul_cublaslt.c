/* matmul_cublaslt.c - matmul/cublaslt_fp8: cuBLASLt's FP8 GEMM, the
 * reference of the FP8 tensor-core rung (matmul_tc/wgmma_fp8) at the same
 * scaling mode and on the same bytes:
 *   - A (m x k) and B K-major (n x k) in E4M3, quantised once in setup
 *     (matmul_fp8.c, untimed), one FP32 scale per tensor passed as device
 *     pointers (CUBLASLT_MATMUL_DESC_A/B_SCALE_POINTER, the default
 *     "scalar" scale mode);
 *   - FP32 accumulation without periodic promotion
 *     (CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1): what the hand-written kernel
 *     does, so both are the same arithmetic;
 *   - C in FP32, row-major, as every matmul rung (beta = 0).
 * cuBLASLt is column-major and takes FP8 only as "TN" (both operands
 * K-major): the row-major C is its column-major C^T (n x m) = op(X) op(Y)
 * with X our K-major B (a k x n column-major matrix, ld k, op T) and Y our
 * A (k x m, ld k, op N). The
 * algorithm is the first of cuBLASLt's heuristic (32 MiB workspace) that
 * runs on the point's operands; an FP32 C (in place) is asked for first and
 * a BF16 C type second (D stays FP32; beta = 0, so C is never read and no C
 * pointer is passed), for cuBLASLt versions that pair FP32 D only with a
 * 16-bit C. */
#include "matmul_common.h"
#include "mem_budget.h"

#include <cublasLt.h>
#include <stdio.h>
#include <stdlib.h>

#define CB_LT_WORKSPACE_BYTES (32u << 20)

typedef struct cb_lt_state {
    cb_matmul_state *mm; /* inputs (FP8 copies), C and the reference */
    cublasLtHandle_t lt;
    cublasLtMatmulDesc_t desc;
    cublasLtMatrixLayout_t la, lb, lc, ld;
    cublasLtMatmulAlgo_t algo;
    void *workspace;
    cudaDataType_t c_type;
} cb_lt_state;

void cb_matmul_cublaslt_teardown(void *state)
{
    cb_lt_state *ls = state;
    if (!ls) return;
    /* Errors are ignored: teardown also runs after failures. */
    if (ls->la) cublasLtMatrixLayoutDestroy(ls->la);
    if (ls->lb) cublasLtMatrixLayoutDestroy(ls->lb);
    if (ls->lc) cublasLtMatrixLayoutDestroy(ls->lc);
    if (ls->ld) cublasLtMatrixLayoutDestroy(ls->ld);
    if (ls->desc) cublasLtMatmulDescDestroy(ls->desc);
    if (ls->lt) cublasLtDestroy(ls->lt);
    cudaFree(ls->workspace);
    cb_matmul_teardown(ls->mm);
    free(ls);
}

/* The operation: TN, FP32 compute and scale, the per-tensor scales, fast
 * accumulation. cuBLASLt's A is our B, its B our A. */
static cb_status cb_lt_desc(cb_lt_state *ls, cb_msg *why)
{
    const cb_matmul_state *st = ls->mm;
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const int8_t fast = 1;
    const float *scale_lt_a = st->d_scales + CB_MATMUL_SCALE_STRIDE, *scale_lt_b = st->d_scales;
    CB_CUBLAS(cublasLtMatmulDescCreate(&ls->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    CB_CUBLAS(
        cublasLtMatmulDescSetAttribute(ls->desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    CB_CUBLAS(
        cublasLtMatmulDescSetAttribute(ls->desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    CB_CUBLAS(cublasLtMatmulDescSetAttribute(ls->desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                             &scale_lt_a, sizeof scale_lt_a));
    CB_CUBLAS(cublasLtMatmulDescSetAttribute(ls->desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                             &scale_lt_b, sizeof scale_lt_b));
    CB_CUBLAS(cublasLtMatmulDescSetAttribute(ls->desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast,
                                             sizeof fast));
    return CB_OK;
}

/* Up to this many of the heuristic's algorithms are tried in setup. */
#define CB_LT_CANDIDATES 8

/* C's pointer: D itself for an FP32 C (in place, the same layout); none for
 * a 16-bit C, which cuBLASLt never reads with beta = 0. */
static void *cb_lt_c_pointer(const cb_lt_state *ls)
{
    return ls->c_type == CUDA_R_32F ? ls->mm->d_c : NULL;
}

static cublasStatus_t cb_lt_matmul(const cb_lt_state *ls, const cublasLtMatmulAlgo_t *algo,
                                   cudaStream_t stream)
{
    const cb_matmul_state *st = ls->mm;
    const float alpha = st->alpha, beta = st->beta;
    return cublasLtMatmul(ls->lt, ls->desc, &alpha, st->d_b8t, ls->la, st->d_a8, ls->lb, &beta,
                          cb_lt_c_pointer(ls), ls->lc, st->d_c, ls->ld, algo, ls->workspace,
                          CB_LT_WORKSPACE_BYTES, stream);
}

/* Layouts with C of `c_type`, then the first of the heuristic's algorithms
 * that runs here: the heuristic proposes from the descriptors alone, and
 * cublasLtMatmul may still refuse one (CUBLAS_STATUS_NOT_SUPPORTED), so
 * each is tried once on this point's operands (untimed; C is poisoned
 * again afterwards). CB_OK, or CB_SKIP with the reason when none runs. */
static cb_status cb_lt_pick(cb_lt_state *ls, cudaDataType_t c_type, cb_msg *why)
{
    cb_matmul_state *st = ls->mm;
    const uint64_t m = (uint64_t)st->m, n = (uint64_t)st->n, k = (uint64_t)st->k;
    if (ls->lc) cublasLtMatrixLayoutDestroy(ls->lc), ls->lc = NULL;
    if (!ls->la) CB_CUBLAS(cublasLtMatrixLayoutCreate(&ls->la, CUDA_R_8F_E4M3, k, n, (int64_t)k));
    if (!ls->lb) CB_CUBLAS(cublasLtMatrixLayoutCreate(&ls->lb, CUDA_R_8F_E4M3, k, m, (int64_t)k));
    if (!ls->ld) CB_CUBLAS(cublasLtMatrixLayoutCreate(&ls->ld, CUDA_R_32F, n, m, (int64_t)n));
    CB_CUBLAS(cublasLtMatrixLayoutCreate(&ls->lc, c_type, n, m, (int64_t)n));
    ls->c_type = c_type;
    cublasLtMatmulPreference_t pref = NULL;
    CB_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
    const size_t ws = CB_LT_WORKSPACE_BYTES;
    cublasStatus_t bs = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    cublasLtMatmulHeuristicResult_t result[CB_LT_CANDIDATES];
    int found = 0;
    if (bs == CUBLAS_STATUS_SUCCESS)
        bs = cublasLtMatmulAlgoGetHeuristic(ls->lt, ls->desc, ls->la, ls->lb, ls->lc, ls->ld, pref,
                                            CB_LT_CANDIDATES, result, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    if (bs != CUBLAS_STATUS_SUCCESS && bs != CUBLAS_STATUS_NOT_SUPPORTED) CB_CUBLAS(bs);
    cublasStatus_t last = bs;
    for (int i = 0; bs == CUBLAS_STATUS_SUCCESS && i < found; i++) {
        last = cb_lt_matmul(ls, &result[i].algo, st->stream);
        if (last == CUBLAS_STATUS_SUCCESS) {
            ls->algo = result[i].algo;
            CB_CUDA(
                cudaMemsetAsync(st->d_c, 0xff, (size_t)st->m * st->n * sizeof(float), st->stream));
            return CB_OK;
        }
        if (last != CUBLAS_STATUS_NOT_SUPPORTED) CB_CUBLAS(last);
    }
    cb_msg_set(why,
               "cuBLASLt runs no FP8 (E4M3, TN, %s C, FP32 D) algorithm for m=%d n=%d k=%d "
               "(%d proposed by its heuristic; last: %s)",
               c_type == CUDA_R_32F ? "FP32" : "BF16", st->m, st->n, st->k, found,
               cublasGetStatusString(last));
    return CB_SKIP;
}

cb_status cb_matmul_cublaslt_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                   cb_point_info *info, cb_msg *why)
{
    *state = NULL;
    cb_lt_state *ls = cb_mem_state_new(sizeof *ls, "host out of memory", why);
    if (!ls) return CB_SKIP;
    cb_status s =
        cb_matmul_state_new(p, ctx, CB_MATMUL_FP8_DEQ, CB_MATMUL_ENGINE_CUBLAS, &ls->mm, why);
    if (s == CB_OK) s = cb_matmul_state_fp8(ls->mm, why);
    if (s == CB_OK && cublasLtCreate(&ls->lt) != CUBLAS_STATUS_SUCCESS) {
        cb_msg_set(why, "cublasLtCreate failed");
        s = CB_FAIL;
    }
    if (s == CB_OK && cudaMalloc(&ls->workspace, CB_LT_WORKSPACE_BYTES) != cudaSuccess) {
        cb_msg_set(why, "cuBLASLt workspace: out of device memory");
        s = CB_SKIP;
    }
    if (s == CB_OK) s = cb_lt_desc(ls, why);
    if (s == CB_OK) s = cb_lt_pick(ls, CUDA_R_32F, why);
    if (s == CB_SKIP && ls->desc) s = cb_lt_pick(ls, CUDA_R_16BF, why); /* no FP32 C: BF16 C */
    if (s == CB_OK && cudaDeviceSynchronize() != cudaSuccess) {
        cb_msg_set(why, "setup: %s", cudaGetErrorString(cudaGetLastError()));
        s = CB_FAIL;
    }
    if (s != CB_OK) {
        cb_matmul_cublaslt_teardown(ls);
        return s;
    }
    info->occupancy = -1.0; /* cuBLASLt picks its kernels itself */
    snprintf(info->note, sizeof info->note,
             "reference: cuBLASLt FP8 E4M3 TN, per-tensor scales, fast accumulation, %s C",
             ls->c_type == CUDA_R_32F ? "FP32" : "FP32 D / BF16");
    *state = ls;
    return CB_OK;
}

cb_status cb_matmul_cublaslt_run(void *state, cudaStream_t stream, cb_msg *why)
{
    cb_lt_state *ls = state;
    CB_CUBLAS(cb_lt_matmul(ls, &ls->algo, stream));
    return CB_OK;
}

cb_status cb_matmul_cublaslt_verify(void *state, double *error, cb_msg *why)
{
    return cb_matmul_fp8_verify(((cb_lt_state *)state)->mm, error, why);
}
