/* test_matmul_fp8_device.c - the FP8 rungs' inputs made on the device and
 * their verification against exact values the host recomputes
 * (bench/matmul_fp8.c, kernels/matmul_fp8_quant.cu):
 *   - the device's E4M3 rounding is the host's for every one of the 2^32
 *     floats (codes and dequantised values), and its transposed layout
 *     and scaling are the host's per-tensor quantisation, bit for bit;
 *   - cb_matmul_state_fp8 leaves the host's bytes (B K-major), scales and
 *     dequantised values of the generator's matrices on the device;
 *   - cb_matmul_fp8_verify, with C written by cuBLAS from the device's
 *     dequantised inputs, passes at a small (full FP64 reference) and a
 *     large (cuBLAS reference, sampled entries) shape, and fails the
 *     planted faults: no run, one entry off by 4, one NaN entry, A rounded
 *     toward zero on the device (the GEMM and the reference agreeing on
 *     inputs the host's rounding does not make), A dequantised without its
 *     scale, and the check against the FP32 inputs held to a scale 1000 x
 *     too small (it runs, on the same entries).
 * None of this needs FP8 tensor cores: any GPU runs it. */
/* test links: cubench_engine cubench_bench */
#include "gpu_test_util.h"
#include "cb_e4m3.h"
#include "cb_random.h"
#include "families.h"
#include "matmul_check_kernels.h"
#include "matmul_common.h"

#include <math.h>
#include <stdlib.h>

#define CB_CU(call) CB_CHECK_EQ_INT((int)(call), (int)cudaSuccess)

static uint32_t cb_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

/* Equal bits, or both NaN: the device makes its own NaN bits. */
static bool cb_same_value(float x, float y)
{
    return cb_bits(x) == cb_bits(y) || (isnan(x) && isnan(y));
}

/* Every float through the device at scale 1 (x / 1 is x, so the code is
 * the rounding of x itself), 2^26 at a time, against the host. */
static void test_every_float(cudaStream_t s)
{
    enum { SIDE = 8192 };
    const size_t n = (size_t)SIDE * SIDE;
    float *hx = malloc(n * sizeof(float)), *hv = malloc(n * sizeof(float)), *dx = NULL;
    uint8_t *hq = malloc(n), *dq = NULL;
    CB_CHECK(hx && hv && hq);
    CB_CU(cudaMalloc((void **)&dx, n * sizeof(float)));
    CB_CU(cudaMalloc((void **)&dq, n));
    uint64_t bad_code = 0, bad_value = 0, first = 0;
    for (uint64_t base = 0; base < (1ull << 32) && hx && hv && hq; base += n) {
        for (size_t i = 0; i < n; i++) {
            const uint32_t u = (uint32_t)(base + i);
            memcpy(&hx[i], &u, sizeof u);
        }
        CB_CU(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
        CB_CU(cb_matmul_launch_quantize_e4m3(dx, SIDE, SIDE, 1.0f, dq, false, s));
        CB_CU(cudaStreamSynchronize(s));
        CB_CU(cudaMemcpy(hq, dq, n, cudaMemcpyDeviceToHost));
        CB_CU(cudaMemcpy(hv, dx, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < n; i++) {
            const uint8_t code = cb_matmul_float_to_e4m3(hx[i]);
            if (hq[i] != code && bad_code++ == 0) first = base + i;
            bad_value += !cb_same_value(hv[i], cb_e4m3_dequantize(code, 1.0f));
        }
    }
    printf("  every float: %llu codes and %llu values differ (first 0x%08llx)\n",
           (unsigned long long)bad_code, (unsigned long long)bad_value, (unsigned long long)first);
    CB_CHECK(bad_code == 0 && bad_value == 0);
    cudaFree(dx);
    cudaFree(dq);
    free(hx), free(hv), free(hq);
}

/* A tensor of rows x cols (not multiples of the kernel's 32-wide tiles)
 * at its own scale, row-major and transposed, against
 * cb_matmul_quantize_e4m3. */
static void test_tensor(cudaStream_t s, int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    float *x = malloc(n * sizeof(float)), *deq = malloc(n * sizeof(float));
    float *got = malloc(n * sizeof(float)), *dx = NULL;
    uint8_t *q = malloc(n), *gq = malloc(n), *dq = NULL;
    CB_CHECK(x && deq && got && q && gq);
    CB_CU(cudaMalloc((void **)&dx, n * sizeof(float)));
    CB_CU(cudaMalloc((void **)&dq, n));
    cb_matmul_fill_uniform(x, n, 5);
    for (size_t i = 0; i < n; i++) /* magnitudes over E4M3's subnormals too */
        x[i] = ldexpf(x[i], (int)(i % 13) - 6);
    const float scale = cb_matmul_quantize_e4m3(x, n, q, deq);
    for (int transpose = 0; transpose < 2; transpose++) {
        CB_CU(cudaMemcpy(dx, x, n * sizeof(float), cudaMemcpyHostToDevice));
        CB_CU(cb_matmul_launch_quantize_e4m3(dx, rows, cols, scale, dq, transpose, s));
        CB_CU(cudaStreamSynchronize(s));
        CB_CU(cudaMemcpy(gq, dq, n, cudaMemcpyDeviceToHost));
        CB_CU(cudaMemcpy(got, dx, n * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++) {
                const size_t i = (size_t)r * cols + c;
                const size_t at = transpose ? (size_t)c * rows + r : i;
                bad += gq[at] != q[i] || cb_bits(got[i]) != cb_bits(deq[i]);
            }
        printf("  %d x %d%s at scale %g: %zu differ\n", rows, cols, transpose ? " transposed" : "",
               scale, bad);
        CB_CHECK(bad == 0);
    }
    cudaFree(dx);
    cudaFree(dq);
    free(x), free(deq), free(got), free(q), free(gq);
}

/* An FP8 state of m x n x k (the point of matmul/cublaslt_fp8's axes) as
 * the FP8 rungs make it, without their GEMM. */
static cb_matmul_state *make_state(const cb_device_info *dev, cudaStream_t s, const char *m,
                                   const char *n, const char *k)
{
    const cb_bench *b = cb_registry_find("matmul/cublaslt_fp8");
    CB_CHECK(b != NULL);
    if (!b) return NULL;
    const char *values[3] = {m, n, k};
    cb_point p;
    CB_CHECK(cb_test_point(b, dev, values, &p));
    const cb_device_info *devs[1] = {dev};
    const cb_bench_ctx ctx = {.dev = dev, .devs = devs, .n_devs = 1, .stream = s, .seed = 1234};
    cb_matmul_state *st = NULL;
    cb_msg why = {{0}};
    cb_status rc =
        cb_matmul_state_new(&p, &ctx, CB_MATMUL_FP8_DEQ, CB_MATMUL_ENGINE_CUBLAS, &st, &why);
    if (rc == CB_OK) rc = cb_matmul_state_fp8(st, &why);
    if (rc == CB_OK) rc = cb_matmul_blas_init(st, &why);
    CB_CHECK_MSG(rc == CB_OK, "FP8 state %sx%sx%s: %s", m, n, k, why.text);
    if (rc != CB_OK) {
        cb_matmul_teardown(st);
        return NULL;
    }
    return st;
}

/* The state's bytes, scales and dequantised values are the host's
 * quantisation of the generator's matrices; B's bytes are K-major. */
static void test_state_inputs(const cb_device_info *dev, cudaStream_t s)
{
    cb_matmul_state *st = make_state(dev, s, "1000", "1300", "700");
    if (!st) return;
    const int m = st->m, n = st->n, k = st->k;
    const size_t na = (size_t)m * k, nb = (size_t)k * n;
    float *a = malloc(na * sizeof(float)), *b = malloc(nb * sizeof(float));
    float *ga = malloc(na * sizeof(float)), *gb = malloc(nb * sizeof(float));
    uint8_t *qa = malloc(na), *qb = malloc(nb), *ga8 = malloc(na), *gb8 = malloc(nb);
    float scales[2 * CB_MATMUL_SCALE_STRIDE];
    CB_CHECK(a && b && ga && gb && qa && qb && ga8 && gb8);
    cb_matmul_fill_uniform(a, na, st->seed_a);
    cb_matmul_fill_uniform(b, nb, st->seed_b);
    float max_a = 0.0f;
    for (size_t i = 0; i < na; i++)
        max_a = fmaxf(max_a, fabsf(a[i]));
    const float sa = cb_matmul_quantize_e4m3(a, na, qa, a);
    const float sb = cb_matmul_quantize_e4m3(b, nb, qb, b);
    CB_CU(cudaMemcpy(ga, st->d_a, na * sizeof(float), cudaMemcpyDeviceToHost));
    CB_CU(cudaMemcpy(gb, st->d_b, nb * sizeof(float), cudaMemcpyDeviceToHost));
    CB_CU(cudaMemcpy(ga8, st->d_a8, na, cudaMemcpyDeviceToHost));
    CB_CU(cudaMemcpy(gb8, st->d_b8t, nb, cudaMemcpyDeviceToHost));
    CB_CU(cudaMemcpy(scales, st->d_scales, sizeof scales, cudaMemcpyDeviceToHost));
    CB_CHECK(st->scale_a == sa && st->scale_b == sb && st->max_a32 == max_a);
    CB_CHECK(scales[0] == sa && scales[CB_MATMUL_SCALE_STRIDE] == sb);
    CB_CHECK(memcmp(ga, a, na * sizeof(float)) == 0 && memcmp(gb, b, nb * sizeof(float)) == 0);
    CB_CHECK(memcmp(ga8, qa, na) == 0);
    size_t bad = 0;
    for (int q = 0; q < k; q++)
        for (int j = 0; j < n; j++)
            bad += gb8[(size_t)j * k + q] != qb[(size_t)q * n + j];
    CB_CHECK(bad == 0);
    printf("  FP8 state %dx%dx%d: the host's bytes, scales (%g, %g) and values\n", m, n, k, sa, sb);
    cb_matmul_teardown(st);
    free(a), free(b), free(ga), free(gb), free(qa), free(qb), free(ga8), free(gb8);
}

typedef enum {
    FAULT_NONE,
    FAULT_NO_RUN,
    FAULT_OFF_BY_4,
    FAULT_NAN,
    FAULT_A_TOWARD_ZERO,
    FAULT_A_UNSCALED,
    FAULT_FP32_SCALE,
    FAULT_COUNT
} cb_fault;

static const char *const cb_fault_names[] = {"",
                                             "no run",
                                             "one entry +4",
                                             "one NaN entry",
                                             "A rounded toward zero",
                                             "A dequantised without its scale",
                                             "FP32 check at a 1000 x smaller scale"};

/* d_a replaced by A quantised otherwise than the host does: rounded toward
 * zero (the low 20 bits of x / s dropped where E4M3 is normal), or
 * dequantised without the scale. */
static void plant_inputs(cb_matmul_state *st, cb_fault fault)
{
    const size_t na = (size_t)st->m * st->k;
    float *a = malloc(na * sizeof(float));
    CB_CHECK(a != NULL);
    if (!a) return;
    for (size_t i = 0; i < na; i++) {
        const float x = cb_random_value(st->seed_a, i), t = x / st->scale_a;
        uint8_t code = cb_e4m3_quantize(x, st->scale_a);
        if (fault == FAULT_A_TOWARD_ZERO && fabsf(t) >= 0x1p-6f) {
            const uint32_t u = cb_bits(t) & 0xfff00000u;
            float tz;
            memcpy(&tz, &u, sizeof tz);
            code = cb_e4m3_from_float(tz);
        }
        a[i] =
            fault == FAULT_A_UNSCALED ? cb_e4m3_value(code) : cb_e4m3_dequantize(code, st->scale_a);
    }
    CB_CU(cudaMemcpy(st->d_a, a, na * sizeof(float), cudaMemcpyHostToDevice));
    free(a);
}

/* A fresh FP8 state of m^3, C written by cuBLAS pedantic FP32 from the
 * device's dequantised inputs (an FP8 GEMM would err more, within the
 * FP8 tolerance), `fault` planted, then cb_matmul_fp8_verify. */
static cb_status verify_with(const cb_device_info *dev, cudaStream_t s, const char *m,
                             cb_fault fault, double *err, cb_msg *why)
{
    cb_matmul_state *st = make_state(dev, s, m, "m", "m");
    if (!st) return CB_FAIL;
    if (fault == FAULT_A_TOWARD_ZERO || fault == FAULT_A_UNSCALED) plant_inputs(st, fault);
    if (fault != FAULT_NO_RUN)
        CB_CHECK_EQ_INT(cb_matmul_cublas_gemm(st->blas, st->m, st->n, st->k, st->alpha, st->d_a,
                                              st->d_b, CUDA_R_32F, 0.0f, st->d_c,
                                              CUBLAS_COMPUTE_32F_PEDANTIC, why),
                        CB_OK);
    CB_CU(cudaStreamSynchronize(s));
    if (fault == FAULT_OFF_BY_4 || fault == FAULT_NAN) {
        /* In the middle, not a corner: the check over every entry sees it. */
        const size_t e = (size_t)st->m * st->n / 2 + 12345;
        float v;
        CB_CU(cudaMemcpy(&v, st->d_c + e, 4, cudaMemcpyDeviceToHost));
        v = fault == FAULT_NAN ? NAN : v + 4.0f;
        CB_CU(cudaMemcpy(st->d_c + e, &v, 4, cudaMemcpyHostToDevice));
    }
    if (fault == FAULT_FP32_SCALE) st->max_a32 /= 1000.0f;
    const cb_status rc = cb_matmul_fp8_verify(st, err, why);
    cb_matmul_teardown(st);
    return rc;
}

/* Where each fault must be caught, by the words of its message. */
static const char *cb_fault_says(cb_fault f, bool large)
{
    switch (f) {
    case FAULT_NO_RUN:
    case FAULT_NAN:
        return "non-finite";
    case FAULT_A_TOWARD_ZERO:
    case FAULT_A_UNSCALED:
        /* Large: the GEMM and cuBLAS agree, the host's exact values do
         * not; small: C against the host's full reference. */
        return large ? "cuBLAS reference fails its FP64 spot check" : "tolerance";
    case FAULT_FP32_SCALE:
        return "against the FP32 inputs";
    default:
        return "tolerance";
    }
}

static void test_verify(const cb_device_info *dev, cudaStream_t s, const char *m)
{
    const bool large = !cb_matmul_full_ref_shape(atoi(m), atoi(m), atoi(m));
    double err = -1;
    cb_msg why = {{0}};
    cb_status rc = verify_with(dev, s, m, FAULT_NONE, &err, &why);
    printf("  fp8_verify m=%s (%s): %s err %.3g %s\n", m, large ? "cuBLAS reference" : "FP64",
           cb_status_name(rc), err, why.text);
    CB_CHECK_EQ_INT(rc, CB_OK);
    CB_CHECK(err >= 0 && err < cb_matmul_tolerance(CB_MATMUL_FP8_DEQ, atoi(m)) / 10);
    for (int f = FAULT_NO_RUN; f < FAULT_COUNT; f++) {
        why.text[0] = '\0';
        rc = verify_with(dev, s, m, (cb_fault)f, &err, &why);
        printf("    planted %-36s %s: %s\n", cb_fault_names[f], cb_status_name(rc), why.text);
        CB_CHECK_EQ_INT(rc, CB_FAIL);
        CB_CHECK_MSG(strstr(why.text, cb_fault_says((cb_fault)f, large)) != NULL, "%s: want \"%s\"",
                     cb_fault_names[f], cb_fault_says((cb_fault)f, large));
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    cb_device_info dev;
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK); /* make_state's axes */
    cudaStream_t s = cb_test_gpu_stream(&dev, "test_matmul_fp8_device");
    test_tensor(s, 1000, 777);
    test_tensor(s, 33, 4099);
    test_state_inputs(&dev, s);
    test_verify(&dev, s, "256");
    test_verify(&dev, s, "2048");
    test_every_float(s);
    cudaStreamDestroy(s);
    return cb_test_finish("test_matmul_fp8_device");
}
