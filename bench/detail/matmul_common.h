/* matmul_common.h - what the matmul family's rungs share: the point's
 * shape, the per-point state of the GPU rungs, and their setup / verify /
 * teardown. bench/matmul.c holds the table; matmul_cublas.c and
 * matmul_host.c the rungs that are not hand-written kernels. */
#ifndef CB_MATMUL_COMMON_H
#define CB_MATMUL_COMMON_H

#include "registry.h"
#include "matmul_kernels.h"
#include "matmul_ref.h"

#include <cublas_api.h>

/* Full FP64 verification on the CPU up to this many multiply-adds (about a
 * second on a few cores); larger points are compared on the device with
 * cuBLAS pedantic FP32 over every entry, and both C and that reference
 * with FP64 at 2 x CB_MATMUL_SPOT_SAMPLES + 2 sampled entries recomputed
 * on the host from the generator (matmul_common.c argues the bound). */
#define CB_MATMUL_FULL_REF_MAX_FMA   (1ull << 30)
#define CB_MATMUL_FULL_REF_MAX_ELEMS (1ull << 25) /* doubles held for C */
#define CB_MATMUL_SPOT_SAMPLES       512
/* The sampled entries: both corners and 2 x CB_MATMUL_SPOT_SAMPLES drawn. */
#define CB_MATMUL_CHECK_ENTRIES (2 * CB_MATMUL_SPOT_SAMPLES + 2)

/* The identity axes of every matmul rung (m, then n and k, which take the
 * word `m` for "same as m"): the same definitions in each family, so
 * pct_ref can match a tensor-core rung to a cuBLAS ceiling point by point. */
#define CB_MATMUL_N_AXIS                                                                           \
    {                                                                                              \
        .name = "n", .kind = CB_AXIS_INT, .defaults = "m", .choices = "m", .min_value = 1,         \
        .help = "columns of B and C; the word `m` means n = m"                                     \
    }
#define CB_MATMUL_K_AXIS                                                                           \
    {                                                                                              \
        .name = "k", .kind = CB_AXIS_INT, .defaults = "m", .choices = "m", .min_value = 1,         \
        .help = "inner dimension (columns of A, rows of B); the word `m` means k = m"              \
    }
#define CB_MATMUL_M_AXIS(list)                                                                     \
    {                                                                                              \
        .name = "m", .kind = CB_AXIS_INT, .defaults = list, .min_value = 1,                        \
        .help = "rows of A and C"                                                                  \
    }

#define CB_MATMUL_SIZES_FAST "256,512,1024,2048,4096,8192,8448"

/* m, n, k of a point. The axes n and k accept the word `m` ("same as m"),
 * which is their default, so a plain run sweeps square matrices. */
cb_status cb_matmul_point_shape(const cb_point *p, int *m, int *n, int *k, cb_msg *why);

/* Work model of one run: 2 m n k flops; 4 (mk + kn + 2mn) bytes, i.e. A
 * and B read once and C read and written once, the minimum traffic of the
 * general C = alpha A B + beta C (the points run beta = 0, where C is only
 * written: the true minimum is then 4 (mk + kn + mn); the general figure
 * is kept so GB/s means the same for every point). */
double cb_matmul_flops(const cb_point *p);
double cb_matmul_bytes(const cb_point *p);

/* CB_SKIP with the numbers unless the point's buffers fit: on the host A,
 * B, C and the verification's reference, on the GPU (on_gpu) also device
 * A, B, C, the cuBLAS reference and workspace, and BF16 or E4M3 copies
 * (prec).
 * Byte counts saturate, so m = n = k = 2^31 - 1 cannot wrap. */
cb_status cb_matmul_check_memory(int m, int n, int k, bool on_gpu, cb_matmul_precision prec,
                                 cb_msg *why);

/* The point's shape, then the memory check of that shape: the first step
 * of a setup that holds the whole problem (the host rungs, the cuBLAS and
 * hand-written GPU rungs' state). */
cb_status cb_matmul_point_fits(const cb_point *p, bool on_gpu, cb_matmul_precision prec, int *m,
                               int *n, int *k, cb_msg *why);

/* A hand-written kernel rung: its launcher, its query and how the point
 * selects its template instance (`variant`, see kernels/matmul_kernels.h). */
/* How a GPU rung computes. */
typedef enum cb_matmul_engine {
    CB_MATMUL_ENGINE_KERNEL,
    CB_MATMUL_ENGINE_CUBLAS,
} cb_matmul_engine;

/* Floats between the FP8 scales of A and B on the device (256 bytes). */
#define CB_MATMUL_SCALE_STRIDE 64

typedef struct cb_matmul_state {
    int m, n, k;
    float alpha, beta;
    cb_matmul_precision precision;
    cb_matmul_engine engine;
    uint64_t seed;
    uint64_t seed_a, seed_b; /* A and B: the generator's (cb_matmul_gen)  */
    cudaStream_t stream;
    /* Host copies, only where the host needs them: A and B generated on the
     * host (FP8: dequantised there too) and C read back for a point
     * verified against the full FP64 reference; NULL for a point verified
     * on the device. */
    float *h_a, *h_b, *h_c;
    float *d_a, *d_b, *d_c;
    void *d_check; /* device scratch of the large points' comparison   */
    /* kernel rungs */
    cb_matmul_plan plan; /* hand-written rungs: the rung, its instance, the launch */
    /* cuBLAS: the rung itself, and the reference of large points */
    cublasHandle_t blas;
    void *d_workspace;
    float *d_ref;
    void *d_a16, *d_b16;    /* BF16 copies of A and B (cublas_bf16)        */
    cudaDataType_t in_type; /* CUDA_R_32F, or CUDA_R_16BF for cublas_bf16 */
    cublasComputeType_t compute;
    /* FP8 rungs (cb_matmul_state_fp8): E4M3 A (m x k) and B K-major (n x k),
     * the per-tensor scales (on the device too), and the largest magnitudes
     * of the FP32 inputs they were quantised from (d_a and d_b then hold
     * the dequantised values: the problem an FP8 GEMM solves up to its
     * accumulation). */
    void *d_a8, *d_b8t;
    float *d_scales; /* s_a at [0], s_b at [CB_MATMUL_SCALE_STRIDE] */
    float scale_a, scale_b;
    float max_a32, max_b32;
} cb_matmul_state;

/* Allocate and fill everything a GPU rung needs: A and B filled on the
 * device by the counter-based generator (uniform in (-1, 1), seeds
 * seed_a / seed_b), C poisoned with NaN bytes, cuBLAS and the comparison's
 * scratch for the reference of large points. On failure everything is
 * freed and *out is NULL. */
cb_status cb_matmul_state_new(const cb_point *p, const cb_bench_ctx *ctx, cb_matmul_precision prec,
                              cb_matmul_engine engine, cb_matmul_state **out, cb_msg *why);

/* st->d_a16 and st->d_b16: A and B rounded to BF16 (nearest even) on the
 * device, untimed; the BF16 rungs (cuBLAS and the tensor-core ladder) read
 * them. */
cb_status cb_matmul_state_bf16(cb_matmul_state *st, cb_msg *why);

/* The FP8 inputs (matmul_fp8.c): A and B quantised to E4M3 on the device
 * with one scale per tensor (from the device's max|x|), untimed, B laid
 * out K-major, and d_a and d_b overwritten with the dequantised values; no
 * host copy. The state must have been made with precision
 * CB_MATMUL_FP8_DEQ. */
cb_status cb_matmul_state_fp8(cb_matmul_state *st, cb_msg *why);

/* Verify an FP8 rung: against the exact product of the dequantised inputs
 * with the accumulation bound (the error reported), and against the FP32
 * inputs at the sampled entries with the E4M3 input bound (matmul_ref.h);
 * both exact products recomputed on the host from the generator. */
cb_status cb_matmul_fp8_verify(void *state, double *error, cb_msg *why);

/* FP8 rungs: 1-byte A and B, FP32 C read and written. */
double cb_matmul_bytes_fp8(const cb_point *p);

/* The state's problem as the generator makes it (seeds, shape, alpha). */
cb_matmul_gen cb_matmul_state_gen(const cb_matmul_state *st);

/* Whether a point's check computes all of C in FP64 on the CPU (small
 * shapes), rather than comparing with cuBLAS and sampled FP64 entries. */
bool cb_matmul_full_ref_shape(int m, int n, int k);

/* Threads of the host references: the online cores, 1..64. */
int cb_matmul_cpu_threads(void);

/* Create st->blas on st->stream with a workspace (once). */
cb_status cb_matmul_blas_init(cb_matmul_state *st, cb_msg *why);

/* The hooks of every hand-written GPU rung; the benchmark's param is its
 * cb_matmul_rung (kernels/matmul_kernels.h). */
cb_status cb_matmul_kernel_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                 cb_point_info *info, cb_msg *why);
cb_status cb_matmul_kernel_run(void *state, cudaStream_t stream, cb_msg *why);

/* Verify and teardown of every GPU rung, hand-written or cuBLAS. */
cb_status cb_matmul_verify(void *state, double *error, cb_msg *why);
void cb_matmul_teardown(void *state);

/* Entries of C a check looked at, and C there: for a second check at the
 * same places. */
typedef struct cb_matmul_samples {
    size_t idx[CB_MATMUL_CHECK_ENTRIES];
    float c[CB_MATMUL_CHECK_ENTRIES];
} cb_matmul_samples;

/* cb_matmul_verify against the exact product of the state's generated
 * problem with its inputs through E4M3 at fp8's scales (NULL: the FP32
 * inputs themselves; matmul_ref.h), at the state's precision; `at` (when
 * not NULL) receives CB_MATMUL_CHECK_ENTRIES sampled entries of C. */
cb_status cb_matmul_verify_exact(cb_matmul_state *st, const cb_matmul_e4m3_scales *fp8,
                                 cb_matmul_samples *at, double *error, cb_msg *why);

/* The cuBLAS rungs (matmul_cublas.c): one setup, and a param per precision. */
typedef struct cb_matmul_cublas_variant {
    cb_matmul_precision precision;
    cublasComputeType_t compute;
    const char *note; /* the row's note: what this ceiling is */
} cb_matmul_cublas_variant;
extern const cb_matmul_cublas_variant cb_matmul_cublas_fp32, cb_matmul_cublas_tf32,
    cb_matmul_cublas_bf16;
cb_status cb_matmul_cublas_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                 cb_point_info *info, cb_msg *why);
cb_status cb_matmul_cublas_run(void *state, cudaStream_t stream, cb_msg *why);
double cb_matmul_bytes_bf16(const cb_point *p);

/* The cuBLASLt FP8 reference (matmul_cublaslt.c): its own state around
 * the matmul state, verified as every FP8 rung. */
cb_status cb_matmul_cublaslt_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                   cb_point_info *info, cb_msg *why);
cb_status cb_matmul_cublaslt_run(void *state, cudaStream_t stream, cb_msg *why);
cb_status cb_matmul_cublaslt_verify(void *state, double *error, cb_msg *why);
void cb_matmul_cublaslt_teardown(void *state);

/* Row-major C = alpha A B + beta C through cuBLAS (column-major) as
 * C^T = B^T A^T, with inputs of `in_type` and the given compute type. */
cb_status cb_matmul_cublas_gemm(cublasHandle_t h, int m, int n, int k, float alpha, const void *a,
                                const void *b, cudaDataType_t in_type, float beta, float *c,
                                cublasComputeType_t compute, cb_msg *why);

/* The host rungs (matmul_host.c). */
cb_status cb_matmul_host_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                               cb_point_info *info, cb_msg *why);
cb_status cb_matmul_host_cblas_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                     cb_point_info *info, cb_msg *why);
cb_status cb_matmul_host_blocked_run(void *state, cudaStream_t stream, cb_msg *why);
cb_status cb_matmul_host_cblas_run(void *state, cudaStream_t stream, cb_msg *why);
cb_status cb_matmul_host_verify(void *state, double *error, cb_msg *why);
void cb_matmul_host_teardown(void *state);

#endif
