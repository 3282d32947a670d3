/* p2p.c - peer-to-peer copies between two GPUs of the run.
 *
 *   p2p/copy   cudaMemcpyPeerAsync from `src` to `dst` (one way), or both
 *              ways at once, with peer access enabled (the copy engine
 *              moves the data over NVLink or PCIe directly) or disabled (the
 *              driver stages it through host memory).
 *
 * src and dst are CUDA ordinals that must be in the run's --device list; a
 * point with src == dst or a device the run lacks is a skip row with the
 * reason ("needs 2 devices"), so `--device all` on a one-GPU machine runs
 * the family and says why nothing could be measured. Every byte of every
 * destination is checked (the transfers pattern; destinations poisoned with
 * its complement). bytes = size one way, 2 x size both ways (nvbandwidth's
 * convention for bidirectional copies).
 *
 * Timing: the runner's events live on the run's first device; each copy is
 * issued on a stream of its source device, forked from and joined to the
 * runner's stream with events, so the events bracket exactly the copies. */
#include "p2p.h"
#include "transfers.h"
#include "mem_budget.h"
#include "common_axes.h"
#include "transfers_pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct p2p_state {
    int dev[2];      /* [0] = src, [1] = dst (CUDA ordinals)                 */
    bool both;       /* the reverse copy too                                  */
    bool peer;       /* peer access enabled for the point                     */
    bool enabled[2]; /* we enabled access dev[k] -> dev[1-k] (undo in teardown) */
    size_t bytes;
    void *fwd_src, *fwd_dst; /* on dev[0], dev[1]                          */
    void *rev_src, *rev_dst; /* on dev[1], dev[0] (both ways only)          */
    uint64_t seed[2];
    unsigned long long *counter[2]; /* per device, for the checks          */
    cudaStream_t side[2];           /* a stream on each device             */
    cudaEvent_t fork, join[2];
    int runner_dev;
} p2p_state;

static double p2p_bytes(const cb_point *p)
{
    double size = (double)cb_point_int(p, "bytes");
    return cb_point_is(p, "direction", "both") ? 2 * size : size;
}

static bool in_run(const cb_bench_ctx *ctx, int ordinal)
{
    for (int i = 0; i < ctx->n_devs; i++)
        if (ctx->devs[i]->ordinal == ordinal) return true;
    return false;
}

/* Enable (or disable) access from device `from` to `to`; *changed says
 * whether the call changed anything (so teardown undoes only that). */
static cb_status set_peer(int from, int to, bool on, bool *changed, cb_msg *why)
{
    *changed = false;
    CB_CUDA(cudaSetDevice(from));
    cudaError_t e = on ? cudaDeviceEnablePeerAccess(to, 0) : cudaDeviceDisablePeerAccess(to);
    if (e == cudaErrorPeerAccessAlreadyEnabled || e == cudaErrorPeerAccessNotEnabled) {
        (void)cudaGetLastError();
        return CB_OK;
    }
    CB_CUDA(e);
    *changed = true;
    return CB_OK;
}

static void p2p_teardown(void *state)
{
    p2p_state *st = state;
    for (int k = 0; k < 2; k++) {
        if (cudaSetDevice(st->dev[k]) != cudaSuccess) continue;
        if (st->side[k]) cudaStreamDestroy(st->side[k]);
        if (st->join[k]) cudaEventDestroy(st->join[k]);
        cudaFree(st->counter[k]);
        if (st->enabled[k]) cudaDeviceDisablePeerAccess(st->dev[1 - k]);
    }
    if (cudaSetDevice(st->dev[0]) == cudaSuccess) {
        cudaFree(st->fwd_src);
        cudaFree(st->rev_dst);
    }
    if (cudaSetDevice(st->dev[1]) == cudaSuccess) {
        cudaFree(st->fwd_dst);
        cudaFree(st->rev_src);
    }
    if (cudaSetDevice(st->runner_dev) == cudaSuccess && st->fork) cudaEventDestroy(st->fork);
    (void)cudaGetLastError();
    free(st);
}

/* Peer-access facts of the pair, for the row's note. */
static void describe_pair(int src, int dst, bool peer, cb_point_info *info)
{
    int access = 0, rank = -1, atomics = 0;
    (void)cudaDeviceCanAccessPeer(&access, src, dst);
    (void)cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, src, dst);
    (void)cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, src, dst);
    (void)cudaGetLastError();
    snprintf(info->note, sizeof info->note,
             "%d->%d: peer access %s (%s), performance rank %d, native atomics %s", src, dst,
             access ? "possible" : "not possible", peer ? "enabled" : "disabled, host-staged", rank,
             atomics ? "yes" : "no");
}

/* Can the pair be measured in this run? A skip with the reason when not:
 * fewer than two devices, one device twice, a device the run lacks, peer
 * access the driver refuses. */
static cb_status p2p_check_pair(const cb_bench_ctx *ctx, int src, int dst, bool peer, cb_msg *why)
{
    if (ctx->n_devs < 2) {
        cb_msg_set(why,
                   "needs 2 devices; this run has %d (run with --device all on a machine "
                   "with two or more GPUs)",
                   ctx->n_devs);
        return CB_SKIP;
    }
    if (src == dst) {
        cb_msg_set(why, "src = dst = %d: a copy within one device is transfers/d2d", src);
        return CB_SKIP;
    }
    if (!in_run(ctx, src) || !in_run(ctx, dst)) {
        cb_msg_set(why, "device %d is not in this run's --device list",
                   in_run(ctx, src) ? dst : src);
        return CB_SKIP;
    }
    int access = 0;
    CB_CUDA(cudaDeviceCanAccessPeer(&access, src, dst));
    if (peer && !access) {
        cb_msg_set(why, "device %d cannot access device %d as a peer (the driver says no)", src,
                   dst);
        return CB_SKIP;
    }
    return CB_OK;
}

/* Does each device have room for its buffers (one each way)? */
static cb_status p2p_check_room(const cb_bench_ctx *ctx, int src, int dst, uint64_t per_dev,
                                cb_msg *why)
{
    for (int k = 0; k < 2; k++) {
        CB_CUDA(cudaSetDevice(k == 0 ? src : dst));
        cb_status fit = cb_xfer_check_fit(0, per_dev, why);
        if (fit != CB_OK) {
            (void)cudaSetDevice(ctx->dev->ordinal);
            return fit;
        }
    }
    return CB_OK;
}

/* Peer access as the point asks, and a stream, an event and a counter on
 * each device. */
static cb_status p2p_open_devices(p2p_state *st, cb_msg *why)
{
    for (int k = 0; k < 2; k++) {
        cb_status s = set_peer(st->dev[k], st->dev[1 - k], st->peer, &st->enabled[k], why);
        if (s != CB_OK) return s;
        if (!st->peer) st->enabled[k] = false; /* a disable is not undone */
        CB_CUDA(cudaStreamCreateWithFlags(&st->side[k], cudaStreamNonBlocking));
        CB_CUDA(cudaEventCreateWithFlags(&st->join[k], cudaEventDisableTiming));
        CB_CUDA(cudaMalloc((void **)&st->counter[k], sizeof(unsigned long long)));
    }
    return CB_OK;
}

/* The copies' buffers, each on the device that owns it. */
static cb_status p2p_alloc(p2p_state *st, cb_msg *why)
{
    CB_CUDA(cudaSetDevice(st->dev[0]));
    CB_CUDA(cudaMalloc(&st->fwd_src, st->bytes));
    CB_CUDA(cudaSetDevice(st->dev[1]));
    CB_CUDA(cudaMalloc(&st->fwd_dst, st->bytes));
    if (st->both) {
        CB_CUDA(cudaMalloc(&st->rev_src, st->bytes));
        CB_CUDA(cudaSetDevice(st->dev[0]));
        CB_CUDA(cudaMalloc(&st->rev_dst, st->bytes));
    }
    return CB_OK;
}

/* Sources get the pattern, destinations its complement (on the owner). */
static cb_status p2p_fill(p2p_state *st, cb_msg *why)
{
    cb_status s = CB_OK;
    CB_CUDA(cudaSetDevice(st->dev[0]));
    s = cb_xfer_dev_fill(st->fwd_src, st->bytes, st->seed[0], false, st->side[0], why);
    if (s == CB_OK && st->both)
        s = cb_xfer_dev_fill(st->rev_dst, st->bytes, st->seed[1], true, st->side[0], why);
    if (s != CB_OK) return s;
    CB_CUDA(cudaSetDevice(st->dev[1]));
    s = cb_xfer_dev_fill(st->fwd_dst, st->bytes, st->seed[0], true, st->side[1], why);
    if (s == CB_OK && st->both)
        s = cb_xfer_dev_fill(st->rev_src, st->bytes, st->seed[1], false, st->side[1], why);
    if (s != CB_OK) return s;
    for (int k = 0; k < 2; k++) {
        CB_CUDA(cudaSetDevice(st->dev[k]));
        CB_CUDA(cudaStreamSynchronize(st->side[k]));
    }
    return CB_OK;
}

static cb_status p2p_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                           cb_point_info *info, cb_msg *why)
{
    int src = (int)cb_point_int(p, "src"), dst = (int)cb_point_int(p, "dst");
    bool peer = cb_point_is(p, "peer", "on");
    bool both = cb_point_is(p, "direction", "both");
    cb_status s = p2p_check_pair(ctx, src, dst, peer, why);
    if (s != CB_OK) return s;
    size_t bytes = (size_t)cb_point_int(p, "bytes");
    /* Each device holds one buffer one way, two both ways. */
    s = p2p_check_room(ctx, src, dst, both ? 2 * (uint64_t)bytes : bytes, why);
    if (s != CB_OK) return s;
    p2p_state *st = cb_mem_state_new(sizeof *st, "out of host memory", why);
    if (!st) return CB_SKIP;
    *state = st; /* teardown from here on */
    st->dev[0] = src, st->dev[1] = dst;
    st->runner_dev = ctx->dev->ordinal;
    st->both = both, st->peer = peer;
    st->bytes = bytes;
    st->seed[0] = cb_mix64(ctx->seed ^ 0x9e3779b9u);
    st->seed[1] = cb_mix64(ctx->seed ^ 0x7f4a7c15u);
    describe_pair(src, dst, peer, info);
    info->occupancy = -1.0;

    if ((s = p2p_open_devices(st, why)) != CB_OK) return s;
    if ((s = p2p_alloc(st, why)) != CB_OK) return s;
    if ((s = p2p_fill(st, why)) != CB_OK) return s;
    CB_CUDA(cudaSetDevice(st->runner_dev));
    CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
    return CB_OK;
}

static cb_status p2p_run(void *state, cudaStream_t stream, cb_msg *why)
{
    p2p_state *st = state;
    CB_CUDA(cudaEventRecord(st->fork, stream));
    int legs = st->both ? 2 : 1;
    for (int k = 0; k < legs; k++) {
        /* Leg 0: src -> dst on src's stream; leg 1: dst -> src on dst's. */
        void *to = k == 0 ? st->fwd_dst : st->rev_dst;
        const void *from = k == 0 ? st->fwd_src : st->rev_src;
        CB_CUDA(cudaStreamWaitEvent(st->side[k], st->fork, 0));
        CB_CUDA(cudaMemcpyPeerAsync(to, st->dev[1 - k], from, st->dev[k], st->bytes, st->side[k]));
        CB_CUDA(cudaEventRecord(st->join[k], st->side[k]));
        CB_CUDA(cudaStreamWaitEvent(stream, st->join[k], 0));
    }
    return CB_OK;
}

static cb_status p2p_verify(void *state, double *error, cb_msg *why)
{
    p2p_state *st = state;
    uint64_t bad[2] = {0, 0};
    int legs = st->both ? 2 : 1;
    cb_status s = CB_OK;
    for (int k = 0; k < legs && s == CB_OK; k++) {
        int owner = st->dev[1 - k]; /* the destination's device counts it */
        CB_CUDA(cudaSetDevice(owner));
        s = cb_xfer_dev_count(k == 0 ? st->fwd_dst : st->rev_dst, st->bytes, st->seed[k],
                              st->counter[1 - k], st->side[1 - k], &bad[k], why);
    }
    CB_CUDA(cudaSetDevice(st->runner_dev));
    if (s != CB_OK) return s;
    *error = (double)(bad[0] + bad[1]);
    if (bad[0] || bad[1]) {
        cb_msg_set(why, "%llu of %zu bytes wrong on %d->%d, %llu on %d->%d",
                   (unsigned long long)bad[0], st->bytes, st->dev[0], st->dev[1],
                   (unsigned long long)bad[1], st->dev[1], st->dev[0]);
        return CB_FAIL;
    }
    return CB_OK;
}

/* The fields of both ends of the pair: a CUDA ordinal, by default the
 * first two devices (each ordered pair of them, both ways). */
#define P2P_DEVICE_AXIS .kind = CB_AXIS_INT, .defaults = "0,1", .min_value = 0

static const cb_axis_def p2p_axes[] = {
    {.name = "src", P2P_DEVICE_AXIS, .help = "source device (CUDA ordinal; must be in --device)"},
    {.name = "dst",
     P2P_DEVICE_AXIS,
     .help = "destination device (src = dst is skipped: that is transfers/d2d)"},
    {.name = "peer",
     CB_AXIS_ENUM_ALL("on,off"),
     .help = "peer access enabled (direct copy) or disabled (staged through the host)"},
    {.name = "direction",
     CB_AXIS_ENUM_ALL("one,both"),
     .help = "one way, or both ways at once (bytes count both)"},
    {CB_AXIS_BYTES, .defaults = "2^10,2^16,2^22,2^26,2^30", .help = "bytes per copy, each way"},
};

static const cb_bench p2p_benches[] = {
    {.name = "p2p/copy",
     .summary = "cudaMemcpyPeerAsync between two GPUs of the run, peer access on or off",
     .target = CB_TARGET_CUDA,
     .devices = 2,
     CB_AXES(p2p_axes),
     .peak = CB_PEAK_NONE,
     .bytes = p2p_bytes,
     .setup = p2p_setup,
     .run = p2p_run,
     .verify = p2p_verify,
     .teardown = p2p_teardown},
};

const cb_family cb_family_p2p = {.name = "p2p",
                                 .benches = p2p_benches,
                                 .count = CB_ARRAY_LEN(p2p_benches),
                                 .write_outputs = cb_p2p_write_matrix};
