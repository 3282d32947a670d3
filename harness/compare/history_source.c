/* history_source.c - the history as one of compare's spread sources
 * (compare_spread.h): a point's between-run spread learned from its own past
 * runs on the machine (history_spread.c), for `cubench compare --history`. */
#include "history.h"

#include <math.h>
#include <stdio.h>

static bool history_lookup(const void *ctx, const cb_spread_query *q, cb_spread *out)
{
    const cb_hist_spread *s = cb_hist_spread_find(ctx, q->benchmark, q->axes, q->device);
    if (!s || !(s->df > 0.0)) return false; /* fewer than 3 usable runs: the next source */
    *out = (cb_spread){s->sd, s->df, NAN, NAN, ""};
    snprintf(out->what, sizeof out->what, "%d past runs of the point", s->runs);
    return true;
}

cb_spread_source cb_history_spread_source(const cb_hist_spread_table *t, const char *label)
{
    return (cb_spread_source){"history", label, t, history_lookup};
}
