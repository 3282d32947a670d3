/* test_transfers.c - every transfers benchmark through its own hooks, at
 * small and awkward sizes: every direction x memory kind x mode, bidir,
 * zero-copy, d2d, and every overlap stage over 1, 3 and 8 streams.
 *
 * Points are driven the one way the tests share (bench_test_util.h). For
 * each point: setup; verify BEFORE any run must fail (the destination
 * is really poisoned); run, sync, verify must pass with error 0; three more
 * runs back to back, verify again; teardown. When CUPTI can be started, one
 * more run is recorded and the memcpy kinds CUPTI saw must match the kinds
 * the point claims in cb_point_info (the runner fails a point otherwise).
 * Exits 77 (ctest's skip) without a CUDA device. `--no-cupti` skips the
 * CUPTI check (e.g. under a profiler). */
/* test links: cubench_engine cubench_bench */
#include "bench_test_util.h"
#include "registry.h"
#include "transfers.h"
#include "cupti_timer.h"
#include "device.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const cb_family cb_family_transfers;

static int passed, failed, skipped;
static bool use_cupti;
static uint64_t next_sample_id = 1;

/* Values per INT axis; ENUM axes take all their choices. Sizes cover one
 * byte, a tail that is not a multiple of 16, a chunk that is, and 64 MiB. */
static const int64_t bytes_values[] = {1, 4097, (1 << 20) + 12, (64 << 20) + 4};
static const int64_t overlap_bytes_values[] = {4100, (1 << 20) + 12, 16 << 20};
static const int64_t streams_values[] = {1, 3, 8};
static const int64_t fma_values[] = {7, 2048}; /* odd: the tail FMA; the default */

typedef struct axis_choices {
    int count;
    cb_axis_value v[8];
} axis_choices;

static void choices_for(const cb_bench *b, const cb_axis_def *def, axis_choices *out)
{
    out->count = 0;
    if (def->kind == CB_AXIS_ENUM) {
        const char *c = def->choices;
        while (c && *c && out->count < 8) {
            size_t len = strcspn(c, ",");
            cb_axis_value *v = &out->v[out->count++];
            v->i = CB_AXIS_WORD;
            snprintf(v->text, sizeof v->text, "%.*s", (int)len, c);
            c += len + (c[len] == ',');
        }
        return;
    }
    const int64_t *vals = NULL;
    int n = 0;
    bool overlap = strcmp(b->name, "transfers/overlap") == 0;
    if (strcmp(def->name, "bytes") == 0) {
        vals = overlap ? overlap_bytes_values : bytes_values;
        n = overlap ? CB_ARRAY_LEN(overlap_bytes_values) : CB_ARRAY_LEN(bytes_values);
    } else if (strcmp(def->name, "streams") == 0) {
        vals = streams_values, n = CB_ARRAY_LEN(streams_values);
    } else if (strcmp(def->name, "fma") == 0) {
        vals = fma_values, n = CB_ARRAY_LEN(fma_values);
    } else {
        fprintf(stderr, "test_transfers: no test values for axis %s of %s\n", def->name, b->name);
        exit(1);
    }
    for (int i = 0; i < n; i++) {
        out->v[i].i = vals[i];
        snprintf(out->v[i].text, sizeof out->v[i].text, "%lld", (long long)vals[i]);
    }
    out->count = n;
}

static void report(const char *verdict, const cb_bench *b, const char *axes, const char *detail)
{
    printf("%-5s %-22s %-48s %s\n", verdict, b->name, axes, detail ? detail : "");
    fflush(stdout);
}

/* Record one run under CUPTI and compare the memcpy kinds with the claim. */
static bool check_cupti_kinds(const cb_bench *b, void *state, cudaStream_t stream,
                              const cb_point_info *info, char *detail, size_t len)
{
    uint64_t id = next_sample_id++;
    cb_msg why = {{0}};
    cb_cupti_sample_begin(id);
    cb_status st = b->run(state, stream, &why);
    cb_cupti_sample_end();
    if (st != CB_OK || cudaStreamSynchronize(stream) != cudaSuccess) {
        snprintf(detail, len, "CUPTI run: %s", why.text);
        return false;
    }
    cb_cupti_point pt;
    memset(&pt, 0, sizeof pt);
    st = cb_cupti_collect(id, 1, &pt, &why);
    bool ok = true;
    if (st != CB_OK) {
        /* A CUPTI problem is not the benchmark's: say so, do not fail. */
        snprintf(detail, len, "(CUPTI collect: %s)", why.text);
    } else if (pt.memcpy_count == 0) {
        /* The runner checks kinds only when CUPTI saw a memcpy; so do we. */
        snprintf(detail, len, "(CUPTI saw no memcpy; the point claims src=%d dst=%d)",
                 info->memcpy_src_kind, info->memcpy_dst_kind);
    } else if ((info->memcpy_src_kind && pt.memcpy_src_kind != info->memcpy_src_kind) ||
               (info->memcpy_dst_kind && pt.memcpy_dst_kind != info->memcpy_dst_kind)) {
        snprintf(detail, len, "CUPTI saw src=%d dst=%d, the point claims src=%d dst=%d",
                 pt.memcpy_src_kind, pt.memcpy_dst_kind, info->memcpy_src_kind,
                 info->memcpy_dst_kind);
        ok = false;
    } else {
        snprintf(detail, len, "cupti: %d memcpy (src %d dst %d)%s%s", pt.memcpy_count,
                 pt.memcpy_src_kind, pt.memcpy_dst_kind, pt.kernels[0] ? ", kernels " : "",
                 pt.kernels);
    }
    cb_cupti_point_free(&pt);
    return ok;
}

/* How far a point got: the stage it is in, why it stopped there, and the
 * error of its last verify. */
typedef struct point_check {
    const char *stage;
    cb_msg why;
    double error;
} point_check;

/* Verify before any run must fail: the destination is really poisoned. */
static bool check_poisoned(cb_point_under_test *tp, point_check *pc)
{
    pc->stage = "verify before any run";
    cb_status st = cb_test_run_verify(tp, 0, &pc->error, &pc->why);
    if (st != CB_FAIL || !(pc->error > 0)) {
        snprintf(pc->why.text, sizeof pc->why.text, "passed (error %g): the output is not poisoned",
                 pc->error);
        return false;
    }
    return true;
}

/* One run, then the result must be exact: error 0. */
static bool check_first_run(cb_point_under_test *tp, point_check *pc)
{
    pc->stage = "first run";
    if (cb_test_run_verify(tp, 1, &pc->error, &pc->why) != CB_OK) return false;
    if (pc->error != 0) {
        snprintf(pc->why.text, sizeof pc->why.text, "verify passed with error %g", pc->error);
        return false;
    }
    return true;
}

/* Three more runs back to back, verified again. */
static bool check_batched_runs(cb_point_under_test *tp, point_check *pc)
{
    pc->stage = "batched runs";
    return cb_test_run_verify(tp, 3, &pc->error, &pc->why) == CB_OK;
}

/* The memcpy kinds CUPTI saw match the point's claim (when CUPTI is on),
 * and no CUDA error is pending. `detail` says what was seen. */
static bool check_kinds(cb_point_under_test *tp, char *detail, size_t len, point_check *pc)
{
    pc->stage = "CUPTI kinds";
    const cb_point_info *info = &tp->info;
    snprintf(detail, len, "claims src=%d dst=%d", info->memcpy_src_kind, info->memcpy_dst_kind);
    if (use_cupti && !check_cupti_kinds(tp->b, tp->state, tp->stream, info, detail, len)) {
        snprintf(pc->why.text, sizeof pc->why.text, "%.200s", detail);
        return false;
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(pc->why.text, sizeof pc->why.text, "CUDA error: %s (%s)", cudaGetErrorName(e),
                 cudaGetErrorString(e));
        return false;
    }
    return true;
}

/* The precision and kind a point declares follow from the memory it
 * touches: copies staged through pageable memory their own kind at ±3 %,
 * every other path across the link ±2 %, device-only copies and the
 * overlap's kernel stage nothing beyond the run's target. */
static bool check_declared(const cb_point_under_test *tp, const char *axes, point_check *pc)
{
    pc->stage = "declared precision";
    const cb_point_info *info = &tp->info;
    const bool pageable = strstr(axes, "memory=pageable") != NULL;
    const bool device_only =
        strcmp(tp->b->name, "transfers/d2d") == 0 || strstr(axes, "stage=kernel") != NULL;
    const double want = pageable      ? CB_XFER_PAGEABLE_TARGET_CI
                        : device_only ? 0.0
                                      : CB_XFER_LINK_TARGET_CI;
    if (info->target_ci_rel != want || (pageable && info->kind != CB_KIND_STAGED_COPY)) {
        snprintf(pc->why.text, sizeof pc->why.text, "target %g (want %g), kind %d",
                 info->target_ci_rel, want, (int)info->kind);
        return false;
    }
    return true;
}

static void report_point(const cb_bench *b, const char *axes, bool ok, const char *detail,
                         const point_check *pc)
{
    if (ok) {
        passed++;
        report("ok", b, axes, detail);
        return;
    }
    failed++;
    char msg[CB_MSG_LEN + 64];
    snprintf(msg, sizeof msg, "%s: %s", pc->stage, pc->why.text);
    report("FAIL", b, axes, msg);
}

static void test_point(const cb_bench *b, const cb_point *p, const cb_bench_ctx *ctx)
{
    char axes[CB_POINT_TEXT], detail[512] = "";
    cb_point_format(p, axes, sizeof axes);
    point_check pc = {.stage = "setup", .why = {{0}}, .error = NAN};
    cb_point_under_test tp;
    cb_status st = cb_test_setup(b, p, ctx, &tp, &pc.why);
    if (st == CB_SKIP) {
        skipped++;
        report("skip", b, axes, pc.why.text);
        cb_test_teardown(&tp);
        return;
    }
    bool ok = st == CB_OK && check_declared(&tp, axes, &pc) && check_poisoned(&tp, &pc) &&
              check_first_run(&tp, &pc) && check_batched_runs(&tp, &pc) &&
              check_kinds(&tp, detail, sizeof detail, &pc);
    cb_test_teardown(&tp);
    report_point(b, axes, ok, detail, &pc);
}

/* Walk the Cartesian product of the test values of every axis. */
static void test_bench(const cb_bench *b, const cb_bench_ctx *ctx)
{
    axis_choices ch[CB_MAX_AXES];
    int idx[CB_MAX_AXES] = {0};
    for (int a = 0; a < b->n_axes; a++)
        choices_for(b, &b->axes[a], &ch[a]);
    for (;;) {
        cb_point p = {.n_axes = b->n_axes, .defs = b->axes};
        for (int a = 0; a < b->n_axes; a++)
            p.values[a] = ch[a].v[idx[a]];
        test_point(b, &p, ctx);
        int a = b->n_axes - 1;
        while (a >= 0 && ++idx[a] == ch[a].count)
            idx[a--] = 0;
        if (a < 0) break;
    }
}

int main(int argc, char **argv)
{
    use_cupti = !(argc > 1 && strcmp(argv[1], "--no-cupti") == 0);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("test_transfers: no CUDA device, skipped\n");
        return 77;
    }
    cb_msg why = {{0}};
    if (use_cupti && !cb_cupti_start(&why)) {
        printf("test_transfers: CUPTI unavailable (%s): memcpy kinds not checked\n", why.text);
        use_cupti = false;
    }
    cb_device_info dev;
    if (cb_device_query(0, &dev, &why) != CB_OK) {
        fprintf(stderr, "test_transfers: %s\n", why.text);
        return 1;
    }
    printf("test_transfers: %s, %d SMs, PCIe gen %d x%d\n", dev.name, dev.sm_count, dev.pcie_gen,
           dev.pcie_width);
    /* A blocking stream, as the runner makes: the legacy stream that
     * cudaMemcpy uses is ordered with it. */
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess) {
        fprintf(stderr, "test_transfers: cannot create a stream\n");
        return 1;
    }
    cb_bench_ctx ctx = {.dev = &dev, .stream = stream, .seed = 0x5eed2026, .host_threads = 1};
    for (int i = 0; i < cb_family_transfers.count; i++)
        test_bench(&cb_family_transfers.benches[i], &ctx);
    (void)cudaStreamDestroy(stream);
    if (use_cupti) cb_cupti_stop();
    printf("test_transfers: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
