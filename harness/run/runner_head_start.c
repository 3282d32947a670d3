/* runner_head_start.c - how long a cold sample's opening lasts.
 *
 * A cold event-timed sample is [flush, hold, start, runs, stop]. The flush
 * evicts the L2; flush and hold together are the host's head start: while
 * the GPU works through them, the host enqueues the runs, so the GPU finds
 * them queued when it reaches the start event. A run whose enqueue takes
 * longer than the head start (a library call that chooses its kernel on the
 * host, a Python dispatch, a host thread that was descheduled) leaves the
 * GPU idle inside the sample, and the sample then holds host time. Such a
 * sample is *late*: its start event had completed by the time the host
 * finished enqueuing (cb_enqueue_sample asks).
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
 * takes CB_HEAD_PROBE samples (not kept): the first level where at most
 * CB_HEAD_PROBE_LATE_OK were late wins, and from then on a late sample is
 * set aside, as a throttled one is (a host hiccup: on the H200 1-3 % of the
 * samples of vector adds whose launch takes 3 us). When more than one in
 * eight are late over CB_HEAD_RAISE_AFTER samples or more (NCCL's launches
 * of 1 KiB collectives, 10-27 % at level 0), the point moves up a level;
 * past the last, it keeps its late samples. A run that waits for its own
 * work (a synchronous copy) is late at every level: no level wins, and the
 * point takes its first level whatever the probe saw (a choice among
 * levels that all failed could differ from process to process), keeps its
 * late samples, and its note counts them. Points whose runs take
 * CB_HEAD_PROBE_BELOW_S or more are not probed (16 samples would cost more
 * than their flush saves, and a few microseconds of host time is under
 * 0.3 % of them): two L2s, all kept. */
#include "runner_point.h"

#include "signals.h"

#include <stdio.h>

enum { CB_HEAD_PROBE = 16, CB_HEAD_PROBE_LATE_OK = 2, CB_HEAD_RAISE_AFTER = 32 };
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

static void use_level(const cb_timing *t, point_head *h, int level)
{
    h->level = level;
    h->start = cb_head_start_level(t, level);
    h->since_taken = h->since_late = 0;
    h->chosen = true;
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
    point_head *h = &pr->head;
    if (h->chosen || !pt.cuda || pt.hot) return CB_OK;
    const int first = first_level(b);
    /* A host-timed sample waits for its flush: no head start to size. */
    if (pt.host_timer) {
        use_level(t, h, first);
        return CB_OK;
    }
    if (!(single_s < CB_HEAD_PROBE_BELOW_S)) {
        use_level(t, h, 1);
        return CB_OK;
    }
    int best = -1;
    for (int level = first; level < CB_HEAD_LEVELS && best < 0 && !cb_interrupted(); level++) {
        int late = 0;
        cb_status st = probe_level(b, state, t, pt, level, &late, why);
        if (st != CB_OK) return st;
        if (late <= CB_HEAD_PROBE_LATE_OK) best = level;
    }
    /* No level wins: the run waits for its own work (or the host is this
     * slow whatever the head start); it keeps the first level, so its
     * samples are taken as every process takes them. */
    h->watch = best >= 0;
    if (best < 0) best = first;
    use_level(t, h, best);
    h->probed = true;
    return CB_OK;
}

const cb_head_start *cb_point_head_start(point_timing pt, const point_run *pr)
{
    return pt.cuda && !pt.hot && pr->head.chosen ? &pr->head.start : NULL;
}

bool cb_head_start_set_aside(const cb_timing *t, point_run *pr, bool late)
{
    point_head *h = &pr->head;
    late = late && h->probed;
    if (late && h->watch) {
        h->set_aside++;
        h->since_taken++;
        h->since_late++;
        if (h->since_taken >= CB_HEAD_RAISE_AFTER && 8 * h->since_late > h->since_taken) {
            if (h->level + 1 < CB_HEAD_LEVELS) {
                use_level(t, h, h->level + 1);
                h->raised = true;
            } else {
                h->watch = false; /* late whatever the head start: keep them */
            }
        }
        return true;
    }
    h->since_taken++;
    h->kept++;
    h->late_kept += late;
    return false;
}

void cb_note_head_start(point_run *pr)
{
    const point_head *h = &pr->head;
    if (!h->chosen || h->kept == 0) return;
    char text[200];
    if (h->start.hold_ns > 0 || h->raised) {
        int n = snprintf(text, sizeof text, "head start: %s L2 flush", h->level ? "2x" : "1x");
        if (h->start.hold_ns > 0)
            n += snprintf(text + n, sizeof text - (size_t)n, " and a %u us hold",
                          h->start.hold_ns / 1000);
        snprintf(text + n, sizeof text - (size_t)n, "%s",
                 h->raised ? " (raised while sampling: the host enqueued late)"
                           : " (the host enqueues a run slower than the flush)");
        cb_note_append(pr->r, text);
    }
    if (h->set_aside > 0 && 100 * h->set_aside >= h->kept) {
        snprintf(text, sizeof text,
                 "%d late samples set aside (the GPU reached the start event before the host had "
                 "enqueued the run)",
                 h->set_aside);
        cb_note_append(pr->r, text);
    }
    /* Under 1 %, late samples cannot move the median. */
    if (h->late_kept > 0 && 100 * h->late_kept >= h->kept) {
        snprintf(text, sizeof text,
                 "%d of %d samples started late whatever the head start (the GPU reached the "
                 "start event before the host had enqueued the run: they hold host time)",
                 h->late_kept, h->kept);
        cb_note_append(pr->r, text);
    }
}
