/* test_matmul_streamk_share.c - the FP32 pipelined rung's stream-K config
 * in a process that has fewer SMs than the device: a green context of the
 * smallest SM partition the device allows (what a partitioned GPU gives a
 * process). Its owners wait for later blocks, which only a cooperative
 * launch promises to run beside them, and only for as many blocks as the
 * context's SMs hold: the split must be made for the partition's slots
 * (cb_context_sm_count), not the device's. A split for the device's is
 * either refused (every tile whole) or, launched plainly as it once was,
 * ran there only because blocks happened to start in index order.
 * Checked: the plan's grid is the partition's split, with a stream-K part;
 * the point finishes (within a deadline, not ctest's timeout); its C
 * differs from the whole-tile config's (the stream-K sums round
 * differently, so a refused launch that ran whole tiles fails here) by no
 * more than two FP32 sums of the same products can; nothing is left
 * unwritten. Skips where green contexts are not available (driver before
 * CUDA 12.4, or a device that cannot partition). */
/* test links: cubench_engine cubench_bench cubench_kernels */
#include "common_kernels.h"
#include "gpu_test_util.h"
#include "matmul_kernels.h"
#include "matmul_ref.h"
#include "matmul_stream_k.h"

#include <cuda.h>
#include <float.h>
#include <math.h>
#include <string.h>
#include <time.h>

extern const cb_matmul_rung cb_matmul_rung_pipelined;

typedef CUresult (*get_resource_fn)(CUdevice, CUdevResource *, CUdevResourceType);
typedef CUresult (*split_fn)(CUdevResource *, unsigned *, const CUdevResource *, CUdevResource *,
                             unsigned, unsigned);
typedef CUresult (*describe_fn)(CUdevResourceDesc *, CUdevResource *, unsigned);
typedef CUresult (*green_create_fn)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned);
typedef CUresult (*green_to_ctx_fn)(CUcontext *, CUgreenCtx);
typedef CUresult (*push_fn)(CUcontext);
typedef CUresult (*pop_fn)(CUcontext *);
typedef CUresult (*green_destroy_fn)(CUgreenCtx);

/* A driver entry point of the CUDA 12.4 ABI, or NULL. */
static void *cb_entry(const char *name)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12040, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess)
        return NULL;
    return fn;
}

static void cb_skip(const char *why)
{
    printf("test_matmul_streamk_share: skipped: %s\n", why);
    exit(CB_TEST_SKIP);
}

/* Run `plan` on `s` into dc and copy C back; fail (and leave) if it has
 * not finished after `deadline_s` seconds: a hang is the failure looked
 * for, and ctest's timeout is minutes away. */
static void cb_run_bounded(const cb_matmul_plan *plan, cudaStream_t s, float *dc, float *out,
                           size_t count, double deadline_s)
{
    CB_CHECK(cudaMemsetAsync(dc, 0xff, count * sizeof(float), s) == cudaSuccess); /* NaN */
    CB_CHECK_EQ_INT(cb_matmul_plan_run(plan, s), cudaSuccess);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cudaError_t q;
    while ((q = cudaStreamQuery(s)) == cudaErrorNotReady) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > deadline_s) {
            printf("test_matmul_streamk_share: the launch has not finished after %.0f s: its "
                   "blocks wait for blocks that never start\n",
                   deadline_s);
            fflush(stdout);
            _exit(1);
        }
        usleep(1000);
    }
    CB_CHECK_EQ_INT(q, cudaSuccess);
    CB_CHECK(cudaMemcpy(out, dc, count * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess);
}

int main(void)
{
    cb_device_info dev;
    cb_test_require_gpu(&dev, "test_matmul_streamk_share");
    CB_CHECK(cudaFree(0) == cudaSuccess); /* the primary context, before the green one */
    get_resource_fn get_resource = (get_resource_fn)cb_entry("cuDeviceGetDevResource");
    split_fn split = (split_fn)cb_entry("cuDevSmResourceSplitByCount");
    describe_fn describe = (describe_fn)cb_entry("cuDevResourceGenerateDesc");
    green_create_fn green_create = (green_create_fn)cb_entry("cuGreenCtxCreate");
    green_to_ctx_fn green_to_ctx = (green_to_ctx_fn)cb_entry("cuCtxFromGreenCtx");
    push_fn push = (push_fn)cb_entry("cuCtxPushCurrent");
    pop_fn pop = (pop_fn)cb_entry("cuCtxPopCurrent");
    green_destroy_fn green_destroy = (green_destroy_fn)cb_entry("cuGreenCtxDestroy");
    if (!get_resource || !split || !describe || !green_create || !green_to_ctx || !push || !pop ||
        !green_destroy)
        cb_skip("this driver has no green contexts (CUDA 12.4 entry points)");

    CUdevResource all, part, rest;
    memset(&all, 0, sizeof all);
    memset(&part, 0, sizeof part);
    memset(&rest, 0, sizeof rest);
    if (get_resource(0, &all, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS)
        cb_skip("no SM resource to partition on device 0");
    unsigned groups = 1;
    const unsigned min_sms = all.sm.minSmPartitionSize > 0 ? all.sm.minSmPartitionSize : 1;
    if (split(&part, &groups, &all, &rest, 0, min_sms) != CUDA_SUCCESS || groups != 1 ||
        part.sm.smCount >= all.sm.smCount)
        cb_skip("device 0 cannot be split into a smaller SM partition");
    CUdevResourceDesc desc;
    CUgreenCtx green;
    CUcontext ctx;
    if (describe(&desc, &part, 1) != CUDA_SUCCESS ||
        green_create(&green, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM) != CUDA_SUCCESS)
        cb_skip("no green context on device 0");
    int sms_primary = 0, sms_green = 0;
    CB_CHECK_EQ_INT(cb_context_sm_count(&sms_primary), cudaSuccess);
    CB_CHECK_EQ_INT(sms_primary, dev.sm_count);
    CB_CHECK(green_to_ctx(&ctx, green) == CUDA_SUCCESS);
    CB_CHECK(push(ctx) == CUDA_SUCCESS);
    printf("  a green context of %u of the device's %u SMs\n", part.sm.smCount, all.sm.smCount);
    CB_CHECK_EQ_INT(cb_context_sm_count(&sms_green), cudaSuccess);
    CB_CHECK_EQ_INT(sms_green, (int)part.sm.smCount);

    /* The stream-K kernel's resident blocks per SM, from a first plan. */
    const cb_matmul_args probe = {128, 128, 64, 1.0f, 0.0f, NULL, NULL, NULL, NULL, 0};
    cb_matmul_plan plan_probe;
    cb_matmul_launch_info info;
    CB_CHECK_EQ_INT(cb_matmul_plan_make(&cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8_STREAMK,
                                        &probe, &plan_probe, &info),
                    cudaSuccess);
    cb_matmul_plan_release(&plan_probe);
    const int slots = (int)part.sm.smCount * (info.blocks_per_sm > 0 ? info.blocks_per_sm : 1);

    /* One row of 128 x 128 tiles, three waves of the partition's slots and
     * a quarter wave more: the quarter is stream-K's. */
    const int tiles = 3 * slots + (slots / 4 > 0 ? slots / 4 : 1);
    const int m = 128, n = 128 * tiles, k = 512;
    const cb_sk_partition want = cb_sk_partition_of(tiles, slots, k / 8);
    const size_t count_a = (size_t)m * k, count_b = (size_t)k * n, count = (size_t)m * n;
    float *ha = malloc(count_a * sizeof(float)), *hb = malloc(count_b * sizeof(float)),
          *c_sk = malloc(count * sizeof(float)), *c_whole = malloc(count * sizeof(float));
    float *da = NULL, *db = NULL, *dc = NULL;
    cudaStream_t s;
    CB_CHECK(ha && hb && c_sk && c_whole);
    CB_CHECK(cudaStreamCreate(&s) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&da, count_a * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&db, count_b * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&dc, count * sizeof(float)) == cudaSuccess);
    if (!ha || !hb || !c_sk || !c_whole || !da || !db || !dc)
        return cb_test_finish("test_matmul_streamk_share");
    cb_matmul_fill_uniform(ha, count_a, 21);
    CB_CHECK(cudaMemcpy(da, ha, count_a * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cb_matmul_fill_uniform(hb, count_b, 22);
    CB_CHECK(cudaMemcpy(db, hb, count_b * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

    const cb_matmul_args args = {m, n, k, 1.0f, 0.0f, da, db, dc, NULL, 0};
    cb_matmul_plan sk, whole;
    CB_CHECK_EQ_INT(cb_matmul_plan_make(&cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8_STREAMK,
                                        &args, &sk, &info),
                    cudaSuccess);
    printf("  stream-K config at %d x %d x %d: %s, %d blocks in all (%d slots in the "
           "partition)\n",
           m, n, k, info.desc, info.grid_x, slots);
    CB_CHECK(want.sk_blocks > 0 && want.sk_blocks <= slots);
    CB_CHECK_EQ_INT(info.grid_x, want.sk_blocks + want.dp_tiles); /* the partition's split */
    CB_CHECK_EQ_INT(
        cb_matmul_plan_make(&cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8, &args, &whole, NULL),
        cudaSuccess);
    cb_run_bounded(&whole, s, dc, c_whole, count, 60.0);
    cb_run_bounded(&sk, s, dc, c_sk, count, 60.0);

    /* Two FP32 sums of the same k products, in any order, each within
     * k u sum|a b| of the exact sum (u = FLT_EPSILON / 2): apart by at
     * most k FLT_EPSILON sum|a b|. */
    size_t differ = 0, beyond = 0, poisoned = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            const size_t at = (size_t)i * n + j;
            poisoned += (c_sk[at] != c_sk[at]) + (c_whole[at] != c_whole[at]);
            if (c_sk[at] == c_whole[at]) continue;
            differ++;
            double mag = 0.0;
            for (int q = 0; q < k; q++)
                mag += fabs((double)ha[(size_t)i * k + q] * (double)hb[(size_t)q * n + j]);
            beyond += fabs((double)c_sk[at] - (double)c_whole[at]) > k * (double)FLT_EPSILON * mag;
        }
    printf("  in the partition: %zu of %zu elements differ from the whole tiles' C, %zu beyond "
           "the bound, %zu unwritten\n",
           differ, count, beyond, poisoned);
    CB_CHECK(differ > 0); /* the stream-K tail ran, not whole tiles */
    CB_CHECK(beyond == 0);
    CB_CHECK(poisoned == 0);

    cb_matmul_plan_release(&sk);
    cb_matmul_plan_release(&whole);
    CB_CHECK(cudaFree(da) == cudaSuccess);
    CB_CHECK(cudaFree(db) == cudaSuccess);
    CB_CHECK(cudaFree(dc) == cudaSuccess);
    CB_CHECK(cudaStreamDestroy(s) == cudaSuccess);
    CUcontext popped;
    CB_CHECK(pop(&popped) == CUDA_SUCCESS);
    CB_CHECK(green_destroy(green) == CUDA_SUCCESS);
    free(ha);
    free(hb);
    free(c_sk);
    free(c_whole);
    return cb_test_finish("test_matmul_streamk_share");
}
