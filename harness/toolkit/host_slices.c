/* host_slices.c - a loop over [0, count) on several POSIX threads. */
#include "host_slices.h"

#include <pthread.h>

typedef struct slice {
    cb_slice_fn fn;
    void *ctx;
    int index;
    size_t from, to;
} slice;

static void *slice_run(void *arg)
{
    const slice *s = arg;
    s->fn(s->ctx, s->index, s->from, s->to);
    return NULL;
}

/* Where slice t of `threads` starts: the first count % threads slices take
 * one index more than the others. */
static size_t slice_start(size_t count, size_t threads, size_t t)
{
    size_t rest = count % threads;
    return t * (count / threads) + (t < rest ? t : rest);
}

bool cb_run_slices(size_t count, int threads, cb_slice_fn fn, void *ctx)
{
    if (threads < 1) threads = 1;
    if (threads > CB_SLICES_MAX) threads = CB_SLICES_MAX;
    if ((size_t)threads > count) threads = count > 0 ? (int)count : 1;
    slice slices[CB_SLICES_MAX];
    pthread_t tids[CB_SLICES_MAX];
    bool started[CB_SLICES_MAX] = {false};
    bool all_started = true;
    for (int t = 0; t < threads; t++)
        slices[t] = (slice){fn, ctx, t, slice_start(count, (size_t)threads, (size_t)t),
                            slice_start(count, (size_t)threads, (size_t)t + 1)};
    for (int t = 1; t < threads; t++) {
        started[t] = pthread_create(&tids[t], NULL, slice_run, &slices[t]) == 0;
        if (!started[t]) all_started = false;
    }
    slice_run(&slices[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t])
            pthread_join(tids[t], NULL);
        else
            slice_run(&slices[t]);
    }
    return all_started;
}
