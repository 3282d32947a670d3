/* transfers_overlap.c - hiding copies behind compute: H2D -> kernel -> D2H
 * over pinned memory, split into `streams` chunks, one per stream.
 *
 * The axis `stage` picks what one run does with those chunks: only the H2D
 * copies, only the kernels, only the D2H copies, or the whole pipeline. The
 * three single stages, measured with the same chunks and streams, give the
 * ideal pipeline time max(h2d, kernel, d2h); cb_fits_write puts it next to
 * the measured pipeline in overlap.csv (efficiency = ideal / pipeline). With
 * streams = 1 the pipeline is the serial baseline. Every run forks its
 * streams from the runner's stream with an event and joins them back, so the
 * runner's events bracket the whole run.
 *
 * Chunks are issued depth-first (copy in, kernel, copy out for chunk 0, then
 * chunk 1, ...): with Hyper-Q each stream has its own hardware queue, and the
 * separate H2D and D2H copy engines let chunk c+1 come in while chunk c is
 * computed and chunk c-1 goes out. */
#include "transfers.h"
#include "mem_budget.h"
#include "transfers_kernels.h"
#include "transfers_pattern.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum overlap_stage { STAGE_H2D, STAGE_KERNEL, STAGE_D2H, STAGE_PIPELINE } overlap_stage;

static const char *const stage_names[] = {"h2d", "kernel", "d2h", "pipeline"};

typedef struct overlap_state {
    overlap_stage stage;
    int streams;
    int fma;
    size_t n; /* floats in the whole workload */
    cb_xfer_host_buf in_h, out_h;
    float *in_d, *out_d, *ref_d; /* ref_d: the reference output, whole   */
    uint64_t seed;
    unsigned long long *counter;
    cudaStream_t stream;
    cudaStream_t side[CB_XFER_MAX_STREAMS];
    cudaEvent_t fork, join[CB_XFER_MAX_STREAMS];
} overlap_state;

/* floor(n * c / streams), without the overflow of n * c. */
static size_t chunk_begin(const overlap_state *st, int c)
{
    size_t s = (size_t)st->streams, q = st->n / s, r = st->n % s;
    return q * (size_t)c + r * (size_t)c / s;
}

/* Elements worth checking on the CPU: both ends of every chunk (where an
 * off-by-one in the split would show) and a scattered sample. */
enum { SPOT_RANDOM = 32 };

static size_t spot_index(const overlap_state *st, int k)
{
    if (k < 2 * st->streams) {
        int c = k / 2;
        return k % 2 ? chunk_begin(st, c + 1) - 1 : chunk_begin(st, c);
    }
    return (size_t)(cb_mix64(st->seed + (uint64_t)k) % st->n);
}

static int spot_count(const overlap_state *st)
{
    return 2 * st->streams + SPOT_RANDOM;
}

/* Compare elements of a device or host array with the CPU's own result. */
static cb_status cpu_spot_check(const overlap_state *st, const float *device_array,
                                const float *host_array, const char *what, cb_msg *why)
{
    const float *in = st->in_h.host;
    for (int k = 0; k < spot_count(st); k++) {
        size_t i = spot_index(st, k);
        float got;
        if (device_array)
            CB_CUDA(cudaMemcpy(&got, device_array + i, sizeof got, cudaMemcpyDeviceToHost));
        else
            got = host_array[i];
        float want = cb_xfer_overlap_value(in[i], st->fma);
        if (memcmp(&got, &want, sizeof got) != 0) {
            cb_msg_set(why, "%s[%zu] = %.9g, the CPU computes %.9g", what, i, (double)got,
                       (double)want);
            return CB_FAIL;
        }
    }
    return CB_OK;
}

static bool parse_stage(const char *word, overlap_stage *out)
{
    for (int i = 0; i < CB_ARRAY_LEN(stage_names); i++) {
        if (strcmp(word, stage_names[i]) == 0) {
            *out = (overlap_stage)i;
            return true;
        }
    }
    return false;
}

/* The point's axes, checked: a size or stream count the stage cannot take
 * is a skip with its reason, an unknown stage a failure. */
typedef struct overlap_axes {
    overlap_stage stage;
    int64_t bytes, streams, fma;
} overlap_axes;

static cb_status overlap_read_axes(const cb_point *p, overlap_axes *a, cb_msg *why)
{
    if (!parse_stage(cb_point_str(p, "stage"), &a->stage)) {
        cb_msg_set(why, "unknown stage '%s'", cb_point_str(p, "stage"));
        return CB_FAIL;
    }
    a->bytes = cb_point_int(p, "bytes");
    a->streams = cb_point_int(p, "streams");
    a->fma = cb_point_int(p, "fma");
    if (a->bytes % 4 != 0) {
        cb_msg_set(why, "bytes %lld is not a whole number of floats", (long long)a->bytes);
        return CB_SKIP;
    }
    if (a->streams < 1 || a->streams > CB_XFER_MAX_STREAMS) {
        cb_msg_set(why, "streams %lld is outside 1..%d", (long long)a->streams,
                   CB_XFER_MAX_STREAMS);
        return CB_SKIP;
    }
    if (a->bytes / 4 < a->streams) {
        cb_msg_set(why, "%lld floats cannot fill %lld chunks", (long long)(a->bytes / 4),
                   (long long)a->streams);
        return CB_SKIP;
    }
    if (a->fma < 0 || a->fma > INT_MAX) {
        cb_msg_set(why, "fma %lld is outside 0..%d", (long long)a->fma, INT_MAX);
        return CB_SKIP;
    }
    /* Host: input and output; device: input, output and the reference. */
    return cb_xfer_check_fit(cb_mem_bytes((uint64_t)a->bytes, 2),
                             cb_mem_bytes((uint64_t)a->bytes, 3), why);
}

/* Device arrays, pinned host buffers with their device aliases, the side
 * streams and their events. */
static cb_status overlap_alloc(overlap_state *st, cb_msg *why)
{
    const size_t nbytes = st->n * sizeof(float);
    CB_CUDA(cudaMalloc((void **)&st->counter, sizeof *st->counter));
    CB_CUDA(cudaMalloc((void **)&st->in_d, nbytes));
    CB_CUDA(cudaMalloc((void **)&st->out_d, nbytes));
    CB_CUDA(cudaMalloc((void **)&st->ref_d, nbytes));
    cb_status s = cb_xfer_host_alloc(&st->in_h, CB_XFER_PINNED, nbytes, why);
    if (s == CB_OK) s = cb_xfer_host_alloc(&st->out_h, CB_XFER_PINNED, nbytes, why);
    if (s != CB_OK) return s;
    if (!st->in_h.dev || !st->out_h.dev) {
        cb_msg_set(why, "pinned memory has no device alias here (no mapped host memory)");
        return CB_SKIP;
    }
    for (int c = 0; c < st->streams; c++) {
        CB_CUDA(cudaStreamCreateWithFlags(&st->side[c], cudaStreamNonBlocking));
        CB_CUDA(cudaEventCreateWithFlags(&st->join[c], cudaEventDisableTiming));
    }
    CB_CUDA(cudaEventCreateWithFlags(&st->fork, cudaEventDisableTiming));
    return CB_OK;
}

/* Input on the host, a copy on the device, the reference from it (checked
 * against the CPU), then what the stage must write poisoned. */
static cb_status overlap_fill(overlap_state *st, cb_msg *why)
{
    const size_t nbytes = st->n * sizeof(float);
    const overlap_stage stage = st->stage;
    cudaStream_t q = st->stream;
    CB_CUDA(cb_xfer_launch_overlap_fill(st->in_h.dev, st->n, st->seed, q));
    CB_CUDA(cudaMemcpyAsync(st->in_d, st->in_h.host, nbytes, cudaMemcpyHostToDevice, q));
    CB_CUDA(cb_xfer_launch_overlap_compute(st->ref_d, st->in_d, st->n, st->fma, q));
    CB_CUDA(cudaStreamSynchronize(q));
    cb_status s = cpu_spot_check(st, st->ref_d, NULL, "reference", why);
    if (s != CB_OK) return s;
    /* All-ones bytes (NaNs): inputs and results lie near [1, 2), top byte
     * 0x3f or 0x40, so every element left unwritten shows a wrong byte. */
    if (stage == STAGE_H2D || stage == STAGE_PIPELINE)
        CB_CUDA(cudaMemsetAsync(st->in_d, 0xff, nbytes, q));
    if (stage == STAGE_KERNEL || stage == STAGE_PIPELINE)
        CB_CUDA(cudaMemsetAsync(st->out_d, 0xff, nbytes, q));
    if (stage == STAGE_D2H)
        CB_CUDA(cudaMemcpyAsync(st->out_d, st->ref_d, nbytes, cudaMemcpyDeviceToDevice, q));
    if (stage == STAGE_D2H || stage == STAGE_PIPELINE) memset(st->out_h.host, 0xff, nbytes);
    CB_CUDA(cudaStreamSynchronize(q));
    return CB_OK;
}

cb_status cb_xfer_overlap_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                cb_point_info *info, cb_msg *why)
{
    overlap_axes a;
    cb_status s = overlap_read_axes(p, &a, why);
    if (s != CB_OK) return s;
    overlap_state *st = cb_mem_state_new(sizeof *st, "out of host memory", why);
    if (!st) return CB_SKIP;
    *state = st;
    st->stage = a.stage;
    st->streams = (int)a.streams;
    st->fma = (int)a.fma;
    st->n = (size_t)a.bytes / 4;
    st->stream = ctx->stream;
    st->seed = cb_mix64(ctx->seed ^ 0x0e7a9f00u);
    bool copies_in = a.stage == STAGE_H2D, copies_out = a.stage == STAGE_D2H;
    info->memcpy_src_kind = copies_in ? 2 : copies_out ? 3 : 0;
    info->memcpy_dst_kind = copies_in ? 3 : copies_out ? 2 : 0;
    /* Every stage but the kernel alone crosses the link. */
    if (a.stage != STAGE_KERNEL) info->target_ci_rel = CB_XFER_LINK_TARGET_CI;
    snprintf(info->note, sizeof info->note,
             "%s of %d chunk(s) on as many streams, pinned, %d FMA/element; overlap.csv: "
             "efficiency = max(h2d,kernel,d2h) / pipeline",
             stage_names[a.stage], st->streams, st->fma);
    s = overlap_alloc(st, why);
    return s == CB_OK ? overlap_fill(st, why) : s;
}

cb_status cb_xfer_overlap_run(void *state, cudaStream_t s, cb_msg *why)
{
    overlap_state *st = state;
    bool in = st->stage == STAGE_H2D || st->stage == STAGE_PIPELINE;
    bool compute = st->stage == STAGE_KERNEL || st->stage == STAGE_PIPELINE;
    bool out = st->stage == STAGE_D2H || st->stage == STAGE_PIPELINE;
    float *in_h = st->in_h.host, *out_h = st->out_h.host;
    CB_CUDA(cudaEventRecord(st->fork, s));
    for (int c = 0; c < st->streams; c++) {
        cudaStream_t q = st->side[c];
        size_t off = chunk_begin(st, c), cnt = chunk_begin(st, c + 1) - off;
        CB_CUDA(cudaStreamWaitEvent(q, st->fork, 0));
        if (in)
            CB_CUDA(cudaMemcpyAsync(st->in_d + off, in_h + off, cnt * sizeof(float),
                                    cudaMemcpyHostToDevice, q));
        if (compute)
            CB_CUDA(
                cb_xfer_launch_overlap_compute(st->out_d + off, st->in_d + off, cnt, st->fma, q));
        if (out)
            CB_CUDA(cudaMemcpyAsync(out_h + off, st->out_d + off, cnt * sizeof(float),
                                    cudaMemcpyDeviceToHost, q));
        CB_CUDA(cudaEventRecord(st->join[c], q));
        CB_CUDA(cudaStreamWaitEvent(s, st->join[c], 0));
    }
    return CB_OK;
}

cb_status cb_xfer_overlap_verify(void *state, double *error, cb_msg *why)
{
    overlap_state *st = state;
    size_t nbytes = st->n * sizeof(float);
    const void *got = NULL, *want = NULL;
    const char *what = "";
    switch (st->stage) {
    case STAGE_H2D:
        got = st->in_d, want = st->in_h.dev, what = "device input";
        break;
    case STAGE_KERNEL:
        got = st->out_d, want = st->ref_d, what = "device output";
        break;
    case STAGE_D2H:
    case STAGE_PIPELINE:
        got = st->out_h.dev, want = st->ref_d, what = "host output";
        break;
    }
    uint64_t bad = 0;
    cb_status s = cb_xfer_dev_compare(got, want, nbytes, st->counter, st->stream, &bad, why);
    if (s != CB_OK) return s;
    *error = (double)bad;
    if (bad) {
        cb_msg_set(why, "%llu of %zu bytes of the %s are wrong", (unsigned long long)bad, nbytes,
                   what);
        return CB_FAIL;
    }
    /* The pipeline's output, checked again without the reference kernel. */
    if (st->stage == STAGE_PIPELINE) {
        s = cpu_spot_check(st, NULL, st->out_h.host, "host output", why);
        if (s != CB_OK) *error = NAN;
        return s;
    }
    return CB_OK;
}

void cb_xfer_overlap_teardown(void *state)
{
    overlap_state *st = state;
    if (!st) return;
    for (int c = 0; c < CB_XFER_MAX_STREAMS; c++) {
        if (st->side[c]) (void)cudaStreamDestroy(st->side[c]);
        if (st->join[c]) (void)cudaEventDestroy(st->join[c]);
    }
    if (st->fork) (void)cudaEventDestroy(st->fork);
    cb_xfer_host_free(&st->in_h);
    cb_xfer_host_free(&st->out_h);
    (void)cudaFree(st->in_d);
    (void)cudaFree(st->out_d);
    (void)cudaFree(st->ref_d);
    (void)cudaFree(st->counter);
    free(st);
}
