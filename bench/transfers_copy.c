/* transfers_copy.c - the copy-engine benchmarks: cudaMemcpy (sync),
 * cudaMemcpyAsync (async), both directions at once (bidir) and device to
 * device (d2d).
 *
 * Every copy moves the pattern of transfers_pattern.h into a destination
 * poisoned with its complement, and verify counts every destination byte
 * that differs. Buffers are made and filled in setup; `run` is the one API
 * call being measured (plus the fork/join events of bidir). */
#include "transfers.h"
#include "mem_budget.h"
#include "transfers_kernels.h"
#include "transfers_pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef cb_xfer_copy_op copy_op;

typedef struct copy_state {
    copy_op op;
    bool h2d; /* direction of CB_XFER_OP_SYNC / CB_XFER_OP_ASYNC                         */
    size_t bytes;
    /* CB_XFER_OP_SYNC/CB_XFER_OP_ASYNC: host[0] is the H2D source or the D2H destination,
     * dev[0] the other end. CB_XFER_OP_BIDIR: host[0] -> dev[0] and dev[1] -> host[1].
     * CB_XFER_OP_D2D: dev[0] -> dev[1]. seed[k] is the pattern of pair k. */
    cb_xfer_host_buf host[2];
    void *dev[2];
    uint64_t seed[2];
    unsigned long long *counter; /* device scratch for the checks       */
    cudaStream_t stream;         /* the runner's: setup and verify work  */
    cudaStream_t side[2];        /* bidir: one stream per direction      */
    cudaEvent_t fork, join[2];
} copy_state;

static const char *mem_note(cb_xfer_mem m)
{
    switch (m) {
    case CB_XFER_PAGEABLE:
        return "pageable memory is staged through a driver bounce buffer";
    case CB_XFER_PINNED:
        return "pinned memory (cudaMallocHost): direct DMA";
    case CB_XFER_REGISTERED:
        return "malloc'd memory page-locked by cudaHostRegister: direct DMA";
    case CB_XFER_WC:
        return "write-combined pinned memory: direct DMA, CPU reads uncached";
    }
    return "";
}

static void fill_info(const copy_state *st, cb_xfer_mem mem, cb_point_info *info)
{
    const int device_kind = 3;
    int host_kind = cb_xfer_mem_cupti_kind(mem);
    switch (st->op) {
    case CB_XFER_OP_SYNC:
    case CB_XFER_OP_ASYNC:
        info->memcpy_src_kind = st->h2d ? host_kind : device_kind;
        info->memcpy_dst_kind = st->h2d ? device_kind : host_kind;
        if (st->op == CB_XFER_OP_SYNC)
            snprintf(info->note, sizeof info->note, "cudaMemcpy, host-timed to completion; %s",
                     mem_note(mem));
        else if (mem == CB_XFER_PAGEABLE)
            snprintf(info->note, sizeof info->note,
                     "cudaMemcpyAsync: %s; the call blocks the host (H2D until staged, D2H until "
                     "done)",
                     mem_note(mem));
        else
            snprintf(info->note, sizeof info->note, "cudaMemcpyAsync on the runner's stream; %s",
                     mem_note(mem));
        break;
    case CB_XFER_OP_BIDIR:
        /* Two memcpys of different kinds per run: nothing single to check. */
        info->memcpy_src_kind = info->memcpy_dst_kind = 0;
        snprintf(info->note, sizeof info->note,
                 "H2D and D2H of `bytes` each at once on two streams; bytes = 2 x size; %s",
                 mem_note(mem));
        break;
    case CB_XFER_OP_D2D:
        info->memcpy_src_kind = info->memcpy_dst_kind = device_kind;
        snprintf(info->note, sizeof info->note,
                 "cudaMemcpyAsync device to device; bytes = 2 x size (read + write), as "
                 "BabelStream and nvbandwidth count");
        break;
    }
}

cb_status cb_xfer_copy_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                             cb_point_info *info, cb_msg *why)
{
    const copy_op op = *(const cb_xfer_copy_op *)ctx->param;
    size_t bytes = (size_t)cb_point_int(p, "bytes");
    bool h2d = (op == CB_XFER_OP_SYNC || op == CB_XFER_OP_ASYNC)
                   ? cb_point_is(p, "direction", "h2d")
                   : true;
    cb_xfer_mem mem = CB_XFER_PINNED;
    if (op != CB_XFER_OP_D2D && !cb_xfer_mem_parse(cb_point_str(p, "memory"), &mem)) {
        cb_msg_set(why, "unknown memory kind '%s'", cb_point_str(p, "memory"));
        return CB_FAIL;
    }
    uint64_t host_need = op == CB_XFER_OP_D2D     ? 0
                         : op == CB_XFER_OP_BIDIR ? cb_mem_bytes(bytes, 2)
                                                  : bytes;
    uint64_t dev_need =
        op == CB_XFER_OP_SYNC || op == CB_XFER_OP_ASYNC ? bytes : cb_mem_bytes(bytes, 2);
    cb_status fit = cb_xfer_check_fit(host_need, dev_need, why);
    if (fit != CB_OK) return fit;

    copy_state *st = calloc(1, sizeof *st);
    if (!st) {
        cb_msg_set(why, "out of host memory");
        return CB_SKIP;
    }
    /* From here on the runner calls teardown, which frees what was made. */
    *state = st;
    st->op = op;
    st->h2d = h2d;
    st->bytes = bytes;
    st->stream = ctx->stream;
    st->seed[0] = cb_mix64(ctx->seed ^ 0x7a05f3e5u);
    st->seed[1] = cb_mix64(ctx->seed ^ 0x5eedb1d1u);
    fill_info(st, mem, info);
    CB_CUDA(cudaMalloc((void **)&st->counter, sizeof *st->counter));

    cb_status s = CB_OK;
    int n_dev = op == CB_XFER_OP_SYNC || op == CB_XFER_OP_ASYNC ? 1 : 2;
    for (int k = 0; k < n_dev; k++)
        CB_CUDA(cudaMalloc(&st->dev[k], bytes));
    int n_host = op == CB_XFER_OP_D2D ? 0 : op == CB_XFER_OP_BIDIR ? 2 : 1;
    for (int k = 0; k < n_host && s == CB_OK; k++)
        s = cb_xfer_host_alloc(&st->host[k], mem, bytes, why);
    if (s != CB_OK) return s;

    /* Sources get the pattern, destinations its complement. */
    switch (op) {
    case CB_XFER_OP_SYNC:
    case CB_XFER_OP_ASYNC:
        if (h2d) {
            s = cb_xfer_host_fill(&st->host[0], st->seed[0], false, st->stream, why);
            if (s == CB_OK)
                s = cb_xfer_dev_fill(st->dev[0], bytes, st->seed[0], true, st->stream, why);
        } else {
            s = cb_xfer_dev_fill(st->dev[0], bytes, st->seed[0], false, st->stream, why);
            if (s == CB_OK) s = cb_xfer_host_fill(&st->host[0], st->seed[0], true, st->stream, why);
        }
        break;
    case CB_XFER_OP_BIDIR:
        s = cb_xfer_host_fill(&st->host[0], st->seed[0], false, st->stream, why);
        if (s == CB_OK) s = cb_xfer_dev_fill(st->dev[0], bytes, st->seed[0], true, st->stream, why);
        if (s == CB_OK)
            s = cb_xfer_dev_fill(st->dev[1], bytes, st->seed[1], false, st->stream, why);
        if (s == CB_OK) s = cb_xfer_host_fill(&st->host[1], st->seed[1], true, st->stream, why);
        if (s != CB_OK) return s;
        for (int k = 0; k < 2; k++) {
            CB_CUDA(cudaStreamCreateWithFlags(&st->side[k], cudaStreamNonBlocking));
            CB_CUDA(cudaEventCreateWithFlags(&st->join[k], cudaEventDisableTiming));
        }
        CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
        break;
    case CB_XFER_OP_D2D:
        s = cb_xfer_dev_fill(st->dev[0], bytes, st->seed[0], false, st->stream, why);
        if (s == CB_OK) s = cb_xfer_dev_fill(st->dev[1], bytes, st->seed[0], true, st->stream, why);
        break;
    }
    return s;
}

cb_status cb_xfer_copy_run(void *state, cudaStream_t s, cb_msg *why)
{
    copy_state *st = state;
    size_t n = st->bytes;
    switch (st->op) {
    case CB_XFER_OP_SYNC:
        if (st->h2d) {
            CB_CUDA(cudaMemcpy(st->dev[0], st->host[0].host, n, cudaMemcpyHostToDevice));
            /* From pageable memory cudaMemcpy may return once the last chunk
             * is staged, before its DMA lands; the copy went to the legacy
             * stream, which the runner's stream sync does not cover. Wait
             * for it so the host timer measures the data's arrival. */
            if (st->host[0].kind == CB_XFER_PAGEABLE)
                CB_CUDA(cudaStreamSynchronize(cudaStreamLegacy));
        } else {
            CB_CUDA(cudaMemcpy(st->host[0].host, st->dev[0], n, cudaMemcpyDeviceToHost));
        }
        break;
    case CB_XFER_OP_ASYNC:
        if (st->h2d)
            CB_CUDA(cudaMemcpyAsync(st->dev[0], st->host[0].host, n, cudaMemcpyHostToDevice, s));
        else
            CB_CUDA(cudaMemcpyAsync(st->host[0].host, st->dev[0], n, cudaMemcpyDeviceToHost, s));
        break;
    case CB_XFER_OP_D2D:
        CB_CUDA(cudaMemcpyAsync(st->dev[1], st->dev[0], n, cudaMemcpyDeviceToDevice, s));
        break;
    case CB_XFER_OP_BIDIR:
        /* Fork from the runner's stream and join back, so its events
         * bracket both copies and batched runs stay in order. H2D first:
         * from pageable memory the D2H call blocks until it is done. */
        CB_CUDA(cudaEventRecord(st->fork, s));
        for (int k = 0; k < 2; k++)
            CB_CUDA(cudaStreamWaitEvent(st->side[k], st->fork, 0));
        CB_CUDA(
            cudaMemcpyAsync(st->dev[0], st->host[0].host, n, cudaMemcpyHostToDevice, st->side[0]));
        CB_CUDA(
            cudaMemcpyAsync(st->host[1].host, st->dev[1], n, cudaMemcpyDeviceToHost, st->side[1]));
        for (int k = 0; k < 2; k++) {
            CB_CUDA(cudaEventRecord(st->join[k], st->side[k]));
            CB_CUDA(cudaStreamWaitEvent(s, st->join[k], 0));
        }
        break;
    }
    return CB_OK;
}

cb_status cb_xfer_copy_verify(void *state, double *error, cb_msg *why)
{
    copy_state *st = state;
    uint64_t bad[2] = {0, 0};
    const char *what[2] = {"", ""};
    cb_status s = CB_OK;
    switch (st->op) {
    case CB_XFER_OP_SYNC:
    case CB_XFER_OP_ASYNC:
        if (st->h2d) {
            what[0] = "device destination";
            s = cb_xfer_dev_count(st->dev[0], st->bytes, st->seed[0], st->counter, st->stream,
                                  &bad[0], why);
        } else {
            what[0] = "host destination";
            s = cb_xfer_host_count(&st->host[0], st->seed[0], st->counter, st->stream, &bad[0],
                                   why);
        }
        break;
    case CB_XFER_OP_D2D:
        what[0] = "device destination";
        s = cb_xfer_dev_count(st->dev[1], st->bytes, st->seed[0], st->counter, st->stream, &bad[0],
                              why);
        break;
    case CB_XFER_OP_BIDIR:
        what[0] = "H2D destination";
        what[1] = "D2H destination";
        s = cb_xfer_dev_count(st->dev[0], st->bytes, st->seed[0], st->counter, st->stream, &bad[0],
                              why);
        if (s == CB_OK)
            s = cb_xfer_host_count(&st->host[1], st->seed[1], st->counter, st->stream, &bad[1],
                                   why);
        break;
    }
    if (s != CB_OK) return s;
    *error = (double)(bad[0] + bad[1]);
    for (int k = 0; k < 2; k++) {
        if (bad[k]) {
            cb_msg_set(why, "%llu of %zu bytes of the %s differ from the source",
                       (unsigned long long)bad[k], st->bytes, what[k]);
            return CB_FAIL;
        }
    }
    return CB_OK;
}

void cb_xfer_copy_teardown(void *state)
{
    copy_state *st = state;
    if (!st) return;
    /* Errors cannot be reported from here; a failed point already says why. */
    for (int k = 0; k < 2; k++) {
        cb_xfer_host_free(&st->host[k]);
        (void)cudaFree(st->dev[k]);
        if (st->side[k]) (void)cudaStreamDestroy(st->side[k]);
        if (st->join[k]) (void)cudaEventDestroy(st->join[k]);
    }
    if (st->fork) (void)cudaEventDestroy(st->fork);
    (void)cudaFree(st->counter);
    free(st);
}
