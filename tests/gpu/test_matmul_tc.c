/* test_matmul_tc.c - every tensor-core rung (matmul_tc/<rung>_<precision>)
 * through its descriptor (setup, run, verify) at full tiles, tails in m, n
 * and k, one-row and one-column products, deep and shallow k, and large
 * points verified against cuBLAS; a shape outside a rung's constraint must
 * be a skip with its reason, never a number. Then, through the kernels'
 * API: alpha != 1 and beta != 0 (C read back in), repeated runs, and three
 * planted faults that must fail verification: an unwritten (NaN-poisoned)
 * C, one corrupted entry, and a "kernel" that sums only half of k. */
/* test links: cubench_engine cubench_bench */
#include "gpu_test_util.h"
#include "families.h"
#include "matmul_common.h"
#include "matmul_tc_kernels.h"

#include <stdlib.h>

/* m, n, k; what each exercises. */
static const char *const cb_tc_shapes[][3] = {
    {"128", "m", "m"},        /* one full tile                                  */
    {"256", "m", "m"},        /* 2 x 2 tiles of 128 (1 x ... of 256)            */
    {"127", "m", "m"},        /* tails everywhere; k, n odd: BF16 rungs 2-4 skip */
    {"129", "131", "72"},     /* m, n tails, k tail of a 64-slice; n odd          */
    {"129", "136", "72"},     /* the same with n a multiple of 8: all may run    */
    {"100", "100", "100"},    /* k = 100: BF16 rungs 2-4 skip, TF32 runs         */
    {"64", "130", "64"},      /* n = 130: only rung 1 and the TF32 wgmma rungs   */
    {"200", "264", "520"},    /* partial 256-column tile, 9 k-slices             */
    {"64", "64", "8"},        /* one short k-slice                               */
    {"1000", "1000", "1024"}, /* many tiles, FP64 reference                     */
    {"1", "4096", "4096"},    /* one row                                         */
    {"4096", "8", "4096"},    /* eight columns                                   */
    {"4096", "m", "m"},       /* cuBLAS reference + spot check; persistent loop  */
    {"2048", "2048", "8192"}, /* deep k: the ring wraps many times per tile     */
};

/* What a rung should do with a shape, from the constraints the docs state
 * (independently of cb_tc_supported): 1 run, 0 skip. */
static int cb_tc_expect_run(const char *name, const cb_device_info *dev, int m, int n, int k)
{
    (void)m;
    const bool bf16 = strstr(name, "_bf16") != NULL;
    const bool hopper = strstr(name, "/wgmma") != NULL;
    if (dev->cc_major < 8) return 0;
    if (hopper && (dev->cc_major != 9 || dev->cc_minor != 0 || !cb_tc_sm90a_built())) return 0;
    if (strstr(name, "/mma_")) return 1;
    if (bf16) return k % 8 == 0 && n % 8 == 0;
    if (hopper) return k % 4 == 0;
    return k % 4 == 0 && n % 4 == 0;
}

static int cb_tc_verify_all(const cb_device_info *dev, cudaStream_t s, int *skips)
{
    int checked = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        if (strncmp(b->name, "matmul_tc/", 10) != 0) continue;
        CB_CHECK(strstr(b->ref_bench, strstr(b->name, "_bf16") ? "cublas_bf16" : "cublas_tf32"));
        for (int t = 0; t < CB_ARRAY_LEN(cb_tc_shapes); t++) {
            cb_point p;
            CB_CHECK(cb_test_point(b, dev, cb_tc_shapes[t], &p));
            int m, n, k;
            cb_msg why = {{0}};
            CB_CHECK(cb_matmul_point_shape(&p, &m, &n, &k, &why) == CB_OK);
            char axes[CB_POINT_TEXT];
            cb_point_format(&p, axes, sizeof axes);
            double err = -1.0;
            const cb_status st = cb_test_run_point(b, &p, dev, s, true, &err, &why);
            printf("  %-24s %-28s %-4s err %.3g %s\n", b->name, axes, cb_status_name(st), err,
                   st == CB_OK ? "" : why.text);
            if (cb_tc_expect_run(b->name, dev, m, n, k)) {
                CB_CHECK_EQ_INT(st, CB_OK);
                if (st == CB_OK) {
                    CB_CHECK(err >= 0.0 && err < 1e-2);
                    checked++;
                }
            } else {
                CB_CHECK_EQ_INT(st, CB_SKIP);
                CB_CHECK(why.text[0] != '\0');
                ++*skips;
            }
        }
        /* Planted fault 1: without the run, the NaN poison must fail. */
        const char *const small[3] = {"128", "m", "m"};
        cb_point p;
        CB_CHECK(cb_test_point(b, dev, small, &p));
        if (cb_tc_expect_run(b->name, dev, 128, 128, 128)) {
            double err = 0.0;
            cb_msg why = {{0}};
            CB_CHECK_EQ_INT(cb_test_run_point(b, &p, dev, s, false, &err, &why), CB_FAIL);
            CB_CHECK(strstr(why.text, "non-finite") != NULL);
        }
    }
    return checked;
}

/* ---- the kernels' API directly ---- */

typedef struct cb_tc_buffers {
    int m, n, k;
    float *a, *b, *c0, *c; /* host */
    double *ref;           /* FP64 alpha A B + beta C0 */
    void *da, *db;         /* device inputs of the precision */
    float *dc;
    cb_tc_precision prec;
} cb_tc_buffers;

static void cb_tc_buffers_init(cb_tc_buffers *x, int m, int n, int k, cb_tc_precision prec,
                               double alpha, double beta)
{
    memset(x, 0, sizeof *x);
    x->m = m, x->n = n, x->k = k, x->prec = prec;
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    x->a = malloc(na * sizeof(float)), x->b = malloc(nb * sizeof(float));
    x->c0 = malloc(nc * sizeof(float)), x->c = malloc(nc * sizeof(float));
    x->ref = malloc(nc * sizeof(double));
    CB_CHECK(x->a && x->b && x->c0 && x->c && x->ref);
    cb_matmul_fill_uniform(x->a, na, 11);
    cb_matmul_fill_uniform(x->b, nb, 12);
    cb_matmul_fill_uniform(x->c0, nc, 13);
    const cb_matmul_problem p = {m, n, k, alpha, beta, x->a, x->b, x->c0};
    cb_matmul_ref_full(&p, x->ref, 8);
    const size_t es = prec == CB_TC_BF16 ? 2 : 4;
    CB_CHECK(cudaMalloc(&x->da, na * es) == cudaSuccess);
    CB_CHECK(cudaMalloc(&x->db, nb * es) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&x->dc, nc * sizeof(float)) == cudaSuccess);
    if (prec == CB_TC_BF16) {
        uint16_t *h = malloc((na > nb ? na : nb) * 2);
        CB_CHECK(h != NULL);
        for (size_t i = 0; i < na; i++)
            h[i] = cb_matmul_float_to_bf16(x->a[i]);
        CB_CHECK(cudaMemcpy(x->da, h, na * 2, cudaMemcpyHostToDevice) == cudaSuccess);
        for (size_t i = 0; i < nb; i++)
            h[i] = cb_matmul_float_to_bf16(x->b[i]);
        CB_CHECK(cudaMemcpy(x->db, h, nb * 2, cudaMemcpyHostToDevice) == cudaSuccess);
        free(h);
    } else {
        CB_CHECK(cudaMemcpy(x->da, x->a, na * 4, cudaMemcpyHostToDevice) == cudaSuccess);
        CB_CHECK(cudaMemcpy(x->db, x->b, nb * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    }
}

static void cb_tc_buffers_free(cb_tc_buffers *x)
{
    cudaFree(x->da);
    cudaFree(x->db);
    cudaFree(x->dc);
    free(x->a);
    free(x->b);
    free(x->c0);
    free(x->c);
    free(x->ref);
}

/* C0 -> device, run the plan `runs` times (C = alpha A B + beta C each
 * time: with beta != 0 only one run has a known answer), C back, check. */
static cb_status cb_tc_run_check(cb_tc_buffers *x, const cb_tc_plan *plan, cudaStream_t s,
                                 double alpha, double beta, double *err, cb_msg *why)
{
    const size_t nc = (size_t)x->m * x->n;
    CB_CHECK(cudaMemcpy(x->dc, x->c0, nc * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    CB_CHECK_EQ_INT(cb_tc_plan_run(plan, s), cudaSuccess);
    CB_CHECK_EQ_INT(cudaStreamSynchronize(s), cudaSuccess);
    CB_CHECK(cudaMemcpy(x->c, x->dc, nc * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    const cb_matmul_problem p = {x->m, x->n, x->k, alpha, beta, x->a, x->b, x->c0};
    const cb_matmul_precision prec = x->prec == CB_TC_BF16 ? CB_MATMUL_BF16 : CB_MATMUL_TF32;
    return cb_matmul_check_fp64(&p, x->c, x->ref, prec, cb_matmul_error_scale(&p), err, why);
}

static const cb_tc_rung *const cb_tc_rungs[] = {&cb_tc_rung_mma, &cb_tc_rung_ldmatrix,
                                                &cb_tc_rung_wgmma, &cb_tc_rung_wgmma_ws,
                                                &cb_tc_rung_wgmma_cluster};

static void cb_tc_check_direct(const cb_device_info *dev, cudaStream_t s, int m, int n, int k)
{
    const double alpha = -0.75, beta = 0.5;
    for (int pr = 0; pr < 2; pr++) {
        const cb_tc_precision prec = pr == 0 ? CB_TC_BF16 : CB_TC_TF32;
        cb_tc_buffers x;
        cb_tc_buffers_init(&x, m, n, k, prec, alpha, beta);
        for (int r = 0; r < CB_ARRAY_LEN(cb_tc_rungs); r++) {
            char why_not[160];
            if (!cb_tc_supported(cb_tc_rungs[r], prec, m, n, k, dev->cc_major, dev->cc_minor,
                                 why_not, sizeof why_not)) {
                printf("  direct %-8s %s %dx%dx%d: skip (%s)\n", cb_tc_rungs[r]->name,
                       pr ? "tf32" : "bf16", m, n, k, why_not);
                continue;
            }
            const cb_tc_args args = {m, n, k, (float)alpha, (float)beta, x.da, x.db, x.dc, NULL};
            cb_tc_plan *plan = NULL;
            cb_matmul_launch_info info;
            CB_CHECK_EQ_INT(cb_tc_plan_create(cb_tc_rungs[r], prec, &args, &plan, &info),
                            cudaSuccess);
            if (!plan) continue;
            CB_CHECK(info.local_bytes == 0); /* no spills */
            double err = -1.0;
            cb_msg why = {{0}};
            cb_status st = cb_tc_run_check(&x, plan, s, alpha, beta, &err, &why);
            printf("  direct %-8s %s %dx%dx%d alpha=-0.75 beta=0.5: %s err %.3g %s\n",
                   cb_tc_rungs[r]->name, pr ? "tf32" : "bf16", m, n, k, cb_status_name(st), err,
                   st == CB_OK ? "" : why.text);
            CB_CHECK_EQ_INT(st, CB_OK);
            /* The same plan again: nothing left over from the first run. */
            CB_CHECK_EQ_INT(cb_tc_run_check(&x, plan, s, alpha, beta, &err, &why), CB_OK);

            /* Planted fault 2: one entry off by 4 (err ~ 4 / K >> tol). */
            float bad = x.c[x.n + 1] + 4.0f;
            CB_CHECK(cudaMemcpy(x.dc + x.n + 1, &bad, 4, cudaMemcpyHostToDevice) == cudaSuccess);
            CB_CHECK(cudaMemcpy(x.c, x.dc, (size_t)m * n * 4, cudaMemcpyDeviceToHost) ==
                     cudaSuccess);
            const cb_matmul_problem p = {m, n, k, alpha, beta, x.a, x.b, x.c0};
            CB_CHECK_EQ_INT(cb_matmul_check_fp64(&p, x.c, x.ref,
                                                 pr ? CB_MATMUL_TF32 : CB_MATMUL_BF16,
                                                 cb_matmul_error_scale(&p), &err, &why),
                            CB_FAIL);
            cb_tc_plan_destroy(plan);

            /* Planted fault 3: a kernel that sums only part of k (the
             * same rung planned for k2 ~ k / 2, a multiple of 8 so every
             * rung accepts it; A's row pitch is then wrong too) must fail. */
            const cb_tc_args half = {m,    n,    k / 16 * 8, (float)alpha, (float)beta,
                                     x.da, x.db, x.dc,       NULL};
            CB_CHECK_EQ_INT(cb_tc_plan_create(cb_tc_rungs[r], prec, &half, &plan, NULL),
                            cudaSuccess);
            if (plan) {
                CB_CHECK_EQ_INT(cb_tc_run_check(&x, plan, s, alpha, beta, &err, &why), CB_FAIL);
                cb_tc_plan_destroy(plan);
            }
        }
        /* A shape outside a rung's constraint is refused, not launched. */
        const cb_tc_args odd = {m, n + 1, k, 1.0f, 0.0f, x.da, x.db, x.dc, NULL};
        cb_tc_plan *plan = NULL;
        CB_CHECK_EQ_INT(cb_tc_plan_create(&cb_tc_rung_ldmatrix, prec, &odd, &plan, NULL),
                        cudaErrorInvalidValue);
        CB_CHECK(plan == NULL);
        cb_tc_buffers_free(&x);
    }
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a hung kernel: the log ends at its point */
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    cb_device_info dev;
    cb_test_require_gpu(&dev, "test_matmul_tc");
    printf("test_matmul_tc: sm_90a code %s\n", cb_tc_sm90a_built() ? "built" : "NOT built");
    cudaStream_t s;
    CB_CHECK(cudaStreamCreate(&s) == cudaSuccess);
    int skips = 0;
    const int checked = cb_tc_verify_all(&dev, s, &skips);
    printf("test_matmul_tc: %d points verified, %d skipped as expected\n", checked, skips);
    CB_CHECK(checked >= (dev.cc_major == 9 && cb_tc_sm90a_built() ? 100 : 30));
    cb_tc_check_direct(&dev, s, 129, 136, 72);
    cb_tc_check_direct(&dev, s, 256, 256, 256);
    cb_tc_check_direct(&dev, s, 300, 520, 1000);
    cudaStreamDestroy(s);
    return cb_test_finish("test_matmul_tc");
}
