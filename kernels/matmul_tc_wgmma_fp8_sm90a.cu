/* matmul_tc_wgmma_fp8_sm90a.cu - the FP8 rung (Hopper, sm_90a): rung 4's
 * warp-specialised persistent kernel (matmul_tc_ws.h) on FP8 E4M3 operands.
 *
 * Hopper's tensor cores multiply FP8 at twice the BF16 rate: one
 * wgmma.m64nNk32.f32.e4m3.e4m3 does twice the k of the BF16 instruction in
 * the same time. What changes against the BF16 kernel:
 *   - a k-slice is still one 128-byte row per operand, now 128 elements:
 *     the same 48 KiB stage (128 x 256 tile) carries twice the work, so
 *     each byte TMA brings feeds twice the flops;
 *   - both operands must be K-major (FP8 wgmma has no transpose), so B
 *     comes as B^T (n x k, row-major), the layout cuBLASLt's FP8 GEMM and
 *     torch._scaled_mm take too; the caller quantises and lays it out;
 *   - one FP32 scale per tensor (s_a, s_b), read from device memory as
 *     cuBLASLt's A/B_SCALE_POINTER are, folded into alpha in the epilogue:
 *     C = alpha s_a s_b (A8 B8) + beta C.
 * The accumulators are the wgmma's FP32 registers for the whole of k, with
 * no periodic promotion: cuBLASLt calls that fast accumulation
 * (CUBLASLT_MATMUL_DESC_FAST_ACCUM), and its reference rung is run in that
 * mode. Hopper's FP8 tensor cores are reported to keep fewer bits than
 * FP32 in that accumulation; the verification bound allows for it
 * (bench/detail/matmul_fp8.h).
 *
 * Any shape and leading dimension: rows whose pitch is not a multiple of
 * 16 bytes (k not a multiple of 16 for packed operands) are staged. */
#include "matmul_tc_ws.h"

static cudaError_t cb_tc_wgmma_fp8_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    if (p->prec != CB_TC_FP8) return cudaErrorInvalidValue;
    return cb_ws::prepare<CB_TC_FP8>(p, info, ", E4M3");
}

static cudaError_t cb_tc_wgmma_fp8_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    return cb_ws::launch<CB_TC_FP8>(p, stream);
}

/* cb_tc_rung_wgmma_fp8 (matmul_tc_kernels.h). */
CB_TC_RUNG(wgmma_fp8, CB_TC_NEEDS_SM90A("FP8 wgmma + TMA, sm_90a code"),
           .precisions = CB_TC_PREC_BIT(CB_TC_FP8), .rows = CB_TC_ROWS_STAGED, .tf32_bt = false,
           .persistent = true);
