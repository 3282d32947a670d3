/* test_matmul_streamk_share.c - the FP32 pipelined rung's stream-K config
 * in a process that has fewer SMs than the device: a green context of the
 * smallest SM partition the device allows (what an MPS client's share or a
 * partitioned GPU gives a process). The split is made for the whole
 * device's slots, and its owners wait for later blocks, which only a
 * cooperative launch promises to run beside them; in the partition that
 * launch is refused and every tile runs whole. Checked: the point
 * finishes (within a deadline, not ctest's timeout) and its C is the
 * whole-tile config's bit for bit (the stream-K sums round differently,
 * so a stream-K launch that ran anyway fails here, as the launch before
 * the cooperative one did). Skips where green contexts are not available
 * (driver before CUDA 12.4, or a device that cannot partition). */
/* test links: cubench_engine cubench_bench */
#include "gpu_test_util.h"
#include "matmul_kernels.h"
#include "matmul_ref.h"

#include <cuda.h>
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
    CB_CHECK(green_to_ctx(&ctx, green) == CUDA_SUCCESS);
    CB_CHECK(push(ctx) == CUDA_SUCCESS);
    printf("  a green context of %u of the device's %u SMs\n", part.sm.smCount, all.sm.smCount);

    /* 2048^2 is 256 tiles of 128 x 128: under one wave of the device's
     * slots, so every tile is shared by stream-K blocks, as many blocks as
     * the whole device holds. */
    const int size = 2048;
    const size_t count = (size_t)size * size;
    float *h = malloc(count * sizeof(float)), *c_sk = malloc(count * sizeof(float)),
          *c_whole = malloc(count * sizeof(float));
    float *da = NULL, *db = NULL, *dc = NULL;
    cudaStream_t s;
    CB_CHECK(h && c_sk && c_whole);
    CB_CHECK(cudaStreamCreate(&s) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&da, count * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&db, count * sizeof(float)) == cudaSuccess);
    CB_CHECK(cudaMalloc((void **)&dc, count * sizeof(float)) == cudaSuccess);
    if (!h || !c_sk || !c_whole || !da || !db || !dc)
        return cb_test_finish("test_matmul_streamk_share");
    cb_matmul_fill_uniform(h, count, 21);
    CB_CHECK(cudaMemcpy(da, h, count * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);
    cb_matmul_fill_uniform(h, count, 22);
    CB_CHECK(cudaMemcpy(db, h, count * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess);

    const cb_matmul_args args = {size, size, size / 4, 1.0f, 0.0f, da, db, dc, NULL, 0};
    cb_matmul_plan sk, whole;
    cb_matmul_launch_info info;
    CB_CHECK_EQ_INT(cb_matmul_plan_make(&cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8_STREAMK,
                                        &args, &sk, &info),
                    cudaSuccess);
    printf("  stream-K config: %s, %d blocks in all\n", info.desc, info.grid_x);
    CB_CHECK(info.grid_x > 2 * (int)part.sm.smCount); /* more than the partition holds */
    CB_CHECK_EQ_INT(
        cb_matmul_plan_make(&cb_matmul_rung_pipelined, CB_MATMUL_M128N128K8, &args, &whole, NULL),
        cudaSuccess);
    cb_run_bounded(&whole, s, dc, c_whole, count, 60.0);
    cb_run_bounded(&sk, s, dc, c_sk, count, 60.0);
    const bool same = memcmp(c_sk, c_whole, count * sizeof(float)) == 0;
    printf("  stream-K config in the partition: %s the whole tiles' C\n",
           same ? "bit for bit" : "DIFFERS from (it ran stream-K)");
    CB_CHECK(same);
    size_t poisoned = 0; /* and every element of it was written */
    for (size_t i = 0; i < count; i++)
        poisoned += c_whole[i] != c_whole[i];
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
    free(h);
    free(c_sk);
    free(c_whole);
    return cb_test_finish("test_matmul_streamk_share");
}
