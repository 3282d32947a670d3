/* test_cupti.c - CUPTI timing on a real GPU: kernel names, records per sample,
 * memcpy memory kinds, CUPTI time against event time, NVTX markers and their
 * cost. Exits 77 (ctest's skip) where there is no CUDA device, or where a
 * profiler already holds CUPTI.
 *
 * The kernel is JIT-compiled from PTX text so that this stays a C file; its
 * name is C++-mangled on purpose (_Z12cb_test_fillPfif) to check that the
 * demangled name comes back. */
/* test links: cubench_timing CUDA::cublas */
#include "cb_test.h"
#include "cupti_timer.h"
#include "nvtx_ranges.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Abort the test (not the checks) when the CUDA setup itself fails. */
#define CUDA_OR_DIE(call)                                                                          \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* __global__ void cb_test_fill(float *p, int n, float v) { p[i] = v for i < n } */
static const char cb_fill_ptx[] = ".version 8.0\n"
                                  ".target sm_75\n"
                                  ".address_size 64\n"
                                  ".visible .entry _Z12cb_test_fillPfif(\n"
                                  "    .param .u64 p0, .param .u32 p1, .param .f32 p2)\n"
                                  "{\n"
                                  "    .reg .pred %p<2>;\n"
                                  "    .reg .b32 %r<6>;\n"
                                  "    .reg .f32 %f<2>;\n"
                                  "    .reg .b64 %rd<5>;\n"
                                  "    ld.param.u64 %rd1, [p0];\n"
                                  "    ld.param.u32 %r1, [p1];\n"
                                  "    ld.param.f32 %f1, [p2];\n"
                                  "    mov.u32 %r2, %ctaid.x;\n"
                                  "    mov.u32 %r3, %ntid.x;\n"
                                  "    mov.u32 %r4, %tid.x;\n"
                                  "    mad.lo.s32 %r5, %r2, %r3, %r4;\n"
                                  "    setp.ge.s32 %p1, %r5, %r1;\n"
                                  "    @%p1 bra $L_done;\n"
                                  "    cvta.to.global.u64 %rd2, %rd1;\n"
                                  "    mul.wide.s32 %rd3, %r5, 4;\n"
                                  "    add.s64 %rd4, %rd2, %rd3;\n"
                                  "    st.global.f32 [%rd4], %f1;\n"
                                  "$L_done:\n"
                                  "    ret;\n"
                                  "}\n";

enum { N = 1 << 20 }; /* floats: 4 MiB buffers */
#define BYTES ((size_t)N * sizeof(float))

static cudaKernel_t g_fill;
static cudaStream_t g_stream;
static uint64_t g_next_id = 1000;

static void launch_fill(float *p, float v)
{
    int n = N;
    void *args[] = {&p, &n, &v};
    dim3 grid = {(N + 255) / 256, 1, 1}, block = {256, 1, 1};
    CUDA_OR_DIE(cudaLaunchKernel((const void *)g_fill, grid, block, args, 0, g_stream));
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Collect the samples [first, first + n) and check what every point must
 * satisfy: success, nothing dropped. */
static void collect(uint64_t first, int n, cb_cupti_point *p)
{
    cb_msg why = {""};
    cb_status st = cb_cupti_collect(first, n, p, &why);
    if (st != CB_OK) fprintf(stderr, "collect: %s\n", why.text);
    CB_CHECK(st == CB_OK);
    CB_CHECK(p->n_samples == n && p->dropped == 0);
}

/* Three samples of three launches each, an unattributed launch between them,
 * events around each sample: names, counts, and CUPTI <= event time. */
static void test_kernels(float *d)
{
    enum { SAMPLES = 3, BATCH = 3 };
    cudaEvent_t ev[2];
    double event_s[SAMPLES];
    CUDA_OR_DIE(cudaEventCreate(&ev[0]));
    CUDA_OR_DIE(cudaEventCreate(&ev[1]));
    uint64_t first = g_next_id;
    cb_nvtx_point_push("cupti_test/kernels", "n=1048576;batch=3");
    for (int s = 0; s < SAMPLES; s++) {
        launch_fill(d, -1.0f); /* outside the sample: must not be counted */
        cb_cupti_sample_begin(g_next_id++);
        CUDA_OR_DIE(cudaEventRecord(ev[0], g_stream));
        for (int b = 0; b < BATCH; b++)
            launch_fill(d, (float)s);
        CUDA_OR_DIE(cudaEventRecord(ev[1], g_stream));
        cb_cupti_sample_end();
        CUDA_OR_DIE(cudaEventSynchronize(ev[1]));
        float ms = 0;
        CUDA_OR_DIE(cudaEventElapsedTime(&ms, ev[0], ev[1]));
        event_s[s] = ms * 1e-3;
    }
    cb_nvtx_point_pop();
    CUDA_OR_DIE(cudaStreamSynchronize(g_stream));
    float h = 0;
    CUDA_OR_DIE(cudaMemcpy(&h, d + N - 1, sizeof h, cudaMemcpyDeviceToHost));
    CB_CHECK(h == (float)(SAMPLES - 1));

    cb_cupti_point p;
    collect(first, SAMPLES, &p);
    CB_CHECK(strcmp(p.kernels, "cb_test_fill") == 0);
    CB_CHECK(p.kernel_count == SAMPLES * BATCH);
    CB_CHECK(p.memcpy_count == 0 && p.memset_count == 0);
    for (int s = 0; s < SAMPLES; s++) {
        CB_CHECK(p.records[s] == BATCH);
        CB_CHECK(isfinite(p.gpu_s[s]) && p.gpu_s[s] > 0);
        /* Events see the kernels plus the gaps between them. 2 us of slack
         * for the event timer's resolution. */
        CB_CHECK(p.gpu_s[s] <= event_s[s] + 2e-6);
        printf("kernels: sample %d: events %.3f us, CUPTI %.3f us (%d records)\n", s,
               event_s[s] * 1e6, p.gpu_s[s] * 1e6, p.records[s]);
    }
    bool ours = false;
    const char *inj = cb_nvtx_injection(&ours);
    if (ours || strstr(inj, "cupti"))
        CB_CHECK(p.nvtx_ranges >= 1);
    else
        printf("kernels: NVTX injection is \"%s\": marker check skipped\n", inj);
    cb_cupti_point_free(&p);
    cudaEventDestroy(ev[0]);
    cudaEventDestroy(ev[1]);
}

typedef enum { COPY_PAGEABLE_H2D, COPY_PINNED_H2D, COPY_PINNED_D2H, COPY_D2D } copy_case;

/* Three samples of one copy each; the memory kinds CUPTI reports. */
static void test_copy(copy_case c, void *pageable, void *pinned, float *d, float *d2, int want_src,
                      int want_dst, const char *label)
{
    enum { SAMPLES = 3 };
    uint64_t first = g_next_id;
    for (int s = 0; s < SAMPLES; s++) {
        cb_cupti_sample_begin(g_next_id++);
        switch (c) {
        case COPY_PAGEABLE_H2D:
            CUDA_OR_DIE(cudaMemcpy(d, pageable, BYTES, cudaMemcpyHostToDevice));
            break;
        case COPY_PINNED_H2D:
            CUDA_OR_DIE(cudaMemcpyAsync(d, pinned, BYTES, cudaMemcpyHostToDevice, g_stream));
            break;
        case COPY_PINNED_D2H:
            CUDA_OR_DIE(cudaMemcpyAsync(pinned, d, BYTES, cudaMemcpyDeviceToHost, g_stream));
            break;
        case COPY_D2D:
            CUDA_OR_DIE(cudaMemcpyAsync(d2, d, BYTES, cudaMemcpyDeviceToDevice, g_stream));
            break;
        }
        cb_cupti_sample_end();
    }
    CUDA_OR_DIE(cudaStreamSynchronize(g_stream));
    cb_cupti_point p;
    collect(first, SAMPLES, &p);
    printf("%s: src kind %d, dst kind %d, %d memcpy records, sample 0: %.3f us\n", label,
           p.memcpy_src_kind, p.memcpy_dst_kind, p.memcpy_count, p.gpu_s[0] * 1e6);
    CB_CHECK(p.memcpy_src_kind == want_src);
    CB_CHECK(p.memcpy_dst_kind == want_dst);
    CB_CHECK(p.kernel_count == 0 && p.kernels[0] == '\0');
    for (int s = 0; s < SAMPLES; s++) {
        /* A pageable copy is staged by the driver; CUPTI has reported it as
         * one record, but more than one would not be wrong. */
        if (c == COPY_PAGEABLE_H2D)
            CB_CHECK(p.records[s] >= 1);
        else
            CB_CHECK(p.records[s] == 1);
        CB_CHECK(isfinite(p.gpu_s[s]) && p.gpu_s[s] > 0);
    }
    cb_cupti_point_free(&p);
}

/* A memset sample and an empty sample. */
static void test_memset_and_empty(float *d)
{
    uint64_t first = g_next_id;
    cb_cupti_sample_begin(g_next_id++);
    CUDA_OR_DIE(cudaMemsetAsync(d, 0, BYTES, g_stream));
    cb_cupti_sample_end();
    cb_cupti_sample_begin(g_next_id++);
    cb_cupti_sample_end();
    CUDA_OR_DIE(cudaStreamSynchronize(g_stream));
    cb_cupti_point p;
    collect(first, 2, &p);
    CB_CHECK(p.memset_count == 1 && p.records[0] == 1 && p.gpu_s[0] > 0);
    CB_CHECK(p.records[1] == 0 && isnan(p.gpu_s[1]));
    cb_cupti_point_free(&p);
}

/* cuBLAS launches its own kernels, possibly through the driver API (which is
 * why DRIVER records are enabled): they must still be attributed. */
static void test_cublas(float *d, float *d2)
{
    enum { M = 512, SAMPLES = 3 };
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "cublasCreate failed\n");
        CB_CHECK(0);
        return;
    }
    cublasSetStream(h, g_stream);
    const float alpha = 1.0f, beta = 0.0f;
    const float *a = d, *b = d + M * M;
    /* warm-up: cuBLAS picks and loads its kernel here */
    CB_CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &alpha, a, M, b, M, &beta, d2, M) ==
             CUBLAS_STATUS_SUCCESS);
    CUDA_OR_DIE(cudaStreamSynchronize(g_stream));
    uint64_t first = g_next_id;
    for (int s = 0; s < SAMPLES; s++) {
        cb_cupti_sample_begin(g_next_id++);
        cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &alpha, a, M, b, M, &beta, d2, M);
        cb_cupti_sample_end();
    }
    CUDA_OR_DIE(cudaStreamSynchronize(g_stream));
    cb_cupti_point p;
    collect(first, SAMPLES, &p);
    printf("cublas: kernels \"%s\", %d kernel records, sample 0: %.3f us\n", p.kernels,
           p.kernel_count, p.gpu_s[0] * 1e6);
    CB_CHECK(p.kernels[0] != '\0');
    for (int s = 0; s < SAMPLES; s++)
        CB_CHECK(p.records[s] >= 1 && isfinite(p.gpu_s[s]) && p.gpu_s[s] > 0);
    cb_cupti_point_free(&p);
    cublasDestroy(h);
}

/* What a point's NVTX range costs with CUPTI injected (why samples get
 * none: two marker records per range). */
static void measure_nvtx_cost(void)
{
    enum { PAIRS = 20000 };
    double t0 = now_s();
    for (int i = 0; i < PAIRS; i++) {
        cb_nvtx_point_push("cupti_test/nvtx_cost", "");
        cb_nvtx_point_pop();
    }
    double t1 = now_s();
    cb_cupti_point p;
    cb_msg why = {""};
    CB_CHECK(cb_cupti_collect(g_next_id, 0, &p, &why) == CB_OK);
    printf("nvtx: %.0f ns per range push+pop (CUPTI active, injection \"%s\"), %d ranges "
           "seen\n",
           (t1 - t0) / PAIRS * 1e9, cb_nvtx_injection(NULL), p.nvtx_ranges);
    cb_cupti_point_free(&p);
}

int main(void)
{
    /* Before any NVTX or CUDA call, as in cubench's main. */
    cb_nvtx_init(true);
    int n_dev = 0;
    cudaError_t ce = cudaGetDeviceCount(&n_dev);
    if (ce != cudaSuccess || n_dev == 0) {
        printf("test_cupti: skipped (no CUDA device: %s)\n",
               ce != cudaSuccess ? cudaGetErrorName(ce) : "none");
        return 77;
    }
    cb_msg why = {""};
    if (!cb_cupti_start(&why)) {
        printf("test_cupti: %s\n", why.text);
        if (strstr(why.text, "MULTIPLE_SUBSCRIBERS")) {
            printf("test_cupti: skipped (a profiler holds CUPTI)\n");
            return 77;
        }
        CB_CHECK(false); /* cb_cupti_start must work where a GPU is */
        return cb_test_finish("test_cupti");
    }
    char desc[CB_MSG_LEN];
    cb_cupti_describe(desc, sizeof desc);
    printf("%s\n", desc);
    CB_CHECK(cb_cupti_active());
    CB_CHECK(cb_cupti_start(&why)); /* again: a no-op */

    cudaLibrary_t lib;
    CUDA_OR_DIE(cudaLibraryLoadData(&lib, cb_fill_ptx, NULL, NULL, 0, NULL, NULL, 0));
    CUDA_OR_DIE(cudaLibraryGetKernel(&g_fill, lib, "_Z12cb_test_fillPfif"));
    CUDA_OR_DIE(cudaStreamCreate(&g_stream));
    float *d, *d2, *pinned;
    CUDA_OR_DIE(cudaMalloc((void **)&d, BYTES));
    CUDA_OR_DIE(cudaMalloc((void **)&d2, BYTES));
    CUDA_OR_DIE(cudaMallocHost((void **)&pinned, BYTES));
    float *pageable = malloc(BYTES);
    if (!pageable) return 1;
    for (int i = 0; i < N; i++) /* touched: not the shared zero page */
        pageable[i] = pinned[i] = (float)i;

    /* Warm-up (module load, first launch): attributed to no sample. */
    launch_fill(d, 0.0f);
    CUDA_OR_DIE(cudaStreamSynchronize(g_stream));
    cb_cupti_point p;
    collect(g_next_id, 0, &p);
    cb_cupti_point_free(&p);

    test_kernels(d);
    test_copy(COPY_PAGEABLE_H2D, pageable, pinned, d, d2, 1, 3, "pageable H2D");
    test_copy(COPY_PINNED_H2D, pageable, pinned, d, d2, 2, 3, "pinned H2D");
    test_copy(COPY_PINNED_D2H, pageable, pinned, d, d2, 3, 2, "pinned D2H");
    test_copy(COPY_D2D, pageable, pinned, d, d2, 3, 3, "device D2D");
    test_memset_and_empty(d);
    test_cublas(d, d2);
    measure_nvtx_cost();

    cb_cupti_stop();
    CB_CHECK(!cb_cupti_active());
    cb_cupti_stop(); /* again: a no-op */
    free(pageable);
    cudaFreeHost(pinned);
    cudaFree(d2);
    cudaFree(d);
    cudaStreamDestroy(g_stream);
    cudaLibraryUnload(lib);
    return cb_test_finish("test_cupti");
}
