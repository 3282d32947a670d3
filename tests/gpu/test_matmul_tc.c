/* test_matmul_tc.c - every tensor-core rung (matmul_tc/<rung>_<precision>)
 * and the FP8 reference (matmul/cublaslt_fp8) through their descriptors
 * (setup, run, verify) at 23 shapes: full tiles, tails in m, n and k, odd
 * k and n (row pitches TMA cannot take, so the top rungs stage them), one
 * row, one column, deep and shallow k, and large points verified against
 * cuBLAS; a shape outside a rung's constraint must be a skip with its
 * reason, never a number. Then, through the kernels' API, per rung and
 * precision: alpha != 1 and beta != 0 (C read back in), repeated runs,
 * leading dimensions larger than a row with their padding poisoned and
 * bases off 16-byte alignment (the staging rungs must stage, read no
 * padding and write nothing outside C's columns; the others must refuse),
 * and planted faults that must fail verification: an unwritten
 * (NaN-poisoned) C, one corrupted entry, a "kernel" that sums only half of
 * k. */
/* test links: cubench_engine cubench_bench */
#include "gpu_test_util.h"
#include "families.h"
#include "matmul_common.h"
#include "matmul_tc_kernels.h"

#include <math.h>
#include <stdlib.h>

/* m, n, k; what each exercises. */
static const char *const cb_tc_shapes[][3] = {
    {"128", "m", "m"},        /* one full tile                                   */
    {"256", "m", "m"},        /* 2 x 2 tiles of 128 (1 x ... of 256)             */
    {"127", "m", "m"},        /* tails everywhere; k, n odd: strict rungs skip   */
    {"129", "131", "72"},     /* m, n tails, k tail of a 64-slice; n odd         */
    {"129", "136", "72"},     /* the same with n a multiple of 8: all may run    */
    {"100", "100", "100"},    /* k = 100: strict BF16 rungs skip, TF32 runs      */
    {"64", "130", "64"},      /* n = 130: n % 8 = 2                              */
    {"200", "264", "520"},    /* partial 256-column tile, 9 k-slices             */
    {"64", "64", "8"},        /* one short k-slice                               */
    {"1000", "1000", "1024"}, /* many tiles, FP64 reference                      */
    {"1", "4096", "4096"},    /* one row                                         */
    {"4096", "8", "4096"},    /* eight columns                                   */
    {"4096", "m", "m"},       /* cuBLAS reference + spot check; persistent loop  */
    {"2048", "2048", "8192"}, /* deep k: the ring wraps many times per tile      */
    {"1000", "3000", "200"},  /* few tiles: the persistent rungs' narrower tiles */
    {"4096", "1", "4096"},    /* one column: B's rows are 1 element              */
    {"127", "131", "67"},     /* every dimension odd                             */
    {"72", "136", "200"},     /* tails of every tile shape, k tail of a slice    */
    {"520", "264", "136"},    /* more tile rows than columns, ragged             */
    {"136", "200", "96"},     /* k ends mid-slice: B's last boxes 32 deep       */
    {"8", "8", "8"},          /* one small tile                                  */
    {"1", "1", "1"},          /* one element                                     */
    {"4093", "m", "m"},       /* large and odd: staged, cuBLAS reference         */
};

/* What a rung should do with a shape, from the constraints the docs state
 * (independently of cb_tc_supported): 1 run, 0 skip. */
static int cb_tc_expect_run(const char *name, const cb_device_info *dev, int n, int k)
{
    const bool bf16 = strstr(name, "_bf16") != NULL;
    const bool hopper = strstr(name, "/wgmma") != NULL;
    if (dev->cc_major < 8) return 0;
    if (hopper && (dev->cc_major != 9 || dev->cc_minor != 0 || !cb_tc_sm90a_built())) return 0;
    if (strstr(name, "/mma_")) return 1;
    /* From rung 4 on, every shape (operands staged where TMA cannot read). */
    if (strstr(name, "/wgmma_ws_") || strstr(name, "/wgmma_cluster_") || strstr(name, "_fp8"))
        return 1;
    if (bf16) return k % 8 == 0 && n % 8 == 0;
    if (hopper) return k % 4 == 0;
    return k % 4 == 0 && n % 4 == 0;
}

static const char *cb_tc_ref_of(const char *name)
{
    return strstr(name, "_bf16")   ? "cublas_bf16"
           : strstr(name, "_tf32") ? "cublas_tf32"
                                   : "cublaslt_fp8";
}

/* One benchmark at every shape; returns the points verified. */
static int cb_tc_verify_bench(const cb_bench *b, const cb_device_info *dev, cudaStream_t s, bool tc,
                              int *skips)
{
    int checked = 0;
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
        printf("  %-28s %-26s %-4s err %.3g %s\n", b->name, axes, cb_status_name(st), err,
               st == CB_OK ? "" : why.text);
        /* cuBLASLt: runs where the device has FP8 tensor cores and the shape
         * meets its FP8 requirement of 16-byte aligned leading dimensions
         * (K-major E4M3 operands: k % 16; the FP32 output: n % 4). Elsewhere
         * it may run or skip (H200, CUDA 13.0: its heuristic proposes
         * nothing at k = 72, 100, 127, 200, 520 or n = 130), and a skip must
         * say why. */
        const bool lt_aligned = k % 16 == 0 && n % 4 == 0;
        const int want = tc ? cb_tc_expect_run(b->name, dev, n, k)
                            : dev->cc_major * 10 + dev->cc_minor >= 89 && lt_aligned;
        if (!tc && !want && st == CB_OK && err >= 0.0 && err < 1e-2) {
            checked++; /* ran although not required to: verified all the same */
            continue;
        }
        if (want) {
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
    if (!tc || cb_tc_expect_run(b->name, dev, 128, 128)) {
        double err = 0.0;
        cb_msg why = {{0}};
        const cb_status st = cb_test_run_point(b, &p, dev, s, false, &err, &why);
        if (tc || dev->cc_major * 10 + dev->cc_minor >= 89) {
            CB_CHECK_EQ_INT(st, CB_FAIL);
            CB_CHECK(strstr(why.text, "non-finite") != NULL);
        }
    }
    return checked;
}

static int cb_tc_verify_all(const cb_device_info *dev, cudaStream_t s, int *skips)
{
    int checked = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        const bool tc = strncmp(b->name, "matmul_tc/", 10) == 0;
        if (!tc && strcmp(b->name, "matmul/cublaslt_fp8") != 0) continue;
        if (tc) CB_CHECK(strstr(b->ref_bench, cb_tc_ref_of(b->name)) != NULL);
        checked += cb_tc_verify_bench(b, dev, s, tc, skips);
    }
    return checked;
}

/* ---- the kernels' API directly ---- */

/* One product in device memory as a caller would lay it out, with leading
 * dimensions (0: packed) and bases `off_*` elements past an aligned one;
 * every byte outside the matrices is 0xff (NaN in each precision). */
typedef struct cb_tc_case {
    int m, n, k, lda, ldb, ldc, off_a, off_b;
    cb_tc_precision prec;
    double alpha, beta;
} cb_tc_case;

typedef struct cb_tc_buffers {
    cb_tc_case cs;
    int lda, ldb, ldc;     /* resolved */
    float *a, *b, *c0, *c; /* host: the values multiplied (FP8: dequantised), C0, C read back */
    double *ref;           /* FP64 alpha A B + beta C0 */
    uint8_t *da, *db;      /* device allocations */
    const void *pa, *pb;   /* the operands, off_* elements in */
    float *dc, *scales;
} cb_tc_buffers;

#define CB_TC_SENTINEL 12345.5f /* C's padding columns: must stay untouched */

/* Host bytes of one operand of rows x cols in `prec` with row pitch ld
 * (FP8 B is given transposed: `transpose` reads x as cols x rows). */
static uint8_t *cb_tc_pack(const float *x, const uint8_t *q8, int rows, int cols, int ld, int off,
                           cb_tc_precision prec, bool transpose)
{
    const int es = cb_tc_element_bytes(prec);
    const size_t bytes = ((size_t)off + (size_t)rows * ld) * es;
    uint8_t *h = malloc(bytes);
    CB_CHECK(h != NULL);
    memset(h, 0xff, bytes);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            const size_t src = transpose ? (size_t)c * rows + r : (size_t)r * cols + c;
            uint8_t *dst = h + ((size_t)off + (size_t)r * ld + c) * es;
            if (prec == CB_TC_BF16) {
                const uint16_t v = cb_matmul_float_to_bf16(x[src]);
                memcpy(dst, &v, 2);
            } else if (prec == CB_TC_TF32) {
                memcpy(dst, &x[src], 4);
            } else {
                *dst = q8[src];
            }
        }
    return h;
}

static uint8_t *cb_tc_upload(const uint8_t *h, size_t bytes)
{
    uint8_t *d = NULL;
    CB_CHECK(cudaMalloc((void **)&d, bytes) == cudaSuccess);
    CB_CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    return d;
}

static void cb_tc_buffers_init(cb_tc_buffers *x, const cb_tc_case *c)
{
    memset(x, 0, sizeof *x);
    x->cs = *c;
    const int m = c->m, n = c->n, k = c->k, es = cb_tc_element_bytes(c->prec);
    const bool fp8 = c->prec == CB_TC_FP8;
    x->lda = c->lda ? c->lda : k;
    x->ldb = c->ldb ? c->ldb : fp8 ? k : n;
    x->ldc = c->ldc ? c->ldc : n;
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    x->a = malloc(na * 4), x->b = malloc(nb * 4), x->c0 = malloc(nc * 4);
    x->c = malloc((size_t)m * x->ldc * 4), x->ref = malloc(nc * 8);
    uint8_t *qa = malloc(na), *qb = malloc(nb);
    CB_CHECK(x->a && x->b && x->c0 && x->c && x->ref && qa && qb);
    cb_matmul_fill_uniform(x->a, na, 11);
    cb_matmul_fill_uniform(x->b, nb, 12);
    cb_matmul_fill_uniform(x->c0, nc, 13);
    float scales[2] = {1.0f, 1.0f};
    if (fp8) { /* the problem becomes the dequantised inputs' */
        scales[0] = cb_matmul_quantize_e4m3(x->a, na, qa, x->a);
        scales[1] = cb_matmul_quantize_e4m3(x->b, nb, qb, x->b);
    }
    const cb_matmul_problem p = {m, n, k, c->alpha, c->beta, x->a, x->b, x->c0};
    cb_matmul_ref_full(&p, x->ref, 8);
    uint8_t *ha = cb_tc_pack(x->a, qa, m, k, x->lda, c->off_a, c->prec, false);
    uint8_t *hb = fp8 ? cb_tc_pack(x->b, qb, n, k, x->ldb, c->off_b, c->prec, true)
                      : cb_tc_pack(x->b, qb, k, n, x->ldb, c->off_b, c->prec, false);
    x->da = cb_tc_upload(ha, ((size_t)c->off_a + (size_t)m * x->lda) * es);
    x->db = cb_tc_upload(hb, ((size_t)c->off_b + (size_t)(fp8 ? n : k) * x->ldb) * es);
    x->pa = x->da + (size_t)c->off_a * es;
    x->pb = x->db + (size_t)c->off_b * es;
    CB_CHECK(cudaMalloc((void **)&x->dc, (size_t)m * x->ldc * 4) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&x->scales, sizeof scales) == cudaSuccess);
    CB_CHECK(cudaMemcpy(x->scales, scales, sizeof scales, cudaMemcpyHostToDevice) == cudaSuccess);
    free(ha), free(hb), free(qa), free(qb);
}

static void cb_tc_buffers_free(cb_tc_buffers *x)
{
    cudaFree(x->da), cudaFree(x->db), cudaFree(x->dc), cudaFree(x->scales);
    free(x->a), free(x->b), free(x->c0), free(x->c), free(x->ref);
}

static cb_tc_args cb_tc_args_of(const cb_tc_buffers *x, int k)
{
    return (cb_tc_args){.m = x->cs.m,
                        .n = x->cs.n,
                        .k = k,
                        .alpha = (float)x->cs.alpha,
                        .beta = (float)x->cs.beta,
                        .a = x->pa,
                        .b = x->pb,
                        .c = x->dc,
                        .lda = x->cs.lda,
                        .ldb = x->cs.ldb,
                        .ldc = x->cs.ldc,
                        .scale_a = x->scales,
                        .scale_b = x->scales + 1};
}

static cb_matmul_precision cb_tc_check_prec(cb_tc_precision prec)
{
    return prec == CB_TC_BF16   ? CB_MATMUL_BF16
           : prec == CB_TC_TF32 ? CB_MATMUL_TF32
                                : CB_MATMUL_FP8_DEQ;
}

/* C0 (and the padding sentinel) -> device, run, C back; C's padding must be
 * untouched; then C against the reference. */
static cb_status cb_tc_run_check(cb_tc_buffers *x, const cb_tc_plan *plan, cudaStream_t s,
                                 double *err, cb_msg *why)
{
    const int m = x->cs.m, n = x->cs.n, ldc = x->ldc;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < ldc; j++)
            x->c[(size_t)i * ldc + j] = j < n ? x->c0[(size_t)i * n + j] : CB_TC_SENTINEL;
    CB_CHECK(cudaMemcpy(x->dc, x->c, (size_t)m * ldc * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    CB_CHECK_EQ_INT(cb_tc_plan_run(plan, s), cudaSuccess);
    CB_CHECK_EQ_INT(cudaStreamSynchronize(s), cudaSuccess);
    CB_CHECK(cudaMemcpy(x->c, x->dc, (size_t)m * ldc * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
    int outside = 0;
    for (int i = 0; i < m; i++) {
        for (int j = n; j < ldc; j++)
            outside += x->c[(size_t)i * ldc + j] != CB_TC_SENTINEL;
        memmove(x->c + (size_t)i * n, x->c + (size_t)i * ldc, (size_t)n * 4);
    }
    CB_CHECK_EQ_INT(outside, 0);
    const cb_matmul_problem p = {m, n, x->cs.k, x->cs.alpha, x->cs.beta, x->a, x->b, x->c0};
    return cb_matmul_check_fp64(&p, x->c, x->ref, cb_tc_check_prec(x->cs.prec),
                                cb_matmul_error_scale(&p), err, why);
}

static const cb_tc_rung *const cb_tc_rungs[] = {&cb_tc_rung_mma,           &cb_tc_rung_ldmatrix,
                                                &cb_tc_rung_wgmma,         &cb_tc_rung_wgmma_ws,
                                                &cb_tc_rung_wgmma_cluster, &cb_tc_rung_wgmma_fp8};
static const char *const cb_tc_prec_names[] = {"bf16", "tf32", "fp8"};

/* The planted faults of one plan: one entry off by 4 (err ~ 4 / K >> tol),
 * and the same rung planned for about half of k (A's row pitch then wrong
 * too). */
static void cb_tc_planted(cb_tc_buffers *x, const cb_tc_rung *rung, cudaStream_t s)
{
    const int n = x->cs.n;
    const cb_matmul_problem p = {x->cs.m, n, x->cs.k, x->cs.alpha, x->cs.beta, x->a, x->b, x->c0};
    double err;
    cb_msg why = {{0}};
    x->c[n + 1 < x->cs.m * n ? n + 1 : 0] += 4.0f;
    CB_CHECK_EQ_INT(cb_matmul_check_fp64(&p, x->c, x->ref, cb_tc_check_prec(x->cs.prec),
                                         cb_matmul_error_scale(&p), &err, &why),
                    CB_FAIL);
    cb_tc_args half = cb_tc_args_of(x, x->cs.k / 32 * 16);
    half.lda = half.ldb = 0; /* packed for that k: A's and B's rows misread */
    cb_tc_plan *plan = NULL;
    CB_CHECK_EQ_INT(cb_tc_plan_create(rung, x->cs.prec, &half, &plan, NULL), cudaSuccess);
    if (plan) {
        CB_CHECK_EQ_INT(cb_tc_run_check(x, plan, s, &err, &why), CB_FAIL);
        cb_tc_plan_destroy(plan);
    }
}

/* Only the staging rungs take other pitches, and only they and rung 1
 * (which loads element by element where it must) unaligned bases. */
static bool cb_tc_must_refuse(const cb_tc_rung *rung, const cb_tc_case *c)
{
    const int packed_b = c->prec == CB_TC_FP8 ? c->k : c->n;
    const bool ld_packed = (!c->lda || c->lda == c->k) && (!c->ldb || c->ldb == packed_b);
    const bool misaligned = c->off_a != 0 || c->off_b != 0;
    return rung->rows != CB_TC_ROWS_STAGED &&
           (!ld_packed || (misaligned && rung->rows != CB_TC_ROWS_ANY));
}

/* One rung, one case: plan, run twice (nothing left over), planted faults. */
static void cb_tc_check_case(const cb_device_info *dev, cudaStream_t s, const cb_tc_rung *rung,
                             const cb_tc_case *c, bool faults)
{
    char why_not[160], label[96];
    snprintf(label, sizeof label, "%-13s %s %dx%dx%d ld %d/%d/%d off %d/%d", rung->name,
             cb_tc_prec_names[c->prec], c->m, c->n, c->k, c->lda, c->ldb, c->ldc, c->off_a,
             c->off_b);
    if (!cb_tc_supported(rung, c->prec, c->m, c->n, c->k, dev->cc_major, dev->cc_minor, why_not,
                         sizeof why_not)) {
        printf("  direct %s: skip (%s)\n", label, why_not);
        return;
    }
    cb_tc_buffers x;
    cb_tc_buffers_init(&x, c);
    const cb_tc_args args = cb_tc_args_of(&x, c->k);
    cb_tc_layout layout;
    const bool laid = cb_tc_layout_plan(rung, c->prec, &args, &layout, why_not, sizeof why_not);
    const bool refuse = cb_tc_must_refuse(rung, c);
    cb_tc_plan *plan = NULL;
    const cudaError_t pe = cb_tc_plan_create(rung, c->prec, &args, &plan, NULL);
    if (refuse) {
        printf("  direct %s: refused (%s)\n", label, why_not);
        CB_CHECK(!laid);
        CB_CHECK_EQ_INT(pe, cudaErrorInvalidValue);
        CB_CHECK(plan == NULL);
        cb_tc_buffers_free(&x);
        return;
    }
    CB_CHECK(laid);
    CB_CHECK_EQ_INT(pe, cudaSuccess);
    if (!plan) {
        cb_tc_buffers_free(&x);
        return;
    }
    double err = -1.0;
    cb_msg why = {{0}};
    cb_status st = cb_tc_run_check(&x, plan, s, &err, &why);
    printf("  direct %s a=%.2f b=%.2f%s: %s err %.3g %s\n", label, c->alpha, c->beta,
           layout.stage_a || layout.stage_b ? " (staged)" : "", cb_status_name(st), err,
           st == CB_OK ? "" : why.text);
    CB_CHECK_EQ_INT(st, CB_OK);
    CB_CHECK_EQ_INT(cb_tc_run_check(&x, plan, s, &err, &why), CB_OK);
    cb_tc_plan_destroy(plan);
    if (faults) cb_tc_planted(&x, rung, s);
    cb_tc_buffers_free(&x);
}

static void cb_tc_check_direct(const cb_device_info *dev, cudaStream_t s)
{
    static const int shapes[][3] = {
        {129, 136, 72}, {256, 256, 256}, {300, 520, 1000}, {127, 131, 67}};
    for (int r = 0; r < CB_ARRAY_LEN(cb_tc_rungs); r++)
        for (int pr = 0; pr < CB_TC_PRECISIONS; pr++) {
            const cb_tc_rung *rung = cb_tc_rungs[r];
            if (!(rung->precisions & CB_TC_PREC_BIT(pr))) continue;
            for (int t = 0; t < CB_ARRAY_LEN(shapes); t++) {
                const cb_tc_case c = {.m = shapes[t][0],
                                      .n = shapes[t][1],
                                      .k = shapes[t][2],
                                      .prec = (cb_tc_precision)pr,
                                      .alpha = -0.75,
                                      .beta = 0.5};
                cb_tc_check_case(dev, s, rung, &c, true);
            }
            /* Leading dimensions past a row, bases off 16-byte alignment. */
            const cb_tc_case lds[] = {
                {127, 131, 67, 70, 0, 133, 1, 3, (cb_tc_precision)pr, 1.0, 0.0},
                {200, 264, 520, 523, 0, 271, 0, 1, (cb_tc_precision)pr, -0.75, 0.5},
                {64, 64, 64, 64, 0, 64, 2, 0, (cb_tc_precision)pr, 1.0, 0.0},
            };
            for (int t = 0; t < CB_ARRAY_LEN(lds); t++) {
                cb_tc_case c = lds[t];
                /* B's pitch: 5 past its row (FP8 B is K-major: rows of k). */
                c.ldb = (pr == CB_TC_FP8 ? c.k : c.n) + 5 * (t < 2);
                cb_tc_check_case(dev, s, rung, &c, false);
            }
        }
    /* Leading dimensions smaller than a row are refused by every rung. */
    cb_tc_args bad = {.m = 8, .n = 8, .k = 8, .lda = 4};
    cb_tc_layout l;
    char why[160];
    for (int r = 0; r < CB_ARRAY_LEN(cb_tc_rungs); r++)
        CB_CHECK(!cb_tc_layout_plan(cb_tc_rungs[r], CB_TC_BF16, &bad, &l, why, sizeof why));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a hung kernel: the log ends at its point */
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    cb_device_info dev;
    cudaStream_t s = cb_test_gpu_stream(&dev, "test_matmul_tc");
    printf("test_matmul_tc: sm_90a code %s\n", cb_tc_sm90a_built() ? "built" : "NOT built");
    int skips = 0;
    const int checked = cb_tc_verify_all(&dev, s, &skips);
    printf("test_matmul_tc: %d points verified, %d skipped as expected\n", checked, skips);
    CB_CHECK(checked >= (dev.cc_major == 9 && cb_tc_sm90a_built() ? 200 : 30));
    cb_tc_check_direct(&dev, s);
    cudaStreamDestroy(s);
    return cb_test_finish("test_matmul_tc");
}
