/* test_matmul_check.c - the matmul family's setup and verification on the
 * device (kernels/matmul_check.cu and the large-point path of
 * bench/matmul_common.c):
 *   - the device fill is the host generator, bit for bit, and the device
 *     BF16 rounding is the host's (ties to even included);
 *   - the device comparison finds the same worst entry, values and
 *     non-finite counts as the host scan, the first of equal maxima;
 *   - large points through the descriptors: a correct run passes, and the
 *     planted faults fail it - no run (NaN poison), one entry off by 4, one
 *     NaN entry, one entry wrong by a little more than the tolerance, a
 *     product of half of k - for an FP32 kernel rung, cuBLAS FP32, and the
 *     BF16 precision (tensor-core rungs share this path). */
/* test links: cubench_engine cubench_bench */
#include "gpu_test_util.h"
#include "common_kernels.h"
#include "families.h"
#include "matmul_check_kernels.h"
#include "matmul_common.h"

#include <math.h>
#include <stdlib.h>

#define CB_CU(call) CB_CHECK_EQ_INT((int)(call), (int)cudaSuccess)

static void test_fill_and_bf16(cudaStream_t s)
{
    const size_t n = (1u << 20) + 3;
    float *d = NULL, *h = malloc(n * sizeof(float)), *want = malloc(n * sizeof(float));
    uint16_t *d16 = NULL, *h16 = malloc(n * 2);
    CB_CHECK(h && want && h16);
    CB_CU(cudaMalloc((void **)&d, n * sizeof(float)));
    CB_CU(cudaMalloc((void **)&d16, n * 2));
    CB_CU(cb_launch_fill_random(d, n, 99, s));
    CB_CU(cb_matmul_launch_to_bf16(d, d16, n, s));
    CB_CU(cudaStreamSynchronize(s));
    CB_CU(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CB_CU(cudaMemcpy(h16, d16, n * 2, cudaMemcpyDeviceToHost));
    cb_matmul_fill_uniform(want, n, 99);
    CB_CHECK(memcmp(h, want, n * sizeof(float)) == 0);
    size_t bf16_wrong = 0;
    for (size_t i = 0; i < n; i++)
        bf16_wrong += h16[i] != cb_matmul_float_to_bf16(want[i]);
    CB_CHECK(bf16_wrong == 0);
    /* Ties and signs: halfway cases round to even, as on the host. */
    const float special[] = {1.0f + 0x1p-8f,
                             1.0f + 3 * 0x1p-8f,
                             -1.0f - 0x1p-8f,
                             1.0f + 0x1p-8f + 0x1p-12f,
                             0.0f,
                             -0.0f,
                             3.0e38f,
                             1e-40f};
    const size_t ns = sizeof special / sizeof special[0];
    CB_CU(cudaMemcpy(d, special, sizeof special, cudaMemcpyHostToDevice));
    CB_CU(cb_matmul_launch_to_bf16(d, d16, ns, s));
    CB_CU(cudaStreamSynchronize(s));
    CB_CU(cudaMemcpy(h16, d16, ns * 2, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < ns; i++)
        CB_CHECK(h16[i] == cb_matmul_float_to_bf16(special[i]));
    cudaFree(d);
    cudaFree(d16);
    free(h);
    free(want);
    free(h16);
}

/* The device comparison against the host scan of the same matrices. */
static void test_compare(cudaStream_t s)
{
    const size_t n = 3000017;
    float *c = malloc(n * sizeof(float)), *r = malloc(n * sizeof(float));
    CB_CHECK(c && r);
    cb_matmul_fill_uniform(r, n, 5);
    for (size_t i = 0; i < n; i++)
        c[i] = r[i] + (float)((i % 7) * 1e-7);
    float *dc, *dr;
    void *scratch;
    CB_CU(cudaMalloc((void **)&dc, n * sizeof(float)));
    CB_CU(cudaMalloc((void **)&dr, n * sizeof(float)));
    CB_CU(cudaMalloc(&scratch, cb_matmul_check_scratch_bytes()));
    CB_CU(cudaMemcpy(dr, r, n * sizeof(float), cudaMemcpyHostToDevice));
    /* Two entries share the largest difference: the first is named. */
    c[2000003] = r[2000003] + 0.5f;
    c[1000001] = r[1000001] + 0.5f;
    double host_max = 0;
    size_t host_worst = 0;
    for (size_t i = 0; i < n; i++) {
        const double d = fabs((double)c[i] - (double)r[i]);
        if (d > host_max) host_max = d, host_worst = i;
    }
    CB_CU(cudaMemcpy(dc, c, n * sizeof(float), cudaMemcpyHostToDevice));
    cb_matmul_diff diff;
    CB_CU(cb_matmul_compare(dc, dr, n, scratch, &diff, s));
    CB_CHECK(diff.max_diff == host_max && diff.worst == host_worst && host_worst == 1000001);
    CB_CHECK(diff.c_worst == c[1000001] && diff.r_worst == r[1000001]);
    CB_CHECK(diff.nonfinite_c == 0 && diff.nonfinite_r == 0);
    /* Non-finite entries of C: counted, the first named, left out of the max. */
    const float inf = INFINITY, nan = NAN;
    CB_CU(cudaMemcpy(dc + 2500000, &inf, 4, cudaMemcpyHostToDevice));
    CB_CU(cudaMemcpy(dc + 17, &nan, 4, cudaMemcpyHostToDevice));
    CB_CU(cudaMemcpy(dr + 42, &nan, 4, cudaMemcpyHostToDevice));
    CB_CU(cb_matmul_compare(dc, dr, n, scratch, &diff, s));
    CB_CHECK(diff.nonfinite_c == 2 && diff.first_nonfinite_c == 17 &&
             isnan(diff.c_first_nonfinite));
    CB_CHECK(diff.nonfinite_r == 1 && diff.max_diff == host_max);
    /* The inputs' magnitude: of finite inputs, their largest |x|; an input
     * holding a NaN (dr[42], planted above) gives NaN, so the error scale
     * made from it fails the check instead of vouching for anything. */
    float mx = 0;
    CB_CU(cb_matmul_absmax(dr, 1000, scratch, &mx, s));
    CB_CHECK_MSG(isnan(mx), "absmax over a NaN input gave %g", mx);
    CB_CU(cudaMemcpy(dr + 42, r + 42, 4, cudaMemcpyHostToDevice));
    CB_CU(cb_matmul_absmax(dr, 1000, scratch, &mx, s));
    float want = 0;
    for (int i = 0; i < 1000; i++)
        want = fmaxf(want, fabsf(r[i]));
    CB_CHECK_MSG(mx == want, "absmax %.9g, host %.9g", mx, want);
    cudaFree(dc);
    cudaFree(dr);
    cudaFree(scratch);
    free(c);
    free(r);
}

/* A large point of `name` set up and run through its descriptor, then
 * `fault` applied to C on the device before verify. */
typedef enum { FAULT_NONE, FAULT_NO_RUN, FAULT_OFF_BY_4, FAULT_NAN, FAULT_JUST_OVER } cb_fault;

/* The point m x m x m of `b` set up as the runner would, with a fixed
 * seed; cb_test_teardown(tp) either way. */
static cb_status setup_square(const cb_bench *b, const cb_device_info *dev, cudaStream_t s,
                              const char *m, cb_point_under_test *tp, cb_msg *why)
{
    const char *values[4] = {m, "m", "m", "auto"};
    cb_point p;
    *tp = (cb_point_under_test){.b = b};
    CB_CHECK(cb_test_point(b, dev, values, &p));
    const cb_device_info *devs[1] = {dev};
    cb_bench_ctx ctx = {.dev = dev, .devs = devs, .n_devs = 1, .stream = s, .seed = 1234};
    return cb_test_setup(b, &p, &ctx, tp, why);
}

static cb_status run_with_fault(const cb_bench *b, const cb_device_info *dev, cudaStream_t s,
                                const char *m, cb_fault fault, double *err, cb_msg *why)
{
    cb_point_under_test tp;
    cb_status st = setup_square(b, dev, s, m, &tp, why);
    void *state = tp.state;
    if (st == CB_OK && fault != FAULT_NO_RUN) st = b->run(state, s, why);
    CB_CU(cudaStreamSynchronize(s));
    cb_matmul_state *mm = state;
    if (st == CB_OK && fault != FAULT_NONE && fault != FAULT_NO_RUN) {
        /* An entry in the middle of the matrix, not a corner: the
         * comparison over every entry must see it wherever it is. */
        const size_t e = (size_t)mm->m * mm->n / 2 + 12345;
        float v;
        CB_CU(cudaMemcpy(&v, mm->d_c + e, 4, cudaMemcpyDeviceToHost));
        const double scale = (double)mm->k; /* |alpha| K max|A| max|B|, maxima ~1 */
        if (fault == FAULT_OFF_BY_4) v += 4.0f;
        if (fault == FAULT_NAN) v = NAN;
        if (fault == FAULT_JUST_OVER)
            v += (float)(1.5 * cb_matmul_tolerance(mm->precision, mm->k) * scale);
        CB_CU(cudaMemcpy(mm->d_c + e, &v, 4, cudaMemcpyHostToDevice));
    }
    if (st == CB_OK) st = b->verify(state, err, why);
    cb_test_teardown(&tp);
    return st;
}

static void test_large_faults(const cb_device_info *dev, cudaStream_t s, const char *name,
                              const char *m)
{
    const cb_bench *b = cb_registry_find(name);
    CB_CHECK(b != NULL);
    if (!b) return;
    double err = -1;
    cb_msg why = {{0}};
    cb_status st = run_with_fault(b, dev, s, m, FAULT_NONE, &err, &why);
    printf("  %s m=%s: %s err %.3g %s\n", name, m, cb_status_name(st), err, why.text);
    CB_CHECK_EQ_INT(st, CB_OK);
    CB_CHECK(err >= 0 && err < 1e-3);
    static const char *const fault_names[] = {"", "no run", "one entry +4", "one NaN entry",
                                              "one entry 1.5 x tolerance off"};
    for (int f = FAULT_NO_RUN; f <= FAULT_JUST_OVER; f++) {
        why.text[0] = '\0';
        st = run_with_fault(b, dev, s, m, (cb_fault)f, &err, &why);
        printf("    planted %-30s %s: %s\n", fault_names[f], cb_status_name(st), why.text);
        CB_CHECK_EQ_INT(st, CB_FAIL);
        const bool nonfinite = f == FAULT_NO_RUN || f == FAULT_NAN;
        CB_CHECK(strstr(why.text, nonfinite ? "non-finite" : "tolerance") != NULL);
    }
}

/* A BF16 product (as the tensor-core rungs make, here cuBLAS BF16) through
 * the large path, and the same product with half of k. */
static void test_large_bf16(const cb_device_info *dev, cudaStream_t s)
{
    const cb_bench *b = cb_registry_find("matmul/cublas_bf16");
    CB_CHECK(b != NULL);
    if (!b || dev->cc_major < 8) return;
    double err = -1;
    cb_msg why = {{0}};
    CB_CHECK_EQ_INT(run_with_fault(b, dev, s, "4096", FAULT_NONE, &err, &why), CB_OK);
    CB_CHECK_EQ_INT(run_with_fault(b, dev, s, "4096", FAULT_OFF_BY_4, &err, &why), CB_FAIL);
    CB_CHECK_EQ_INT(run_with_fault(b, dev, s, "4096", FAULT_JUST_OVER, &err, &why), CB_FAIL);
    /* Half of k: cuBLAS BF16 planned for k/2 over the same matrices. */
    cb_point_under_test tp;
    CB_CHECK_EQ_INT(setup_square(b, dev, s, "4096", &tp, &why), CB_OK);
    void *state = tp.state;
    cb_matmul_state *mm = state;
    if (!mm) {
        cb_test_teardown(&tp);
        return;
    }
    CB_CHECK_EQ_INT(cb_matmul_cublas_gemm(mm->blas, mm->m, mm->n, mm->k / 2, 1.0f, mm->d_a16,
                                          mm->d_b16, CUDA_R_16BF, 0.0f, mm->d_c, CUBLAS_COMPUTE_32F,
                                          &why),
                    CB_OK);
    CB_CU(cudaStreamSynchronize(s));
    CB_CHECK_EQ_INT(b->verify(state, &err, &why), CB_FAIL);
    printf("    planted half of k (BF16): %s\n", why.text);
    cb_test_teardown(&tp);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    cb_device_info dev;
    cudaStream_t s = cb_test_gpu_stream(&dev, "test_matmul_check");
    test_fill_and_bf16(s);
    test_compare(s);
    test_large_faults(&dev, s, "matmul/cublas_fp32", "2048");
    test_large_faults(&dev, s, "matmul/pipelined", "2048");
    test_large_faults(&dev, s, "matmul/pipelined", "2053"); /* edges, not a multiple of a tile */
    test_large_bf16(&dev, s);
    cudaStreamDestroy(s);
    return cb_test_finish("test_matmul_check");
}
