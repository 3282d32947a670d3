/* progress.h - the progress line on stderr during a sweep (never stdout). */
#ifndef CB_PROGRESS_H
#define CB_PROGRESS_H

#include "results.h"

typedef struct cb_progress {
    int total;
    double started_s;
    bool tty; /* redraw one line in place; otherwise one line per point */
    bool quiet;
} cb_progress;

void cb_progress_begin(cb_progress *p, int total, bool quiet);
/* Before point `index` (0-based) starts. */
void cb_progress_point(cb_progress *p, int index, const char *bench, const char *axes);
/* After it finished, with its result. */
void cb_progress_done(cb_progress *p, int index, const cb_result *r);
void cb_progress_end(cb_progress *p);

#endif
