/* test_capability.c - what a GPU can run, without a GPU: a benchmark's
 * needs against fake devices (a cp.async rung skips on sm_75 with its
 * reason and runs on sm_90; sm_90a code runs on 9.0 alone), the build's
 * own code for a GPU against a feature (a compute_75 PTX build has no
 * cp.async kernel to JIT for sm_90), the runner
 * turning an unmet need into a skip row before setup, how a build's SASS
 * and PTX lists reach each compute capability, and the needs the built-in
 * families declare. */
/* test links: cubench_engine cubench_bench */
#include "capability.h"
#include "cb_test.h"
#include "cb_test_files.h"
#include "families.h"
#include "plan.h"
#include "plan_test_util.h"
#include "registry.h"
#include "runner.h"
#include "sink.h"

#include <stdlib.h>
#include <unistd.h>

static int setups; /* a skipped point must never reach setup */

static cb_status fake_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                            cb_point_info *info, cb_msg *why)
{
    (void)p, (void)ctx, (void)info, (void)why;
    setups++;
    *state = NULL;
    return CB_FAIL;
}
static cb_status fake_run(void *state, cudaStream_t stream, cb_msg *why)
{
    (void)state, (void)stream, (void)why;
    return CB_FAIL;
}
static cb_status fake_verify(void *state, double *error, cb_msg *why)
{
    (void)state, (void)why;
    *error = 0;
    return CB_FAIL;
}
static void fake_teardown(void *state)
{
    (void)state;
}

static const cb_axis_def fake_axes[] = {
    {.name = "n", .kind = CB_AXIS_INT, .defaults = "1,2", .min_value = 1, .help = "size"}};

#define FAKE_GPU(nm, ...)                                                                          \
    {                                                                                              \
        .name = "capfake/" nm, .summary = "test", .target = CB_TARGET_CUDA, .axes = fake_axes,     \
        .n_axes = 1, .needs = __VA_ARGS__, .setup = fake_setup, .run = fake_run,                   \
        .verify = fake_verify, .teardown = fake_teardown                                           \
    }

static const cb_bench fake_benches[] = {
    FAKE_GPU("cp_async", {.min_cc = 80, .feature = "cp.async"}),
    FAKE_GPU("wgmma", {.min_cc = 90, .max_cc = 90, .feature = "wgmma, sm_90a code"}),
    FAKE_GPU("old_only", {.max_cc = 89, .feature = "a retired instruction"}),
    FAKE_GPU("simt", {.min_cc = 0}),
    FAKE_GPU("library", {.min_cc = 80, .feature = "BF16 tensor cores", .library_code = true}),
};
static const cb_family fake_family = {
    .name = "capfake", .benches = fake_benches, .count = CB_ARRAY_LEN(fake_benches)};

static cb_device_info fake_device(int major, int minor)
{
    cb_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "fake sm_%d%d", major, minor);
    d.cc_major = major;
    d.cc_minor = minor;
    d.sm_count = 40;
    return d;
}

static void test_needs(void)
{
    cb_msg why = {{0}};
    const cb_bench *cp = &fake_benches[0], *wg = &fake_benches[1], *old = &fake_benches[2],
                   *simt = &fake_benches[3];
    cb_device_info turing = fake_device(7, 5), hopper = fake_device(9, 0);
    CB_CHECK_EQ_INT(cb_device_cc(&turing), 75);
    CB_CHECK_EQ_INT(cb_device_cc(&hopper), 90);

    CB_CHECK(!cb_bench_needs_met(cp, cb_device_cc(&turing), &why));
    CB_CHECK_STR(why.text, "needs sm_80 (cp.async); this GPU is sm_75");
    CB_CHECK(cb_bench_needs_met(cp, cb_device_cc(&hopper), &why));
    CB_CHECK(cb_bench_needs_met(cp, 80, &why)); /* the boundary itself runs */
    CB_CHECK(!cb_bench_needs_met(cp, 79, &why));

    /* Arch-specific code: 9.0 only, neither older nor newer. */
    CB_CHECK(cb_bench_needs_met(wg, 90, &why));
    CB_CHECK(!cb_bench_needs_met(wg, 100, &why));
    CB_CHECK_STR(why.text, "needs sm_90 exactly (wgmma, sm_90a code); this GPU is sm_100");
    CB_CHECK(!cb_bench_needs_met(wg, 89, &why));
    CB_CHECK(strstr(why.text, "this GPU is sm_89") != NULL);

    CB_CHECK(cb_bench_needs_met(old, 75, &why));
    CB_CHECK(!cb_bench_needs_met(old, 90, &why));
    CB_CHECK_STR(why.text, "needs sm_89 or older (a retired instruction); this GPU is sm_90");

    for (int cc = 50; cc <= 130; cc++)
        CB_CHECK(cb_bench_needs_met(simt, cc, &why));
}

/* The runner asks before setup: a cc 7.5 device turns the cp.async rung into
 * skip rows carrying the reason, with no CUDA call and no setup. */
static void test_runner_skips(const char *root)
{
    cb_device_info turing = fake_device(7, 5);
    cb_plan plan;
    cb_msg err = {{0}};
    CB_CHECK(cb_test_plan("capfake/cp_async", NULL, 0, &turing, 100, &plan, &err));
    CB_CHECK_EQ_INT(plan.n, 2);
    cb_run_config cfg;
    cb_run_config_defaults(&cfg);
    cfg.quiet = true;
    cfg.use_cupti = cfg.nvtx = false;
    cfg.dev = &turing;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/run", root);
    cb_result *rows = NULL;
    cb_run_totals t;
    cb_test_run_into(&cfg, &plan, dir, &rows, &t);
    CB_CHECK_EQ_INT(t.skip, 2);
    CB_CHECK_EQ_INT(t.fail, 0);
    CB_CHECK_EQ_INT(setups, 0);
    for (int i = 0; rows && i < plan.n; i++) {
        CB_CHECK_EQ_INT(rows[i].status, CB_SKIP);
        CB_CHECK_STR(rows[i].reason, "needs sm_80 (cp.async); this GPU is sm_75");
    }
    free(rows);
    cb_plan_free(&plan);
}

/* A feature in the build's own kernels needs the build's code for the GPU to
 * be new enough: compute_75 PTX JIT-compiled for sm_90 holds the stubs. */
static void test_build_feature(void)
{
    cb_msg why = {{0}};
    const cb_bench *cp = &fake_benches[0], *lib = &fake_benches[4], *simt = &fake_benches[3];
    CB_CHECK(!cb_bench_build_has_feature(cp, 90, "", "75", &why));
    CB_CHECK_STR(why.text, "the build's code for sm_90 is compute_75 PTX, without cp.async (needs "
                           "sm_80); rebuild with -DCMAKE_CUDA_ARCHITECTURES=native");
    CB_CHECK(cb_bench_build_has_feature(cp, 90, "", "80", &why));
    CB_CHECK(cb_bench_build_has_feature(cp, 90, "75,80,90", "90", &why));
    /* sm_86 SASS serves an 8.9 GPU: new enough. sm_75 SASS on an 8.x GPU
     * cannot happen (other major), so 7.5 SASS only ever meets 7.5. */
    CB_CHECK(cb_bench_build_has_feature(cp, 89, "75,86", "", &why));
    CB_CHECK(!cb_bench_build_has_feature(cp, 86, "75", "75", &why));
    CB_CHECK(strstr(why.text, "is compute_75 PTX") != NULL);
    /* cuBLAS brings its own code; SIMT needs nothing; no code at all is the
     * build probe's skip, not this one's. */
    CB_CHECK(cb_bench_build_has_feature(lib, 90, "", "75", &why));
    CB_CHECK(cb_bench_build_has_feature(simt, 90, "", "75", &why));
    CB_CHECK(cb_bench_build_has_feature(cp, 90, "80", "", &why));
}

static void check_code(int cc, const char *sass, const char *ptx, cb_code_kind want,
                       const char *want_arch)
{
    char arch[16];
    cb_code_kind got = cb_build_code_for(cc, sass, ptx, arch, sizeof arch);
    CB_CHECK_EQ_INT(got, want);
    CB_CHECK_STR(arch, want_arch);
    if (got != want || strcmp(arch, want_arch) != 0)
        fprintf(stderr, "  cc %d with SASS {%s} PTX {%s}: got %d '%s'\n", cc, sass, ptx, got, arch);
}

static void test_code_lists(void)
{
    const char *sass = "75,80,86,89,90,100,120", *ptx = "120";
    check_code(75, sass, ptx, CB_CODE_SASS, "75");
    check_code(86, sass, ptx, CB_CODE_SASS, "86");
    check_code(87, sass, ptx, CB_CODE_SASS, "86"); /* same major, lower minor */
    check_code(103, sass, ptx, CB_CODE_SASS, "100");
    check_code(121, sass, ptx, CB_CODE_SASS, "120");
    check_code(110, sass, ptx, CB_CODE_NONE, ""); /* 12.0 PTX cannot serve 11.0 */
    check_code(130, sass, ptx, CB_CODE_PTX, "120");
    check_code(70, sass, ptx, CB_CODE_NONE, "");
    /* PTX only (the portability proof on the H200): JIT everywhere above. */
    check_code(90, "", "80", CB_CODE_PTX, "80");
    check_code(90, "", "75", CB_CODE_PTX, "75");
    check_code(75, "", "80", CB_CODE_NONE, "");
    /* The old default, sm_90 + compute_90: nothing for an Ampere GPU. */
    check_code(86, "90", "90", CB_CODE_NONE, "");
    check_code(100, "90", "90", CB_CODE_PTX, "90");
    /* Arch-specific SASS runs on its own architecture only. */
    check_code(90, "90a", "", CB_CODE_SASS, "90a");
    check_code(100, "90a", "", CB_CODE_NONE, "");
    check_code(90, "80,90a", "", CB_CODE_SASS, "90a");

    char line[96];
    CB_CHECK(cb_build_code_describe(0, line, sizeof line) == CB_CODE_NONE);
    CB_CHECK_STR(line, "none: this build has no code for sm_0");
}

/* Every declared need is sane: on a CUDA benchmark, naming its feature,
 * a ceiling not below the floor; at least two benchmarks declare one. */
static void check_declared_needs_sane(void)
{
    int declared = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        const cb_bench_needs *n = &b->needs;
        if (!n->min_cc && !n->max_cc) continue;
        declared++;
        CB_CHECK(b->target == CB_TARGET_CUDA);
        CB_CHECK(n->feature && n->feature[0]);
        CB_CHECK(!n->max_cc || n->max_cc >= n->min_cc);
    }
    CB_CHECK(declared >= 2);
}

/* The cuBLAS tensor-core ceilings need sm_80, in the library's code. */
static void check_cublas_needs(void)
{
    const cb_bench *bf16 = cb_registry_find("matmul/cublas_bf16");
    const cb_bench *tf32 = cb_registry_find("matmul/cublas_tf32");
    cb_msg why = {{0}};
    CB_CHECK(bf16 && bf16->needs.min_cc == 80 && bf16->needs.library_code);
    CB_CHECK(tf32 && tf32->needs.min_cc == 80 && tf32->needs.library_code);
    if (bf16) {
        CB_CHECK(!cb_bench_needs_met(bf16, 75, &why));
        CB_CHECK_STR(why.text, "needs sm_80 (BF16 tensor cores); this GPU is sm_75");
    }
}

/* The hand-written tensor-core rungs: their own kernels, sm_80 / sm_90a. */
static void check_tc_rung_needs(void)
{
    const cb_bench *mma = cb_registry_find("matmul_tc/ldmatrix_bf16");
    const cb_bench *wg = cb_registry_find("matmul_tc/wgmma_ws_bf16");
    cb_msg why = {{0}};
    CB_CHECK(mma && cb_bench_needs_of(mma).min_cc == 80 && !mma->needs.library_code);
    CB_CHECK(wg && cb_bench_needs_of(wg).min_cc == 90 && cb_bench_needs_of(wg).max_cc == 90);
    if (mma) {
        CB_CHECK(!cb_bench_needs_met(mma, 75, &why));
        CB_CHECK(strstr(why.text, "cp.async") != NULL);
    }
}

/* What the built-in families declare: the tensor-core ceilings need sm_80;
 * the FP32 rungs, vecadd and transfers need nothing; every need is sane. */
static void test_builtin_needs(void)
{
    cb_msg err = {{0}};
    CB_CHECK(cb_families_register_builtin(&err) == CB_OK);
    check_declared_needs_sane();
    check_cublas_needs();
    check_tc_rung_needs();
    const cb_bench *fp32 = cb_registry_find("matmul/pipelined");
    CB_CHECK(fp32 && fp32->needs.min_cc == 0 && fp32->needs.max_cc == 0);
}

int main(void)
{
    char root[] = "/tmp/cb_test_capability_XXXXXX";
    if (!cb_test_temp_dir(root)) return 1;
    cb_msg err = {{0}};
    CB_CHECK(cb_registry_add_family(&fake_family, &err) == CB_OK);
    test_needs();
    test_runner_skips(root);
    test_build_feature();
    test_code_lists();
    test_builtin_needs();
    CB_CHECK(cb_test_remove_tree(root));
    return cb_test_finish("test_capability");
}
