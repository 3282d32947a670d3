/* runner_head_start.c - how long a cold sample's opening lasts.
 *
 * A cold event-timed sample is [flush, hold, start, runs, stop]. The flush
 * evicts the L2; flush and hold together are the host's head start: while
 * the GPU works through them, the host enqueues the runs, so the GPU finds
 * them queued when it reaches the start event. A run whose enqueue takes
 * longer than the head start (a library call that chooses its kernel on the
 * host, a Python dispatch) makes the GPU idle inside the sample, and the
 * sample then holds host time.
 *
 * On the H200 (tests/data/h200-r3/flush-probe) one L2's worth of reads
 * evicts as completely as two, and costs 17 us instead of 31, but cuBLAS
 * SGEMM's ~20 us host call outran it in 30-55 % of samples, and copies
 * through host memory read 20-60 % slower after it (how long the GPU was
 * busy before them matters to them, though no sample was late). So each
 * point chooses, in round 0 after its warm-up, the shortest head start its
 * samples do not outrun, from
 *   level 0  one L2 of reads (17 us on the H200)
 *   level 1  two L2s (31 us)
 *   level 2-4  two L2s, then a hold of 32, 96 or 224 us
 * starting at level 1 for copies through host memory. At each level it
 * takes CB_HEAD_PROBE samples (not kept) and asks, for each, whether the
 * GPU had passed the start event before the host finished enqueuing
 * (cb_enqueue_sample): the first level with at most one late sample wins,
 * else the one with the fewest, the shortest of equals: a run that waits
 * for its own work (a synchronous copy) is late at every level and keeps
 * its first (the probe then costs 80 samples, a few ms). Points whose runs take
 * CB_HEAD_PROBE_BELOW_S or more are not probed (16 samples would cost more
 * than their flush saves; a few microseconds late is under 0.3 % of them)
 * and take level 1. During sampling every kept sample is asked again, and
 * the row's note counts the late ones. */
#include "runner_point.h"

#include "signals.h"

#include <stdio.h>

enum { CB_HEAD_PROBE = 16 };
#define CB_HEAD_PROBE_BELOW_S 2e-3

cb_head_start cb_head_start_level(const cb_timing *t, int level)
{
    static const unsigned hold_ns[CB_HEAD_LEVELS] = {0, 0, 32000, 96000, 224000};
    if (level < 0) level = 0;
    if (level >= CB_HEAD_LEVELS) level = CB_HEAD_LEVELS - 1;
    return (cb_head_start){level == 0 ? t->l2_bytes : t->flush_bytes, hold_ns[level]};
}

/* The first level a point of this kind may use. */
static int first_level(const cb_bench *b)
{
    return cb_bench_kind(b) == CB_KIND_HOST_COPY ? 1 : 0;
}

static void use_level(const cb_timing *t, point_run *pr, int level)
{
    pr->head_level = level;
    pr->head = cb_head_start_level(t, level);
    pr->head_chosen = true;
}

/* CB_HEAD_PROBE samples at `level`; *late counts the late ones. */
static cb_status probe_level(const cb_bench *b, void *state, cb_timing *t, point_timing pt,
                             int level, int *late, cb_msg *why)
{
    const cb_head_start head = cb_head_start_level(t, level);
    *late = 0;
    for (int i = 0; i < CB_HEAD_PROBE && !cb_interrupted(); i++) {
        double elapsed = 0;
        bool was_late = false;
        cb_status st = cb_time_sample(b, state, t, pt, &head, 1, 0, &elapsed, NULL, &was_late, why);
        if (st != CB_OK) return st;
        *late += was_late;
    }
    return CB_OK;
}

cb_status cb_choose_head_start(const cb_bench *b, void *state, cb_timing *t, point_timing pt,
                               double single_s, point_run *pr, cb_msg *why)
{
    if (pr->head_chosen || !pt.cuda || pt.hot) return CB_OK;
    const int first = first_level(b);
    /* A host-timed sample waits for its flush: no head start to size. */
    if (pt.host_timer) {
        use_level(t, pr, first);
        return CB_OK;
    }
    if (!(single_s < CB_HEAD_PROBE_BELOW_S)) {
        use_level(t, pr, 1);
        return CB_OK;
    }
    /* The first level with at most one late sample; else the fewest late,
     * the shortest of equals (a run late at every level keeps the first). */
    int best = first, best_late = CB_HEAD_PROBE + 1;
    for (int level = first; level < CB_HEAD_LEVELS && !cb_interrupted(); level++) {
        int late = 0;
        cb_status st = probe_level(b, state, t, pt, level, &late, why);
        if (st != CB_OK) return st;
        if (late < best_late) {
            best = level;
            best_late = late;
        }
        if (late <= 1) break;
    }
    use_level(t, pr, best);
    return CB_OK;
}

const cb_head_start *cb_point_head_start(point_timing pt, const point_run *pr)
{
    return pt.cuda && !pt.hot && pr->head_chosen ? &pr->head : NULL;
}

void cb_note_head_start(point_run *pr)
{
    if (!pr->head_chosen || pr->head_samples == 0) return;
    char text[200];
    if (pr->head.hold_ns > 0) {
        snprintf(text, sizeof text,
                 "head start: L2 flush and a %u us hold (the host enqueues a run slower than the "
                 "flush)",
                 pr->head.hold_ns / 1000);
        cb_note_append(pr->r, text);
    }
    /* Under 1 %, late samples cannot move the median. */
    if (pr->late_samples > 0 && 100 * pr->late_samples >= pr->head_samples) {
        snprintf(text, sizeof text,
                 "%d of %d samples started late (the GPU reached the start event before the host "
                 "had enqueued the runs: they hold host time)",
                 pr->late_samples, pr->head_samples);
        cb_note_append(pr->r, text);
    }
}
