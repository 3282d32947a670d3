/* runner.c - verify, warm up, sample until the stopping rule holds, derive.
 *
 * One point in one round reads as its phases:
 *   phase_setup_and_verify  setup -> run -> sync -> verify (a wrong result is
 *                           a fail row, never timed)
 *   phase_warm_up           warm-up runs; the last one sizes a hot batch
 *   phase_sample            [flush L2 if cold] event0, run x batch, event1;
 *                           event-timed samples are enqueued one ahead (the
 *                           next is queued before this one is read), so the
 *                           host's launch latency stays outside them; the
 *                           stopping rule after every sample (each sample is
 *                           one CUPTI external-correlation id)
 *   phase_attach_cupti      CUPTI's view of the round's samples
 *   teardown
 * and, after its last round, point_finish pools the rounds into the row.
 * Host benchmarks follow the same path with the monotonic clock.
 *
 * Rounds (cfg->replicates > 1) run the whole point list again with fresh
 * setups, so every point's samples come from several allocations and
 * moments in the run: the between-replicate spread that compare needs.
 */
#include "runner.h"
#include "signals.h"

#include "capability.h"
#include "cupti_timer.h"
#include "l2_flush.h"
#include "nvtx_ranges.h"
#include "profile_point.h"
#include "progress.h"
#include "telemetry.h"
#include "telemetry_reasons.h"
#include "telemetry_summary.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A hot sample batches runs until it lasts hot_min_sample_s; this caps the
 * batch for runs far shorter than the event timer's resolution. */
enum { CB_MAX_HOT_BATCH = 100000 };
/* Without a known L2 size, flush this much (larger than any L2 so far). */
#define CB_FLUSH_FALLBACK_BYTES ((size_t)64 << 20)

/* Everything the timer needs for CUDA points, made once per sweep. */
typedef struct cb_timing {
    bool ready;
    cudaStream_t stream;
    /* Two pairs: a sample in flight while the one before it is read. */
    cudaEvent_t start[2], stop[2];
    void *flush_buf;
    size_t flush_bytes;
    float *flush_sink;
    uint64_t next_sample_id;
} cb_timing;

static cb_status timing_init(cb_timing *t, const cb_device_info *dev, cb_msg *why)
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
    /* Reading twice the L2 size evicts whatever a point left there (dirty
     * lines are written back during the flush, not the timed run). */
    t->flush_bytes = dev->l2_bytes ? 2 * dev->l2_bytes : CB_FLUSH_FALLBACK_BYTES;
    t->flush_bytes &= ~(size_t)15;
    CB_CUDA(cudaMalloc(&t->flush_buf, t->flush_bytes));
    CB_CUDA(cudaMalloc((void **)&t->flush_sink, sizeof(float)));
    CB_CUDA(cudaMemset(t->flush_buf, 0, t->flush_bytes));
    t->next_sample_id = 1;
    t->ready = true;
    return CB_OK;
}

static void timing_free(cb_timing *t)
{
    if (!t->ready) return;
    cudaFree(t->flush_buf);
    cudaFree(t->flush_sink);
    for (int i = 0; i < 2; i++) {
        cudaEventDestroy(t->start[i]);
        cudaEventDestroy(t->stop[i]);
    }
    cudaStreamDestroy(t->stream);
    t->ready = false;
}

/* How one point is timed: decided once from the benchmark and the config. */
typedef struct point_timing {
    bool cuda;       /* needs the device, stream and events          */
    bool host_timer; /* monotonic clock around run (+ stream sync)   */
    bool hot;        /* batched back to back, no flush               */
} point_timing;

static point_timing point_timing_of(const cb_bench *b, const cb_run_config *cfg)
{
    point_timing pt;
    pt.cuda = b->target == CB_TARGET_CUDA;
    pt.host_timer = !pt.cuda || b->timer == CB_TIMER_HOST;
    pt.hot = !pt.cuda || cfg->cache == CB_CACHE_HOT;
    return pt;
}

/* The enqueue half of an event-timed sample, on event pair `slot`:
 * [flush], start event, `batch` runs (one CUPTI correlation id), stop
 * event. Nothing waits; read_sample collects it. */
static cb_status enqueue_sample(const cb_bench *b, void *state, cb_timing *t, bool flush, int batch,
                                uint64_t sample_id, int slot, cb_msg *why)
{
    cudaStream_t s = t->stream;
    if (flush) CB_CUDA(cb_launch_l2_flush(t->flush_buf, t->flush_bytes, t->flush_sink, s));
    CB_CUDA(cudaEventRecord(t->start[slot], s));
    if (sample_id && cb_cupti_active()) cb_cupti_sample_begin(sample_id);
    cb_status st = CB_OK;
    for (int i = 0; i < batch && st == CB_OK; i++)
        st = b->run(state, s, why);
    if (sample_id && cb_cupti_active()) cb_cupti_sample_end();
    if (st != CB_OK) return st;
    CB_CUDA(cudaEventRecord(t->stop[slot], s));
    return CB_OK;
}

/* Wait for the sample on pair `slot`; *elapsed is its whole batch (s). */
static cb_status read_sample(cb_timing *t, int slot, double *elapsed, cb_msg *why)
{
    CB_CUDA(cudaEventSynchronize(t->stop[slot]));
    float ms = 0;
    CB_CUDA(cudaEventElapsedTime(&ms, t->start[slot], t->stop[slot]));
    *elapsed = ms * 1e-3;
    return CB_OK;
}

/* One sample, waited for: `batch` runs, timed by the point's timer.
 * *elapsed is the whole batch in seconds; *host_t0 the host clock when it
 * started. (Warm-up, host timers and --profile; phase_sample keeps
 * event-timed samples one ahead instead.) */
static cb_status time_sample(const cb_bench *b, void *state, cb_timing *t, point_timing pt,
                             bool flush, int batch, uint64_t sample_id, double *elapsed,
                             double *host_t0, cb_msg *why)
{
    if (pt.cuda && !pt.host_timer) {
        if (host_t0) *host_t0 = cb_now_s();
        cb_status st = enqueue_sample(b, state, t, flush, batch, sample_id, 0, why);
        return st == CB_OK ? read_sample(t, 0, elapsed, why) : st;
    }
    cudaStream_t s = pt.cuda ? t->stream : NULL;
    if (pt.cuda && flush)
        CB_CUDA(cb_launch_l2_flush(t->flush_buf, t->flush_bytes, t->flush_sink, s));
    if (pt.cuda) CB_CUDA(cudaStreamSynchronize(s));
    if (sample_id && cb_cupti_active()) cb_cupti_sample_begin(sample_id);
    double h0 = cb_now_s();
    if (host_t0) *host_t0 = h0;
    cb_status st = CB_OK;
    for (int i = 0; i < batch && st == CB_OK; i++)
        st = b->run(state, s, why);
    cudaError_t e = st == CB_OK && pt.cuda ? cudaStreamSynchronize(s) : cudaSuccess;
    *elapsed = cb_now_s() - h0;
    if (sample_id && cb_cupti_active()) cb_cupti_sample_end();
    CB_CUDA(e);
    return st;
}

/* ---- the samples of one point, pooled over its rounds ---- */

typedef struct point_samples {
    double *time_s;  /* per run (sample / batch), by the point's timer */
    double *cupti_s; /* per run by CUPTI; NAN where no record          */
    double *host_t0; /* host monotonic clock at the sample's start     */
    int *replicate;  /* the round the sample came from                 */
    int n, cap;
} point_samples;

static void point_samples_free(point_samples *ps)
{
    free(ps->time_s);
    free(ps->cupti_s);
    free(ps->host_t0);
    free(ps->replicate);
    memset(ps, 0, sizeof *ps);
}

/* Room for `more` samples after the n already held. */
static cb_status point_samples_reserve(point_samples *ps, int more, cb_msg *why)
{
    if (ps->n + more <= ps->cap) return CB_OK;
    int cap = ps->cap ? ps->cap : 64;
    while (cap < ps->n + more)
        cap = cap > (1 << 29) ? ps->n + more : cap * 2;
    double *t = realloc(ps->time_s, sizeof(double) * (size_t)cap);
    if (t) ps->time_s = t;
    double *c = t ? realloc(ps->cupti_s, sizeof(double) * (size_t)cap) : NULL;
    if (c) ps->cupti_s = c;
    double *h = c ? realloc(ps->host_t0, sizeof(double) * (size_t)cap) : NULL;
    if (h) ps->host_t0 = h;
    int *r = h ? realloc(ps->replicate, sizeof(int) * (size_t)cap) : NULL;
    if (r) ps->replicate = r;
    if (!r) {
        cb_msg_set(why, "out of host memory for %d samples", ps->n + more);
        return CB_FAIL;
    }
    ps->cap = cap;
    return CB_OK;
}

/* ---- one point across its rounds ---- */

typedef struct point_run {
    cb_result *r;
    point_samples samples;
    int batch;    /* fixed by the first round: every round's samples alike */
    bool closed;  /* skip or fail in some round: no more rounds            */
    bool written; /* its row is on disk: later rounds pass it by           */
    int noisy_rounds;
    char noisy_reason[CB_MSG_LEN];
    cb_point_info info; /* from the last setup */
    /* telemetry (see "---- telemetry" below) */
    cb_telemetry_readings readings; /* every round's, oldest first   */
    double *sample_sm_clock_mhz;    /* per sample, for samples.csv   */
    const char **sample_throttle;
} point_run;

static void result_init(cb_result *r, const cb_planned_point *pp, const cb_run_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->bench = pp->bench;
    r->ref = pp->ref;
    r->point = pp->point;
    if (pp->point.expanded) cb_point_format(&pp->point, r->axes, sizeof r->axes);
    bool host = pp->bench->target == CB_TARGET_HOST;
    bool host_timer = host || pp->bench->timer == CB_TIMER_HOST;
    r->timer = host_timer ? "host" : (cfg->cupti_primary ? "cupti" : "event");
    r->cache = host ? "n/a" : (cfg->cache == CB_CACHE_COLD ? "cold" : "hot");
    r->cupti_median_s = r->bytes = r->flops = r->gbps = r->tflops = NAN;
    r->peak = r->pct_peak = r->pct_ref = r->occupancy = r->verify_error = NAN;
    r->peak_unit = "";
    r->kind = cb_bench_kind(pp->bench);
    r->key_figure = cb_bench_key_figure(pp->bench, &pp->point);
    r->device = -1;
    if (!host && cfg->dev) {
        r->device = cfg->dev->ordinal;
        snprintf(r->device_uuid, sizeof r->device_uuid, "%s", cfg->dev->uuid);
    }
}

/* Close the point with a status other than ok/noisy: its row says why. */
static void point_close(point_run *pr, cb_status st, const char *reason)
{
    pr->closed = true;
    pr->r->status = st;
    snprintf(pr->r->reason, sizeof pr->r->reason, "%s", reason);
}

static cb_status phase_setup_and_verify(const cb_run_config *cfg, const cb_bench *b,
                                        const cb_point *p, cb_timing *t, point_timing pt,
                                        void **state, point_run *pr, double *single, cb_msg *why)
{
    const cb_device_info *const *devs = cfg->devs ? cfg->devs : &cfg->dev;
    int n_devs = cfg->devs ? cfg->n_devs : (cfg->dev ? 1 : 0);
    cb_bench_ctx ctx = {.param = b->param,
                        .dev = pt.cuda ? cfg->dev : NULL,
                        .devs = pt.cuda ? devs : NULL,
                        .n_devs = pt.cuda ? n_devs : 0,
                        .stream = pt.cuda ? t->stream : NULL,
                        .seed = cfg->seed,
                        .host_threads = cfg->host_threads};
    memset(&pr->info, 0, sizeof pr->info);
    pr->info.occupancy = NAN;
    double t0 = cb_now_s();
    cb_status st = b->setup(p, &ctx, state, &pr->info, why);
    double t1 = cb_now_s();
    pr->r->phases.setup_s += t1 - t0;
    pr->r->occupancy = pr->info.occupancy >= 0 ? pr->info.occupancy : NAN;
    if (pr->info.kind != CB_KIND_AUTO) pr->r->kind = pr->info.kind;
    snprintf(pr->r->note, sizeof pr->r->note, "%s", pr->info.note);
    if (st != CB_OK) return st;
    st = time_sample(b, *state, t, pt, false, 1, 0, single, NULL, why);
    double error = NAN;
    if (st == CB_OK) st = b->verify(*state, &error, why);
    pr->r->phases.verify_s += cb_now_s() - t1;
    pr->r->verify_error = error;
    return st;
}

/* Warm-up runs; *single ends as the last run's time (it sizes a hot batch). */
static cb_status phase_warm_up(const cb_run_config *cfg, const cb_bench *b, void *state,
                               cb_timing *t, point_timing pt, double *single, cb_phase_times *ph,
                               cb_msg *why)
{
    double started = cb_now_s();
    cb_status st = CB_OK;
    for (int i = 0; i < cfg->warmup_runs && !cb_interrupted() && st == CB_OK; i++) {
        double elapsed = 0;
        st = time_sample(b, state, t, pt, false, 1, 0, &elapsed, NULL, why);
        if (st == CB_OK) *single = elapsed;
        if (cb_now_s() - started > cfg->warmup_max_s) break;
    }
    ph->warmup_s += cb_now_s() - started;
    return st;
}

static int hot_batch(const cb_run_config *cfg, point_timing pt, double single)
{
    /* The profiler sees exactly one run (ncu replays every kernel in its
     * range, so a batch would multiply its work). */
    if (cfg->profile && pt.cuda) return 1;
    if (!pt.hot || !(single > 0) || single >= cfg->hot_min_sample_s) return 1;
    double want = ceil(cfg->hot_min_sample_s / single);
    return want > CB_MAX_HOT_BATCH ? CB_MAX_HOT_BATCH : (int)want;
}

typedef enum sampling_end {
    SAMPLING_CONVERGED,
    SAMPLING_BUDGET,
    SAMPLING_INTERRUPTED,
    SAMPLING_FAILED,
} sampling_end;

/* The stopping rule of one round: the budget and the sample cap shared out
 * over the rounds; every round still needs the rule's minimum. */
static cb_stop_rule round_rule(const cb_run_config *cfg)
{
    cb_stop_rule rule = cfg->stop;
    int rounds = cfg->replicates > 1 ? cfg->replicates : 1;
    rule.max_time_s = cfg->stop.max_time_s / rounds;
    rule.max_samples = cfg->stop.max_samples / rounds;
    if (rule.max_samples < rule.min_samples) rule.max_samples = rule.min_samples;
    return rule;
}

/* Store one sample of the round; the stopping rule's verdict after it. */
static cb_stop_verdict keep_sample(const cb_stop_rule *rule, point_run *pr, int round, int start,
                                   double elapsed, double h0, double started, int *n_round)
{
    point_samples *ps = &pr->samples;
    ps->time_s[ps->n] = elapsed / pr->batch;
    ps->cupti_s[ps->n] = NAN;
    ps->host_t0[ps->n] = h0;
    ps->replicate[ps->n] = round;
    ps->n++;
    *n_round = ps->n - start;
    return cb_stop_check(rule, ps->time_s + start, *n_round, cb_now_s() - started);
}

/* The end of a round the rule stopped (CB_STOP_CONTINUE only when no more
 * samples may be taken: out of budget too). */
static sampling_end sampling_end_of(cb_stop_verdict v)
{
    return v == CB_STOP_CONVERGED ? SAMPLING_CONVERGED : SAMPLING_BUDGET;
}

/* Event-timed samples, one ahead: sample k+1 is enqueued before sample k is
 * read, so the GPU starts it the moment k ends and the launch latency of
 * the host (a Python framework's dispatch is ~10 us a call) falls between
 * a stop and the next start only when the host cannot keep ahead, i.e.
 * when runs are shorter than their launch; then the samples show that
 * launch rate, as a program would see it. The sample in flight when the
 * rule stops is waited for and dropped (a first version kept it, and the
 * CI of the one extra sample sometimes crossed the target after the rule
 * had said converged: ok rows came out noisy); none is queued past
 * max_samples. */
static sampling_end phase_sample_ahead(const cb_run_config *cfg, const cb_bench *b, void *state,
                                       cb_timing *t, point_timing pt, int round, point_run *pr,
                                       uint64_t *first_id, int *n_round, cb_msg *why)
{
    const cb_stop_rule rule = round_rule(cfg);
    const bool use_cupti = cb_cupti_active(), flush = !pt.hot;
    const int start = pr->samples.n;
    *first_id = t->next_sample_id;
    *n_round = 0;
    const double started = cb_now_s();
    double h0 = started, h0_next = 0;
    int slot = 0, queued = 1;
    sampling_end end = SAMPLING_FAILED;
    if (point_samples_reserve(&pr->samples, 2, why) != CB_OK) return SAMPLING_FAILED;
    if (enqueue_sample(b, state, t, flush, pr->batch, use_cupti ? t->next_sample_id++ : 0, slot,
                       why) != CB_OK)
        goto drain;
    for (;;) {
        bool ahead = queued < rule.max_samples && !cb_interrupted();
        if (ahead) {
            if (point_samples_reserve(&pr->samples, 2, why) != CB_OK) goto drain;
            h0_next = cb_now_s();
            if (enqueue_sample(b, state, t, flush, pr->batch, use_cupti ? t->next_sample_id++ : 0,
                               slot ^ 1, why) != CB_OK)
                goto drain;
            queued++;
        }
        double elapsed = 0;
        if (read_sample(t, slot, &elapsed, why) != CB_OK) goto drain;
        /* The next sample began on the GPU when this one ended, or when the
         * host queued it, whichever was later: its clock for telemetry. */
        const double read_at = cb_now_s();
        cb_stop_verdict v = keep_sample(&rule, pr, round, start, elapsed, h0, started, n_round);
        h0 = h0_next > read_at ? h0_next : read_at;
        slot ^= 1;
        if (cb_interrupted()) {
            end = SAMPLING_INTERRUPTED;
            goto drain;
        }
        if (v == CB_STOP_CONTINUE && ahead) continue;
        /* The sample in flight is waited for and dropped: the row is the
         * set the rule judged (CUPTI's join ignores its correlation id). */
        if (ahead && read_sample(t, slot, &elapsed, why) != CB_OK) goto drain;
        return sampling_end_of(v); /* CONTINUE here: max_samples reached, a budget end */
    }
drain:
    /* Whatever is still queued finishes before the caller tears down. */
    cudaStreamSynchronize(t->stream);
    return end;
}

static sampling_end phase_sample(const cb_run_config *cfg, const cb_bench *b, void *state,
                                 cb_timing *t, point_timing pt, int round, point_run *pr,
                                 uint64_t *first_id, int *n_round, cb_msg *why)
{
    if (pt.cuda && !pt.host_timer && !cfg->profile)
        return phase_sample_ahead(cfg, b, state, t, pt, round, pr, first_id, n_round, why);
    point_samples *ps = &pr->samples;
    const cb_stop_rule rule = round_rule(cfg);
    const bool use_cupti = pt.cuda && cb_cupti_active();
    const int start = ps->n;
    *first_id = t->next_sample_id;
    *n_round = 0;
    double started = cb_now_s();
    for (;;) {
        if (cb_interrupted()) return SAMPLING_INTERRUPTED;
        if (point_samples_reserve(ps, 1, why) != CB_OK) return SAMPLING_FAILED;
        uint64_t id = use_cupti ? t->next_sample_id++ : 0;
        bool profiled = cfg->profile && pt.cuda && ps->n == 0;
        cb_msg perr;
        if (profiled && cb_profile_start(&perr) != CB_OK)
            fprintf(stderr, "cubench: %s\n", perr.text);
        double elapsed = 0, h0 = 0;
        cb_status st =
            time_sample(b, state, t, pt, pt.cuda && !pt.hot, pr->batch, id, &elapsed, &h0, why);
        if (profiled && cb_profile_stop(&perr) != CB_OK)
            fprintf(stderr, "cubench: %s\n", perr.text);
        if (st != CB_OK) return SAMPLING_FAILED;
        cb_stop_verdict v = keep_sample(&rule, pr, round, start, elapsed, h0, started, n_round);
        if (v != CB_STOP_CONTINUE) return sampling_end_of(v);
    }
}

/* Attach CUPTI's view of one round's samples (from index `start`); a
 * failure or a memcpy of the wrong kind makes the point fail. */
static cb_status phase_attach_cupti(const cb_run_config *cfg, point_run *pr, uint64_t first_id,
                                    int start, int n, cb_msg *why)
{
    cb_cupti_point cp;
    memset(&cp, 0, sizeof cp);
    if (cb_cupti_collect(first_id, n, &cp, why) != CB_OK) {
        char inner[CB_MSG_LEN];
        snprintf(inner, sizeof inner, "%s", why->text);
        cb_msg_set(why, "CUPTI: %.240s", inner);
        cb_cupti_point_free(&cp);
        return CB_FAIL;
    }
    cb_result *r = pr->r;
    const cb_point_info *info = &pr->info;
    snprintf(r->kernels, sizeof r->kernels, "%s", cp.kernels);
    int missing = 0;
    double *cupti_s = pr->samples.cupti_s + start;
    for (int i = 0; i < n; i++) {
        cupti_s[i] = cp.records[i] > 0 ? cp.gpu_s[i] / pr->batch : NAN;
        if (cp.records[i] == 0) missing++;
    }
    cb_status st = CB_OK;
    if ((info->memcpy_src_kind || info->memcpy_dst_kind) && cp.memcpy_count > 0 &&
        ((info->memcpy_src_kind && cp.memcpy_src_kind != info->memcpy_src_kind) ||
         (info->memcpy_dst_kind && cp.memcpy_dst_kind != info->memcpy_dst_kind))) {
        cb_msg_set(why,
                   "CUPTI saw memcpy kinds src=%d dst=%d but the point claims src=%d dst=%d "
                   "(1 pageable, 2 pinned, 3 device)",
                   cp.memcpy_src_kind, cp.memcpy_dst_kind, info->memcpy_src_kind,
                   info->memcpy_dst_kind);
        st = CB_FAIL;
    }
    /* --timer cupti: the statistics use CUPTI's times only when every
     * sample has them; otherwise the row says it fell back to events. */
    if (cfg->cupti_primary) {
        if (missing == 0)
            memcpy(pr->samples.time_s + start, cupti_s, sizeof(double) * (size_t)n);
        else
            r->timer = "event";
    }
    cb_cupti_point_free(&cp);
    return st;
}

/* ---- telemetry (telemetry.h): what the GPU did while a point was sampled ----
 * The sampler reads only during phase_sample, so its readings describe the
 * timed runs (plus the L2 flushes between cold samples), not setup. Host
 * benchmarks have no GPU to describe: their telemetry columns stay empty. */

/* A point on one GPU (the pass's cfg->dev); a point spanning several GPUs
 * gets no telemetry rather than one device's clocks. */
static bool telemetry_applies(const cb_run_config *cfg, const cb_bench *b, point_timing pt)
{
    return pt.cuda && b->devices <= 1 && cfg->dev &&
           cb_telemetry_select(cfg->telemetry, cfg->dev->uuid);
}

/* Keep a round's readings; a failure loses the telemetry, never the point. */
static void telemetry_round_end(const cb_run_config *cfg, point_run *pr)
{
    cb_msg why = {{0}};
    if (cb_telemetry_point_end(cfg->telemetry, &pr->readings, &why) != CB_OK)
        fprintf(stderr, "cubench: telemetry: %s\n", why.text);
}

/* The row's telemetry fields, each sample's SM clock and reasons, and the
 * flag ("throttled: ...", "SM clock A-B MHz") appended to the note. */
static void telemetry_finish(point_run *pr)
{
    cb_result *r = pr->r;
    if (pr->closed || pr->readings.n == 0) return;
    cb_telemetry_summarise(pr->readings.v, pr->readings.n, &r->telemetry);
    int n = pr->samples.n;
    if (n > 0) {
        pr->sample_sm_clock_mhz = malloc(sizeof(double) * (size_t)n);
        pr->sample_throttle = malloc(sizeof(const char *) * (size_t)n);
    }
    if (pr->sample_sm_clock_mhz && pr->sample_throttle) {
        cb_telemetry_per_sample(pr->readings.v, pr->readings.n, pr->samples.host_t0,
                                pr->samples.time_s, pr->batch, n, pr->sample_sm_clock_mhz,
                                pr->sample_throttle);
    } else {
        free(pr->sample_sm_clock_mhz);
        free(pr->sample_throttle);
        pr->sample_sm_clock_mhz = NULL;
        pr->sample_throttle = NULL;
    }
    char flag[sizeof r->note];
    if (cb_telemetry_flag(&r->telemetry, flag, sizeof flag)) {
        size_t used = strlen(r->note);
        snprintf(r->note + used, sizeof r->note - used, "%s%s", used ? "; " : "", flag);
    }
}

static void telemetry_free(point_run *pr)
{
    cb_telemetry_readings_free(&pr->readings);
    free(pr->sample_sm_clock_mhz);
    free(pr->sample_throttle);
    pr->sample_sm_clock_mhz = NULL;
    pr->sample_throttle = NULL;
}

/* One round of one point. Returns false when the sweep must stop (an
 * interrupt); the point's row is then not written. */
static bool run_point_round(const cb_run_config *cfg, const cb_planned_point *pp, cb_timing *t,
                            int round, point_run *pr)
{
    const cb_bench *b = pp->bench;
    const point_timing pt = point_timing_of(b, cfg);
    void *state = NULL;
    cb_msg why = {{0}};
    double single = 0;
    bool go_on = true;

    cb_status st = phase_setup_and_verify(cfg, b, &pp->point, t, pt, &state, pr, &single, &why);
    if (st == CB_OK) st = phase_warm_up(cfg, b, state, t, pt, &single, &pr->r->phases, &why);
    if (cb_interrupted()) {
        /* A hook that failed because the user interrupted it is not a fail. */
        go_on = false;
    } else if (st != CB_OK) {
        point_close(pr, st, why.text);
    } else {
        double sampling_started = cb_now_s();
        if (round == 0) pr->batch = hot_batch(cfg, pt, single);
        pr->r->batch = pr->batch;
        uint64_t first_id = 0;
        int start = pr->samples.n, n = 0;
        bool tele = telemetry_applies(cfg, b, pt);
        if (tele) cb_telemetry_point_begin(cfg->telemetry);
        sampling_end end = phase_sample(cfg, b, state, t, pt, round, pr, &first_id, &n, &why);
        if (tele) telemetry_round_end(cfg, pr);
        if (end == SAMPLING_INTERRUPTED || (end == SAMPLING_FAILED && cb_interrupted())) {
            go_on = false;
        } else if (end == SAMPLING_FAILED) {
            point_close(pr, CB_FAIL, why.text);
        } else {
            if (end == SAMPLING_BUDGET) {
                cb_summary s;
                cb_stats_summarise(pr->samples.time_s + start, n, &s);
                pr->noisy_rounds++;
                snprintf(pr->noisy_reason, sizeof pr->noisy_reason,
                         "CI of the median +-%.2f%% after %d samples (target +-%.2f%%, budget "
                         "%.3g s)",
                         100 * s.ci_rel_half, n, 100 * cfg->stop.target_rel,
                         round_rule(cfg).max_time_s);
            }
            if (pt.cuda && cb_cupti_active() &&
                phase_attach_cupti(cfg, pr, first_id, start, n, &why) != CB_OK)
                point_close(pr, CB_FAIL, why.text);
        }
        pr->r->phases.sampling_s += cb_now_s() - sampling_started;
    }
    double teardown_started = cb_now_s();
    if (state) b->teardown(state);
    pr->r->phases.teardown_s += cb_now_s() - teardown_started;
    return go_on;
}

/* ---- drift: a trend while sampling, flagged in the row's note ---- */

/* Each round's samples in the order taken: the median of the last third
 * against the first third (cb_stats_drift). A round is flagged when the
 * change is significant and at least the CI target (smaller drifts are
 * below the precision the run asked for); the note names the largest. */
static void note_drift(const cb_run_config *cfg, cb_result *r, const point_samples *ps)
{
    double worst = 0.0;
    int worst_round = -1;
    for (int start = 0; start < ps->n;) {
        int end = start;
        while (end < ps->n && ps->replicate[end] == ps->replicate[start])
            end++;
        double change = 0;
        if (cb_stats_drift(ps->time_s + start, end - start, &change) &&
            fabs(change) >= cfg->stop.target_rel && fabs(change) > fabs(worst)) {
            worst = change;
            worst_round = ps->replicate[start];
        }
        start = end;
    }
    if (worst_round < 0) return;
    char text[80];
    if (r->replicates > 1)
        snprintf(text, sizeof text, "drift: %+.1f%% first to last third (round %d)", 100 * worst,
                 worst_round);
    else
        snprintf(text, sizeof text, "drift: %+.1f%% first to last third", 100 * worst);
    size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "%s%s", used ? "; " : "", text);
}

/* Pool the rounds into the row's statistics and status. */
static void point_finish(const cb_run_config *cfg, point_run *pr)
{
    cb_result *r = pr->r;
    point_samples *ps = &pr->samples;
    if (pr->closed) {
        memset(&r->summary, 0, sizeof r->summary);
        ps->n = 0;
        return;
    }
    cb_stats_summarise(ps->time_s, ps->n, &r->summary);
    r->replicates = cfg->replicates > 1 ? cfg->replicates : 1;
    int with_cupti = 0;
    for (int i = 0; i < ps->n; i++)
        with_cupti += isfinite(ps->cupti_s[i]);
    if (with_cupti > 0) {
        double *tmp = malloc(sizeof(double) * (size_t)with_cupti);
        if (tmp) {
            int m = 0;
            for (int i = 0; i < ps->n; i++)
                if (isfinite(ps->cupti_s[i])) tmp[m++] = ps->cupti_s[i];
            cb_summary s;
            cb_stats_summarise(tmp, m, &s);
            r->cupti_median_s = s.median;
            free(tmp);
        }
    }
    r->status = CB_OK;
    if (pr->noisy_rounds > 0) {
        r->status = CB_NOISY;
        if (r->replicates > 1)
            snprintf(r->reason, sizeof r->reason, "%d of %d rounds ran out of budget; last: %.180s",
                     pr->noisy_rounds, r->replicates, pr->noisy_reason);
        else
            snprintf(r->reason, sizeof r->reason, "%s", pr->noisy_reason);
    }
    note_drift(cfg, r, ps);
}

/* Does `p` hold the reference point `ref`'s value on every axis the
 * reference declares? Extra axes of `p` (a tile size, a config) are free:
 * the reference is the same problem solved another way. */
static bool same_ref_point(const cb_point *ref, const cb_point *p)
{
    for (int a = 0; a < ref->n_axes; a++) {
        bool found = false;
        for (int b = 0; b < p->n_axes && !found; b++)
            found = strcmp(ref->defs[a].name, p->defs[b].name) == 0 &&
                    strcmp(ref->values[a].text, p->values[b].text) == 0;
        if (!found) return false;
    }
    return ref->expanded && p->expanded;
}

static const char *peak_source_of(cb_peak_kind kind)
{
    switch (kind) {
    case CB_PEAK_DRAM:
        return "attribute: 2 x memory clock x bus width / 8 (as the runtime reports them)";
    case CB_PEAK_PCIE:
        return "attribute: sysfs link GT/s x width x line-code efficiency, per direction";
    case CB_PEAK_FP32:
        return "table: FP32 lanes per SM by compute capability x SMs x 2 (FMA) x max boost clock";
    case CB_PEAK_NONE:
        break;
    }
    return NULL;
}

/* Fill the figures that follow from the median and the work model. */
static void derive_figures(cb_result *r, const cb_run_config *cfg, const cb_result *done,
                           int n_done)
{
    const cb_bench *b = r->bench;
    if (!r->point.expanded) return; /* a benchmark skipped before expansion */
    if (b->bytes) r->bytes = b->bytes(&r->point);
    if (b->flops) r->flops = b->flops(&r->point);
    double med = r->summary.median;
    if (r->summary.n == 0 || !(med > 0)) return;
    if (isfinite(r->bytes)) r->gbps = r->bytes / med / 1e9;
    if (isfinite(r->flops)) r->tflops = r->flops / med / 1e12;
    if (cfg->dev && b->target == CB_TARGET_CUDA) {
        double peak = 0;
        double figure = NAN;
        switch (b->peak) {
        case CB_PEAK_DRAM:
            peak = cb_device_peak_dram_gbps(cfg->dev), figure = r->gbps, r->peak_unit = "GB/s";
            break;
        case CB_PEAK_PCIE:
            peak = cb_device_peak_pcie_gbps(cfg->dev), figure = r->gbps, r->peak_unit = "GB/s";
            break;
        case CB_PEAK_FP32:
            peak = cb_device_peak_fp32_tflops(cfg->dev), figure = r->tflops,
            r->peak_unit = "TFLOP/s";
            break;
        case CB_PEAK_NONE:
            break;
        }
        if (peak > 0) {
            r->peak = peak;
            r->pct_peak = 100.0 * figure / peak;
            r->peak_source = peak_source_of(b->peak);
        } else {
            r->peak_unit = "";
        }
    }
    if (r->ref) {
        for (int i = n_done - 1; i >= 0; i--) {
            const cb_result *ref = &done[i];
            if (ref->summary.n > 0 && ref->bench == r->ref &&
                same_ref_point(&ref->point, &r->point)) {
                r->ref_benchmark = r->ref->name;
                r->pct_ref = 100.0 * ref->summary.median / med;
                break;
            }
        }
    }
}

/* After a failed CUDA point: is the context still usable? Errors such as an
 * illegal address are sticky and poison every later call. */
static bool context_lost(char *why, size_t len)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    snprintf(why, len, "%s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    return true;
}

static void count_status(cb_run_totals *totals, cb_status st)
{
    switch (st) {
    case CB_OK:
        totals->ok++;
        break;
    case CB_NOISY:
        totals->noisy++;
        break;
    case CB_SKIP:
        totals->skip++;
        break;
    case CB_FAIL:
        totals->fail++;
        break;
    }
}

/* Can the point run at all? Closes it with a skip/fail row when not. */
static bool point_can_run(const cb_run_config *cfg, const cb_planned_point *pp, cb_timing *t,
                          bool *timing_failed, point_run *pr)
{
    bool cuda = pp->bench->target == CB_TARGET_CUDA;
    if (pp->skip_reason[0]) {
        point_close(pr, CB_SKIP, pp->skip_reason);
        return false;
    }
    if (cuda && !cfg->dev) {
        point_close(pr, CB_SKIP, cfg->no_device_reason);
        return false;
    }
    if (cuda) {
        /* A GPU without the benchmark's feature, or a build without code for
         * the GPU, is a skip with its reason, before setup allocates. */
        cb_msg why = {{0}};
        cb_status can = cb_bench_can_run(pp->bench, cfg->dev, &why);
        if (can != CB_OK) {
            point_close(pr, can, why.text);
            return false;
        }
    }
    if (cuda && !t->ready) {
        cb_msg err = {{0}};
        if (*timing_failed || timing_init(t, cfg->dev, &err) != CB_OK) {
            char reason[CB_MSG_LEN];
            snprintf(reason, sizeof reason, "runner setup: %.230s",
                     *timing_failed ? "failed earlier in this run" : err.text);
            *timing_failed = true;
            point_close(pr, CB_FAIL, reason);
            return false;
        }
    }
    return true;
}

cb_status cb_runner_run(const cb_run_config *cfg, const cb_planned_point *points, int n,
                        cb_sink *sink, cb_result **results_out, cb_run_totals *totals, cb_msg *why)
{
    memset(totals, 0, sizeof *totals);
    *results_out = NULL;
    const int rounds = cfg->replicates > 1 ? cfg->replicates : 1;
    cb_result *results = calloc((size_t)(n > 0 ? n : 1), sizeof *results);
    point_run *runs = calloc((size_t)(n > 0 ? n : 1), sizeof *runs);
    if (!results || !runs) {
        free(results);
        free(runs);
        cb_msg_set(why, "out of host memory for %d points", n);
        return CB_FAIL;
    }
    /* Rows are written in plan order; results[] holds the written ones. */
    cb_result *rows = calloc((size_t)(n > 0 ? n : 1), sizeof *rows);
    if (!rows) {
        free(results);
        free(runs);
        cb_msg_set(why, "out of host memory for %d points", n);
        return CB_FAIL;
    }
    for (int i = 0; i < n; i++) {
        runs[i].r = &results[i];
        result_init(&results[i], &points[i], cfg);
    }
    cb_timing timing = {0};
    bool timing_failed = false;
    cb_progress prog;
    cb_progress_begin(&prog, n * rounds, cfg->quiet);

    int written = 0;
    bool stop = false;
    for (int round = 0; round < rounds && !stop; round++) {
        for (int i = 0; i < n && !stop; i++) {
            if (cb_interrupted()) {
                totals->interrupted = true;
                stop = true;
                break;
            }
            const cb_planned_point *pp = &points[i];
            point_run *pr = &runs[i];
            if (pr->written) continue;
            cb_result *r = pr->r;
            int step = round * n + i;
            cb_progress_point(&prog, step, pp->bench->name, r->axes);
            bool cuda = pp->bench->target == CB_TARGET_CUDA;
            if (round > 0 || point_can_run(cfg, pp, &timing, &timing_failed, pr)) {
                if (cfg->nvtx) cb_nvtx_point_push(pp->bench->name, r->axes);
                bool go_on = run_point_round(cfg, pp, &timing, round, pr);
                if (cfg->nvtx) cb_nvtx_point_pop();
                if (!go_on) {
                    /* The point in flight is abandoned, not recorded as a failure. */
                    totals->interrupted = true;
                    stop = true;
                    break;
                }
            }
            /* A skip or fail ends the point in any round; else the last round does. */
            if (!pr->closed && round < rounds - 1) continue;
            point_finish(cfg, pr);
            telemetry_finish(pr);
            derive_figures(r, cfg, rows, written);
            cb_sample_extras extras = {.replicate = pr->samples.replicate,
                                       .sm_clock_mhz = pr->sample_sm_clock_mhz,
                                       .throttle = pr->sample_throttle};
            cb_msg werr = {{0}};
            bool ok = cb_sink_write_point(sink, r, pr->samples.time_s, pr->samples.cupti_s,
                                          pr->samples.n, &extras, &werr);
            pr->written = true;
            rows[written++] = *r;
            count_status(totals, r->status);
            cb_progress_done(&prog, step, r);
            point_samples_free(&pr->samples);
            telemetry_free(pr);
            if (!ok) {
                totals->write_failed = true;
                snprintf(totals->stop_reason, sizeof totals->stop_reason, "%s", werr.text);
                stop = true;
                break;
            }
            char lost[CB_MSG_LEN];
            if (cuda && r->status == CB_FAIL && timing.ready && context_lost(lost, sizeof lost)) {
                snprintf(totals->stop_reason, sizeof totals->stop_reason,
                         "the CUDA context is unusable after %.40s %.60s: %.80s", r->bench->name,
                         r->axes, lost);
                totals->context_lost = true;
                stop = true;
                break;
            }
        }
    }
    cb_progress_end(&prog);
    timing_free(&timing);
    for (int i = 0; i < n; i++) {
        point_samples_free(&runs[i].samples);
        telemetry_free(&runs[i]);
    }
    free(runs);
    free(results);
    *results_out = rows;
    return CB_OK;
}
