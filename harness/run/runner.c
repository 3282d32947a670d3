/* runner.c - the sweep: every point through its rounds; each row on disk
 * as soon as its point is done, results.csv in plan order at the end.
 *
 * One point in one round reads as its phases:
 *   phase_setup_and_verify  setup -> run -> sync -> verify (a wrong result is
 *                           a fail row, never timed)
 *   phase_warm_up           warm-up runs; the last one sizes a hot batch
 *   cb_choose_head_start    round 0 of a cold point: how long the flush and
 *                           hold before each sample last (runner_head_start.c)
 *   cb_settle_throttle      a throttled GPU is given time to recover
 *   cb_phase_sample         the samples under the stopping rule
 *                           (runner_sample.c: hot ones one ahead, cold ones
 *                           one at a time, throttled samples set aside)
 *   phase_attach_cupti      CUPTI's view of the round's samples
 *   teardown
 * and, after its last round, cb_point_finish pools the rounds into the row
 * (runner_point.c). Host benchmarks follow the same path with the monotonic
 * clock. Each phase's wall time goes to the row (setup_s ... teardown_s).
 *
 * Rounds run the whole point list again with fresh setups, so a point's
 * samples come from several allocations and moments in the run: the
 * between-round spread compare needs. A fixed --replicates R gives every
 * point R rounds; auto (the default) gives short points CB_AUTO_ROUNDS and
 * the rest one (runner_point.h).
 */
#include "runner.h"

#include "capability.h"
#include "cupti_timer.h"
#include "nvtx_ranges.h"
#include "progress.h"
#include "runner_point.h"
#include "signals.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A hot sample batches runs until it lasts hot_min_sample_s; this caps the
 * batch for runs far shorter than the event timer's resolution. */
enum { CB_MAX_HOT_BATCH = 100000 };

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
    st = cb_time_sample(b, *state, t, pt, NULL, 1, 0, single, NULL, NULL, why);
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
        st = cb_time_sample(b, state, t, pt, NULL, 1, 0, &elapsed, NULL, NULL, why);
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

/* Attach CUPTI's view of one round's samples (from index `start`, their ids
 * from first_id to the next unused one: set-aside samples used ids too); a
 * failure or a memcpy of the wrong kind makes the point fail. */
static cb_status phase_attach_cupti(const cb_run_config *cfg, const cb_timing *t, point_run *pr,
                                    uint64_t first_id, int start, int n, cb_msg *why)
{
    cb_cupti_point cp;
    memset(&cp, 0, sizeof cp);
    const int n_ids = (int)(t->next_sample_id - first_id);
    if (cb_cupti_collect(first_id, n_ids, &cp, why) != CB_OK) {
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
    point_samples *ps = &pr->samples;
    for (int i = start; i < start + n; i++) {
        int k = (int)(ps->id[i] - first_id);
        bool have = k >= 0 && k < n_ids && cp.records[k] > 0;
        ps->cupti_s[i] = have ? cp.gpu_s[k] / pr->batch : NAN;
        missing += !have;
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
            memcpy(ps->time_s + start, ps->cupti_s + start, sizeof(double) * (size_t)n);
        else
            r->timer = "event";
    }
    cb_cupti_point_free(&cp);
    return st;
}

/* A point on one GPU (the pass's cfg->dev) sampled by NVML; a point
 * spanning several GPUs gets no telemetry rather than one device's clocks. */
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

/* A round that ran out of budget: noisy, with the reason, unless its
 * interval met the target anyway (cb_stop_met_at_budget says why that
 * is sound). */
static void note_budget_end(const cb_run_config *cfg, point_run *pr, int round, int start, int n,
                            bool futile, double spent_s)
{
    const cb_stop_rule rule = cb_round_rule(cfg, pr, round);
    cb_summary s;
    cb_stats_summarise(pr->samples.time_s + start, n, &s);
    if (cb_stop_met_at_budget(&rule, &s)) return;
    pr->noisy_rounds++;
    cb_stop_describe_miss(&rule, &s, n, futile, spent_s, pr->noisy_reason, sizeof pr->noisy_reason);
}

/* The timed part of one round: settle, sample, CUPTI. False on interrupt. */
static bool phase_timed(const cb_run_config *cfg, const cb_bench *b, void *state, cb_timing *t,
                        point_timing pt, int round, point_run *pr)
{
    cb_msg why = {{0}};
    if (round == 0) pr->tele = telemetry_applies(cfg, b, pt);
    /* A GPU the point before left at its power cap: the settle marks the
     * point `waited`, so once the cap has lifted a throttle during this
     * point's sampling is its own doing (runner_sample.c, set_aside), not
     * worth a second wait: on the H200
     * cuBLAS BF16 at 8448^3 right after 8192^3 waited before its samples
     * and again inside them until its 1 s wait budget was gone, then kept
     * samples from both sides of the cap: noisy at +-3.0 and +-5.6% in
     * two suites (docs/methodology.md). */
    cb_settle_throttle(cfg, pr);
    double started = cb_now_s();
    uint64_t first_id = 0;
    int start = pr->samples.n, n = 0;
    cb_violation_ns before, after;
    const bool counted = pr->tele && cb_telemetry_violation_now(cfg->telemetry, &before);
    if (pr->tele) cb_telemetry_point_begin(cfg->telemetry);
    sampling_end end = cb_phase_sample(cfg, b, state, t, pt, round, pr, &first_id, &n, &why);
    if (pr->tele) telemetry_round_end(cfg, pr);
    if (counted && cb_telemetry_violation_now(cfg->telemetry, &after))
        cb_point_capping_add(pr, round, &before, &after);
    bool go_on = true;
    if (end == SAMPLING_INTERRUPTED || (end == SAMPLING_FAILED && cb_interrupted())) {
        go_on = false;
    } else if (end == SAMPLING_FAILED) {
        point_close(pr, CB_FAIL, why.text);
    } else {
        if (end == SAMPLING_BUDGET || end == SAMPLING_FUTILE)
            note_budget_end(cfg, pr, round, start, n, end == SAMPLING_FUTILE, cb_now_s() - started);
        if (pt.cuda && cb_cupti_active() &&
            phase_attach_cupti(cfg, t, pr, first_id, start, n, &why) != CB_OK)
            point_close(pr, CB_FAIL, why.text);
    }
    pr->r->phases.sampling_s += cb_now_s() - started;
    if (go_on && !pr->closed) {
        pr->rounds_done = round + 1;
        pr->n_done = pr->samples.n;
    }
    return go_on;
}

/* How many rounds the point runs: the fixed count, or (auto) more rounds
 * for a point whose first round was short per run. */
static void decide_rounds(const cb_run_config *cfg, point_run *pr)
{
    if (cfg->replicates > 0 || cfg->profile || pr->closed || pr->samples.n == 0) return;
    cb_summary s;
    cb_stats_summarise(pr->samples.time_s, pr->samples.n, &s);
    if (s.median < CB_AUTO_ROUNDS_BELOW_S) pr->rounds = CB_AUTO_ROUNDS;
}

/* One round of one point. Returns false when the sweep must stop (an
 * interrupt); the point's row is then not written. */
static bool run_point_round(const cb_run_config *cfg, const cb_planned_point *pp, cb_timing *t,
                            int round, point_run *pr)
{
    const cb_bench *b = pp->bench;
    const point_timing pt = cb_point_timing_of(b, cfg);
    void *state = NULL;
    cb_msg why = {{0}};
    double single = 0;
    bool go_on = true;

    cb_status st = phase_setup_and_verify(cfg, b, &pp->point, t, pt, &state, pr, &single, &why);
    if (st == CB_OK) st = phase_warm_up(cfg, b, state, t, pt, &single, &pr->r->phases, &why);
    if (st == CB_OK && round == 0) {
        /* Probe samples are warm-up too: they are not kept. */
        double probe_started = cb_now_s();
        st = cb_choose_head_start(b, state, t, pt, single, pr, &why);
        pr->r->phases.warmup_s += cb_now_s() - probe_started;
    }
    if (cb_interrupted()) {
        /* A hook that failed because the user interrupted it is not a fail. */
        go_on = false;
    } else if (st != CB_OK) {
        point_close(pr, st, why.text);
    } else {
        if (round == 0) pr->batch = hot_batch(cfg, pt, single);
        pr->r->batch = pr->batch;
        go_on = phase_timed(cfg, b, state, t, pt, round, pr);
        if (round == 0) decide_rounds(cfg, pr);
        if (go_on) cb_phase_counters(cfg, b, state, t, pt, round, pr); /* metrics_wall_s */
    }
    double teardown_started = cb_now_s();
    if (state) b->teardown(state);
    pr->r->phases.teardown_s += cb_now_s() - teardown_started;
    return go_on;
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
    int *counter[] = {[CB_OK] = &totals->ok,
                      [CB_NOISY] = &totals->noisy,
                      [CB_SKIP] = &totals->skip,
                      [CB_FAIL] = &totals->fail};
    (*counter[st])++;
}

/* The timer's resources on first use; a failure fails the point (and every
 * later one says it failed earlier). */
static bool timing_ready(const cb_run_config *cfg, cb_timing *t, bool *timing_failed, point_run *pr)
{
    if (t->ready) return true;
    cb_msg err = {{0}};
    if (!*timing_failed && cb_timing_init(t, cfg->dev, &err) == CB_OK) return true;
    char reason[CB_MSG_LEN];
    snprintf(reason, sizeof reason, "runner setup: %.230s",
             *timing_failed ? "failed earlier in this run" : err.text);
    *timing_failed = true;
    point_close(pr, CB_FAIL, reason);
    return false;
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
    if (!cuda) return true;
    /* A GPU without the benchmark's feature, or a build without code for
     * the GPU, is a skip with its reason, before setup allocates. */
    cb_msg why = {{0}};
    cb_status can = cb_bench_can_run(pp->bench, cfg->dev, &why);
    if (can != CB_OK) {
        point_close(pr, can, why.text);
        return false;
    }
    return timing_ready(cfg, t, timing_failed, pr);
}

typedef struct sweep {
    const cb_run_config *cfg;
    const cb_planned_point *points;
    int n;
    cb_sink *sink;
    cb_result *results; /* per point, plan order              */
    point_run *runs;
    cb_result *rows; /* written rows, in the order written   */
    int *plan_index; /* rows[k] is point plan_index[k]       */
    int written;
    cb_timing timing;
    bool timing_failed;
    cb_progress prog;
    cb_run_totals *totals;
} sweep;

/* Write a finished point's row at once; false when the sweep must stop.
 * Points finish out of plan order (a short point's last round comes in a
 * later pass than a long point's only one): a row may then go out before
 * its reference's (no pct_ref yet), which put_in_plan_order mends at the
 * end. Holding rows back for the plan's order instead would keep every
 * finished point of a pass in memory only, lost to a crash or a kill. */
static bool write_point(sweep *w, int i)
{
    point_run *pr = &w->runs[i];
    cb_result *r = pr->r;
    cb_derive_figures(r, w->cfg, w->rows, w->written);
    cb_sample_extras extras = {.replicate = pr->samples.replicate,
                               .sm_clock_mhz = pr->sample_sm_clock_mhz,
                               .throttle = pr->sample_throttle};
    cb_msg werr = {{0}};
    bool ok = cb_sink_write_point(w->sink, r, pr->samples.time_s, pr->samples.cupti_s,
                                  pr->samples.n, &extras, &werr);
    pr->written = true;
    /* A row the sink could not write is not on disk (it keeps whole rows
     * only): the totals and meta.json count what the files hold. */
    if (ok) {
        w->plan_index[w->written] = i;
        w->rows[w->written++] = *r;
        w->rows[w->written - 1].counters.values = NULL;
        count_status(w->totals, r->status);
        cb_progress_done(&w->prog, w->written - 1, r);
    }
    free(r->counters.values); /* written: metrics.csv holds them */
    r->counters.values = NULL;
    cb_point_samples_free(&pr->samples);
    cb_point_telemetry_free(pr);
    if (!ok) {
        w->totals->write_failed = true;
        snprintf(w->totals->stop_reason, sizeof w->totals->stop_reason, "%s", werr.text);
        return false;
    }
    return true;
}

/* A point's last round ran: its statistics, then the rows that can go out.
 * False when the sweep must stop (a write failed, the context is lost). */
static bool finish_point(sweep *w, int i)
{
    point_run *pr = &w->runs[i];
    cb_result *r = pr->r;
    cb_point_finish(w->cfg, pr);
    cb_point_telemetry_finish(pr);
    pr->done = true;
    if (!write_point(w, i)) return false;
    char lost[CB_MSG_LEN];
    if (r->bench->target == CB_TARGET_CUDA && r->status == CB_FAIL && w->timing.ready &&
        context_lost(lost, sizeof lost)) {
        snprintf(w->totals->stop_reason, sizeof w->totals->stop_reason,
                 "the CUDA context is unusable after %.40s %.60s: %.80s", r->bench->name, r->axes,
                 lost);
        w->totals->context_lost = true;
        return false;
    }
    return true;
}

/* Point i in `round`; false when the sweep must stop. */
static bool sweep_point(sweep *w, int i, int round, int max_rounds)
{
    const cb_planned_point *pp = &w->points[i];
    point_run *pr = &w->runs[i];
    if (pr->done || round >= pr->rounds) return true;
    int step = w->written; /* the progress counts points, whatever their rounds */
    cb_progress_point(&w->prog, step, pp->bench->name, pr->r->axes);
    if (round > 0 || point_can_run(w->cfg, pp, &w->timing, &w->timing_failed, pr)) {
        if (w->cfg->nvtx) cb_nvtx_point_push(pp->bench->name, pr->r->axes);
        bool go_on = run_point_round(w->cfg, pp, &w->timing, round, pr);
        if (w->cfg->nvtx) cb_nvtx_point_pop();
        if (!go_on) {
            /* The point in flight is abandoned, not recorded as a failure. */
            w->totals->interrupted = true;
            return false;
        }
    }
    /* A skip or fail ends the point in any round; else its last round does. */
    if (!pr->closed && round < pr->rounds - 1 && round < max_rounds - 1) return true;
    return finish_point(w, i);
}

/* After an interrupt: a point with finished rounds is written with those
 * rounds (the one in flight is dropped), so hours of a long --replicates
 * run are not lost to one Ctrl-C or a job's time limit. */
static void salvage_rounds(sweep *w)
{
    for (int i = 0; i < w->n && !w->totals->write_failed; i++) {
        point_run *pr = &w->runs[i];
        if (pr->done || pr->closed || pr->rounds_done == 0) continue;
        char text[96];
        snprintf(text, sizeof text, "interrupted: %d of %d rounds kept", pr->rounds_done,
                 pr->rounds);
        cb_note_append(pr->r, text);
        pr->samples.n = pr->n_done;
        pr->rounds = pr->rounds_done;
        cb_point_finish(w->cfg, pr);
        cb_point_telemetry_finish(pr);
        pr->done = true;
    }
    /* Every finished point goes out; the rest (never run, or with no
     * finished round) are left out, as an interrupt leaves them. */
    for (int i = 0; i < w->n && !w->totals->write_failed; i++)
        if (w->runs[i].done && !w->runs[i].written && !write_point(w, i)) break;
}

/* Whether the rows went out in plan order (then every reference row was
 * written before the rows that refer to it). */
static bool written_in_plan_order(const sweep *w)
{
    for (int k = 1; k < w->written; k++)
        if (w->plan_index[k - 1] > w->plan_index[k]) return false;
    return true;
}

/* The written rows in plan order, their figures derived again with every
 * reference present, and results.csv rewritten so. */
static void put_in_plan_order(sweep *w)
{
    if (w->totals->write_failed || written_in_plan_order(w)) return;
    cb_result *ordered = calloc((size_t)(w->written > 0 ? w->written : 1), sizeof *ordered);
    int *slot = malloc((size_t)w->n * sizeof *slot);
    cb_msg err = {{0}};
    bool ok = ordered && slot;
    if (!ok) cb_msg_set(&err, "out of host memory putting results.csv in plan order");
    for (int i = 0; ok && i < w->n; i++)
        slot[i] = -1;
    for (int k = 0; ok && k < w->written; k++)
        slot[w->plan_index[k]] = k;
    int m = 0;
    for (int i = 0; ok && i < w->n; i++)
        if (slot[i] >= 0) {
            ordered[m] = w->rows[slot[i]];
            cb_derive_figures(&ordered[m], w->cfg, ordered, m);
            m++;
        }
    if (ok) ok = cb_sink_rewrite_results(w->sink, ordered, m, &err);
    if (ok) {
        free(w->rows);
        w->rows = ordered;
        ordered = NULL;
    } else {
        w->totals->write_failed = true;
        snprintf(w->totals->stop_reason, sizeof w->totals->stop_reason, "%s", err.text);
    }
    free(ordered);
    free(slot);
}

/* The sweep's arrays for n points, each point's result started; false
 * (nothing left allocated) when the host has no memory for them. */
static bool sweep_begin(sweep *w, int n)
{
    size_t cap = (size_t)(n > 0 ? n : 1);
    w->results = calloc(cap, sizeof *w->results);
    w->runs = calloc(cap, sizeof *w->runs);
    w->rows = calloc(cap, sizeof *w->rows);
    w->plan_index = calloc(cap, sizeof *w->plan_index);
    if (!w->results || !w->runs || !w->rows || !w->plan_index) {
        free(w->results), free(w->runs), free(w->rows), free(w->plan_index);
        return false;
    }
    for (int i = 0; i < n; i++) {
        w->runs[i].r = &w->results[i];
        w->runs[i].rounds = w->cfg->replicates > 0 ? w->cfg->replicates : 1;
        result_init(&w->results[i], &w->points[i], w->cfg);
    }
    return true;
}

/* Everything but the written rows, which the caller takes. */
static void sweep_end(sweep *w)
{
    cb_timing_free(&w->timing);
    for (int i = 0; i < w->n; i++) {
        cb_point_samples_free(&w->runs[i].samples);
        cb_point_telemetry_free(&w->runs[i]);
        free(w->results[i].counters.values); /* a point interrupted before its row */
    }
    free(w->runs);
    free(w->results);
    free(w->plan_index);
}

cb_status cb_runner_run(const cb_run_config *cfg, const cb_planned_point *points, int n,
                        cb_sink *sink, cb_result **results_out, cb_run_totals *totals, cb_msg *why)
{
    memset(totals, 0, sizeof *totals);
    *results_out = NULL;
    const int max_rounds = cfg->replicates > 0 ? cfg->replicates : CB_AUTO_ROUNDS;
    sweep w = {.cfg = cfg, .points = points, .n = n, .sink = sink, .totals = totals};
    if (!sweep_begin(&w, n)) {
        cb_msg_set(why, "out of host memory for %d points", n);
        return CB_FAIL;
    }
    cb_progress_begin(&w.prog, n, cfg->quiet);
    bool go_on = true;
    for (int round = 0; round < max_rounds && go_on; round++)
        for (int i = 0; i < n && go_on; i++) {
            go_on = !cb_interrupted() && sweep_point(&w, i, round, max_rounds);
            if (cb_interrupted()) totals->interrupted = true;
        }
    if (totals->interrupted) salvage_rounds(&w);
    put_in_plan_order(&w);
    cb_progress_end(&w.prog);
    sweep_end(&w);
    *results_out = w.rows;
    return CB_OK;
}
