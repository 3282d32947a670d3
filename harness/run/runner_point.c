/* runner_point.c - a point after its last round: the rounds pooled into
 * the row's statistics and status, a drift while sampling flagged, what the
 * GPU did meanwhile, and the figures that follow from the median. */
#include "runner_point.h"

#include "telemetry_reasons.h"
#include "telemetry_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cb_note_append(cb_result *r, const char *text)
{
    size_t used = strlen(r->note);
    snprintf(r->note + used, sizeof r->note - used, "%s%s", used ? "; " : "", text);
    cb_utf8_trim_tail(r->note);
}

/* ---- drift: a trend while sampling, flagged in the row's note ----
 * Each round's samples in the order taken: the median of the last third
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
    cb_note_append(r, text);
}

/* The median of the samples CUPTI timed; NAN when none. */
static double cupti_median(const point_samples *ps)
{
    int with = 0;
    for (int i = 0; i < ps->n; i++)
        with += isfinite(ps->cupti_s[i]);
    double *tmp = with ? malloc(sizeof(double) * (size_t)with) : NULL;
    if (!tmp) return NAN;
    int m = 0;
    for (int i = 0; i < ps->n; i++)
        if (isfinite(ps->cupti_s[i])) tmp[m++] = ps->cupti_s[i];
    cb_summary s;
    cb_stats_summarise(tmp, m, &s);
    free(tmp);
    return s.median;
}

/* The note of a point that met throttling: how many samples were set
 * aside and how long the runner waited, or that it kept them. */
static void note_throttle(const cb_run_config *cfg, const point_run *pr)
{
    cb_result *r = pr->r;
    char text[320];
    if (pr->self_throttled) {
        int len = snprintf(text, sizeof text,
                           "%d throttled samples set aside (%s), %.2f s waited, then throttled "
                           "samples kept: the point's own load throttled the GPU again after it "
                           "recovered",
                           r->throttled_samples, pr->throttle_why, r->throttle_wait_s);
        if (pr->cap_settle_samples > 0 && len > 0 && (size_t)len < sizeof text)
            snprintf(text + len, sizeof text - (size_t)len,
                     " (%d set aside until the clock settled under the cap)",
                     pr->cap_settle_samples);
    } else if (r->throttled_samples > 0 && pr->keep_throttled)
        snprintf(text, sizeof text,
                 "%d throttled samples set aside (%s), %.2f s waited, then throttled samples "
                 "kept: the GPU did not recover within the %.1f s throttle budget",
                 r->throttled_samples, pr->throttle_why, r->throttle_wait_s,
                 cfg->throttle_wait_max_s);
    else if (pr->keep_throttled)
        snprintf(text, sizeof text,
                 "%.2f s waited for the GPU to leave a throttle (%s), then throttled samples "
                 "kept: the GPU did not recover within the %.1f s throttle budget",
                 r->throttle_wait_s, pr->throttle_why, cfg->throttle_wait_max_s);
    else if (r->throttled_samples > 0)
        snprintf(text, sizeof text, "%d throttled samples set aside (%s), %.2f s waited",
                 r->throttled_samples, pr->throttle_why, r->throttle_wait_s);
    else if (r->throttle_wait_s > 0.005)
        snprintf(text, sizeof text, "%.2f s waited for the GPU to leave a throttle first",
                 r->throttle_wait_s);
    else
        return;
    cb_note_append(r, text);
}

void cb_point_finish(const cb_run_config *cfg, point_run *pr)
{
    cb_result *r = pr->r;
    point_samples *ps = &pr->samples;
    if (pr->closed) {
        memset(&r->summary, 0, sizeof r->summary);
        ps->n = 0;
        return;
    }
    cb_stats_summarise(ps->time_s, ps->n, &r->summary);
    r->replicates = pr->rounds;
    r->cupti_median_s = cupti_median(ps);
    r->status = CB_OK;
    /* A point of several rounds is judged by the interval of its row, all
     * rounds pooled (a level shift between rounds widens it): each round
     * has a share of the budget, so a round that ran out alone says less
     * than the row does, and an `ok` row's ci_rel_half is within target. */
    if (pr->noisy_rounds > 0 && r->replicates > 1) {
        const cb_stop_rule rule = cb_round_rule(cfg, pr, 0);
        if (cb_stop_met_at_budget(&rule, &r->summary)) {
            char text[160];
            snprintf(text, sizeof text,
                     "%d of %d rounds ran out of budget alone; pooled, +-%.2f%% meets the target",
                     pr->noisy_rounds, r->replicates, 100 * r->summary.ci_rel_half);
            cb_note_append(r, text);
            pr->noisy_rounds = 0;
        }
    }
    if (pr->noisy_rounds > 0) {
        r->status = CB_NOISY;
        if (r->replicates > 1)
            snprintf(r->reason, sizeof r->reason, "%d of %d rounds ran out of budget; last: %.180s",
                     pr->noisy_rounds, r->replicates, pr->noisy_reason);
        else
            snprintf(r->reason, sizeof r->reason, "%s", pr->noisy_reason);
    }
    note_drift(cfg, r, ps);
    note_throttle(cfg, pr);
    cb_note_head_start(pr);
    if (pr->info.target_ci_rel > cfg->stop.target_rel) {
        char text[64];
        snprintf(text, sizeof text, "CI target +-%.3g%% (this path's own precision)",
                 100 * pr->info.target_ci_rel);
        cb_note_append(r, text);
    }
}

/* ---- telemetry (telemetry.h): what the GPU did while a point was sampled ----
 * The sampler reads only during sampling, so its readings describe the
 * timed runs (plus the L2 flushes between cold samples), not setup. */

void cb_point_capping_add(point_run *pr, int round, const cb_violation_ns *before,
                          const cb_violation_ns *after)
{
    /* A counter that went backwards (a driver reload) says nothing. */
    double power = after->power > before->power ? (double)(after->power - before->power) : 0;
    double thermal =
        after->thermal > before->thermal ? (double)(after->thermal - before->thermal) : 0;
    pr->capped_power_s += power * 1e-9;
    pr->capped_thermal_s += thermal * 1e-9;
    if (power > 0 || thermal > 0) pr->capped_rounds |= (uint64_t)1 << (round < 63 ? round : 63);
}

static bool round_capped(const point_run *pr, int round)
{
    return (pr->capped_rounds >> (round < 63 ? round : 63)) & 1;
}

/* A round whose counters moved ran capped, whatever the readings every
 * 10 ms caught: on the H200, NVML counted 4.9-8.5 s of power capping in
 * ~10 s processes of tensor-core GEMMs whose rows mostly read 1980 MHz and
 * no reason, and pairs of such processes compared with 2-5 false slower or
 * faster points each; with the rounds marked, none (h200-r3/suiteN). Its
 * samples and the row carry the reason word (compare then gives the point
 * its `throttled` verdict), and the note the time. */
static void mark_capping(point_run *pr)
{
    cb_result *r = pr->r;
    if (!pr->capped_rounds || !r->telemetry.valid) return;
    const char *word = pr->capped_power_s > 0 ? "sw_power_cap" : "sw_thermal_slowdown";
    for (int i = 0; i < pr->samples.n && pr->sample_throttle; i++) {
        const char *was = pr->sample_throttle[i];
        if (round_capped(pr, pr->samples.replicate[i]) && (!was || strcmp(was, "none") == 0))
            pr->sample_throttle[i] = word;
    }
    char *t = r->telemetry.throttle;
    if (strcmp(t, "none") == 0 || !t[0])
        snprintf(t, sizeof r->telemetry.throttle, "%s", word);
    else if (!strstr(t, word) && strlen(t) + strlen(word) + 2 <= sizeof r->telemetry.throttle)
        strcat(strcat(t, "+"), word);
    char text[160];
    int n = snprintf(text, sizeof text, "NVML counted %.1f ms of power capping",
                     1e3 * pr->capped_power_s);
    if (pr->capped_thermal_s > 0)
        n += snprintf(text + n, sizeof text - (size_t)n, " and %.1f ms of thermal slowdown",
                      1e3 * pr->capped_thermal_s);
    snprintf(text + n, sizeof text - (size_t)n, " while sampling");
    cb_note_append(r, text);
}

void cb_point_telemetry_finish(point_run *pr)
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
    mark_capping(pr);
    char flag[sizeof r->note];
    if (cb_telemetry_flag(&r->telemetry, flag, sizeof flag)) cb_note_append(r, flag);
}

void cb_point_telemetry_free(point_run *pr)
{
    cb_telemetry_readings_free(&pr->readings);
    free(pr->sample_sm_clock_mhz);
    free(pr->sample_throttle);
    pr->sample_sm_clock_mhz = NULL;
    pr->sample_throttle = NULL;
}

/* ---- derived figures ---- */

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

/* The theoretical peak a benchmark is measured against: its value, the
 * figure of the row it compares with, unit and source. */
typedef struct peak_of {
    double value, figure;
    const char *unit, *source;
} peak_of;

static peak_of peak_for(const cb_result *r, const cb_device_info *dev)
{
    switch (r->bench->peak) {
    case CB_PEAK_DRAM:
        return (peak_of){cb_device_peak_dram_gbps(dev), r->gbps, "GB/s",
                         "attribute: 2 x memory clock x bus width / 8 (as the runtime reports "
                         "them)"};
    case CB_PEAK_PCIE:
        return (peak_of){cb_device_peak_pcie_gbps(dev), r->gbps, "GB/s",
                         "attribute: sysfs link GT/s x width x line-code efficiency, per "
                         "direction"};
    case CB_PEAK_FP32:
        return (peak_of){cb_device_peak_fp32_tflops(dev), r->tflops, "TFLOP/s",
                         "table: FP32 lanes per SM by compute capability x SMs x 2 (FMA) x max "
                         "boost clock"};
    case CB_PEAK_NONE:
        break;
    }
    return (peak_of){0, NAN, "", NULL};
}

/* pct_ref: the latest timed row of the reference at the same point. */
static void find_reference(cb_result *r, const cb_result *done, int n_done)
{
    for (int i = n_done - 1; r->ref && i >= 0; i--) {
        const cb_result *ref = &done[i];
        if (ref->summary.n > 0 && ref->bench == r->ref && same_ref_point(&ref->point, &r->point)) {
            r->ref_benchmark = r->ref->name;
            r->pct_ref = 100.0 * ref->summary.median / r->summary.median;
            return;
        }
    }
}

void cb_derive_figures(cb_result *r, const cb_run_config *cfg, const cb_result *done, int n_done)
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
        peak_of pk = peak_for(r, cfg->dev);
        if (pk.value > 0) {
            r->peak = pk.value;
            r->pct_peak = 100.0 * pk.figure / pk.value;
            r->peak_unit = pk.unit;
            r->peak_source = pk.source;
        }
    }
    find_reference(r, done, n_done);
}
