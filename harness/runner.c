/* runner.c - verify, warm up, sample until the stopping rule holds, derive.
 *
 * One point, CUDA benchmark:
 *   setup -> run -> sync -> verify            (a wrong result is a fail row, untimed)
 *   -> warm-up runs (also calibrate the batch for hot mode)
 *   -> samples: [flush L2 if cold] event0, run x batch, event1, sync
 *      (each sample attributed to one CUPTI external-correlation id)
 *   -> stopping rule after every sample -> statistics -> row -> teardown
 * Host benchmarks follow the same path with the monotonic clock.
 */
#include "runner.h"

#include "l2_flush.h"
#include "cupti_timer.h"
#include "nvtx_ranges.h"
#include "profile_point.h"
#include "progress.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cb_run_config_defaults(cb_run_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->stop.min_samples = 10;
    cfg->stop.max_samples = 100000;
    cfg->stop.target_rel = 0.005;
    cfg->stop.max_time_s = 1.0;
    cfg->cache = CB_CACHE_COLD;
    cfg->hot_min_sample_s = 100e-6;
    cfg->warmup_runs = 3;
    cfg->warmup_max_s = 0.25;
    cfg->seed = 0x5eed2026;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cfg->host_threads = cores > 0 ? (int)cores : 1;
    cfg->use_cupti = true;
    cfg->nvtx = true;
}

/* Everything the timer needs for CUDA points, made once per sweep. */
typedef struct cb_timing {
    bool ready;
    cudaStream_t stream;
    cudaEvent_t start, stop;
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
    CB_CUDA(cudaEventCreate(&t->start));
    CB_CUDA(cudaEventCreate(&t->stop));
    /* Reading twice the L2 size evicts whatever a point left there (dirty
     * lines are written back during the flush, not the timed run). */
    t->flush_bytes = dev->l2_bytes ? 2 * dev->l2_bytes : (size_t)64 << 20;
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
    cudaEventDestroy(t->start);
    cudaEventDestroy(t->stop);
    cudaStreamDestroy(t->stream);
    t->ready = false;
}

/* One sample: `batch` runs, timed by the point's timer. Returns the elapsed
 * seconds for the whole batch in *elapsed. */
static cb_status time_sample(const cb_bench *b, void *state, cb_timing *t, bool host_timer,
                             bool flush, int batch, uint64_t sample_id, double *elapsed,
                             cb_msg *why)
{
    bool cuda = b->target == CB_TARGET_CUDA;
    cudaStream_t s = cuda ? t->stream : NULL;
    if (cuda && flush) CB_CUDA(cb_launch_l2_flush(t->flush_buf, t->flush_bytes, t->flush_sink, s));
    if (cuda && host_timer) CB_CUDA(cudaStreamSynchronize(s));
    if (sample_id && cb_cupti_active()) cb_cupti_sample_begin(sample_id);
    double h0 = cb_now_s();
    if (cuda && !host_timer) CB_CUDA(cudaEventRecord(t->start, s));
    cb_status st = CB_OK;
    for (int i = 0; i < batch && st == CB_OK; i++)
        st = b->run(state, s, why);
    if (st == CB_OK && cuda) {
        if (host_timer) {
            cudaError_t e = cudaStreamSynchronize(s);
            *elapsed = cb_now_s() - h0;
            CB_CUDA(e);
        } else {
            CB_CUDA(cudaEventRecord(t->stop, s));
            CB_CUDA(cudaEventSynchronize(t->stop));
            float ms = 0;
            CB_CUDA(cudaEventElapsedTime(&ms, t->start, t->stop));
            *elapsed = ms * 1e-3;
        }
    } else {
        *elapsed = cb_now_s() - h0;
    }
    if (sample_id && cb_cupti_active()) cb_cupti_sample_end();
    return st;
}

static void result_init(cb_result *r, const cb_planned_point *pp, const cb_run_config *cfg)
{
    memset(r, 0, sizeof *r);
    r->bench = pp->bench;
    r->point = pp->point;
    if (pp->point.n_axes > 0) cb_point_format(&pp->point, r->axes, sizeof r->axes);
    bool host = pp->bench->target == CB_TARGET_HOST;
    bool host_timer = host || pp->bench->timer == CB_TIMER_HOST;
    r->timer = host_timer ? "host" : (cfg->cupti_primary ? "cupti" : "event");
    r->cache = host ? "n/a" : (cfg->cache == CB_CACHE_COLD ? "cold" : "hot");
    r->cupti_median_s = r->bytes = r->flops = r->gbps = r->tflops = NAN;
    r->peak = r->pct_peak = r->pct_ref = r->occupancy = r->verify_error = NAN;
    r->peak_unit = "";
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
    return ref->n_axes > 0;
}

/* Fill the figures that follow from the median and the work model. */
static void derive_figures(cb_result *r, const cb_run_config *cfg, const cb_result *done,
                           int n_done)
{
    const cb_bench *b = r->bench;
    if (r->point.n_axes == 0) return; /* a benchmark skipped before expansion */
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
        } else {
            r->peak_unit = "";
        }
    }
    if (b->ref_bench) {
        for (int i = n_done - 1; i >= 0; i--) {
            const cb_result *ref = &done[i];
            if (ref->summary.n > 0 && strcmp(ref->bench->name, b->ref_bench) == 0 &&
                same_ref_point(&ref->point, &r->point)) {
                r->ref_benchmark = b->ref_bench;
                r->pct_ref = 100.0 * ref->summary.median / med;
                break;
            }
        }
    }
}

/* Attach CUPTI's view of the samples; a failure turns the point into fail. */
static void attach_cupti(cb_result *r, uint64_t first_id, int n, int batch,
                         const cb_point_info *info, double *cupti_s, bool primary, double *samples)
{
    cb_cupti_point cp;
    cb_msg why;
    memset(&cp, 0, sizeof cp);
    if (cb_cupti_collect(first_id, n, &cp, &why) != CB_OK) {
        r->status = CB_FAIL;
        snprintf(r->reason, sizeof r->reason, "CUPTI: %.240s", why.text);
        cb_cupti_point_free(&cp);
        return;
    }
    snprintf(r->kernels, sizeof r->kernels, "%s", cp.kernels);
    int missing = 0;
    for (int i = 0; i < n; i++) {
        cupti_s[i] = cp.records[i] > 0 ? cp.gpu_s[i] / batch : NAN;
        if (cp.records[i] == 0) missing++;
    }
    if ((info->memcpy_src_kind || info->memcpy_dst_kind) && cp.memcpy_count > 0 &&
        ((info->memcpy_src_kind && cp.memcpy_src_kind != info->memcpy_src_kind) ||
         (info->memcpy_dst_kind && cp.memcpy_dst_kind != info->memcpy_dst_kind))) {
        r->status = CB_FAIL;
        snprintf(r->reason, sizeof r->reason,
                 "CUPTI saw memcpy kinds src=%d dst=%d but the point claims src=%d dst=%d "
                 "(1 pageable, 2 pinned, 3 device)",
                 cp.memcpy_src_kind, cp.memcpy_dst_kind, info->memcpy_src_kind,
                 info->memcpy_dst_kind);
    }
    double *tmp = missing < n ? malloc(sizeof(double) * (size_t)n) : NULL;
    if (tmp) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (isfinite(cupti_s[i])) tmp[m++] = cupti_s[i];
        cb_summary s;
        cb_stats_summarise(tmp, m, &s);
        r->cupti_median_s = s.median;
        free(tmp);
    }
    if (primary) {
        /* --timer cupti: the statistics use CUPTI's times only when every
         * sample has them; otherwise the row says it fell back to events. */
        if (missing == 0)
            memcpy(samples, cupti_s, sizeof(double) * (size_t)n);
        else
            r->timer = "event";
    }
    cb_cupti_point_free(&cp);
}

/* Run one point to completion. `samples`/`cupti_s` have room for
 * cfg->stop.max_samples values; *n_samples says how many were taken. */
static void run_point(const cb_run_config *cfg, const cb_planned_point *pp, cb_timing *t,
                      cb_result *r, double *samples, double *cupti_s, int *n_samples)
{
    const cb_bench *b = pp->bench;
    bool cuda = b->target == CB_TARGET_CUDA;
    bool host_timer = !cuda || b->timer == CB_TIMER_HOST;
    *n_samples = 0;

    cb_bench_ctx ctx = {.param = b->param,
                        .dev = cuda ? cfg->dev : NULL,
                        .stream = cuda ? t->stream : NULL,
                        .seed = cfg->seed,
                        .host_threads = cfg->host_threads};
    cb_point_info info = {.occupancy = NAN};
    void *state = NULL;
    cb_msg why = {{0}};

    cb_status st = b->setup(&pp->point, &ctx, &state, &info, &why);
    r->occupancy = info.occupancy >= 0 ? info.occupancy : NAN;
    snprintf(r->note, sizeof r->note, "%s", info.note);
    if (st != CB_OK) goto finish;

    /* The verified run. */
    double elapsed = 0;
    st = time_sample(b, state, t, host_timer, false, 1, 0, &elapsed, &why);
    if (st != CB_OK) goto finish;
    double error = NAN;
    st = b->verify(state, &error, &why);
    r->verify_error = error;
    if (st != CB_OK) goto finish;

    /* Warm-up, and the single-run time that sizes a hot batch. */
    double single = elapsed;
    double warm_start = cb_now_s();
    for (int i = 0; i < cfg->warmup_runs && !cb_interrupted(); i++) {
        st = time_sample(b, state, t, host_timer, false, 1, 0, &elapsed, &why);
        if (st != CB_OK) goto finish;
        single = elapsed;
        if (cb_now_s() - warm_start > cfg->warmup_max_s) break;
    }
    bool hot = !cuda || cfg->cache == CB_CACHE_HOT;
    int batch = 1;
    if (hot && single > 0 && single < cfg->hot_min_sample_s) {
        double want = ceil(cfg->hot_min_sample_s / single);
        batch = want > 100000 ? 100000 : (int)want;
    }
    /* Profile mode: the profiler sees exactly one run (ncu replays every
     * kernel in its range, so a batch would multiply its work). */
    if (cfg->profile && cuda) batch = 1;
    r->batch = batch;

    uint64_t first_id = t->next_sample_id;
    bool use_cupti = cuda && cb_cupti_active();
    double sample_start = cb_now_s();
    int n = 0;
    for (;;) {
        if (cb_interrupted()) {
            st = CB_FAIL;
            cb_msg_set(&why, "interrupted");
            break;
        }
        uint64_t id = use_cupti ? t->next_sample_id++ : 0;
        bool profiled = cfg->profile && cuda && n == 0;
        if (profiled && cb_profile_start(&why) != CB_OK) fprintf(stderr, "cubench: %s\n", why.text);
        st = time_sample(b, state, t, host_timer, cuda && !hot, batch, id, &elapsed, &why);
        if (profiled && cb_profile_stop(&why) != CB_OK) fprintf(stderr, "cubench: %s\n", why.text);
        if (st != CB_OK) break;
        samples[n++] = elapsed / batch;
        cb_stop_verdict v = cb_stop_check(&cfg->stop, samples, n, cb_now_s() - sample_start);
        if (v == CB_STOP_CONTINUE) continue;
        if (v == CB_STOP_BUDGET) {
            st = CB_NOISY;
            cb_stats_summarise(samples, n, &r->summary);
            cb_msg_set(
                &why, "CI of the median +-%.2f%% after %d samples (target +-%.2f%%, budget %.3g s)",
                100 * r->summary.ci_rel_half, n, 100 * cfg->stop.target_rel, cfg->stop.max_time_s);
        }
        break;
    }
    *n_samples = (st == CB_OK || st == CB_NOISY) ? n : 0;
    if (*n_samples > 0) {
        for (int i = 0; i < n; i++)
            cupti_s[i] = NAN;
        if (use_cupti) {
            attach_cupti(r, first_id, n, batch, &info, cupti_s, cfg->cupti_primary, samples);
            if (r->status == CB_FAIL) st = CB_FAIL;
        }
        cb_stats_summarise(samples, n, &r->summary);
    }

finish:
    if (state) b->teardown(state);
    if (r->status != CB_FAIL) r->status = st;
    if (st == CB_FAIL && r->reason[0] == '\0')
        snprintf(r->reason, sizeof r->reason, "%s", why.text);
    if (st != CB_OK && st != CB_FAIL) snprintf(r->reason, sizeof r->reason, "%s", why.text);
    if (r->status == CB_FAIL || r->status == CB_SKIP) {
        memset(&r->summary, 0, sizeof r->summary);
        *n_samples = 0;
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

void cb_runner_run(const cb_run_config *cfg, const cb_planned_point *points, int n, cb_sink *sink,
                   cb_result **results_out, cb_run_totals *totals)
{
    memset(totals, 0, sizeof *totals);
    cb_result *results = calloc((size_t)(n > 0 ? n : 1), sizeof *results);
    double *samples = malloc(sizeof(double) * (size_t)cfg->stop.max_samples);
    double *cupti_s = malloc(sizeof(double) * (size_t)cfg->stop.max_samples);
    if (!results || !samples || !cupti_s) {
        fprintf(stderr, "cubench: out of memory\n");
        exit(1);
    }
    cb_timing timing = {0};
    cb_msg timing_err = {{0}};
    bool timing_failed = false;
    cb_progress prog;
    cb_progress_begin(&prog, n, false);

    int done = 0;
    for (int i = 0; i < n; i++) {
        if (cb_interrupted()) {
            totals->interrupted = true;
            break;
        }
        const cb_planned_point *pp = &points[i];
        cb_result *r = &results[done];
        result_init(r, pp, cfg);
        cb_progress_point(&prog, i, pp->bench->name, r->axes);
        int n_samples = 0;
        bool cuda = pp->bench->target == CB_TARGET_CUDA;
        if (pp->skip_reason[0]) {
            r->status = CB_SKIP;
            snprintf(r->reason, sizeof r->reason, "%s", pp->skip_reason);
        } else if (cuda && !cfg->dev) {
            r->status = CB_SKIP;
            snprintf(r->reason, sizeof r->reason, "%s", cfg->no_device_reason);
        } else if (cuda && !timing.ready &&
                   (timing_failed || timing_init(&timing, cfg->dev, &timing_err) != CB_OK)) {
            timing_failed = true;
            r->status = CB_FAIL;
            snprintf(r->reason, sizeof r->reason, "runner setup: %.230s", timing_err.text);
        } else {
            if (cfg->nvtx) cb_nvtx_point_push(pp->bench->name, r->axes);
            run_point(cfg, pp, &timing, r, samples, cupti_s, &n_samples);
            if (cfg->nvtx) cb_nvtx_point_pop();
        }
        if (cb_interrupted() && r->status == CB_FAIL && strcmp(r->reason, "interrupted") == 0) {
            /* The point in flight is abandoned, not recorded as a failure. */
            totals->interrupted = true;
            break;
        }
        derive_figures(r, cfg, results, done);
        if (n_samples > 0) cb_sink_write_samples(sink, r, samples, cupti_s, n_samples);
        cb_sink_write_result(sink, r);
        cb_progress_done(&prog, i, r);
        switch (r->status) {
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
        done++;
        char lost[CB_MSG_LEN];
        if (cuda && r->status == CB_FAIL && timing.ready && context_lost(lost, sizeof lost)) {
            fprintf(stderr,
                    "cubench: the CUDA context is unusable after %s %s: %s; stopping the sweep "
                    "(every finished point is on disk)\n",
                    r->bench->name, r->axes, lost);
            totals->context_lost = true;
            break;
        }
    }
    cb_progress_end(&prog);
    timing_free(&timing);
    free(samples);
    free(cupti_s);
    *results_out = results;
    /* Callers read results[0 .. ok+noisy+skip+fail). */
}
