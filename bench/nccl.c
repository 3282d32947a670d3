/* nccl.c - NCCL collectives across the GPUs of the run, one process driving
 * them all (ncclCommInitAll and group calls), measured like nccl-tests.
 *
 *   nccl/all_reduce      sum, out of place, `bytes` per rank
 *   nccl/all_gather      `bytes` = the gathered output (bytes / ranks each)
 *   nccl/reduce_scatter  `bytes` = each rank's input (bytes / ranks out)
 *   nccl/broadcast       from rank 0, `bytes` per rank
 *
 * `bytes` is nccl-tests' size, so gbps in results.csv is its algorithm
 * bandwidth (size / time); nccl.csv adds the bus bandwidth, algbw times
 * 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for
 * broadcast (nccl_model.c). Inputs are small integers (exact in float and
 * bf16 and in any sum of them), outputs poisoned with NaN, and every output
 * element of every rank is checked exactly.
 *
 * NCCL is optional at build time: without nccl.h the family still
 * registers and every point is a skip row saying so. NVLink SHARP (NVLS) is
 * switched off (NCCL_NVLS_ENABLE=0) unless the user set the variable: the
 * a machine asks for it, and its buffers cost memory at init. */
#include "nccl_model.h"
#include "transfers.h"
#include "mem_budget.h"
#include "common_axes.h"

#include "cb_random.h"
#include "collective_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CB_HAVE_NCCL
#include <nccl.h>

#define CB_NCCL(call)                                                                              \
    CB_CHECK_NAMED_STATUS(ncclResult_t, ncclSuccess, ncclGetErrorString, call, #call)

enum { CB_COLL_MAX_RANKS = 64 };

/* One communicator set per process, for the device list last asked for:
 * ncclCommInitAll costs tens to hundreds of milliseconds, and a sweep asks
 * for the same devices point after point. Destroyed at exit. */
static struct {
    int n;
    int devs[CB_COLL_MAX_RANKS];
    ncclComm_t comms[CB_COLL_MAX_RANKS];
    bool exit_hook;
} comm_cache;

static void comm_cache_clear(void)
{
    for (int r = 0; r < comm_cache.n; r++)
        ncclCommDestroy(comm_cache.comms[r]);
    comm_cache.n = 0;
}

static cb_status comms_for(const int *devs, int n, ncclComm_t **out, cb_msg *why)
{
    bool same = comm_cache.n == n;
    for (int r = 0; same && r < n; r++)
        same = comm_cache.devs[r] == devs[r];
    if (!same) {
        comm_cache_clear();
        /* 0: keep a value the user set. */
        setenv("NCCL_NVLS_ENABLE", "0", 0);
        CB_NCCL(ncclCommInitAll(comm_cache.comms, n, devs));
        comm_cache.n = n;
        memcpy(comm_cache.devs, devs, sizeof(int) * (size_t)n);
        if (!comm_cache.exit_hook) comm_cache.exit_hook = atexit(comm_cache_clear) == 0;
    }
    *out = comm_cache.comms;
    return CB_OK;
}

typedef struct coll_state {
    cb_coll_op op;
    cb_coll_dtype dtype;
    int n;
    int devs[CB_COLL_MAX_RANKS];
    ncclComm_t *comms;
    size_t send_count, recv_count; /* elements per rank */
    size_t elem;
    void *send[CB_COLL_MAX_RANKS], *recv[CB_COLL_MAX_RANKS];
    cudaStream_t streams[CB_COLL_MAX_RANKS];
    cudaEvent_t fork, join[CB_COLL_MAX_RANKS];
    unsigned long long *bad[CB_COLL_MAX_RANKS];
    uint64_t seed;
    int runner_dev;
} coll_state;

static void coll_teardown(void *state)
{
    coll_state *st = state;
    for (int r = 0; r < st->n; r++) {
        if (cudaSetDevice(st->devs[r]) != cudaSuccess) continue;
        if (st->streams[r]) cudaStreamDestroy(st->streams[r]);
        if (st->join[r]) cudaEventDestroy(st->join[r]);
        cudaFree(st->send[r]);
        cudaFree(st->recv[r]);
        cudaFree(st->bad[r]);
    }
    if (cudaSetDevice(st->runner_dev) == cudaSuccess && st->fork) cudaEventDestroy(st->fork);
    (void)cudaGetLastError();
    free(st);
}

static cb_status coll_allocate(coll_state *st, cb_msg *why)
{
    for (int r = 0; r < st->n; r++) {
        CB_CUDA(cudaSetDevice(st->devs[r]));
        CB_CUDA(cudaStreamCreateWithFlags(&st->streams[r], cudaStreamNonBlocking));
        CB_CUDA(cudaEventCreateWithFlags(&st->join[r], cudaEventDisableTiming));
        CB_CUDA(cudaMalloc((void **)&st->bad[r], sizeof(unsigned long long)));
        CB_CUDA(cudaMalloc(&st->send[r], st->send_count * st->elem));
        CB_CUDA(cudaMalloc(&st->recv[r], st->recv_count * st->elem));
        /* Inputs: rank r's elements, numbered as the collective sees them
         * (reduce-scatter's input is the whole vector). Outputs: all-ones
         * bytes, a NaN in float and in bf16. */
        CB_CUDA(cb_coll_launch_fill(st->send[r], st->dtype, st->send_count, st->seed, r, 0,
                                    st->streams[r]));
        CB_CUDA(cudaMemsetAsync(st->recv[r], 0xff, st->recv_count * st->elem, st->streams[r]));
    }
    for (int r = 0; r < st->n; r++) {
        CB_CUDA(cudaSetDevice(st->devs[r]));
        CB_CUDA(cudaStreamSynchronize(st->streams[r]));
    }
    CB_CUDA(cudaSetDevice(st->runner_dev));
    CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
    return CB_OK;
}

static cb_status coll_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                            cb_point_info *info, cb_msg *why)
{
    const cb_coll_op op = *(const cb_coll_op *)ctx->param;
    int n = (int)cb_point_int(p, "ranks");
    if (n > ctx->n_devs) {
        cb_msg_set(why,
                   "needs %d devices; this run has %d (--device all on a machine with more GPUs)",
                   n, ctx->n_devs);
        return CB_SKIP;
    }
    if (n > CB_COLL_MAX_RANKS) {
        cb_msg_set(why, "ranks=%d: at most %d in one process", n, CB_COLL_MAX_RANKS);
        return CB_SKIP;
    }
    cb_coll_dtype dtype = cb_point_is(p, "dtype", "bf16") ? CB_COLL_BF16 : CB_COLL_FLOAT;
    size_t elem = dtype == CB_COLL_BF16 ? 2 : 4;
    size_t send_count, recv_count;
    uint64_t bytes = (uint64_t)cb_point_int(p, "bytes");
    if (!cb_coll_counts(op, bytes, n, elem, &send_count, &recv_count)) {
        cb_msg_set(why, "bytes=%llu is not a multiple of %d rank(s) x %zu-byte elements",
                   (unsigned long long)bytes, n, elem);
        return CB_SKIP;
    }
    cb_status fit =
        cb_xfer_check_fit(0, (uint64_t)(send_count + recv_count) * elem, why); /* per device */
    if (fit != CB_OK) return fit;

    coll_state *st = cb_mem_state_new(sizeof *st, "out of host memory", why);
    if (!st) return CB_SKIP;
    *state = st;
    st->op = op, st->dtype = dtype, st->n = n, st->elem = elem;
    st->send_count = send_count, st->recv_count = recv_count;
    st->seed = cb_mix64(ctx->seed ^ 0xc011ec7u);
    st->runner_dev = ctx->dev->ordinal;
    for (int r = 0; r < n; r++)
        st->devs[r] = ctx->devs[r]->ordinal;
    int version = 0;
    CB_NCCL(ncclGetVersion(&version));
    snprintf(info->note, sizeof info->note, "NCCL %d.%d.%d, %d rank(s) on devices %d%s%s",
             version / 10000, version / 100 % 100, version % 100, n, st->devs[0], n > 1 ? ".." : "",
             n > 1 ? "(the first ranks of --device)" : "");
    info->occupancy = -1.0;
    cb_status s = comms_for(st->devs, n, &st->comms, why);
    if (s != CB_OK) return s;
    return coll_allocate(st, why);
}

static cb_status coll_run(void *state, cudaStream_t stream, cb_msg *why)
{
    coll_state *st = state;
    ncclDataType_t t = st->dtype == CB_COLL_BF16 ? ncclBfloat16 : ncclFloat32;
    CB_CUDA(cudaEventRecord(st->fork, stream));
    for (int r = 0; r < st->n; r++)
        CB_CUDA(cudaStreamWaitEvent(st->streams[r], st->fork, 0));
    CB_NCCL(ncclGroupStart());
    for (int r = 0; r < st->n; r++) {
        ncclResult_t e = ncclSuccess;
        switch (st->op) {
        case CB_COLL_ALL_REDUCE:
            e = ncclAllReduce(st->send[r], st->recv[r], st->send_count, t, ncclSum, st->comms[r],
                              st->streams[r]);
            break;
        case CB_COLL_ALL_GATHER:
            e = ncclAllGather(st->send[r], st->recv[r], st->send_count, t, st->comms[r],
                              st->streams[r]);
            break;
        case CB_COLL_REDUCE_SCATTER:
            e = ncclReduceScatter(st->send[r], st->recv[r], st->recv_count, t, ncclSum,
                                  st->comms[r], st->streams[r]);
            break;
        case CB_COLL_BROADCAST:
            e = ncclBroadcast(st->send[r], st->recv[r], st->send_count, t, 0, st->comms[r],
                              st->streams[r]);
            break;
        }
        if (e != ncclSuccess) {
            (void)ncclGroupEnd();
            cb_msg_set(why, "rank %d: %s", r, ncclGetErrorString(e));
            return CB_FAIL;
        }
    }
    CB_NCCL(ncclGroupEnd());
    for (int r = 0; r < st->n; r++) {
        CB_CUDA(cudaEventRecord(st->join[r], st->streams[r]));
        CB_CUDA(cudaStreamWaitEvent(stream, st->join[r], 0));
    }
    return CB_OK;
}

/* Enqueue the checks of rank r's output; what each element must hold. */
static cudaError_t check_rank(const coll_state *st, int r)
{
    size_t count = st->recv_count;
    switch (st->op) {
    case CB_COLL_ALL_REDUCE:
        return cb_coll_launch_check(st->recv[r], st->dtype, count, st->seed, CB_COLL_EXPECT_SUM,
                                    st->n, 0, 0, st->bad[r], st->streams[r]);
    case CB_COLL_REDUCE_SCATTER:
        /* Rank r holds the sum of block r of every rank's input. */
        return cb_coll_launch_check(st->recv[r], st->dtype, count, st->seed, CB_COLL_EXPECT_SUM,
                                    st->n, 0, (size_t)r * count, st->bad[r], st->streams[r]);
    case CB_COLL_BROADCAST:
        return cb_coll_launch_check(st->recv[r], st->dtype, count, st->seed, CB_COLL_EXPECT_COPY,
                                    st->n, 0, 0, st->bad[r], st->streams[r]);
    case CB_COLL_ALL_GATHER: {
        /* Block k of the output is rank k's input. */
        size_t block = st->send_count;
        for (int k = 0; k < st->n; k++) {
            cudaError_t e = cb_coll_launch_check(
                (const char *)st->recv[r] + (size_t)k * block * st->elem, st->dtype, block,
                st->seed, CB_COLL_EXPECT_COPY, st->n, k, 0, st->bad[r], st->streams[r]);
            if (e != cudaSuccess) return e;
        }
        return cudaSuccess;
    }
    }
    return cudaErrorInvalidValue;
}

static cb_status coll_verify(void *state, double *error, cb_msg *why)
{
    coll_state *st = state;
    unsigned long long total = 0;
    int first_bad_rank = -1;
    for (int r = 0; r < st->n; r++) {
        CB_CUDA(cudaSetDevice(st->devs[r]));
        CB_CUDA(cudaMemsetAsync(st->bad[r], 0, sizeof(unsigned long long), st->streams[r]));
        CB_CUDA(check_rank(st, r));
    }
    for (int r = 0; r < st->n; r++) {
        unsigned long long bad = 0;
        CB_CUDA(cudaSetDevice(st->devs[r]));
        CB_CUDA(
            cudaMemcpyAsync(&bad, st->bad[r], sizeof bad, cudaMemcpyDeviceToHost, st->streams[r]));
        CB_CUDA(cudaStreamSynchronize(st->streams[r]));
        if (bad && first_bad_rank < 0) first_bad_rank = r;
        total += bad;
    }
    CB_CUDA(cudaSetDevice(st->runner_dev));
    *error = (double)total;
    if (total) {
        cb_msg_set(why, "%llu wrong elements over %d rank(s), first on rank %d", total, st->n,
                   first_bad_rank);
        return CB_FAIL;
    }
    return CB_OK;
}

#else /* no NCCL at build time */

static cb_status coll_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                            cb_point_info *info, cb_msg *why)
{
    (void)p, (void)ctx, (void)state, (void)info;
    cb_msg_set(why, "built without NCCL (no nccl.h found at configure time: install the "
                    "nvidia-nccl-cu13 wheel or libnccl-dev and rebuild)");
    return CB_SKIP;
}
static cb_status coll_run(void *state, cudaStream_t stream, cb_msg *why)
{
    (void)state, (void)stream, (void)why;
    return CB_FAIL;
}
static cb_status coll_verify(void *state, double *error, cb_msg *why)
{
    (void)state, (void)error, (void)why;
    return CB_FAIL;
}
static void coll_teardown(void *state)
{
    free(state);
}

#endif

static double coll_bytes(const cb_point *p)
{
    return (double)cb_point_int(p, "bytes");
}

static const cb_axis_def coll_axes[] = {
    {.name = "ranks",
     .kind = CB_AXIS_INT,
     .defaults = "1,2",
     .min_value = 1,
     .help = "GPUs in the communicator: the first `ranks` devices of --device"},
    {.name = "dtype",
     .kind = CB_AXIS_ENUM,
     /* Spelt out: tests/py/test_python_roads.py reads these defaults here
      * to check that torch_dist's match them. */
     .defaults = "float,bf16",
     .choices = "float,bf16",
     .help = "element type (the reduction is a sum)"},
    {CB_AXIS_BYTES, .defaults = "2^10,2^20,2^30",
     .help = "nccl-tests' size: per rank (all-reduce, broadcast), gathered output "
             "(all-gather), each input (reduce-scatter)"},
};

/* The family defaults: one process driving every GPU of the run, for the
 * collective CB_COLL_<op>. */
#define CB_NCCL_FAMILY(op)                                                                         \
    .param = &(const cb_coll_op){CB_COLL_##op}, .target = CB_TARGET_CUDA, .devices = 2,            \
    CB_AXES(coll_axes), .peak = CB_PEAK_NONE, .bytes = coll_bytes, .setup = coll_setup,            \
    .run = coll_run, .verify = coll_verify, .teardown = coll_teardown

static const cb_bench nccl_benches[] = {
    {.name = "nccl/all_reduce",
     .summary = "ncclAllReduce (sum), one process driving every GPU",
     CB_NCCL_FAMILY(ALL_REDUCE)},
    {.name = "nccl/all_gather", .summary = "ncclAllGather", CB_NCCL_FAMILY(ALL_GATHER)},
    {.name = "nccl/reduce_scatter",
     .summary = "ncclReduceScatter (sum)",
     CB_NCCL_FAMILY(REDUCE_SCATTER)},
    {.name = "nccl/broadcast", .summary = "ncclBroadcast from rank 0", CB_NCCL_FAMILY(BROADCAST)},
};

const cb_family cb_family_nccl = {.name = "nccl",
                                  .benches = nccl_benches,
                                  .count = CB_ARRAY_LEN(nccl_benches),
                                  .write_outputs = cb_nccl_write_csv};
