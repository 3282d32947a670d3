/* transfers_zero_copy.c - a kernel reads (h2d) or writes (d2h) pinned,
 * mapped host memory through its device alias (cudaHostGetDevicePointer):
 * the zero-copy path, where each load or store of the kernel crosses PCIe
 * and no copy engine or cudaMemcpy is involved. The kernel copies between
 * that host buffer and a device buffer so the result is checkable exactly
 * like a memcpy. */
#include "transfers.h"
#include "mem_budget.h"
#include "transfers_kernels.h"
#include "transfers_pattern.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct zero_copy_state {
    bool h2d;
    size_t bytes;
    int grid;
    cb_xfer_host_buf host;
    void *dev;
    uint64_t seed;
    unsigned long long *counter;
    cudaStream_t stream;
} zero_copy_state;

cb_status cb_xfer_zero_copy_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                  cb_point_info *info, cb_msg *why)
{
    size_t bytes = (size_t)cb_point_int(p, "bytes");
    bool h2d = cb_point_is(p, "direction", "h2d");
    cb_status s = cb_xfer_check_fit(bytes, bytes, why);
    if (s != CB_OK) return s;

    zero_copy_state *st = cb_mem_state_new(sizeof *st, "out of host memory", why);
    if (!st) return CB_SKIP;
    *state = st;
    st->h2d = h2d;
    st->bytes = bytes;
    st->stream = ctx->stream;
    st->seed = cb_mix64(ctx->seed ^ 0x2e40c0b1u);
    /* Eight blocks of 256 threads per SM keep ~16 bytes x 270k threads of
     * PCIe requests in flight on an H200: far more than the link's
     * bandwidth-latency product, so the loads are never the limit. */
    st->grid = 8 * (ctx->dev && ctx->dev->sm_count > 0 ? ctx->dev->sm_count : 16);
    info->memcpy_src_kind = info->memcpy_dst_kind = 0; /* no memcpy at all */
    info->target_ci_rel = CB_XFER_LINK_TARGET_CI;
    snprintf(info->note, sizeof info->note,
             "kernel %s pinned host memory through its mapped device pointer (zero-copy, "
             "no copy engine), %d blocks x 256",
             h2d ? "reads" : "writes", st->grid);

    CB_CUDA(cudaMalloc((void **)&st->counter, sizeof *st->counter));
    CB_CUDA(cudaMalloc(&st->dev, bytes));
    s = cb_xfer_host_alloc(&st->host, CB_XFER_PINNED, bytes, why);
    if (s != CB_OK) return s;
    if (!st->host.dev) {
        cb_msg_set(why, "pinned memory has no device alias here (no mapped host memory)");
        return CB_SKIP;
    }
    if (h2d) {
        s = cb_xfer_host_fill(&st->host, st->seed, false, st->stream, why);
        if (s == CB_OK) s = cb_xfer_dev_fill(st->dev, bytes, st->seed, true, st->stream, why);
    } else {
        s = cb_xfer_dev_fill(st->dev, bytes, st->seed, false, st->stream, why);
        if (s == CB_OK) s = cb_xfer_host_fill(&st->host, st->seed, true, st->stream, why);
    }
    return s;
}

cb_status cb_xfer_zero_copy_run(void *state, cudaStream_t s, cb_msg *why)
{
    zero_copy_state *st = state;
    if (st->h2d)
        CB_CUDA(cb_xfer_launch_kernel_copy(st->dev, st->host.dev, st->bytes, st->grid, s));
    else
        CB_CUDA(cb_xfer_launch_kernel_copy(st->host.dev, st->dev, st->bytes, st->grid, s));
    return CB_OK;
}

cb_status cb_xfer_zero_copy_verify(void *state, double *error, cb_msg *why)
{
    zero_copy_state *st = state;
    uint64_t bad = 0;
    cb_status s =
        st->h2d
            ? cb_xfer_dev_count(st->dev, st->bytes, st->seed, st->counter, st->stream, &bad, why)
            : cb_xfer_host_count(&st->host, st->seed, st->counter, st->stream, &bad, why);
    if (s != CB_OK) return s;
    *error = (double)bad;
    if (bad) {
        cb_msg_set(why, "%llu of %zu bytes of the %s destination differ from the source",
                   (unsigned long long)bad, st->bytes, st->h2d ? "device" : "host");
        return CB_FAIL;
    }
    return CB_OK;
}

void cb_xfer_zero_copy_teardown(void *state)
{
    zero_copy_state *st = state;
    if (!st) return;
    cb_xfer_host_free(&st->host);
    (void)cudaFree(st->dev);
    (void)cudaFree(st->counter);
    free(st);
}
