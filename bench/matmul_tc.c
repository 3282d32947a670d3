/* matmul_tc.c - the tensor-core ladder (docs/matmul-ladder.md, "Tensor
 * cores"): the matmul family's problem, C = A B with row-major matrices,
 * A and B uniform in [-1, 1), C poisoned with NaN, computed on the tensor
 * cores with BF16 inputs or TF32 products and FP32 accumulation.
 *
 * Benchmarks matmul_tc/<rung>_<precision> (kernels/matmul_tc*.cu):
 *   mma_*        mma.sync from a padded shared-memory tile (sm_80+)
 *   ldmatrix_*   + ldmatrix, XOR-swizzled shared memory, 3-stage cp.async
 *   wgmma_*      Hopper: wgmma on TMA-loaded shared memory, mbarriers
 *   wgmma_ws_*   + producer/consumer warpgroups, 128x256 tiles, persistent
 *   wgmma_cluster_*  + 2-CTA clusters sharing B through TMA multicast
 *   wgmma_fp8    wgmma_ws on FP8 E4M3 inputs with per-tensor scales
 * Each names the cuBLAS ceiling of its precision (matmul/cublas_bf16,
 * matmul/cublas_tf32 or matmul/cublaslt_fp8, which run first: families.def
 * puts matmul before matmul_tc) as ref_bench, so pct_ref is "% of cuBLAS"
 * at the same point. From wgmma_ws on, every shape runs (operands whose
 * rows TMA cannot address are staged inside the timed run; the note says
 * "staged").
 *
 * State, inputs, poisoning and verification are the matmul family's
 * (matmul_common.c): BF16 copies of A and B are made once in setup,
 * untimed, like cublas_bf16's, and so are FP8 ones (matmul_fp8.c); the
 * verify error is the normwise error against the FP64 product of the FP32
 * inputs, with the tolerance of the rung's input precision (FP8: against
 * the dequantised inputs, see matmul_ref.h). A shape or device a rung cannot handle is a skip
 * with the reason (cb_tc_supported). */
#include "matmul_common.h"
#include "mem_budget.h"
#include "matmul_tc_kernels.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct cb_tc_variant {
    const cb_tc_rung *rung; /* its facts and code (kernels/matmul_tc_kernels.h) */
    cb_tc_precision prec;
} cb_tc_variant;

typedef struct cb_tc_state {
    cb_matmul_state *mm; /* inputs, C and the reference: the matmul family's */
    cb_tc_plan *plan;
} cb_tc_state;

static void cb_tc_teardown(void *state)
{
    cb_tc_state *ts = state;
    if (!ts) return;
    cb_tc_plan_destroy(ts->plan);
    cb_matmul_teardown(ts->mm);
    free(ts);
}

/* The matmul family's precision of a tensor-core variant's verification:
 * FP8 is checked against its dequantised inputs (and, in
 * cb_matmul_fp8_verify, against the FP32 ones). */
static cb_matmul_precision cb_tc_check_precision(cb_tc_precision prec)
{
    return prec == CB_TC_BF16   ? CB_MATMUL_BF16
           : prec == CB_TC_TF32 ? CB_MATMUL_TF32
                                : CB_MATMUL_FP8_DEQ;
}

/* The inputs in the variant's precision: BF16 or E4M3 copies made once in
 * setup (untimed, the same the cuBLAS references use), or the FP32 ones. */
static cb_status cb_tc_inputs(cb_matmul_state *st, cb_tc_precision prec, cb_tc_args *args,
                              cb_msg *why)
{
    *args = (cb_tc_args){
        .m = st->m, .n = st->n, .k = st->k, .alpha = st->alpha, .beta = st->beta, .c = st->d_c};
    cb_status s = CB_OK;
    if (prec == CB_TC_BF16) {
        s = cb_matmul_state_bf16(st, why);
        args->a = st->d_a16, args->b = st->d_b16;
    } else if (prec == CB_TC_FP8) {
        s = cb_matmul_state_fp8(st, why);
        args->a = st->d_a8, args->b = st->d_b8t;
        args->scale_a = st->d_scales, args->scale_b = st->d_scales + CB_MATMUL_SCALE_STRIDE;
    } else {
        args->a = st->d_a, args->b = st->d_b;
    }
    return s;
}

static cb_status cb_tc_setup_state(cb_tc_state *ts, const cb_point *p, const cb_bench_ctx *ctx,
                                   const cb_tc_variant *v, cb_point_info *info, cb_msg *why)
{
    cb_status s = cb_matmul_state_new(p, ctx, cb_tc_check_precision(v->prec),
                                      CB_MATMUL_ENGINE_KERNEL, &ts->mm, why);
    if (s != CB_OK) return s;
    cb_tc_args args;
    s = cb_tc_inputs(ts->mm, v->prec, &args, why);
    if (s != CB_OK) return s;
    cb_matmul_launch_info li = {0};
    CB_CUDA(cb_tc_plan_create(v->rung, v->prec, &args, &ts->plan, &li));
    CB_CUDA(cudaDeviceSynchronize());
    if (ctx->dev->max_threads_per_sm > 0)
        info->occupancy = (double)li.blocks_per_sm * li.threads / ctx->dev->max_threads_per_sm;
    snprintf(info->note, sizeof info->note, "%s; %d regs, %.1f KiB smem, %d blocks/SM%s", li.desc,
             li.regs, li.smem_bytes / 1024.0, li.blocks_per_sm,
             li.local_bytes ? "; SPILLS to local memory" : "");
    return CB_OK;
}

static cb_status cb_tc_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                             cb_point_info *info, cb_msg *why)
{
    const cb_tc_variant *v = ctx->param;
    *state = NULL;
    int m, n, k;
    cb_status s = cb_matmul_point_shape(p, &m, &n, &k, why);
    if (s != CB_OK) return s;
    if (!ctx->dev) {
        cb_msg_set(why, "needs a CUDA device");
        return CB_SKIP;
    }
    char reason[sizeof why->text];
    if (!cb_tc_supported(v->rung, v->prec, m, n, k, ctx->dev->cc_major, ctx->dev->cc_minor, reason,
                         sizeof reason)) {
        cb_msg_set(why, "%s", reason);
        return CB_SKIP;
    }
    cb_tc_state *ts = cb_mem_state_new(sizeof *ts, "host out of memory", why);
    if (!ts) return CB_SKIP;
    s = cb_tc_setup_state(ts, p, ctx, v, info, why);
    if (s != CB_OK) {
        cb_tc_teardown(ts);
        return s;
    }
    *state = ts;
    return CB_OK;
}

static cb_status cb_tc_run(void *state, cudaStream_t stream, cb_msg *why)
{
    cb_tc_state *ts = state;
    CB_CUDA(cb_tc_plan_run(ts->plan, stream));
    return CB_OK;
}

static cb_status cb_tc_verify(void *state, double *error, cb_msg *why)
{
    cb_tc_state *ts = state;
    if (ts->mm->precision == CB_MATMUL_FP8_DEQ) return cb_matmul_fp8_verify(ts->mm, error, why);
    return cb_matmul_verify(ts->mm, error, why);
}

/* Default sizes: 1024 (too few tiles to fill 132 SMs with 128x256 tiles:
 * the persistent rungs' weak spot), 4096 and 8192 (the sizes the goals are
 * stated at). The FP32 ladder's full list is one --axis away. */
static const cb_axis_def cb_tc_axes[] = {CB_MATMUL_M_AXIS("1024,4096,8192"), CB_MATMUL_N_AXIS,
                                         CB_MATMUL_K_AXIS};

/* The runner's capability check reads each rung's own facts (what its
 * instructions need), so they are written once, in the rung's .cu. */
static void cb_tc_needs(const void *param, int *min_cc, int *max_cc, const char **feature)
{
    const cb_tc_rung *rung = ((const cb_tc_variant *)param)->rung;
    *min_cc = rung->min_cc;
    *max_cc = rung->max_cc;
    *feature = rung->feature;
}

/* The family defaults, spliced into every entry. No pct_peak: a
 * percentage of the FP32 (SIMT) peak would pass 100, and the tensor-core
 * peak has no device attribute to derive it from; pct_ref is "% of cuBLAS"
 * of the same precision at the same point instead. */
#define CB_TC_FAMILY                                                                               \
    .target = CB_TARGET_CUDA, .needs = {.from_param = cb_tc_needs}, CB_AXES(cb_tc_axes),           \
    .peak = CB_PEAK_NONE, .flops = cb_matmul_flops, .setup = cb_tc_setup, .run = cb_tc_run,        \
    .verify = cb_tc_verify, .teardown = cb_tc_teardown
/* What a precision brings: the cuBLAS reference of that precision and its
 * byte model (BF16 and FP8 inputs move less than FP32). */
#define CB_TC_PREC_BF16 .ref_bench = "matmul/cublas_bf16", .bytes = cb_matmul_bytes_bf16
#define CB_TC_PREC_TF32 .ref_bench = "matmul/cublas_tf32", .bytes = cb_matmul_bytes
#define CB_TC_PREC_FP8  .ref_bench = "matmul/cublaslt_fp8", .bytes = cb_matmul_bytes_fp8
/* An entry's splice: rung r (cb_tc_rung_<r>) at precision p (BF16, TF32 or
 * FP8), named once so the variant and the precision's defaults agree. */
#define CB_TC_DEFAULTS(r, p)                                                                       \
    .param = &(const cb_tc_variant){.rung = &cb_tc_rung_##r, .prec = CB_TC_##p}, CB_TC_PREC_##p,   \
    CB_TC_FAMILY

/* The key figures the fastest rungs of a precision stand for. */
static const cb_key_figure cb_tc_bf16_key[] = {{.name = "tensor-core BF16"}, {0}};
static const cb_key_figure cb_tc_fp8_key[] = {{.name = "tensor-core FP8"}, {0}};

static const cb_bench matmul_tc_benches[] = {
    {.name = "matmul_tc/mma_bf16",
     .summary = "BF16 mma.sync m16n8k16 from a padded smem tile (sm_80+)",
     CB_TC_DEFAULTS(mma, BF16)},
    {.name = "matmul_tc/mma_tf32",
     .summary = "TF32 mma.sync m16n8k8 from a padded smem tile (sm_80+)",
     CB_TC_DEFAULTS(mma, TF32)},
    {.name = "matmul_tc/ldmatrix_bf16",
     .summary = "BF16 + ldmatrix, swizzled smem, 3-stage cp.async pipeline",
     CB_TC_DEFAULTS(ldmatrix, BF16)},
    {.name = "matmul_tc/ldmatrix_tf32",
     .summary = "TF32 + ldmatrix, swizzled smem, 3-stage cp.async pipeline",
     CB_TC_DEFAULTS(ldmatrix, TF32)},
    {.name = "matmul_tc/wgmma_bf16",
     .summary = "BF16 wgmma on TMA-loaded smem, mbarrier ring (sm_90a)",
     CB_TC_DEFAULTS(wgmma, BF16)},
    {.name = "matmul_tc/wgmma_tf32",
     .summary = "TF32 wgmma on TMA-loaded smem, B transposed first (sm_90a)",
     CB_TC_DEFAULTS(wgmma, TF32)},
    {.name = "matmul_tc/wgmma_ws_bf16",
     .summary = "BF16 wgmma, producer/consumer warpgroups, persistent (sm_90a)",
     CB_TC_DEFAULTS(wgmma_ws, BF16),
     .key_figures = cb_tc_bf16_key},
    {.name = "matmul_tc/wgmma_ws_tf32",
     .summary = "TF32 wgmma_ws, operands swapped so B is read as it lies (sm_90a)",
     CB_TC_DEFAULTS(wgmma_ws, TF32)},
    {.name = "matmul_tc/wgmma_cluster_bf16",
     .summary = "BF16 wgmma_ws in 2-CTA clusters, B multicast (sm_90a)",
     CB_TC_DEFAULTS(wgmma_cluster, BF16),
     .key_figures = cb_tc_bf16_key},
    {.name = "matmul_tc/wgmma_cluster_tf32",
     .summary = "TF32 wgmma_ws in 2-CTA clusters, B multicast (sm_90a)",
     CB_TC_DEFAULTS(wgmma_cluster, TF32)},
    {.name = "matmul_tc/wgmma_fp8",
     .summary = "FP8 E4M3 wgmma_ws, per-tensor scales, B K-major (sm_90a)",
     CB_TC_DEFAULTS(wgmma_fp8, FP8),
     .key_figures = cb_tc_fp8_key},
    {.name = "matmul_tc/wgmma_cluster_fp8",
     .summary = "FP8 E4M3 wgmma_cluster: 2-CTA clusters, B multicast (sm_90a)",
     CB_TC_DEFAULTS(wgmma_cluster, FP8),
     .key_figures = cb_tc_fp8_key},
};

const cb_family cb_family_matmul_tc = {
    .name = "matmul_tc", .benches = matmul_tc_benches, .count = CB_ARRAY_LEN(matmul_tc_benches)};
