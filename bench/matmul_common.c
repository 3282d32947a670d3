/* matmul_common.c - shape, work model, state, verification and teardown
 * shared by the GPU rungs of the matmul family. */
#include "matmul_common.h"
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

/* Whether verification computes all of C in FP64 on the CPU. */
static bool cb_matmul_full_ref_shape(int m, int n, int k)
{
    const uint64_t mn = cb_mem_bytes((uint64_t)m, (uint64_t)n);
    return mn <= CB_MATMUL_FULL_REF_MAX_ELEMS &&
           cb_mem_bytes(mn, (uint64_t)k) <= CB_MATMUL_FULL_REF_MAX_FMA;
}

static bool cb_matmul_full_ref(const cb_matmul_state *st)
{
    return cb_matmul_full_ref_shape(st->m, st->n, st->k);
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
    const bool fp8 = prec == CB_MATMUL_FP8 || prec == CB_MATMUL_FP8_DEQ;
    /* Host: A, B and C; the FP64 reference of C (full check), or on the GPU
     * the cuBLAS reference read back as floats; BF16 staging of A or B;
     * FP8: the FP32 originals beside the dequantised inputs, and the E4M3
     * bytes of A and B. */
    uint64_t host = abc;
    if (full_ref)
        host = cb_mem_sum(host, cb_mem_bytes(mn, sizeof(double)));
    else if (on_gpu)
        host = cb_mem_sum(host, cb_mem_bytes(mn, sizeof(float)));
    if (on_gpu && bf16) host = cb_mem_sum(host, cb_mem_bytes(mk > kn ? mk : kn, 2));
    if (on_gpu && fp8) host = cb_mem_sum(host, cb_mem_bytes(cb_mem_sum(mk, kn), 4 + 2));
    cb_status s = cb_mem_check_host(host, CB_MEM_HOST_SHARE, "host memory", why);
    if (s != CB_OK || !on_gpu) return s;
    /* Device: A, B and C; the cuBLAS reference of C and its workspace;
     * the BF16 copies of A and B. */
    uint64_t dev = cb_mem_sum(abc, CB_MATMUL_WORKSPACE_BYTES);
    if (!full_ref) dev = cb_mem_sum(dev, cb_mem_bytes(mn, sizeof(float)));
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

static cb_status cb_matmul_state_fill(cb_matmul_state *st, cb_msg *why)
{
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n, nc = (size_t)st->m * st->n;
    st->h_a = malloc(na * sizeof(float));
    st->h_b = malloc(nb * sizeof(float));
    st->h_c = malloc(nc * sizeof(float));
    if (!st->h_a || !st->h_b || !st->h_c) {
        cb_msg_set(why, "host out of memory for %zu floats", na + nb + nc);
        return CB_SKIP;
    }
    cb_matmul_fill_uniform(st->h_a, na, st->seed);
    cb_matmul_fill_uniform(st->h_b, nb, st->seed + 0x9e3779b9u);
    CB_CUDA(cudaMalloc((void **)&st->d_a, na * sizeof(float)));
    CB_CUDA(cudaMalloc((void **)&st->d_b, nb * sizeof(float)));
    CB_CUDA(cudaMalloc((void **)&st->d_c, nc * sizeof(float)));
    CB_CUDA(cudaMemcpy(st->d_a, st->h_a, na * sizeof(float), cudaMemcpyHostToDevice));
    CB_CUDA(cudaMemcpy(st->d_b, st->h_b, nb * sizeof(float), cudaMemcpyHostToDevice));
    /* NaN bytes: an entry the run does not write fails verification. */
    CB_CUDA(cudaMemsetAsync(st->d_c, 0xff, nc * sizeof(float), st->stream));
    if (!cb_matmul_full_ref(st)) {
        CB_CUDA(cudaMalloc((void **)&st->d_ref, nc * sizeof(float)));
        cb_status s = cb_matmul_blas_init(st, why);
        if (s != CB_OK) return s;
    }
    return CB_OK;
}

cb_status cb_matmul_state_bf16(cb_matmul_state *st, cb_msg *why)
{
    /* Convert once, on the host, round to nearest even. */
    const size_t na = (size_t)st->m * st->k, nb = (size_t)st->k * st->n;
    uint16_t *h16 = malloc((na > nb ? na : nb) * sizeof(uint16_t));
    cudaError_t err = h16 ? cudaMalloc(&st->d_a16, na * 2) : cudaErrorMemoryAllocation;
    if (err == cudaSuccess) err = cudaMalloc(&st->d_b16, nb * 2);
    if (err == cudaSuccess) {
        for (size_t i = 0; i < na; i++)
            h16[i] = cb_matmul_float_to_bf16(st->h_a[i]);
        err = cudaMemcpy(st->d_a16, h16, na * 2, cudaMemcpyHostToDevice);
    }
    if (err == cudaSuccess) {
        for (size_t i = 0; i < nb; i++)
            h16[i] = cb_matmul_float_to_bf16(st->h_b[i]);
        err = cudaMemcpy(st->d_b16, h16, nb * 2, cudaMemcpyHostToDevice);
    }
    free(h16);
    if (err != cudaSuccess) {
        cb_msg_set(why, "BF16 copies of A and B: %s", cudaGetErrorString(err));
        return err == cudaErrorMemoryAllocation ? CB_SKIP : CB_FAIL;
    }
    return CB_OK;
}

cb_status cb_matmul_state_new(const cb_point *p, const cb_bench_ctx *ctx, cb_matmul_precision prec,
                              cb_matmul_engine engine, cb_matmul_state **out, cb_msg *why)
{
    *out = NULL;
    int m, n, k;
    cb_status s = cb_matmul_point_shape(p, &m, &n, &k, why);
    if (s == CB_OK) s = cb_matmul_check_memory(m, n, k, true, prec, why);
    if (s != CB_OK) return s;
    cb_matmul_state *st = calloc(1, sizeof *st);
    if (!st) {
        cb_msg_set(why, "host out of memory");
        return CB_SKIP;
    }
    st->m = m, st->n = n, st->k = k;
    st->alpha = 1.0f, st->beta = 0.0f;
    st->precision = prec;
    st->engine = engine;
    st->seed = ctx->seed;
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
    const cb_matmul_args shape = {m, n, k, 1.0f, 0.0f, NULL, NULL, NULL};
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
    const cb_matmul_args args = {m, n, k, st->alpha, st->beta, st->d_a, st->d_b, st->d_c};
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

static int cb_matmul_cpu_threads(void)
{
    long c = sysconf(_SC_NPROCESSORS_ONLN);
    return c < 1 ? 1 : c > 64 ? 64 : (int)c;
}

/* Large points: C against cuBLAS pedantic FP32, and both against FP64 at
 * sampled entries (a cuBLAS reference computed with the wrong layout
 * would otherwise agree with a kernel making the same mistake). */
static cb_status cb_matmul_verify_large(cb_matmul_state *st, const cb_matmul_problem *p,
                                        double scale, double *error, cb_msg *why)
{
    const size_t nc = (size_t)st->m * st->n;
    cb_status s =
        cb_matmul_cublas_gemm(st->blas, st->m, st->n, st->k, st->alpha, st->d_a, st->d_b,
                              CUDA_R_32F, 0.0f, st->d_ref, CUBLAS_COMPUTE_32F_PEDANTIC, why);
    if (s != CB_OK) return s;
    CB_CUDA(cudaStreamSynchronize(st->stream));
    float *ref = malloc(nc * sizeof(float));
    if (!ref) {
        cb_msg_set(why, "host out of memory for the reference");
        return CB_FAIL;
    }
    cb_status out = CB_FAIL;
    double e_ref, e_full = NAN, e_spot = NAN;
    cudaError_t ce = cudaMemcpy(ref, st->d_ref, nc * sizeof(float), cudaMemcpyDeviceToHost);
    if (ce != cudaSuccess) {
        cb_msg_set(why, "reading the reference back: %s", cudaGetErrorString(ce));
    } else if (cb_matmul_check_spot(p, ref, CB_MATMUL_SPOT_SAMPLES, st->seed, CB_MATMUL_FP32, scale,
                                    &e_ref, why) != CB_OK) {
        const cb_msg inner = *why;
        cb_msg_set(why, "cuBLAS reference fails its FP64 spot check: %s", inner.text);
    } else if (cb_matmul_check_fp32(p, st->h_c, ref, st->precision, scale, &e_full, why) != CB_OK) {
        *error = e_full;
    } else if (cb_matmul_check_spot(p, st->h_c, CB_MATMUL_SPOT_SAMPLES, st->seed + 1, st->precision,
                                    scale, &e_spot, why) != CB_OK) {
        *error = e_spot;
    } else {
        *error = fmax(e_full, e_spot);
        out = CB_OK;
    }
    free(ref);
    return out;
}

cb_status cb_matmul_verify(void *state, double *error, cb_msg *why)
{
    cb_matmul_state *st = state;
    const size_t nc = (size_t)st->m * st->n;
    *error = NAN;
    CB_CUDA(cudaStreamSynchronize(st->stream));
    CB_CUDA(cudaMemcpy(st->h_c, st->d_c, nc * sizeof(float), cudaMemcpyDeviceToHost));
    /* beta = 0: C0 is never read, so the reference needs no copy of it. */
    const cb_matmul_problem p = {st->m, st->n, st->k, st->alpha, st->beta, st->h_a, st->h_b, NULL};
    const double scale = cb_matmul_error_scale(&p);
    if (!cb_matmul_full_ref(st)) return cb_matmul_verify_large(st, &p, scale, error, why);
    double *ref = malloc(nc * sizeof(double));
    if (!ref) {
        cb_msg_set(why, "host out of memory for the reference");
        return CB_FAIL;
    }
    cb_matmul_ref_full(&p, ref, cb_matmul_cpu_threads());
    cb_status s = cb_matmul_check_fp64(&p, st->h_c, ref, st->precision, scale, error, why);
    free(ref);
    return s;
}

void cb_matmul_teardown(void *state)
{
    cb_matmul_state *st = state;
    if (!st) return;
    /* Errors are ignored: teardown runs after failures too, and a sticky
     * error has already been reported by the hook that met it. */
    if (st->blas) cublasDestroy(st->blas);
    cudaFree(st->d_workspace);
    cudaFree(st->d_ref);
    cudaFree(st->d_a16);
    cudaFree(st->d_b16);
    cudaFree(st->d_a8);
    cudaFree(st->d_b8t);
    cudaFree(st->d_scales);
    free(st->h_a32);
    free(st->h_b32);
    cudaFree(st->d_a);
    cudaFree(st->d_b);
    cudaFree(st->d_c);
    free(st->h_a);
    free(st->h_b);
    free(st->h_c);
    free(st);
}
