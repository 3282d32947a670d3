/* test_matmul.c - every matmul rung verifies through its descriptor at
 * square, odd and skinny shapes (every edge path of the tiled kernels:
 * full tiles, float4 edges, scalar edges, and the cuBLAS-referenced large
 * path); an unwritten output is caught, by the FP8 rungs at a large point
 * too (their inputs quantised on the device, their exact values recomputed
 * on the host); beta != 0 and alpha != 1 are right for every hand-written
 * kernel; bad axis values skip with a reason. */
/* test links: cubench_engine cubench_bench */
#include "gpu_test_util.h"
#include "matmul_kernels.h"
#include "matmul_multistage_kernels.h"
#include "matmul_ref.h"
#include "matmul_tc_kernels.h"
#include "families.h"

#include <stdlib.h>

/* m, n, k: the path each shape exercises in the 128x128x8 kernels, and in
 * pipelined's skinny kernels (narrow_n, short_m) where auto picks them. */
static const char *const cb_shapes[][3] = {
    {"128", "m", "m"},     /* full tiles, FP64 reference            */
    {"2048", "m", "m"},    /* full tiles, cuBLAS reference + spot    */
    {"1000", "m", "m"},    /* float4 edges                           */
    {"300", "200", "132"}, /* float4 edges, non-square               */
    {"1", "4096", "4096"}, /* one row                                */
    {"127", "m", "m"},     /* scalar edges                           */
    {"129", "131", "67"},  /* scalar edges everywhere                */
    {"131", "130", "132"}, /* float4 A, scalar B and C               */
    {"4096", "1", "4096"}, /* one column                             */
    {"64", "64", "1"},     /* k = 1                                  */
    {"4093", "m", "m"},    /* scalar edges, cuBLAS reference         */
    {"4096", "3", "4095"}, /* narrow_n: 4 columns for 3, scalar A    */
    {"300", "8", "256"},   /* narrow_n: float4 A and B, partial warp */
    {"8191", "2", "1"},    /* narrow_n: k = 1, only the guarded step */
    {"5", "1000", "333"},  /* short_m: 5 of 8 rows, float4 B, tail   */
    {"7", "9", "4093"},    /* short_m: scalar B, 9 columns of 16     */
};

/* The values of a rung's extra axis to sweep (NULL: none): the tile
 * sizes, or every choice an enum axis lists (`config`: auto and each tile
 * configuration of the rung). */
static const char *const cb_tiles[] = {"8", "16", "32", NULL};
static const char *const cb_no_extra[] = {"", NULL};

static const char *const *cb_extra_values(const cb_bench *b)
{
    static char text[512];
    static const char *values[32];
    if (b->n_axes < 4) return cb_no_extra;
    if (strcmp(b->axes[3].name, "tile") == 0) return cb_tiles;
    snprintf(text, sizeof text, "%s", b->axes[3].choices);
    int n = 0;
    for (char *tok = strtok(text, ","); tok && n < 31; tok = strtok(NULL, ","))
        values[n++] = tok;
    values[n] = NULL;
    return values;
}

static int cb_verify_all(const cb_device_info *dev, cudaStream_t s)
{
    int checked = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        /* cuBLASLt's FP8 reference is checked with the FP8 rungs
         * (test_matmul_tc.c): it takes k and n in 16-byte rows only. */
        if (strncmp(b->name, "matmul/", 7) != 0 || strcmp(b->name, "matmul/cublaslt_fp8") == 0)
            continue;
        const char *const *extra = cb_extra_values(b);
        for (int e = 0; extra[e]; e++) {
            for (int t = 0; t < CB_ARRAY_LEN(cb_shapes); t++) {
                /* The host rungs take the small shapes only. */
                if (b->target == CB_TARGET_HOST && atoi(cb_shapes[t][0]) > 1000) continue;
                /* The skinny kernels named at a large square pass over
                 * their long operand once per 8 rows or columns (seconds
                 * at 2048^2 and 4093^2); their multi-pass paths are
                 * covered at 127^2, 129 x 131 and 1000^2. */
                const long long sm = atoll(cb_shapes[t][0]), sn = strcmp(cb_shapes[t][1], "m") == 0
                                                                      ? sm
                                                                      : atoll(cb_shapes[t][1]);
                if ((strcmp(extra[e], "narrow_n") == 0 || strcmp(extra[e], "short_m") == 0) &&
                    sm * sn > 1100000)
                    continue;
                const char *values[4] = {cb_shapes[t][0], cb_shapes[t][1], cb_shapes[t][2],
                                         extra[e]};
                cb_point p;
                CB_CHECK(cb_test_point(b, dev, values, &p));
                char axes[CB_POINT_TEXT];
                cb_point_format(&p, axes, sizeof axes);
                double err = -1.0;
                cb_msg why = {{0}};
                cb_status st = cb_test_run_point(b, &p, dev, s, true, &err, &why);
                printf("  %-26s %-40s %-4s err %.3g %s\n", b->name, axes, cb_status_name(st), err,
                       st == CB_OK ? "" : why.text);
                if (st == CB_SKIP && strcmp(why.text, "built without CBLAS") == 0) continue;
                CB_CHECK_EQ_INT(st, CB_OK);
                if (st == CB_OK) {
                    CB_CHECK(err >= 0.0 && err < 1e-2);
                    checked++;
                }
            }
        }
        /* Planted fault: without the run, the NaN poison must fail verify. */
        if (b->target == CB_TARGET_CUDA) {
            const char *values[4] = {"129", "m", "m", extra[0]};
            cb_point p;
            CB_CHECK(cb_test_point(b, dev, values, &p));
            double err = 0.0;
            cb_msg why = {{0}};
            CB_CHECK_EQ_INT(cb_test_run_point(b, &p, dev, s, false, &err, &why), CB_FAIL);
            CB_CHECK(strstr(why.text, "non-finite") != NULL);
        }
    }
    return checked;
}

/* A kernel rung called directly, with beta != 0 (C read back in) and
 * alpha != 1: the descriptors always run beta = 0. */
typedef struct cb_direct_rung {
    const char *name;
    const cb_matmul_rung *rung;
    int variant;
} cb_direct_rung;

/* Every rung of the ladder's list (bench/detail/matmul_rungs.def). */
#define CB_MATMUL_RUNG(rung, ...) extern const cb_matmul_rung cb_matmul_rung_##rung;
#include "matmul_rungs.def"
#undef CB_MATMUL_RUNG

static void cb_check_beta(cudaStream_t s, int m, int n, int k)
{
    static const cb_direct_rung rungs[] = {
        {"naive_uncoalesced", &cb_matmul_rung_naive_uncoalesced, 0},
        {"naive_coalesced", &cb_matmul_rung_naive_coalesced, 0},
        {"smem_tiled/8", &cb_matmul_rung_smem_tiled, 8},
        {"smem_tiled/16", &cb_matmul_rung_smem_tiled, 16},
        {"smem_tiled/32", &cb_matmul_rung_smem_tiled, 32},
        {"regblock_1d", &cb_matmul_rung_regblock_1d, 0},
        {"regblock_2d", &cb_matmul_rung_regblock_2d, 0},
        {"vectorized", &cb_matmul_rung_vectorized, 0},
        {"warptiled", &cb_matmul_rung_warptiled, 0},
        {"pipelined/m128n128k8", &cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8},
        {"pipelined/m128n128k16", &cb_matmul_rung_pipelined, CB_MATMUL_M128N128K16},
        {"pipelined/m128n64k8", &cb_matmul_rung_pipelined, CB_MATMUL_M128N64K8},
        {"pipelined/m64n128k8", &cb_matmul_rung_pipelined, CB_MATMUL_M64N128K8},
        {"pipelined/m64n64k8", &cb_matmul_rung_pipelined, CB_MATMUL_M64N64K8},
        {"pipelined/m128n256k8", &cb_matmul_rung_pipelined, CB_MATMUL_M128N256K8},
        {"pipelined/m256n128k8", &cb_matmul_rung_pipelined, CB_MATMUL_M256N128K8},
        {"pipelined/m128n128k8_streamk", &cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8_STREAMK},
        {"pipelined/narrow_n", &cb_matmul_rung_pipelined, CB_MATMUL_NARROW_N},
        {"pipelined/short_m", &cb_matmul_rung_pipelined, CB_MATMUL_SHORT_M},
        {"multistage/m128n128k16s3", &cb_matmul_rung_multistage, CB_MATMUL_MS_M128N128K16S3},
        {"multistage/m128n128k16s4", &cb_matmul_rung_multistage, CB_MATMUL_MS_M128N128K16S4},
        {"multistage/m128n128k32s3", &cb_matmul_rung_multistage, CB_MATMUL_MS_M128N128K32S3},
        {"multistage/m128n64k16s3", &cb_matmul_rung_multistage, CB_MATMUL_MS_M128N64K16S3},
        {"multistage/m64n128k16s3", &cb_matmul_rung_multistage, CB_MATMUL_MS_M64N128K16S3},
        {"multistage/m64n64k16s3", &cb_matmul_rung_multistage, CB_MATMUL_MS_M64N64K16S3},
    };
    const size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    float *a = malloc(na * sizeof(float)), *b = malloc(nb * sizeof(float));
    float *c0 = malloc(nc * sizeof(float)), *c = malloc(nc * sizeof(float));
    double *ref = malloc(nc * sizeof(double));
    float *da, *db, *dc;
    CB_CHECK(a && b && c0 && c && ref);
    cb_matmul_fill_uniform(a, na, 1);
    cb_matmul_fill_uniform(b, nb, 2);
    cb_matmul_fill_uniform(c0, nc, 3);
    CB_CHECK(cudaMalloc((void **)&da, na * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&db, nb * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&dc, nc * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMemcpy(da, a, na * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    CB_CHECK(cudaMemcpy(db, b, nb * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    const cb_matmul_problem p = {m, n, k, -0.75, 0.5, a, b, c0};
    cb_matmul_ref_full(&p, ref, 8);
    const double scale = cb_matmul_error_scale(&p);
    for (int r = 0; r < CB_ARRAY_LEN(rungs); r++) {
        CB_CHECK(cudaMemcpy(dc, c0, nc * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
        const cb_matmul_args args = {m, n, k, -0.75f, 0.5f, da, db, dc, NULL, 0};
        cb_matmul_plan plan; /* the plan holds the workspace a rung may need */
        CB_CHECK_EQ_INT(cb_matmul_plan_make(rungs[r].rung, rungs[r].variant, &args, &plan, NULL),
                        cudaSuccess);
        CB_CHECK_EQ_INT(cb_matmul_plan_run(&plan, s), cudaSuccess);
        CB_CHECK_EQ_INT(cudaStreamSynchronize(s), cudaSuccess);
        cb_matmul_plan_release(&plan);
        CB_CHECK(cudaMemcpy(c, dc, nc * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
        double err = -1.0;
        cb_msg why = {{0}};
        cb_status st = cb_matmul_check_fp64(&p, c, ref, CB_MATMUL_FP32, scale, &err, &why);
        printf("  beta=0.5 alpha=-0.75 %-22s %dx%dx%d %s err %.3g %s\n", rungs[r].name, m, n, k,
               cb_status_name(st), err, st == CB_OK ? "" : why.text);
        CB_CHECK_EQ_INT(st, CB_OK);
    }
    /* A variant a rung does not have is refused, not launched; so is the
     * stream-K config without the workspace its query asks for, or with
     * one a byte short of it. */
    const cb_matmul_args args = {m, n, k, 1.0f, 0.0f, da, db, dc, NULL, 0};
    CB_CHECK_EQ_INT(cb_matmul_rung_pipelined.launch(&args, CB_MATMUL_M128N128K8_STREAMK, s),
                    cudaErrorInvalidValue);
    cb_matmul_plan sk;
    CB_CHECK_EQ_INT(cb_matmul_plan_make(&cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8_STREAMK,
                                        &args, &sk, NULL),
                    cudaSuccess);
    cb_matmul_args short_of_it = sk.args;
    CB_CHECK(short_of_it.workspace_bytes > 0);
    short_of_it.workspace_bytes--;
    CB_CHECK_EQ_INT(cb_matmul_rung_pipelined.launch(&short_of_it, CB_MATMUL_M128N128K8_STREAMK, s),
                    cudaErrorInvalidValue);
    cb_matmul_plan_release(&sk);
    CB_CHECK_EQ_INT(cb_matmul_rung_smem_tiled.launch(&args, 12, s), cudaErrorInvalidValue);
    CB_CHECK_EQ_INT(cb_matmul_rung_pipelined.launch(&args, CB_MATMUL_CONFIG_COUNT, s),
                    cudaErrorInvalidValue);
    CB_CHECK_EQ_INT(cb_matmul_rung_multistage.launch(&args, CB_MATMUL_MS_CONFIG_COUNT, s),
                    cudaErrorInvalidValue);
    cb_matmul_plan plan;
    CB_CHECK_EQ_INT(cb_matmul_plan_make(&cb_matmul_rung_smem_tiled, 12, &args, &plan, NULL),
                    cudaErrorInvalidValue);
    char why_not[128];
    CB_CHECK(cb_matmul_rung_smem_tiled.variant_of("12", m, n, 132, why_not, sizeof why_not) < 0);
    CB_CHECK(cb_matmul_rung_pipelined.variant_of("auto", m, n, 132, why_not, sizeof why_not) >= 0);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(a);
    free(b);
    free(c0);
    free(c);
    free(ref);
}

/* The stream-K config sums a shared tile's partials in block order, so two
 * runs give the same bits whatever finished first: at 2048^3 (every tile
 * shared by two blocks on an H200) and 4093^3 (a stream-K tail behind
 * whole waves, scalar edges). Their values are checked by cb_verify_all. */
static void cb_check_streamk_repeatable(cudaStream_t s, int size)
{
    const size_t nn = (size_t)size * size;
    float *h = malloc(nn * sizeof(float)), *c1 = malloc(nn * sizeof(float)),
          *c2 = malloc(nn * sizeof(float));
    float *da, *db, *dc;
    CB_CHECK(h && c1 && c2);
    CB_CHECK(cudaMalloc((void **)&da, nn * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&db, nn * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&dc, nn * sizeof(float)) == cudaSuccess);
    cb_matmul_fill_uniform(h, nn, 11);
    CB_CHECK(cudaMemcpy(da, h, nn * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cb_matmul_fill_uniform(h, nn, 12);
    CB_CHECK(cudaMemcpy(db, h, nn * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    const cb_matmul_args args = {size, size, size, 1.0f, 0.0f, da, db, dc, NULL, 0};
    cb_matmul_plan plan;
    cb_matmul_launch_info info;
    CB_CHECK_EQ_INT(cb_matmul_plan_make(&cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8_STREAMK,
                                        &args, &plan, &info),
                    cudaSuccess);
    CB_CHECK(info.workspace_bytes > 0 && plan.args.workspace != NULL);
    float *out[2] = {c1, c2};
    for (int run = 0; run < 2; run++) {
        CB_CHECK(cudaMemset(dc, 0xff, nn * sizeof(float)) == cudaSuccess); /* NaN poison */
        CB_CHECK_EQ_INT(cb_matmul_plan_run(&plan, s), cudaSuccess);
        CB_CHECK_EQ_INT(cudaStreamSynchronize(s), cudaSuccess);
        CB_CHECK(cudaMemcpy(out[run], dc, nn * sizeof(float), cudaMemcpyDeviceToHost) ==
                 cudaSuccess);
    }
    const bool same = memcmp(c1, c2, nn * sizeof(float)) == 0;
    printf("  streamk %d^3 (%s): two runs %s\n", size, info.desc,
           same ? "bit for bit the same" : "DIFFER");
    CB_CHECK(same);
    cb_matmul_plan_release(&plan);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    free(h);
    free(c1);
    free(c2);
}

/* The FP8 rungs at 2048^3, a large point (cuBLAS reference over every
 * entry, FP64 at sampled entries through the host's E4M3 rounding): a run
 * passes both FP8 checks, and without the run the NaN poison fails. A GPU
 * without FP8 tensor cores (cuBLASLt: 8.9; the wgmma rungs: 9.0 and a
 * build for sm_90a) may skip them. */
static void cb_check_fp8_large(const cb_device_info *dev, cudaStream_t s)
{
    static const char *const names[] = {"matmul/cublaslt_fp8", "matmul_tc/wgmma_fp8",
                                        "matmul_tc/wgmma_cluster_fp8"};
    const char *const values[3] = {"2048", "m", "m"};
    const int cc = dev->cc_major * 10 + dev->cc_minor;
    for (int i = 0; i < CB_ARRAY_LEN(names); i++) {
        const cb_bench *b = cb_registry_find(names[i]);
        CB_CHECK(b != NULL);
        if (!b) continue;
        const bool wgmma = strncmp(names[i], "matmul_tc/", 10) == 0;
        const bool must_run = cc >= 89 && (!wgmma || (cc == 90 && cb_tc_sm90a_built()));
        cb_point p;
        CB_CHECK(cb_test_point(b, dev, values, &p));
        double err = -1.0;
        cb_msg why = {{0}};
        cb_status st = cb_test_run_point(b, &p, dev, s, true, &err, &why);
        printf("  %-28s m=2048 %-4s err %.3g %s\n", names[i], cb_status_name(st), err,
               st == CB_OK ? "" : why.text);
        if (!must_run && st == CB_SKIP) continue;
        CB_CHECK_EQ_INT(st, CB_OK);
        CB_CHECK(err >= 0.0 && err < cb_matmul_tolerance(CB_MATMUL_FP8_DEQ, 2048));
        /* Planted fault: without the run, the NaN poison must fail verify. */
        why.text[0] = '\0';
        st = cb_test_run_point(b, &p, dev, s, false, &err, &why);
        printf("    planted no run: %s: %s\n", cb_status_name(st), why.text);
        CB_CHECK_EQ_INT(st, CB_FAIL);
        CB_CHECK(strstr(why.text, "non-finite") != NULL);
    }
}

static void cb_check_skips(const cb_device_info *dev, cudaStream_t s)
{
    const cb_bench *b = cb_registry_find("matmul/smem_tiled");
    CB_CHECK(b != NULL);
    if (!b) return;
    const char *values[4] = {"256", "m", "m", "12"};
    cb_point p;
    CB_CHECK(cb_test_point(b, dev, values, &p));
    double err;
    cb_msg why = {{0}};
    CB_CHECK_EQ_INT(cb_test_run_point(b, &p, dev, s, true, &err, &why), CB_SKIP);
    CB_CHECK(strstr(why.text, "8, 16 and 32") != NULL);
}

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    cb_device_info dev;
    cudaStream_t s = cb_test_gpu_stream(&dev, "test_matmul");
    const int checked = cb_verify_all(&dev, s);
    printf("test_matmul: %d points verified\n", checked);
    CB_CHECK(checked >= 150);
    cb_check_beta(s, 129, 131, 67);
    cb_check_beta(s, 256, 256, 256);
    cb_check_beta(s, 260, 132, 100);
    cb_check_beta(s, 131, 130, 132); /* float4 A, scalar B and C */
    cb_check_beta(s, 1000, 5, 332);  /* the skinny paths: narrow_n, float4 A */
    cb_check_beta(s, 6, 1000, 333);  /* short_m, float4 B, k tail */
    cb_check_streamk_repeatable(s, 2048);
    cb_check_streamk_repeatable(s, 4093);
    cb_check_skips(&dev, s);
    cb_check_fp8_large(&dev, s);
    cudaStreamDestroy(s);
    return cb_test_finish("test_matmul");
}
