/* warm_up.c - the settle rule of a point whose path speeds up over its
 * first runs (warm_up.h). */
#include "warm_up.h"

#include <math.h>

void cb_settle_init(cb_settle *s)
{
    s->best = INFINITY;
    s->calm = 0;
}

bool cb_settle_add(cb_settle *s, double elapsed)
{
    if (elapsed < s->best * (1.0 - CB_SETTLE_GAIN))
        s->calm = 0;
    else
        s->calm++;
    if (elapsed < s->best) s->best = elapsed;
    return s->calm >= CB_SETTLE_CALM_RUNS;
}
