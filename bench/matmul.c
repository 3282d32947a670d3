/* matmul.c - the FP32 SGEMM ladder (docs/matmul-ladder.md walks it).
 *
 * C = A B for row-major FP32 matrices, A m x k, B k x n, inputs uniform in
 * [-1, 1), C poisoned with NaN before the verified run. Rungs, each adding
 * one idea to the one before (kernels/matmul_*.cu):
 *   cublas_fp32        the reference (pedantic FP32, no TF32), first so
 *                      every later rung's pct_ref can refer to it
 *   cublas_tf32/_bf16  tensor-core ceilings (less precise; not FP32)
 *   cublaslt_fp8       cuBLASLt FP8 (E4M3, per-tensor scales): the FP8
 *                      tensor-core rung's reference (matmul_cublaslt.c)
 *   naive_uncoalesced  one thread per C element, threadIdx.x along rows
 *   naive_coalesced    ... along columns: coalesced B loads and C stores
 *   smem_tiled         TILE x TILE shared-memory tiles (axis `tile`)
 *   regblock_1d        8 outputs per thread: a shared load feeds 8 FMAs
 *   regblock_2d        8x8 outputs per thread, 128x128 block tiles
 *   vectorized         float4 global/shared loads, A transposed in smem
 *   warptiled          warp-tiled, conflict-free LDS.128 layout
 *   pipelined          + register-staged prefetch, double-buffered smem and
 *                      fragments; tile shape from axis `config`
 *   multistage         the tensor-core rungs' memory pipeline on FFMA: a
 *                      3-4 stage cp.async ring, A row-major and swizzled;
 *                      tile and stages from axis `config` (auto: autotuned)
 *   host_cblas, host_blocked   CPU baselines (small default sizes)
 *
 * Axes (the same identity m, n, k on every rung, so pct_ref matches):
 *   m  rows of A and C;
 *   n  columns of B and C, or the word `m` (the default): n = m;
 *   k  the inner dimension, or the word `m` (the default): k = m.
 * A plain run therefore sweeps squares; `--axis n=512 --axis k=8192`
 * gives m x 512 x 8192. The default m list has the usual powers of two and
 * 8448 = 66 x 128: a 128x128-tile grid of 66 x 66 = 4356 blocks is exactly
 * 33 waves on a 132-SM H100/H200 (4096 is 3.9 waves of 2 blocks per SM,
 * 2048 0.97), so wave quantization shows in the curve. The naive and
 * single-output rungs stop at 4096 (their 8192 point takes seconds). */
#include "matmul_common.h"
#include "matmul_multistage_kernels.h"

#include <string.h>

#define CB_MATMUL_SIZES_SLOW "256,512,1024,2048,4096"
#define CB_MATMUL_SIZES_HOST "64,128,256,512"

/* m (with its default list), n and k: the shape every rung's axes start
 * with. */
#define CB_MATMUL_SHAPE_AXES(sizes) CB_MATMUL_M_AXIS(sizes), CB_MATMUL_N_AXIS, CB_MATMUL_K_AXIS
/* The block-tile axis of a tunable rung: `auto` or one of its configs. */
#define CB_MATMUL_CONFIG_AXIS(names, text)                                                         \
    {                                                                                              \
        .name = "config", .kind = CB_AXIS_ENUM, .defaults = "auto", .choices = "auto," names,      \
        .help = text                                                                               \
    }

static const cb_axis_def cb_matmul_axes_fast[] = {CB_MATMUL_SHAPE_AXES(CB_MATMUL_SIZES_FAST)};
static const cb_axis_def cb_matmul_axes_slow[] = {CB_MATMUL_SHAPE_AXES(CB_MATMUL_SIZES_SLOW)};
static const cb_axis_def cb_matmul_axes_host[] = {CB_MATMUL_SHAPE_AXES(CB_MATMUL_SIZES_HOST)};
static const cb_axis_def cb_matmul_axes_tile[] = {
    CB_MATMUL_SHAPE_AXES(CB_MATMUL_SIZES_SLOW),
    {.name = "tile",
     .kind = CB_AXIS_INT,
     .defaults = "8,16,32",
     .min_value = 1,
     .help = "edge of the square thread-block tile: 8, 16 or 32"},
};
static const cb_axis_def cb_matmul_axes_config[] = {
    CB_MATMUL_SHAPE_AXES(CB_MATMUL_SIZES_FAST),
    CB_MATMUL_CONFIG_AXIS(
        CB_MATMUL_CONFIG_NAMES,
        "block tile mMnNkK, or narrow_n / short_m (kernels for n or m of at most 8); "
        "auto: narrow_n for n <= 8, short_m for m <= 8, else 128x128x8 unless "
        "that leaves SMs idle"),
};
static const cb_axis_def cb_matmul_axes_ms_config[] = {
    CB_MATMUL_SHAPE_AXES(CB_MATMUL_SIZES_FAST),
    CB_MATMUL_CONFIG_AXIS(CB_MATMUL_MS_CONFIG_NAMES,
                          "block tile mMnNkK and cp.async stages sS; auto: the autotuned choice "
                          "recorded for this GPU's SM count, else the largest tile that gives "
                          "every SM two blocks"),
};

/* The hand-written rungs, declared from the list (kernels/matmul_*.cu). */
#define CB_MATMUL_RUNG(rung, ...) extern const cb_matmul_rung cb_matmul_rung_##rung;
#include "matmul_rungs.def"
#undef CB_MATMUL_RUNG

#define CB_MATMUL_REF "matmul/cublas_fp32"

/* The family defaults of a GPU entry: verified against the FP64 reference
 * (each entry names its peak and its bytes: BF16 inputs move half). */
#define CB_MATMUL_GPU                                                                              \
    .target = CB_TARGET_CUDA, .flops = cb_matmul_flops, .verify = cb_matmul_verify,                \
    .teardown = cb_matmul_teardown
#define CB_MATMUL_HOST                                                                             \
    .target = CB_TARGET_HOST, CB_AXES(cb_matmul_axes_host), .peak = CB_PEAK_NONE,                  \
    .bytes = cb_matmul_bytes, .flops = cb_matmul_flops, .verify = cb_matmul_host_verify,           \
    .teardown = cb_matmul_host_teardown

/* A cuBLAS entry: the library's GEMM at the fast sizes, through one setup
 * and run whose param picks the precision. */
#define CB_MATMUL_CUBLAS(precision)                                                                \
    CB_AXES(cb_matmul_axes_fast), .param = &cb_matmul_cublas_##precision,                          \
                                  .setup = cb_matmul_cublas_setup, .run = cb_matmul_cublas_run,    \
                                  CB_MATMUL_GPU

/* A tensor-core ceiling through cuBLAS: sm_80 on, and no FP32 peak. */
#define CB_MATMUL_CUBLAS_CEILING(precision, what)                                                  \
    CB_MATMUL_CUBLAS(precision),                                                                   \
        .needs = {.min_cc = 80, .feature = what " tensor cores", .library_code = true},            \
        .peak = CB_PEAK_NONE

/* A hand-written rung: its kernel, the FP32 reference, the family's setup. */
#define CB_MATMUL_RUNG(rung, ...)                                                                  \
    {.name = "matmul/" #rung,                                                                      \
     .param = &cb_matmul_rung_##rung,                                                              \
     .ref_bench = CB_MATMUL_REF,                                                                   \
     .setup = cb_matmul_kernel_setup,                                                              \
     .run = cb_matmul_kernel_run,                                                                  \
     .key_figures = cb_matmul_ladder_key,                                                          \
     .peak = CB_PEAK_FP32,                                                                         \
     .bytes = cb_matmul_bytes,                                                                     \
     CB_MATMUL_GPU,                                                                                \
     __VA_ARGS__},

static const cb_key_figure cb_matmul_ladder_key[] = {{.name = "SGEMM hand-written"}, {0}};

/* `peak`: CB_PEAK_FP32 for every FP32 (SIMT) kernel; none for the
 * tensor-core ceilings, whose rates a percentage of the FP32 peak would
 * only mislead. `needs`: what the rung needs beyond the FP32 SIMT units
 * every GPU has (bench.h). The FP32 rungs need nothing; the tensor-core
 * ceilings need sm_80: Turing's tensor cores take FP16 and integers only,
 * so on sm_75 a TF32 or BF16 GEMM would not be the ceiling the row claims.
 * cuBLAS brings its own GPU code (library_code): a PTX-only build of ours
 * does not limit it. */
static const cb_bench matmul_benches[] = {
    {.name = "matmul/cublas_fp32",
     .summary = "cuBLAS SGEMM, pedantic FP32 (no TF32): the ladder's reference",
     CB_MATMUL_CUBLAS(fp32),
     .needs = {.library_code = true},
     .key_figures = (const cb_key_figure[]){{.name = "cuBLAS FP32"}, {0}},
     .peak = CB_PEAK_FP32,
     .bytes = cb_matmul_bytes},
    {.name = "matmul/cublas_tf32",
     .summary = "ceiling, not FP32: cuBLAS with TF32 tensor cores",
     CB_MATMUL_CUBLAS_CEILING(tf32, "TF32"),
     .bytes = cb_matmul_bytes},
    {.name = "matmul/cublas_bf16",
     .summary = "ceiling, not FP32: cuBLAS with BF16 inputs, FP32 accumulate",
     CB_MATMUL_CUBLAS_CEILING(bf16, "BF16"),
     .bytes = cb_matmul_bytes_bf16},
    {.name = "matmul/cublaslt_fp8",
     .summary = "ceiling, not FP32: cuBLASLt FP8 E4M3, per-tensor scales, fast accumulation",
     CB_AXES(cb_matmul_axes_fast),
     .setup = cb_matmul_cublaslt_setup,
     .run = cb_matmul_cublaslt_run,
     .needs = {.min_cc = 89, .feature = "FP8 tensor cores", .library_code = true},
     .target = CB_TARGET_CUDA,
     .flops = cb_matmul_flops,
     .verify = cb_matmul_cublaslt_verify, /* its own state around the family's */
     .teardown = cb_matmul_cublaslt_teardown,
     .peak = CB_PEAK_NONE,
     .bytes = cb_matmul_bytes_fp8},
#include "matmul_rungs.def"
    {.name = "matmul/host_cblas",
     .summary = "CPU: cblas_sgemm (skip when built without CBLAS)",
     .setup = cb_matmul_host_cblas_setup,
     .run = cb_matmul_host_cblas_run,
     CB_MATMUL_HOST},
    {.name = "matmul/host_blocked",
     .summary = "CPU: cache-blocked C loops over POSIX threads",
     .ref_bench = "matmul/host_cblas",
     .setup = cb_matmul_host_setup,
     .run = cb_matmul_host_blocked_run,
     .key_figures =
         (const cb_key_figure[]){{.name = "matmul/host_blocked", .rule = CB_KEY_LARGEST}, {0}},
     CB_MATMUL_HOST},
};
#undef CB_MATMUL_RUNG

const cb_family cb_family_matmul = {
    .name = "matmul", .benches = matmul_benches, .count = CB_ARRAY_LEN(matmul_benches)};
