/* runner_sample.c - the samples of one round under the stopping rule.
 *
 * Hot event-timed samples are queued one ahead: sample k+1 is enqueued
 * before sample k is read, so the GPU starts it the moment k ends and the
 * launch latency of the host (a Python framework's dispatch is ~10 us a
 * call) falls between a stop and the next start only when the host cannot
 * keep ahead, i.e. when runs are shorter than their launch; then the
 * samples show that launch rate, as a program would see it. The sample in
 * flight when the rule stops is waited for and dropped (keeping it turned
 * converged rows noisy: the CI of one extra sample could cross the target
 * after the rule had said converged); none is queued past max_samples.
 *
 * Cold samples are taken one at a time: [head start, start, runs, stop],
 * then read (runner_head_start.c: the flush, and a hold where the host's
 * enqueue needs it). Queued one ahead, cold samples ran back to back on
 * the GPU and short ones alternated between two values from one sample to
 * the next, whichever event pair timed them: on the H200 a 65536-element float4
 * vector add read 3744 and 4160 ns in turn (median 4128 ns, quartiles
 * 3744-4160 ns), with two or three pairs in flight alike, against
 * 3744 ns with both quartiles on it when each sample was read before the
 * next was queued (docs/methodology.md). The median fell between the two
 * values and the CI of points under ~20 us could not narrow: they ran
 * out of budget at +-0.6-2.4%. The head start that opens a cold sample
 * (tens of microseconds) gives the host its time to enqueue; a sample the
 * host was late for is set aside where the point's runs are normally on
 * time (runner_head_start.c).
 *
 * Throttle-aware sampling: where NVML samples the point's GPU, a sample
 * read while the newest reading shows the GPU throttled (telemetry.h) is
 * set aside; the samples in flight are dropped, the runner waits for the
 * clock to recover (cb_settle_throttle) and goes on. The time waited is
 * not charged to the sampling budget; the point's throttle budget bounds
 * it, after which throttled samples are kept and the row says so. Host
 * timers and --profile take samples one at a time too, the same rules. */
#include "runner_point.h"

#include "cupti_timer.h"
#include "profile_point.h"
#include "signals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void cb_point_samples_free(point_samples *ps)
{
    free(ps->time_s);
    free(ps->cupti_s);
    free(ps->host_t0);
    free(ps->replicate);
    free(ps->id);
    memset(ps, 0, sizeof *ps);
}

cb_status cb_point_samples_reserve(point_samples *ps, int more, cb_msg *why)
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
    uint64_t *id = r ? realloc(ps->id, sizeof(uint64_t) * (size_t)cap) : NULL;
    if (id) ps->id = id;
    if (!id) {
        cb_msg_set(why, "out of host memory for %d samples", ps->n + more);
        return CB_FAIL;
    }
    ps->cap = cap;
    return CB_OK;
}

cb_stop_rule cb_round_rule(const cb_run_config *cfg, const point_run *pr, int round)
{
    cb_stop_rule rule = cfg->stop;
    /* A path that cannot reach the run's precision says so (target_ci_rel). */
    if (pr->info.target_ci_rel > rule.target_rel) rule.target_rel = pr->info.target_ci_rel;
    /* Fixed rounds share the budget; auto rounds give the first round the
     * whole budget (most points stop there) and each extra round a third. */
    int share = cfg->replicates > 1 ? cfg->replicates : (round > 0 ? pr->rounds : 1);
    rule.max_time_s = cfg->stop.max_time_s / share;
    rule.max_samples = cfg->stop.max_samples / share;
    if (rule.max_samples < rule.min_samples) rule.max_samples = rule.min_samples;
    return rule;
}

/* ---- throttle-aware sampling ---- */

static bool throttle_aware(const cb_run_config *cfg, const point_run *pr)
{
    return pr->tele && !cfg->keep_throttled && !pr->keep_throttled;
}

static void sleep_s(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

void cb_settle_throttle(const cb_run_config *cfg, point_run *pr)
{
    if (!throttle_aware(cfg, pr)) return;
    const double started = cb_now_s();
    for (;;) {
        cb_telemetry_reading r;
        if (!cb_telemetry_read_now(cfg->telemetry, &r) ||
            !cb_telemetry_throttled(cfg->telemetry, &r, pr->throttle_why, sizeof pr->throttle_why))
            break;
        pr->waited = true; /* set_aside: a later throttle is the point's own */
        double waited = pr->r->throttle_wait_s + (cb_now_s() - started);
        if (waited >= cfg->throttle_wait_max_s || cb_interrupted()) {
            pr->keep_throttled = true; /* from here on the row keeps them */
            break;
        }
        sleep_s(0.010); /* an idle GPU leaves the power cap within 0.1-0.4 s */
    }
    pr->r->throttle_wait_s += cb_now_s() - started;
}

/* Is the sample just read to be set aside? The newest reading decides:
 * throttling lasts far longer than the 10 ms between readings. A GPU that
 * throttles again after the runner has once waited for it to recover
 * for this point (before a round, from the point before, or during its
 * sampling) is throttled by the point's own load (a
 * GEMM that brings an H200 back to its power cap within 0.1-0.2 s of
 * sampling): each further wait of 0.1-0.5 s would buy only the samples
 * taken before the cap bites again (2-3 per wait at 8192^3 on the H200,
 * where the 1 s wait budget went in two waits), so from there on the row
 * keeps what the GPU sustains. */
static bool set_aside(const cb_run_config *cfg, point_run *pr)
{
    if (!throttle_aware(cfg, pr)) return false;
    cb_telemetry_reading r;
    if (!cb_telemetry_latest(cfg->telemetry, &r) ||
        !cb_telemetry_throttled(cfg->telemetry, &r, pr->throttle_why, sizeof pr->throttle_why))
        return false;
    if (pr->waited) {
        if (!pr->self_throttled && cfg->cap_settle_s > 0) {
            pr->cap_restart = true;
            pr->cap_settle_until = cb_now_s() + cfg->cap_settle_s;
        }
        pr->keep_throttled = pr->self_throttled = true;
        return false;
    }
    pr->r->throttled_samples++;
    return true;
}

/* ---- one round ---- */

typedef struct round_state {
    cb_stop_rule rule;
    int start;      /* index of the round's first sample in pr->samples */
    double started; /* host clock at the round's start                  */
    double paused;  /* seconds spent waiting on the throttle: not budget */
} round_state;

/* Keep one sample; the stopping rule's verdict after it. */
static cb_stop_verdict keep_sample(const round_state *rs, point_run *pr, int round, double elapsed,
                                   double h0, uint64_t id, int *n_round)
{
    point_samples *ps = &pr->samples;
    ps->id[ps->n] = id;
    ps->time_s[ps->n] = elapsed / pr->batch;
    ps->cupti_s[ps->n] = NAN;
    ps->host_t0[ps->n] = h0;
    ps->replicate[ps->n] = round;
    ps->n++;
    *n_round = ps->n - rs->start;
    double spent = cb_now_s() - rs->started - rs->paused;
    return cb_stop_check(&rs->rule, ps->time_s + rs->start, *n_round, spent);
}

/* Is the sample just read to be set aside while the clock settles under
 * the cap? Between the moment the point's own load throttled the GPU again
 * and the clock's capped level, samples run at neither the full nor the
 * capped clock: on the H200 an 8192^3 GEMM's times stepped from the one to
 * the other 0.06-0.6 s in, and a row that mixed the two levels had an
 * interval 3-7x wider than either level's own (docs/methodology.md). So
 * samples read before cap_settle_until are set aside; the first one after
 * it restarts the round's samples, dropping what the round kept before the
 * cap bit (its budget runs on: the settle is part of the round's time), so
 * the row describes one regime, what the capped GPU sustains, as its note
 * says. */
static bool settling_under_cap(point_run *pr, const round_state *rs)
{
    if (!pr->cap_restart) return false;
    if (cb_now_s() < pr->cap_settle_until) {
        pr->r->throttled_samples++;
        pr->cap_settle_samples++;
        return true;
    }
    const int dropped = pr->samples.n - rs->start;
    pr->samples.n = rs->start;
    pr->r->throttled_samples += dropped;
    pr->cap_settle_samples += dropped;
    pr->cap_restart = false;
    return false;
}

/* The end of a round the rule stopped (CB_STOP_CONTINUE only when no more
 * samples may be taken: out of budget too). */
static sampling_end sampling_end_of(cb_stop_verdict v)
{
    return v == CB_STOP_CONVERGED ? SAMPLING_CONVERGED
           : v == CB_STOP_FUTILE  ? SAMPLING_FUTILE
                                  : SAMPLING_BUDGET;
}

/* Wait for the GPU to recover; the wait is not charged to the budget. */
static void pause_for_throttle(const cb_run_config *cfg, point_run *pr, round_state *rs)
{
    double before = cb_now_s();
    cb_settle_throttle(cfg, pr);
    rs->paused += cb_now_s() - before;
    pr->waited = true;
}

typedef struct ahead_ctx {
    const cb_run_config *cfg;
    const cb_bench *b;
    void *state;
    cb_timing *t;
    bool cupti;
    point_run *pr;
    int queued;     /* samples enqueued this round, set-aside ones included */
    uint64_t id[2]; /* the CUPTI id of the sample on each event pair        */
} ahead_ctx;

static cb_status enqueue_ahead(ahead_ctx *c, int slot, cb_msg *why)
{
    c->queued++;
    c->id[slot] = c->cupti ? c->t->next_sample_id++ : 0;
    /* Only hot samples are queued ahead: no flush (the file's comment). */
    return cb_enqueue_sample(c->b, c->state, c->t, NULL, c->pr->batch, c->id[slot], slot, NULL,
                             why);
}

static sampling_end sample_ahead(const cb_run_config *cfg, const cb_bench *b, void *state,
                                 cb_timing *t, int round, point_run *pr, uint64_t *first_id,
                                 int *n_round, cb_msg *why)
{
    round_state rs = {.rule = cb_round_rule(cfg, pr, round), .start = pr->samples.n};
    ahead_ctx c = {cfg, b, state, t, cb_cupti_active(), pr, 0, {0, 0}};
    *first_id = t->next_sample_id;
    *n_round = 0;
    rs.started = cb_now_s();
    double h0 = rs.started, h0_next = 0;
    int slot = 0;
    sampling_end end = SAMPLING_FAILED;
    if (cb_point_samples_reserve(&pr->samples, 2, why) != CB_OK ||
        enqueue_ahead(&c, slot, why) != CB_OK)
        goto drain;
    for (;;) {
        bool ahead = c.queued < rs.rule.max_samples && !cb_interrupted();
        if (ahead) {
            if (cb_point_samples_reserve(&pr->samples, 2, why) != CB_OK) goto drain;
            h0_next = cb_now_s();
            if (enqueue_ahead(&c, slot ^ 1, why) != CB_OK) goto drain;
        }
        double elapsed = 0;
        if (cb_read_sample(t, slot, &elapsed, why) != CB_OK) goto drain;
        /* The next sample began on the GPU when this one ended, or when the
         * host queued it, whichever was later: its clock for telemetry. */
        const double read_at = cb_now_s();
        if (cb_interrupted()) {
            end = SAMPLING_INTERRUPTED;
            goto drain;
        }
        if (set_aside(cfg, pr)) {
            /* Drop the sample in flight too, let the GPU recover, start over. */
            if (ahead && cb_read_sample(t, slot ^ 1, &elapsed, why) != CB_OK) goto drain;
            pause_for_throttle(cfg, pr, &rs);
            if (c.queued >= rs.rule.max_samples) return SAMPLING_BUDGET;
            h0 = cb_now_s();
            if (enqueue_ahead(&c, slot, why) != CB_OK) goto drain;
            continue;
        }
        /* A sample read while the capped clock settles is not kept: the
         * rule has nothing new to say, so sampling goes on. */
        cb_stop_verdict v = settling_under_cap(pr, &rs)
                                ? CB_STOP_CONTINUE
                                : keep_sample(&rs, pr, round, elapsed, h0, c.id[slot], n_round);
        h0 = h0_next > read_at ? h0_next : read_at;
        slot ^= 1;
        if (v == CB_STOP_CONTINUE && ahead) continue;
        /* The sample in flight is waited for and dropped: the row is the
         * set the rule judged (CUPTI's join ignores its correlation id). */
        if (ahead && cb_read_sample(t, slot, &elapsed, why) != CB_OK) goto drain;
        return sampling_end_of(v); /* CONTINUE here: max_samples reached, a budget end */
    }
drain:
    /* Whatever is still queued finishes before the caller tears down. */
    cudaStreamSynchronize(t->stream);
    return end;
}

/* One sample at a time: cold event-timed samples (the file's comment says
 * why), host timers, and --profile (its first sample bracketed by
 * cudaProfilerStart/Stop). */
static sampling_end sample_waited(const cb_run_config *cfg, const cb_bench *b, void *state,
                                  cb_timing *t, point_timing pt, int round, point_run *pr,
                                  uint64_t *first_id, int *n_round, cb_msg *why)
{
    round_state rs = {.rule = cb_round_rule(cfg, pr, round), .start = pr->samples.n};
    const bool use_cupti = pt.cuda && cb_cupti_active();
    const cb_head_start *head = cb_point_head_start(pt, pr);
    *first_id = t->next_sample_id;
    *n_round = 0;
    rs.started = cb_now_s();
    for (int taken = 0;; taken++) {
        if (cb_interrupted()) return SAMPLING_INTERRUPTED;
        if (cb_point_samples_reserve(&pr->samples, 1, why) != CB_OK) return SAMPLING_FAILED;
        uint64_t id = use_cupti ? t->next_sample_id++ : 0;
        bool profiled = cfg->profile && pt.cuda && taken == 0;
        cb_msg perr;
        if (profiled && cb_profile_start(&perr) != CB_OK)
            fprintf(stderr, "cubench: %s\n", perr.text);
        double elapsed = 0, h0 = 0;
        bool late = false;
        cb_status st =
            cb_time_sample(b, state, t, pt, head, pr->batch, id, &elapsed, &h0, &late, why);
        if (profiled && cb_profile_stop(&perr) != CB_OK)
            fprintf(stderr, "cubench: %s\n", perr.text);
        if (st != CB_OK) return SAMPLING_FAILED;
        if (set_aside(cfg, pr)) {
            pause_for_throttle(cfg, pr, &rs);
            if (taken + 1 >= rs.rule.max_samples) return SAMPLING_BUDGET;
            continue;
        }
        if (settling_under_cap(pr, &rs) || (head && cb_head_start_set_aside(t, pr, late))) {
            if (taken + 1 >= rs.rule.max_samples) return SAMPLING_BUDGET;
            continue;
        }
        cb_stop_verdict v = keep_sample(&rs, pr, round, elapsed, h0, id, n_round);
        if (v != CB_STOP_CONTINUE) return sampling_end_of(v);
    }
}

sampling_end cb_phase_sample(const cb_run_config *cfg, const cb_bench *b, void *state, cb_timing *t,
                             point_timing pt, int round, point_run *pr, uint64_t *first_id,
                             int *n_round, cb_msg *why)
{
    if (pt.cuda && !pt.host_timer && pt.hot && !cfg->profile)
        return sample_ahead(cfg, b, state, t, round, pr, first_id, n_round, why);
    return sample_waited(cfg, b, state, t, pt, round, pr, first_id, n_round, why);
}
