/* matmul_ref.h - inputs, reference results and the error metric of the
 * matmul family. Plain C on the CPU, so tests/cpu can check it without a GPU.
 *
 * The error metric (the `verify_error` column of every matmul row):
 *
 *     err = max_ij |C_ij - R_ij| / (|alpha| K max|A| max|B| + |beta| max|C0|)
 *
 * where R is the exact product (FP64) and C0 the C before the call. The
 * denominator bounds |C_ij| for any inputs, so err is a normwise relative
 * error that does not grow with K for a correct FP32 kernel: rounding in a
 * K-term FP32 sum gives |C - R| ~ u K / 3 at most in practice (u = 2^-24),
 * so err stays below ~2u whatever the summation order. A wrong answer is
 * orders above: one term missing or doubled gives ~1/K, a wrong row or a
 * transposed result ~1/sqrt(K).
 *
 * Tolerance by input precision (cb_matmul_tolerance):
 *     tol = 16 u_in / sqrt(K) + 16 u_fp32
 * u_in is 0 for FP32 inputs, 2^-11 for TF32 and 2^-8 for BF16: rounding
 * the inputs perturbs each product by ~u_in, and K such independent
 * perturbations add up like sqrt(K), i.e. like u_in / sqrt(K) after the
 * division by K. The factors 16 leave 5-10x margin over the largest error
 * expected among 10^8 entries, and still fail the bugs above at every K a
 * GPU can hold (FP32: 1/K > 16u up to K = 10^6).
 *
 * FP8 (E4M3 inputs with one FP32 scale per tensor, products summed on the
 * tensor cores), two bounds, both from the same argument:
 *   - inputs: E4M3 keeps 3 mantissa bits, so rounding x / s to it moves x
 *     by at most 2^-4 |x| (half an ulp of a 4-bit significand; with s =
 *     max|x| / 448 the values below E4M3's normal range, |x| < 2^-6 s, move
 *     by at most 2^-10 s, far less). So u_in = 2^-4, and against the FP32
 *     problem the same 16 u_in / sqrt(K) applies (CB_MATMUL_FP8): 1/90 at
 *     K = 8192, where the expected worst entry of 6.7e7 is about 1/900;
 *   - accumulation: against the product of the dequantised inputs
 *     themselves (exact in FP64: CB_MATMUL_FP8_DEQ) only the summation
 *     errs. FP32 would keep that under 16 u, but Hopper's FP8 tensor cores
 *     are reported to keep about 14 bits when they add into the
 *     accumulators (DeepSeek-V3 technical report, 2024, section 3.3.2;
 *     cuBLASLt's FP8 "fast accumulation" mode is the same path), so the
 *     term is 16 x 2^-14 = 2^-10 instead. A 14-bit sum that truncates every
 *     k-step of 32 drifts by about 2^-14 (2/9) sqrt(K) / 32 of the scale
 *     (3.8e-5 at K = 8192, 2.5x below the bound at K = 2^20); a wrong
 *     entry of C moves it by ~1/K, a missing k-slice by ~sqrt(128)/K, both
 *     above 2^-10 up to K ~ 10^3 and 10^4.
 *   The second bound is the sharp one: FP8 rows report their error against
 *   the dequantised problem, and pass only if they also meet the first.
 */
#ifndef CB_MATMUL_REF_H
#define CB_MATMUL_REF_H

#include "cb_common.h"

typedef enum cb_matmul_precision {
    CB_MATMUL_FP32 = 0, /* FP32 inputs and products                          */
    CB_MATMUL_TF32,     /* inputs rounded to TF32 (10-bit mantissa) by the GPU */
    CB_MATMUL_BF16,     /* inputs rounded to BF16 (7-bit mantissa)            */
    CB_MATMUL_FP8,      /* inputs rounded to E4M3 (3-bit mantissa, scaled),
                         * FP8 tensor-core accumulation                      */
    CB_MATMUL_FP8_DEQ,  /* the dequantised E4M3 inputs themselves (exact),
                         * FP8 tensor-core accumulation                      */
} cb_matmul_precision;

/* One problem C = alpha A B + beta C0, row-major, leading dimensions k
 * (A), n (B) and n (C). c0 may be NULL when beta == 0. */
typedef struct cb_matmul_problem {
    int m, n, k;
    double alpha, beta;
    const float *a, *b, *c0;
} cb_matmul_problem;

/* Fill x[0..count) with x[i] = cb_random_value(seed, i): uniform in
 * (-1, 1) on a 2^-23 grid, never zero, from the counter-based generator of
 * kernels/cb_random.h, so the device fills the same matrix
 * (cb_launch_fill_random) and the host can recompute any one element
 * without the others (the same seed gives the same matrix everywhere). */
void cb_matmul_fill_uniform(float *x, size_t count, uint64_t seed);

/* A problem alpha A B (beta = 0) whose inputs come from the generator:
 * A[i][q] = cb_random_value(seed_a, i k + q), B[q][j] = cb_random_value(
 * seed_b, q n + j), both row-major. The GPU rungs fill A and B on the
 * device; the checks below recompute what they need on the host. */
typedef struct cb_matmul_gen {
    int m, n, k;
    double alpha;
    uint64_t seed_a, seed_b;
} cb_matmul_gen;

/* The exact (FP64) entry e = i n + j of alpha A B, from the generator
 * alone (2k generator values, k FMAs; the same order of summation as
 * cb_matmul_ref_entry on filled matrices). */
double cb_matmul_gen_entry(const cb_matmul_gen *g, size_t e);

/* exact[t] = cb_matmul_gen_entry(g, idx[t]) for t < count, on up to
 * `threads` POSIX threads. */
void cb_matmul_gen_entries(const cb_matmul_gen *g, const size_t *idx, int count, double *exact,
                           int threads);

/* The generated problem as an FP8 rung holds it: each element of A (B) is
 * the generator's value quantised to E4M3 at the scale `a` (`b`) and
 * dequantised, cb_e4m3_dequantize(cb_e4m3_quantize(x, s), s) of
 * kernels/cb_e4m3.h, the function the device quantises with, so the exact
 * product of these inputs is the one the FP8 GEMM approximates. */
typedef struct cb_matmul_e4m3_scales {
    float a, b;
} cb_matmul_e4m3_scales;

/* cb_matmul_gen_entry and cb_matmul_gen_entries of that problem (2k
 * generator values, 2k quantisations, k FMAs an entry); `fp8` NULL: of the
 * generator's values themselves, the functions above. */
double cb_matmul_gen_entry_e4m3(const cb_matmul_gen *g, const cb_matmul_e4m3_scales *fp8, size_t e);
void cb_matmul_gen_entries_e4m3(const cb_matmul_gen *g, const cb_matmul_e4m3_scales *fp8,
                                const size_t *idx, int count, double *exact, int threads);

/* x[i] = cb_random_value(seed, i) for i < count, quantised to E4M3 at
 * `scale` and dequantised as above when scale > 0: one input of that
 * problem, as the host's full reference multiplies it. */
void cb_matmul_fill_e4m3(float *x, size_t count, uint64_t seed, float scale);

/* The entries a spot check of an `entries`-entry C looks at: idx[0] = 0,
 * idx[1] = entries - 1 (a wrong corner is always seen), then `samples`
 * indices drawn by `seed`. idx holds samples + 2. */
void cb_matmul_spot_indices(size_t entries, int samples, uint64_t seed, size_t *idx);

/* Round to the nearest bfloat16, ties to even (NaN stays NaN), and back. */
uint16_t cb_matmul_float_to_bf16(float x);
float cb_matmul_bf16_to_float(uint16_t bits);

/* FP8 E4M3 (1 sign, 4 exponent bits of bias 7, 3 mantissa bits; largest
 * finite 448, no infinities, NaN 0x7f / 0xff): round to nearest, ties to
 * even, saturating at +-448 (NaN stays NaN), and back. These are
 * kernels/cb_e4m3.h's functions, which the device runs too. */
#define CB_MATMUL_E4M3_MAX 448.0f
uint8_t cb_matmul_float_to_e4m3(float x);
float cb_matmul_e4m3_to_float(uint8_t bits);

/* The per-tensor scale of an input whose largest magnitude is amax:
 * amax / 448 in FP32, or 1 for an all-zero input. */
float cb_matmul_e4m3_scale(float amax);

/* Quantise x[0..count) per tensor on the host: scale = cb_matmul_e4m3_scale(
 * max|x|), q[i] = e4m3(x[i] / scale), and when `deq` is not NULL (it may
 * be x) deq[i] = scale * e4m3_to_float(q[i]) (the value the FP8 GEMM
 * multiplies, rounded to FP32: a relative 2^-24 more); the bytes and
 * values the device makes (cb_matmul_launch_quantize_e4m3). Returns the
 * scale. */
float cb_matmul_quantize_e4m3(const float *x, size_t count, uint8_t *q, float *deq);

/* The exact (FP64) result: ref[i n + j] for the whole matrix, using up to
 * `threads` POSIX threads (<= 1: the calling thread). Costs m n k FMAs. */
void cb_matmul_ref_full(const cb_matmul_problem *p, double *ref, int threads);

/* One exact entry (i, j). */
double cb_matmul_ref_entry(const cb_matmul_problem *p, int i, int j);

/* The denominator of the metric: |alpha| K max|A| max|B| + |beta| max|C0|. */
double cb_matmul_error_scale(const cb_matmul_problem *p);
/* The same from the magnitudes (beta = 0): |alpha| K max_a max_b, or 1
 * when that is 0 (all-zero inputs: absolute errors). */
double cb_matmul_error_scale_of(double alpha, int k, double max_a, double max_b);

/* The tolerance on err for inputs of precision `prec` and depth k. */
double cb_matmul_tolerance(cb_matmul_precision prec, int k);

/* Compare c (m x n) with the FP64 reference `ref` / an FP32 reference
 * `ref32`: CB_OK within tolerance, CB_FAIL (with the worst entry, or the
 * first non-finite one, in `why`) otherwise. *err is always set (INFINITY
 * when C holds a NaN or an infinity). `scale` is cb_matmul_error_scale. */
cb_status cb_matmul_check_fp64(const cb_matmul_problem *p, const float *c, const double *ref,
                               cb_matmul_precision prec, double scale, double *err, cb_msg *why);
cb_status cb_matmul_check_fp32(const cb_matmul_problem *p, const float *c, const float *ref32,
                               cb_matmul_precision prec, double scale, double *err, cb_msg *why);

/* A comparison of C (m x n, depth k) with a reference over every entry,
 * already reduced (on the device by kernels/matmul_check.cu, or by the
 * host checks above): the largest |C - R| where C is finite, its first
 * index and values, and the non-finite entries of C. */
typedef struct cb_matmul_worst {
    int n, k;
    double max_diff;
    size_t worst;
    double c_worst, r_worst;
    size_t nonfinite, first_bad;
    double c_bad;
} cb_matmul_worst;

/* The verdict every check of C ends in: CB_FAIL when C has a non-finite
 * entry (*err = INFINITY) or max_diff / scale exceeds the tolerance of
 * `prec` at depth k, with the entry in `why`; *err = max_diff / scale. */
cb_status cb_matmul_judge(const cb_matmul_worst *w, cb_matmul_precision prec, double scale,
                          double *err, cb_msg *why);

/* Values of C at the entries idx[0..count) against their exact values
 * (cb_matmul_gen_entries): the verdict of cb_matmul_judge. */
cb_status cb_matmul_check_entries(int n, int k, const size_t *idx, const float *vals,
                                  const double *exact, int count, cb_matmul_precision prec,
                                  double scale, double *err, cb_msg *why);

/* Compare `samples` entries of c, chosen by `seed`, with their exact
 * values (for matrices too large for cb_matmul_ref_full). The first and
 * last entries are always among them. */
cb_status cb_matmul_check_spot(const cb_matmul_problem *p, const float *c, int samples,
                               uint64_t seed, cb_matmul_precision prec, double scale, double *err,
                               cb_msg *why);

#endif
