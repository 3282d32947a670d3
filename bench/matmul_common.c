/* matmul_common.c - shape, work model, state, verification and teardown
 * shared by the GPU rungs of the matmul family. */
#include "matmul_common.h"
#include "buffer_pool.h"
#include "cb_random.h"
#include "common_kernels.h"
#include "matmul_check_kernels.h"
#include "mem_budget.h"

#include <cublas_v2.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CB_MATMUL_WORKSPACE_BYTES (32u << 20) /* cuBLAS' recommendation for Hopper */

cb_status cb_matmul_point_shape(const cb_point *p, int *m, int *n, int *k, cb_msg *why)
{
    const int64_t mv = cb_point_int(p, "m");
    int64_t nv = cb_point_int(p, "n"), kv = cb_point_int(p, "k");
    if (nv == CB_AXIS_WORD) nv = mv; /* the word `m`: same as m */
    if (kv == CB_AXIS_WORD) kv = mv;
    if (mv < 1 || nv < 1 || kv < 1 || mv > INT_MAX || nv > INT_MAX || kv > INT_MAX) {
        cb_msg_set(why, "m=%lld n=%lld k=%lld: each must be in 1..%d", (long long)mv, (long long)nv,
                   (long long)kv, INT_MAX);
        return CB_SKIP;
    }
    *m = (int)mv, *n = (int)nv, *k = (int)kv;
    return CB_OK;
}

double cb_matmul_flops(const cb_point *p)
{
    int m, n, k;
    if (cb_matmul_point_shape(p, &m, &n, &k, NULL) != CB_OK) return 0.0;
    return 2.0 * m * n * k;
}

double cb_matmul_bytes(const cb_point *p)
{
    int m, n, k;
    if (cb_matmul_point_shape(p, &m, &n, &k, NULL) != CB_OK) return 0.0;
    return 4.0 * ((double)m * k + (double)k * n + 2.0 * m * n);
}

bool cb_matmul_full_ref_shape(int m, int n, int k)
{
    const uint64_t mn = cb_mem_bytes((uint64_t)m, (uint64_t)n);
    return mn <= CB_MATMUL_FULL_REF_MAX_ELEMS &&
           cb_mem_bytes(mn, (uint64_t)k) <= CB_MATMUL_FULL_REF_MAX_FMA;
}

static bool cb_matmul_full_ref(const cb_matmul_state *st)
{
    return cb_matmul_full_ref_shape(st->m, st->n, st->k);
}

/* The device scratch of a large point's check: the comparison's own, the
 * indices of the sampled entries (matmul_common.h), then the gathered
 * entries of C and of the reference. */
#define CB_MATMUL_CHECK_ALIGN 256u

static size_t cb_matmul_check_offset_idx(void)
{
    const size_t a = CB_MATMUL_CHECK_ALIGN;
    return (cb_matmul_check_scratch_bytes() + a - 1) / a * a;
}

static size_t cb_matmul_check_bytes(void)
{
    return cb_matmul_check_offset_idx() +
           CB_MATMUL_CHECK_ENTRIES * (sizeof(unsigned long long) + 2 * sizeof(float));
}

cb_status cb_matmul_check_memory(int m, int n, int k, bool on_gpu, cb_matmul_precision prec,
                                 cb_msg *why)
{
    const uint64_t mk = cb_mem_bytes((uint64_t)m, (uint64_t)k);
    const uint64_t kn = cb_mem_bytes((uint64_t)k, (uint64_t)n);
    const uint64_t mn = cb_mem_bytes((uint64_t)m, (uint64_t)n);
    const uint64_t abc = cb_mem_bytes(cb_mem_sum(cb_mem_sum(mk, kn), mn), sizeof(float));
    const bool full_ref = cb_matmul_full_ref_shape(m, n, k);
    const bool bf16 = prec == CB_MATMUL_BF16;
    /* Host: a host rung's A, B and C; a GPU point verified against the full
     * FP64 reference holds A, B, C and that reference; one verified on the
     * device only its sampled entries. */
    uint64_t host = cb_mem_bytes(CB_MATMUL_CHECK_ENTRIES, sizeof(double) + 2 * sizeof(float));
    if (!on_gpu || full_ref) host = abc;
    if (full_ref) host = cb_mem_sum(host, cb_mem_bytes(mn, sizeof(double)));
    /* FP8 rungs quantise on the device and are verified as the others
     * (their A and B on the host only for the full reference, generated
     * there), and besides hold the sampled entries and their exact values
     * against the FP32 inputs (matmul_fp8.c). */
    const bool fp8 = prec == CB_MATMUL_FP8 || prec == CB_MATMUL_FP8_DEQ;
    if (on_gpu && fp8)
        host = cb_mem_sum(host, cb_mem_bytes(CB_MATMUL_CHECK_ENTRIES,
                                             sizeof(size_t) + sizeof(float) + sizeof(double)));
    cb_status s = cb_mem_check_host(host, CB_MEM_HOST_SHARE, "host memory", why);
    if (s != CB_OK || !on_gpu) return s;
    /* Device: A, B and C; the cuBLAS reference of C, its workspace and the
     * comparison's scratch; the BF16 or E4M3 copies of A and B (FP8
     * dequantises in place). */
    uint64_t dev = cb_mem_sum(abc, CB_MATMUL_WORKSPACE_BYTES);
    if (!full_ref)
        dev = cb_mem_sum(cb_mem_sum(dev, cb_mem_bytes(mn, sizeof(float))), cb_matmul_check_bytes());
    if (bf16) dev = cb_mem_sum(dev, cb_mem_bytes(cb_mem_sum(mk, kn), 2));
    if (fp8) dev = cb_mem_sum(dev, cb_mem_sum(mk, kn));
    return cb_mem_check_device(dev, why);
}

cb_status cb_matmul_blas_init(cb_matmul_state *st, cb_msg *why)
{
    if (st->blas) return CB_OK;
    /* Handle creation loads cuBLAS kernels: done here, untimed. */
    CB_CUBLAS(cublasCreate(&st->blas));
    CB_CUBLAS(cublasSetStream(st->blas, st->stream));
    CB_CUDA(cudaMalloc(&st->d_workspace, CB_MATMUL_WORKSPACE_BYTES));
    CB_CUBLAS(cublasSetWorkspace(st->blas, st->d_workspace, CB_MATMUL_WORKSPACE_BYTES));
    return CB_OK;
}

cb_status cb_matmul_cublas_gemm(cublasHandle_t h, int m, int n, int k, float alpha, const void *a,
                                const void *b, cudaDataType_t in_type, float beta, float *c,
                                cublasComputeType_t compute, cb_msg *why)
{
    /* Row-major C (m x n) is column-major C^T (n x m) = B^T A^T, where the
     * row-major B (k x n) and A (m x k) already are B^T and A^T in
     * column-major with leading dimensions n and k. */
    CB_CUBLAS(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &alpha, b, in_type, n, a, in_type,
                           k, &beta, c, CUDA_R_32F, n, compute, CUBLAS_GEMM_DEFAULT));
    return CB_OK;
}

/* A and B on the device from the generator, C poisoned; the host copies
 * and the reference's resources of the point's verification. */
static cb_status cb_matmul_state_fill(cb_matmul_state *st, cb_msg *why)
{
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n, nc = (size_t)st->m * st->n;
    CB_CUDA(cudaMalloc((void **)&st->d_a, na * sizeof(float)));
    CB_CUDA(cudaMalloc((void **)&st->d_b, nb * sizeof(float)));
    CB_CUDA(cudaMalloc((void **)&st->d_c, nc * sizeof(float)));
    CB_CUDA(cb_launch_fill_random(st->d_a, na, st->seed_a, st->stream));
    CB_CUDA(cb_launch_fill_random(st->d_b, nb, st->seed_b, st->stream));
    /* NaN bytes: an entry the run does not write fails verification. */
    CB_CUDA(cudaMemsetAsync(st->d_c, 0xff, nc * sizeof(float), st->stream));
    /* The comparison's scratch: the inputs' magnitudes at every size. */
    CB_CUDA(cudaMalloc(&st->d_check, cb_matmul_check_bytes()));
    if (cb_matmul_full_ref(st)) {
        st->h_c = malloc(nc * sizeof(float));
        if (!st->h_c) {
            cb_msg_set(why, "host out of memory for %zu floats", nc);
            return CB_SKIP;
        }
    } else {
        CB_CUDA(cudaMalloc((void **)&st->d_ref, nc * sizeof(float)));
        cb_status s = cb_matmul_blas_init(st, why);
        if (s != CB_OK) return s;
    }
    CB_CUDA(cudaStreamSynchronize(st->stream));
    return CB_OK;
}

cb_status cb_matmul_state_bf16(cb_matmul_state *st, cb_msg *why)
{
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n;
    cudaError_t err = cudaMalloc(&st->d_a16, na * 2);
    if (err == cudaSuccess) err = cudaMalloc(&st->d_b16, nb * 2);
    if (err == cudaSuccess) err = cb_matmul_launch_to_bf16(st->d_a, st->d_a16, na, st->stream);
    if (err == cudaSuccess) err = cb_matmul_launch_to_bf16(st->d_b, st->d_b16, nb, st->stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(st->stream);
    if (err != cudaSuccess) {
        cb_msg_set(why, "BF16 copies of A and B: %s", cudaGetErrorString(err));
        return err == cudaErrorMemoryAllocation ? CB_SKIP : CB_FAIL;
    }
    return CB_OK;
}

cb_status cb_matmul_point_fits(const cb_point *p, bool on_gpu, cb_matmul_precision prec, int *m,
                               int *n, int *k, cb_msg *why)
{
    cb_status s = cb_matmul_point_shape(p, m, n, k, why);
    if (s == CB_OK) s = cb_matmul_check_memory(*m, *n, *k, on_gpu, prec, why);
    return s;
}

cb_matmul_gen cb_matmul_state_gen(const cb_matmul_state *st)
{
    return (cb_matmul_gen){st->m, st->n, st->k, st->alpha, st->seed_a, st->seed_b};
}

cb_status cb_matmul_state_new(const cb_point *p, const cb_bench_ctx *ctx, cb_matmul_precision prec,
                              cb_matmul_engine engine, cb_matmul_state **out, cb_msg *why)
{
    *out = NULL;
    int m, n, k;
    cb_status s = cb_matmul_point_fits(p, true, prec, &m, &n, &k, why);
    if (s != CB_OK) return s;
    cb_matmul_state *st = cb_mem_state_new(sizeof *st, "host out of memory", why);
    if (!st) return CB_SKIP;
    st->m = m, st->n = n, st->k = k;
    st->alpha = 1.0f, st->beta = 0.0f;
    st->precision = prec;
    st->engine = engine;
    st->seed = ctx->seed;
    /* The seeds the host rungs use too: the same problem on both sides. */
    st->seed_a = ctx->seed;
    st->seed_b = ctx->seed + 0x9e3779b9u;
    st->stream = ctx->stream;
    s = cb_matmul_state_fill(st, why);
    if (s != CB_OK) {
        cb_matmul_teardown(st);
        return s;
    }
    *out = st;
    return CB_OK;
}

/* The rung's instance for this point, from its variant axis (a skip with
 * the kernel's reason when the rung has no such instance). */
static cb_status cb_matmul_variant(const cb_matmul_rung *rung, const cb_point *p,
                                   const cb_bench_ctx *ctx, int m, int n, int *variant, cb_msg *why)
{
    *variant = 0;
    if (!rung->variant_axis) return CB_OK;
    const char *text = cb_point_str(p, rung->variant_axis);
    *variant = rung->variant_of(text, m, n, ctx->dev ? ctx->dev->sm_count : 0, why->text,
                                sizeof why->text);
    return *variant < 0 ? CB_SKIP : CB_OK;
}

/* Ask the kernel about the launch before allocating: a launch the device
 * cannot make is a skip with its reason, not a failed run. */
static cb_status cb_matmul_check_launch(const cb_matmul_rung *rung, int variant, int m, int n,
                                        int k, cb_msg *why)
{
    const cb_matmul_args shape = {m, n, k, 1.0f, 0.0f, NULL, NULL, NULL, NULL, 0};
    cb_matmul_launch_info li;
    memset(&li, 0, sizeof li);
    cudaError_t err = rung->query(&shape, variant, &li);
    if (err != cudaSuccess) {
        cb_msg_set(why, "kernel query failed: %s (%s)", cudaGetErrorName(err),
                   cudaGetErrorString(err));
        return err == cudaErrorInvalidValue ? CB_SKIP : CB_FAIL;
    }
    if (li.grid_y > 65535) {
        cb_msg_set(why, "grid of %d x %d blocks exceeds the 65535 limit of grid.y", li.grid_x,
                   li.grid_y);
        return CB_SKIP;
    }
    return CB_OK;
}

cb_status cb_matmul_kernel_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                 cb_point_info *info, cb_msg *why)
{
    const cb_matmul_rung *rung = ctx->param;
    *state = NULL;
    int m, n, k, variant = 0;
    cb_status s = cb_matmul_point_shape(p, &m, &n, &k, why);
    if (s == CB_OK) s = cb_matmul_variant(rung, p, ctx, m, n, &variant, why);
    /* Sizes first: m = n = k = 2^31 - 1 is a skip, before any CUDA call. */
    if (s == CB_OK) s = cb_matmul_check_memory(m, n, k, true, CB_MATMUL_FP32, why);
    if (s == CB_OK) s = cb_matmul_check_launch(rung, variant, m, n, k, why);
    if (s != CB_OK) return s;
    cb_matmul_state *st;
    s = cb_matmul_state_new(p, ctx, CB_MATMUL_FP32, CB_MATMUL_ENGINE_KERNEL, &st, why);
    if (s != CB_OK) return s;
    /* Planned with the real pointers: their alignment picks the
     * edge-handling path the note reports. */
    const cb_matmul_args args = {m, n, k, st->alpha, st->beta, st->d_a, st->d_b, st->d_c, NULL, 0};
    cb_matmul_launch_info li;
    memset(&li, 0, sizeof li);
    cudaError_t err = cb_matmul_plan_make(rung, variant, &args, &st->plan, &li);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        cb_msg_set(why, "setup failed: %s (%s)", cudaGetErrorName(err), cudaGetErrorString(err));
        cb_matmul_teardown(st);
        return CB_FAIL;
    }
    if (ctx->dev && ctx->dev->max_threads_per_sm > 0)
        info->occupancy = (double)li.blocks_per_sm * li.threads / ctx->dev->max_threads_per_sm;
    snprintf(info->note, sizeof info->note, "%s; %d regs, %.1f KiB smem, %d blocks/SM%s", li.desc,
             li.regs, li.smem_bytes / 1024.0, li.blocks_per_sm,
             li.local_bytes ? "; SPILLS to local memory" : "");
    *state = st;
    return CB_OK;
}

cb_status cb_matmul_kernel_run(void *state, cudaStream_t stream, cb_msg *why)
{
    cb_matmul_state *st = state;
    CB_CUDA(cb_matmul_plan_run(&st->plan, stream));
    return CB_OK;
}

int cb_matmul_cpu_threads(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c < 1 ? 1 : c > 64 ? 64 : (int)c;
}

/* What a large point's check reads back: the comparison over every entry,
 * the inputs' magnitudes, C and the reference at the sampled entries, and
 * their exact values. */
typedef struct cb_large_check {
    cb_matmul_diff diff;
    double scale;
    cb_matmul_samples at;
    float r[CB_MATMUL_CHECK_ENTRIES];
    double exact[CB_MATMUL_CHECK_ENTRIES];
} cb_large_check;

static cb_status cb_matmul_large_read(const cb_matmul_state *st, const cb_matmul_e4m3_scales *fp8,
                                      cb_large_check *lc, cb_msg *why)
{
    const size_t nc = (size_t)st->m * st->n;
    char *scratch = st->d_check;
    unsigned long long *d_idx = (unsigned long long *)(scratch + cb_matmul_check_offset_idx());
    float *d_vals = (float *)(d_idx + CB_MATMUL_CHECK_ENTRIES);
    CB_CUDA(cb_matmul_compare(st->d_c, st->d_ref, nc, scratch, &lc->diff, st->stream));
    float max_a, max_b;
    CB_CUDA(cb_matmul_absmax(st->d_a, (size_t)st->m * st->k, scratch, &max_a, st->stream));
    CB_CUDA(cb_matmul_absmax(st->d_b, (size_t)st->k * st->n, scratch, &max_b, st->stream));
    lc->scale = cb_matmul_error_scale_of(st->alpha, st->k, max_a, max_b);
    cb_matmul_spot_indices(nc, CB_MATMUL_CHECK_ENTRIES - 2, st->seed, lc->at.idx);
    unsigned long long idx[CB_MATMUL_CHECK_ENTRIES];
    for (int t = 0; t < CB_MATMUL_CHECK_ENTRIES; t++)
        idx[t] = lc->at.idx[t];
    CB_CUDA(cudaMemcpyAsync(d_idx, idx, sizeof idx, cudaMemcpyHostToDevice, st->stream));
    CB_CUDA(cb_matmul_launch_gather(st->d_c, d_idx, CB_MATMUL_CHECK_ENTRIES, d_vals, st->stream));
    CB_CUDA(cb_matmul_launch_gather(st->d_ref, d_idx, CB_MATMUL_CHECK_ENTRIES,
                                    d_vals + CB_MATMUL_CHECK_ENTRIES, st->stream));
    CB_CUDA(cudaMemcpyAsync(lc->at.c, d_vals, sizeof lc->at.c, cudaMemcpyDeviceToHost, st->stream));
    CB_CUDA(cudaMemcpyAsync(lc->r, d_vals + CB_MATMUL_CHECK_ENTRIES, sizeof lc->r,
                            cudaMemcpyDeviceToHost, st->stream));
    CB_CUDA(cudaStreamSynchronize(st->stream));
    const cb_matmul_gen g = cb_matmul_state_gen(st);
    cb_matmul_gen_entries_e4m3(&g, fp8, lc->at.idx, CB_MATMUL_CHECK_ENTRIES, lc->exact,
                               cb_matmul_cpu_threads());
    return CB_OK;
}

/* Large points, without a host copy of A, B or C. Three checks:
 *   1. the cuBLAS pedantic FP32 reference R against FP64 at the sampled
 *      entries, recomputed on the host from the generator: a reference
 *      computed with the wrong layout, or inputs the device filled wrong,
 *      cannot pass (every entry of a wrong product is off by ~1/sqrt(K));
 *   2. C against R over every entry, on the device (max |C - R| in FP64,
 *      the non-finite entries of C): the same arithmetic and the same
 *      verdict as the host comparison it replaces;
 *   3. C against FP64 at the same sampled entries.
 * The bound, in the metric of matmul_ref.h (errors over the scale
 * |alpha| K max|A| max|B|, u = 2^-24): at every entry
 *     |C - exact| <= |C - R| + |R - exact|.
 * Check 2 bounds the first term by tol(prec, K) everywhere. R is a plain
 * FP32 GEMM of the same inputs (pedantic: no TF32, no reduced-precision
 * reduction), whose error stays under about 2u for any summation order
 * (matmul_ref.h), and check 1 holds it to the FP32 tolerance 16u at 1026
 * entries. So every entry of C is within tol(prec, K) + ~2u of the exact
 * product (for the BF16 and TF32 rungs 2u is under 0.1% of their
 * tolerance), and checks 1 and 3 keep a wrong reference from vouching for
 * a wrong C (both against FP64 at the same entries). These are the checks
 * the host made before, at the same tolerances, with twice the sampled
 * entries; only where they run changed. What a kernel gets
 * wrong moves check 2 by |wrong - right| / scale wherever it is: one entry
 * off by 4 is 4 / K (5e-4 at K = 8192, 500 x the FP32 tolerance), an
 * unwritten one is a non-finite count.
 * The FP8 rungs (fp8 not NULL) take the same three checks on the inputs
 * the device dequantised in place, which R multiplies; their exact values
 * come from the generator through the host's E4M3 rounding, the device's
 * own function (kernels/cb_e4m3.h), so check 1 also fails a device
 * quantisation that strays from it where a sampled entry reads the stray
 * elements: one element one E4M3 step off moves the entries of its row
 * (A) or column (B) of C by up to 2^-3 / K of the scale (1.5e-5 at
 * K = 8192, 16 x the FP32 tolerance). */
static cb_status cb_matmul_verify_large(cb_matmul_state *st, const cb_matmul_e4m3_scales *fp8,
                                        cb_matmul_samples *at, double *error, cb_msg *why)
{
    cb_status s =
        cb_matmul_cublas_gemm(st->blas, st->m, st->n, st->k, st->alpha, st->d_a, st->d_b,
                              CUDA_R_32F, 0.0f, st->d_ref, CUBLAS_COMPUTE_32F_PEDANTIC, why);
    if (s != CB_OK) return s;
    cb_large_check *lc = malloc(sizeof *lc);
    if (!lc) {
        cb_msg_set(why, "host out of memory for the check");
        return CB_FAIL;
    }
    s = cb_matmul_large_read(st, fp8, lc, why);
    const cb_matmul_diff *d = &lc->diff;
    const cb_matmul_worst full = {.n = st->n,
                                  .k = st->k,
                                  .max_diff = d->max_diff,
                                  .worst = d->worst,
                                  .c_worst = d->c_worst,
                                  .r_worst = d->r_worst,
                                  .nonfinite = d->nonfinite_c,
                                  .first_bad = d->first_nonfinite_c,
                                  .c_bad = d->c_first_nonfinite};
    double e_ref, e_full = NAN, e_spot = NAN;
    if (s != CB_OK) {
        /* why says it */
    } else if (cb_matmul_check_entries(st->n, st->k, lc->at.idx, lc->r, lc->exact,
                                       CB_MATMUL_CHECK_ENTRIES, CB_MATMUL_FP32, lc->scale, &e_ref,
                                       why) != CB_OK) {
        const cb_msg inner = *why;
        cb_msg_set(why, "cuBLAS reference fails its FP64 spot check: %s", inner.text);
        s = CB_FAIL;
    } else if (d->nonfinite_r > 0) {
        cb_msg_set(why, "cuBLAS reference has %llu non-finite entries", d->nonfinite_r);
        s = CB_FAIL;
    } else if ((s = cb_matmul_judge(&full, st->precision, lc->scale, &e_full, why)) != CB_OK) {
        *error = e_full;
    } else if ((s = cb_matmul_check_entries(st->n, st->k, lc->at.idx, lc->at.c, lc->exact,
                                            CB_MATMUL_CHECK_ENTRIES, st->precision, lc->scale,
                                            &e_spot, why)) != CB_OK) {
        *error = e_spot;
    } else {
        *error = fmax(e_full, e_spot);
    }
    if (at) *at = lc->at;
    free(lc);
    return s;
}

/* ---- FP64 references kept across points ----
 * Every rung at one shape is checked against the same exact product (the
 * same shape, seeds and alpha; the FP8 rungs', of the same scales): it is
 * computed once, with inputs generated on the host on their own (a device
 * fill or quantisation that went wrong cannot agree with them), and kept
 * in the toolkit's buffer pool keyed by what it is, so the next rung at
 * that shape, and the next round, read it instead of spending m n k FP64
 * FMAs again (1024^3: ~0.06 s on 16 cores, ~25 points x 3 rounds in the
 * default suite). A block is its problem, then the reference: a block is
 * used only for the problem it names. */
typedef struct cb_ref_problem {
    cb_matmul_gen g;
    cb_matmul_e4m3_scales fp8; /* {0, 0}: the generator's values themselves */
} cb_ref_problem;

typedef struct cb_ref_block {
    cb_ref_problem p;
    double ref[]; /* m x n */
} cb_ref_block;

static const cb_pool_class cb_ref_class = {"matmul FP64 reference", free};

static bool cb_ref_block_is(const cb_ref_block *b, const cb_ref_problem *rp)
{
    const cb_matmul_gen *x = &b->p.g, *g = &rp->g;
    return x->m == g->m && x->n == g->n && x->k == g->k && x->alpha == g->alpha &&
           x->seed_a == g->seed_a && x->seed_b == g->seed_b && b->p.fp8.a == rp->fp8.a &&
           b->p.fp8.b == rp->fp8.b;
}

static uint64_t cb_ref_key(const cb_ref_problem *rp)
{
    const cb_matmul_gen *g = &rp->g;
    uint64_t alpha_bits;
    uint32_t scale_bits[2];
    memcpy(&alpha_bits, &g->alpha, sizeof alpha_bits);
    memcpy(&scale_bits[0], &rp->fp8.a, sizeof scale_bits[0]);
    memcpy(&scale_bits[1], &rp->fp8.b, sizeof scale_bits[1]);
    uint64_t h = cb_mix64(((uint64_t)(uint32_t)g->m << 32) ^ (uint32_t)g->n);
    h = cb_mix64(h ^ (uint64_t)(uint32_t)g->k);
    h = cb_mix64(h ^ alpha_bits);
    h = cb_mix64(h ^ ((uint64_t)scale_bits[0] << 32 | scale_bits[1]));
    return cb_mix64(h ^ g->seed_a) ^ cb_mix64(g->seed_b + 1);
}

static size_t cb_ref_block_bytes(const cb_ref_problem *rp)
{
    return sizeof(cb_ref_block) + (size_t)rp->g.m * rp->g.n * sizeof(double);
}

/* The reference block of the state's problem rp, kept or made now; NULL
 * (why says so) when the host has no memory for it. */
static cb_ref_block *cb_matmul_reference(cb_matmul_state *st, const cb_ref_problem *rp, cb_msg *why)
{
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n;
    const size_t bytes = cb_ref_block_bytes(rp);
    cb_ref_block *b = cb_buffer_pool_take(&cb_ref_class, -1, bytes, cb_ref_key(rp));
    if (b && cb_ref_block_is(b, rp)) return b;
    free(b); /* a different problem with the same digest: never reused */
    b = malloc(bytes);
    if (!st->h_a) st->h_a = malloc(na * sizeof(float));
    if (!st->h_b) st->h_b = malloc(nb * sizeof(float));
    if (!b || !st->h_a || !st->h_b) {
        free(b);
        cb_msg_set(why, "host out of memory for the FP64 reference and its inputs");
        return NULL;
    }
    cb_matmul_fill_e4m3(st->h_a, na, st->seed_a, rp->fp8.a);
    cb_matmul_fill_e4m3(st->h_b, nb, st->seed_b, rp->fp8.b);
    b->p = *rp;
    const cb_matmul_problem p = {st->m, st->n, st->k, st->alpha, 0.0, st->h_a, st->h_b, NULL};
    cb_matmul_ref_full(&p, b->ref, cb_matmul_cpu_threads());
    return b;
}

/* Small points: all of C read back and checked against the FP64
 * reference; `at` as cb_matmul_verify_exact. */
static cb_status cb_matmul_verify_full(cb_matmul_state *st, const cb_matmul_e4m3_scales *fp8,
                                       cb_matmul_samples *at, double *error, cb_msg *why)
{
    const size_t nc = (size_t)st->m * st->n;
    CB_CUDA(cudaMemcpy(st->h_c, st->d_c, nc * sizeof(float), cudaMemcpyDeviceToHost));
    /* The metric's scale from the inputs as the device holds them. */
    float max_a, max_b;
    CB_CUDA(cb_matmul_absmax(st->d_a, (size_t)st->m * st->k, st->d_check, &max_a, st->stream));
    CB_CUDA(cb_matmul_absmax(st->d_b, (size_t)st->k * st->n, st->d_check, &max_b, st->stream));
    const double scale = cb_matmul_error_scale_of(st->alpha, st->k, max_a, max_b);
    cb_ref_problem rp = {cb_matmul_state_gen(st), {0.0f, 0.0f}};
    if (fp8) rp.fp8 = *fp8;
    cb_ref_block *ref = cb_matmul_reference(st, &rp, why);
    if (!ref) return CB_FAIL;
    /* beta = 0: C0 is never read, so the check needs no copy of it. */
    const cb_matmul_problem p = {st->m, st->n, st->k, st->alpha, st->beta, NULL, NULL, NULL};
    cb_status s = cb_matmul_check_fp64(&p, st->h_c, ref->ref, st->precision, scale, error, why);
    cb_buffer_pool_give(&cb_ref_class, -1, cb_ref_block_bytes(&rp), cb_ref_key(&rp), ref);
    if (at) {
        cb_matmul_spot_indices(nc, CB_MATMUL_CHECK_ENTRIES - 2, st->seed, at->idx);
        for (int t = 0; t < CB_MATMUL_CHECK_ENTRIES; t++)
            at->c[t] = st->h_c[at->idx[t]];
    }
    return s;
}

cb_status cb_matmul_verify_exact(cb_matmul_state *st, const cb_matmul_e4m3_scales *fp8,
                                 cb_matmul_samples *at, double *error, cb_msg *why)
{
    *error = NAN;
    CB_CUDA(cudaStreamSynchronize(st->stream));
    return cb_matmul_full_ref(st) ? cb_matmul_verify_full(st, fp8, at, error, why)
                                  : cb_matmul_verify_large(st, fp8, at, error, why);
}

cb_status cb_matmul_verify(void *state, double *error, cb_msg *why)
{
    return cb_matmul_verify_exact(state, NULL, NULL, error, why);
}

void cb_matmul_teardown(void *state)
{
    cb_matmul_state *st = state;
    if (!st) return;
    /* Errors are ignored: teardown runs after failures too, and a sticky
     * error has already been reported by the hook that met it. */
    if (st->blas) cublasDestroy(st->blas);
    cb_matmul_plan_release(&st->plan);
    cudaFree(st->d_workspace);
    cudaFree(st->d_ref);
    cudaFree(st->d_check);
    cudaFree(st->d_a16);
    cudaFree(st->d_b16);
    cudaFree(st->d_a8);
    cudaFree(st->d_b8t);
    cudaFree(st->d_scales);
    cudaFree(st->d_a);
    cudaFree(st->d_b);
    cudaFree(st->d_c);
    free(st->h_a);
    free(st->h_b);
    free(st->h_c);
    free(st);
}
