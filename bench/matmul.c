/* matmul.c - the FP32 SGEMM ladder (docs/matmul-ladder.md walks it).
 *
 * C = A B for row-major FP32 matrices, A m x k, B k x n, inputs uniform in
 * [-1, 1), C poisoned with NaN before the verified run. Rungs, each adding
 * one idea to the one before (kernels/matmul_*.cu):
 *   cublas_fp32        the reference (pedantic FP32, no TF32), first so
 *                      every later rung's pct_ref can refer to it
 *   cublas_tf32/_bf16  tensor-core ceilings (less precise; not FP32)
 *   naive_uncoalesced  one thread per C element, threadIdx.x along rows
 *   naive_coalesced    ... along columns: coalesced B loads and C stores
 *   smem_tiled         TILE x TILE shared-memory tiles (axis `tile`)
 *   regblock_1d        8 outputs per thread: a shared load feeds 8 FMAs
 *   regblock_2d        8x8 outputs per thread, 128x128 block tiles
 *   vectorized         float4 global/shared loads, A transposed in smem
 *   warptiled          warp-tiled, conflict-free LDS.128 layout
 *   pipelined          + register-staged prefetch, double-buffered smem and
 *                      fragments; tile shape from axis `config`
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

#include <string.h>

#define CB_MATMUL_SIZES_SLOW "256,512,1024,2048,4096"
#define CB_MATMUL_SIZES_HOST "64,128,256,512"

static const cb_axis_def cb_matmul_axes_fast[] = {CB_MATMUL_M_AXIS(CB_MATMUL_SIZES_FAST),
                                                  CB_MATMUL_N_AXIS, CB_MATMUL_K_AXIS};
static const cb_axis_def cb_matmul_axes_slow[] = {CB_MATMUL_M_AXIS(CB_MATMUL_SIZES_SLOW),
                                                  CB_MATMUL_N_AXIS, CB_MATMUL_K_AXIS};
static const cb_axis_def cb_matmul_axes_host[] = {CB_MATMUL_M_AXIS(CB_MATMUL_SIZES_HOST),
                                                  CB_MATMUL_N_AXIS, CB_MATMUL_K_AXIS};
static const cb_axis_def cb_matmul_axes_tile[] = {
    CB_MATMUL_M_AXIS(CB_MATMUL_SIZES_SLOW),
    CB_MATMUL_N_AXIS,
    CB_MATMUL_K_AXIS,
    {.name = "tile",
     .kind = CB_AXIS_INT,
     .defaults = "8,16,32",
     .min_value = 1,
     .help = "edge of the square thread-block tile: 8, 16 or 32"},
};
static const cb_axis_def cb_matmul_axes_config[] = {
    CB_MATMUL_M_AXIS(CB_MATMUL_SIZES_FAST),
    CB_MATMUL_N_AXIS,
    CB_MATMUL_K_AXIS,
    {.name = "config",
     .kind = CB_AXIS_ENUM,
     .defaults = "auto",
     .choices = "auto," CB_MATMUL_CONFIG_NAMES,
     .help = "block tile mMnNkK; auto: 128x128x8 unless that leaves SMs idle"},
};

/* ---- how a point picks each rung's template instance ---- */

static cb_status cb_variant_none(const cb_point *p, const cb_bench_ctx *ctx, int m, int n,
                                 int *variant, cb_msg *why)
{
    (void)p, (void)ctx, (void)m, (void)n, (void)why;
    *variant = 0;
    return CB_OK;
}

static cb_status cb_variant_tile(const cb_point *p, const cb_bench_ctx *ctx, int m, int n,
                                 int *variant, cb_msg *why)
{
    (void)ctx, (void)m, (void)n;
    const int64_t t = cb_point_int(p, "tile");
    if (t != 8 && t != 16 && t != 32) {
        cb_msg_set(why, "tile=%lld: smem_tiled is built for tiles 8, 16 and 32", (long long)t);
        return CB_SKIP;
    }
    *variant = (int)t;
    return CB_OK;
}

static cb_status cb_variant_config(const cb_point *p, const cb_bench_ctx *ctx, int m, int n,
                                   int *variant, cb_msg *why)
{
    const char *name = cb_point_str(p, "config");
    if (strcmp(name, "auto") == 0) {
        *variant = (int)cb_matmul_config_auto(m, n, ctx->dev ? ctx->dev->sm_count : 0);
        return CB_OK;
    }
    /* The position of `name` in CB_MATMUL_CONFIG_NAMES is its enum value. */
    const char *list = CB_MATMUL_CONFIG_NAMES;
    const size_t len = strlen(name);
    for (int i = 0; *list; i++) {
        const char *end = strchr(list, ',');
        const size_t item = end ? (size_t)(end - list) : strlen(list);
        if (item == len && strncmp(list, name, len) == 0) {
            *variant = i;
            return CB_OK;
        }
        list += item + (end ? 1 : 0);
    }
    cb_msg_set(why, "config=%s: not one of auto," CB_MATMUL_CONFIG_NAMES, name);
    return CB_SKIP;
}

/* ---- the hand-written rungs: launcher, query, variant ---- */

#define CB_MATMUL_KERNEL_RUNG(rung, variant_fn)                                                    \
    static const cb_matmul_kernel_rung cb_rung_##rung = {cb_matmul_##rung,                         \
                                                         cb_matmul_##rung##_query, variant_fn};

CB_MATMUL_KERNEL_RUNG(naive_uncoalesced, cb_variant_none)
CB_MATMUL_KERNEL_RUNG(naive_coalesced, cb_variant_none)
CB_MATMUL_KERNEL_RUNG(smem_tiled, cb_variant_tile)
CB_MATMUL_KERNEL_RUNG(regblock_1d, cb_variant_none)
CB_MATMUL_KERNEL_RUNG(regblock_2d, cb_variant_none)
CB_MATMUL_KERNEL_RUNG(vectorized, cb_variant_none)
CB_MATMUL_KERNEL_RUNG(warptiled, cb_variant_none)
CB_MATMUL_KERNEL_RUNG(pipelined, cb_variant_config)

/* ---- the table ---- */

#define CB_MATMUL_REF "matmul/cublas_fp32"

/* `peak`: CB_PEAK_FP32 for every FP32 (SIMT) kernel; none for the tensor-core
 * ceilings, whose rates a percentage of the FP32 peak would only mislead.
 * `min_cc_`, `feature_`: what the rung needs beyond the FP32 SIMT units every
 * GPU has (bench.h needs). The FP32 rungs need nothing; the tensor-core
 * ceilings need sm_80: Turing's tensor cores take FP16 and integers only, so
 * on sm_75 a TF32 or BF16 GEMM would not be the ceiling the row claims.
 * Only cuBLAS's rungs have needs, and cuBLAS brings its own GPU code
 * (library_code): a PTX-only build of ours does not limit it. */
#define CB_MATMUL_GPU_PEAK(rung_name, text, axes_table, ref, bytes_fn, setup_fn, param_ptr,        \
                           run_fn, peak_kind, min_cc_, feature_)                                   \
    {                                                                                              \
        .name = "matmul/" rung_name, .summary = text, .target = CB_TARGET_CUDA,                    \
        .needs = {.min_cc = min_cc_, .feature = feature_, .library_code = true},                   \
        .axes = axes_table, .n_axes = CB_ARRAY_LEN(axes_table), .peak = peak_kind,                 \
        .ref_bench = ref, .bytes = bytes_fn, .flops = cb_matmul_flops, .setup = setup_fn,          \
        .param = param_ptr, .run = run_fn, .verify = cb_matmul_verify,                             \
        .teardown = cb_matmul_teardown                                                             \
    }
#define CB_MATMUL_GPU(rung_name, text, axes_table, ref, bytes_fn, setup_fn, param_ptr, run_fn)     \
    CB_MATMUL_GPU_PEAK(rung_name, text, axes_table, ref, bytes_fn, setup_fn, param_ptr, run_fn,    \
                       CB_PEAK_FP32, 0, NULL)

#define CB_MATMUL_RUNG(rung, text, axes_table)                                                     \
    CB_MATMUL_GPU(#rung, text, axes_table, CB_MATMUL_REF, cb_matmul_bytes, cb_matmul_kernel_setup, \
                  &cb_rung_##rung, cb_matmul_kernel_run)

#define CB_MATMUL_HOST(rung_name, text, ref, setup_fn, run_fn)                                     \
    {                                                                                              \
        .name = "matmul/" rung_name, .summary = text, .target = CB_TARGET_HOST,                    \
        .axes = cb_matmul_axes_host, .n_axes = CB_ARRAY_LEN(cb_matmul_axes_host),                  \
        .peak = CB_PEAK_NONE, .ref_bench = ref, .bytes = cb_matmul_bytes,                          \
        .flops = cb_matmul_flops, .setup = setup_fn, .run = run_fn,                                \
        .verify = cb_matmul_host_verify, .teardown = cb_matmul_host_teardown                       \
    }

static const cb_bench matmul_benches[] = {
    CB_MATMUL_GPU("cublas_fp32", "cuBLAS SGEMM, pedantic FP32 (no TF32): the ladder's reference",
                  cb_matmul_axes_fast, NULL, cb_matmul_bytes, cb_matmul_cublas_setup,
                  &cb_matmul_cublas_fp32, cb_matmul_cublas_run),
    CB_MATMUL_GPU_PEAK("cublas_tf32", "ceiling, not FP32: cuBLAS with TF32 tensor cores",
                       cb_matmul_axes_fast, NULL, cb_matmul_bytes, cb_matmul_cublas_setup,
                       &cb_matmul_cublas_tf32, cb_matmul_cublas_run, CB_PEAK_NONE, 80,
                       "TF32 tensor cores"),
    CB_MATMUL_GPU_PEAK("cublas_bf16", "ceiling, not FP32: cuBLAS with BF16 inputs, FP32 accumulate",
                       cb_matmul_axes_fast, NULL, cb_matmul_bytes_bf16, cb_matmul_cublas_setup,
                       &cb_matmul_cublas_bf16, cb_matmul_cublas_run, CB_PEAK_NONE, 80,
                       "BF16 tensor cores"),
    {.name = "matmul/cublaslt_fp8",
     .summary = "ceiling, not FP32: cuBLASLt FP8 E4M3, per-tensor scales, fast accumulation",
     .target = CB_TARGET_CUDA,
     .needs = {.min_cc = 89, .feature = "FP8 tensor cores", .library_code = true},
     CB_AXES(cb_matmul_axes_fast),
     .peak = CB_PEAK_NONE,
     .bytes = cb_matmul_bytes_fp8,
     .flops = cb_matmul_flops,
     .setup = cb_matmul_cublaslt_setup,
     .run = cb_matmul_cublaslt_run,
     .verify = cb_matmul_cublaslt_verify,
     .teardown = cb_matmul_cublaslt_teardown},
    CB_MATMUL_RUNG(naive_uncoalesced, "one thread per C element, threadIdx.x along rows",
                   cb_matmul_axes_slow),
    CB_MATMUL_RUNG(naive_coalesced, "one thread per C element, threadIdx.x along columns",
                   cb_matmul_axes_slow),
    CB_MATMUL_RUNG(smem_tiled, "shared-memory tiles of tile x tile (axis tile)",
                   cb_matmul_axes_tile),
    CB_MATMUL_RUNG(regblock_1d, "64x64 tiles, 8 outputs per thread in registers",
                   cb_matmul_axes_slow),
    CB_MATMUL_RUNG(regblock_2d, "128x128 tiles, 8x8 outputs per thread", cb_matmul_axes_fast),
    CB_MATMUL_RUNG(vectorized, "float4 loads, A transposed in shared memory", cb_matmul_axes_fast),
    CB_MATMUL_RUNG(warptiled, "warp tiles with a bank-conflict-free LDS.128 layout",
                   cb_matmul_axes_fast),
    CB_MATMUL_RUNG(pipelined, "warp tiles + global prefetch, double-buffered smem (axis config)",
                   cb_matmul_axes_config),
    CB_MATMUL_HOST("host_cblas", "CPU: cblas_sgemm (skip when built without CBLAS)", NULL,
                   cb_matmul_host_cblas_setup, cb_matmul_host_cblas_run),
    CB_MATMUL_HOST("host_blocked", "CPU: cache-blocked C loops over POSIX threads",
                   "matmul/host_cblas", cb_matmul_host_setup, cb_matmul_host_blocked_run),
};

const cb_family cb_family_matmul = {
    .name = "matmul", .benches = matmul_benches, .count = CB_ARRAY_LEN(matmul_benches)};
