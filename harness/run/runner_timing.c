/* runner_timing.c - the timer's resources and one sample: the L2 flush,
 * CUDA events on the runner's stream (two pairs, so one sample can be in
 * flight while the one before it is read), or the host clock around run
 * and a stream sync. */
#include "runner_point.h"

#include "cupti_timer.h"
#include "l2_flush.h"

#include <string.h>

/* Without a known L2 size, flush this much (larger than any L2 so far). */
#define CB_FLUSH_FALLBACK_BYTES ((size_t)64 << 20)

cb_status cb_timing_init(cb_timing *t, const cb_device_info *dev, cb_msg *why)
{
    memset(t, 0, sizeof *t);
    CB_CUDA(cudaSetDevice(dev->ordinal));
    /* A blocking stream (default flags): work the legacy default stream
     * receives, e.g. a synchronous cudaMemcpy, is ordered with our events. */
    CB_CUDA(cudaStreamCreate(&t->stream));
    for (int i = 0; i < 2; i++) {
        CB_CUDA(cudaEventCreate(&t->start[i]));
        CB_CUDA(cudaEventCreate(&t->stop[i]));
    }
    /* The buffer holds the longest flush, twice the L2: a point's head
     * start reads all of it or its first L2's worth (runner_head_start.c). */
    t->l2_bytes = (dev->l2_bytes ? dev->l2_bytes : CB_FLUSH_FALLBACK_BYTES / 2) & ~(size_t)15;
    t->flush_bytes = dev->l2_bytes ? 2 * dev->l2_bytes : CB_FLUSH_FALLBACK_BYTES;
    t->flush_bytes &= ~(size_t)15;
    CB_CUDA(cudaMalloc(&t->flush_buf, t->flush_bytes));
    CB_CUDA(cudaMalloc((void **)&t->flush_sink, sizeof(float)));
    CB_CUDA(cudaMalloc((void **)&t->flush_done, sizeof(unsigned)));
    CB_CUDA(cudaMemset(t->flush_done, 0, sizeof(unsigned)));
    CB_CUDA(cudaMemset(t->flush_buf, 0, t->flush_bytes));
    t->next_sample_id = 1;
    t->ready = true;
    return CB_OK;
}

void cb_timing_free(cb_timing *t)
{
    if (!t->ready) return;
    cudaFree(t->flush_buf);
    cudaFree(t->flush_sink);
    cudaFree(t->flush_done);
    for (int i = 0; i < 2; i++) {
        cudaEventDestroy(t->start[i]);
        cudaEventDestroy(t->stop[i]);
    }
    cudaStreamDestroy(t->stream);
    t->ready = false;
}

point_timing cb_point_timing_of(const cb_bench *b, const cb_run_config *cfg)
{
    point_timing pt;
    pt.cuda = b->target == CB_TARGET_CUDA;
    pt.host_timer = !pt.cuda || b->timer == CB_TIMER_HOST;
    pt.hot = !pt.cuda || cfg->cache == CB_CACHE_HOT;
    return pt;
}

/* Flush and hold are one launch. As two (a flush, then a one-thread hold
 * kernel, in either order), every second cold sample of a kernel launched
 * with kilobytes of parameters (tensor maps: cuBLAS's Hopper GEMMs, the
 * wgmma rungs) read 0.4-1 us longer between the events on the H200,
 * CUPTI's kernel time the same in both, and the median fell between the
 * two levels; as one, the even and odd samples read alike
 * (tests/gpu/test_runner_hold_order.c).
 *
 * Without a hold, a spacer follows the flush: a one-thread kernel that
 * returns at once. Without it, whole rounds of short GEMMs at points
 * without a hold (cuBLAS BF16 at 256^3 and 1000 x 3000 x 200, the wgmma
 * rungs) alternated from one sample to the next on the H200 (lag-1
 * autocorrelation down to -0.96, the levels 0.5-0.8 us apart, CUPTI's
 * kernel time the same in both), with the late check's query or without
 * it, and with a 60 us hold after the reads; with the spacer (after the
 * flush, or before it) no round of those points went under -0.39 on two
 * boards, and they converged in tens to hundreds of samples instead of
 * thousands. In two default suites with it after every flush, 1 of 111
 * and 1 of 110 rounds of GEMMs under 65 us had a lag-1 under -0.5, against
 * 28 of 110 and 25 of 97 in two without it (tests/data/h200-r3/spacer).
 * After a hold it does harm: flush and hold, then the spacer, alternate as
 * the two launches above do (cuBLAS TF32 at 256^3: 0.54-0.64 us apart in 4
 * of 4 setups). Why is not known. */
static cb_status enqueue_head_start(const cb_timing *t, const cb_head_start *head, cudaStream_t s,
                                    cb_msg *why)
{
    if (!head || !head->flush_bytes) return CB_OK;
    if (head->hold_ns) {
        CB_CUDA(cb_launch_l2_flush_hold(t->flush_buf, head->flush_bytes, t->flush_sink,
                                        t->flush_done, head->hold_ns, s));
    } else {
        CB_CUDA(cb_launch_l2_flush(t->flush_buf, head->flush_bytes, t->flush_sink, s));
        CB_CUDA(cb_launch_hold(0, s)); /* the spacer */
    }
    return CB_OK;
}

cb_status cb_enqueue_sample(const cb_bench *b, void *state, cb_timing *t, const cb_head_start *head,
                            int batch, uint64_t sample_id, int slot, bool *late, cb_msg *why)
{
    cudaStream_t s = t->stream;
    if (late) *late = false;
    cb_status st = enqueue_head_start(t, head, s, why);
    if (st != CB_OK) return st;
    CB_CUDA(cudaEventRecord(t->start[slot], s));
    if (sample_id && cb_cupti_active()) cb_cupti_sample_begin(sample_id);
    for (int i = 0; i < batch && st == CB_OK; i++)
        st = b->run(state, s, why);
    if (sample_id && cb_cupti_active()) cb_cupti_sample_end();
    if (st != CB_OK) return st;
    /* Asked once the runs are enqueued: if the GPU is already past the
     * start event, it reached it before the host had finished, and may
     * have idled inside the sample (an over-count by at most the host's
     * time after its last launch, which is small). */
    if (late && head && head->flush_bytes) {
        cudaError_t q = cudaEventQuery(t->start[slot]);
        if (q != cudaErrorNotReady) CB_CUDA(q);
        *late = q == cudaSuccess;
    }
    CB_CUDA(cudaEventRecord(t->stop[slot], s));
    return CB_OK;
}

cb_status cb_read_sample(cb_timing *t, int slot, double *elapsed, cb_msg *why)
{
    CB_CUDA(cudaEventSynchronize(t->stop[slot]));
    float ms = 0;
    CB_CUDA(cudaEventElapsedTime(&ms, t->start[slot], t->stop[slot]));
    *elapsed = ms * 1e-3;
    return CB_OK;
}

/* A host-timed sample: [flush], sync, host clock around `batch` runs and
 * the stream sync that ends them. The host waits for the flush, so a hold
 * would add nothing. */
static cb_status time_on_host(const cb_bench *b, void *state, cb_timing *t, point_timing pt,
                              const cb_head_start *head, int batch, uint64_t sample_id,
                              double *elapsed, double *host_t0, cb_msg *why)
{
    cudaStream_t s = pt.cuda ? t->stream : NULL;
    if (pt.cuda && head && head->flush_bytes)
        CB_CUDA(cb_launch_l2_flush(t->flush_buf, head->flush_bytes, t->flush_sink, s));
    if (pt.cuda) CB_CUDA(cudaStreamSynchronize(s));
    bool cupti = sample_id && cb_cupti_active();
    if (cupti) cb_cupti_sample_begin(sample_id);
    double h0 = cb_now_s();
    if (host_t0) *host_t0 = h0;
    cb_status st = CB_OK;
    for (int i = 0; i < batch && st == CB_OK; i++)
        st = b->run(state, s, why);
    cudaError_t e = st == CB_OK && pt.cuda ? cudaStreamSynchronize(s) : cudaSuccess;
    *elapsed = cb_now_s() - h0;
    if (cupti) cb_cupti_sample_end();
    CB_CUDA(e);
    return st;
}

cb_status cb_time_sample(const cb_bench *b, void *state, cb_timing *t, point_timing pt,
                         const cb_head_start *head, int batch, uint64_t sample_id, double *elapsed,
                         double *host_t0, bool *late, cb_msg *why)
{
    if (late) *late = false;
    if (!pt.cuda || pt.host_timer)
        return time_on_host(b, state, t, pt, head, batch, sample_id, elapsed, host_t0, why);
    if (host_t0) *host_t0 = cb_now_s();
    cb_status st = cb_enqueue_sample(b, state, t, head, batch, sample_id, 0, late, why);
    return st == CB_OK ? cb_read_sample(t, 0, elapsed, why) : st;
}
