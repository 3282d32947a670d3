/* warm_up.h - when a point that declares a settling path may end its
 * warm-up.
 *
 * Most paths run at their steady speed from the first run or two, and the
 * configured warm-up runs (cb_run_config.warmup_runs) cover them. A copy
 * staged through pageable host memory does not: on the H200's host a
 * 64 MiB host-to-device copy's first runs took 1.5-2x as long as the later
 * ones and sped up smoothly over 5-30 runs (50-200 ms of copying), however
 * the buffer was filled, with 4 KiB or 2 MiB pages, with or without a rest
 * before it (docs/methodology.md). Samples taken on that slope make the
 * median's interval a trend's. Such a point declares it
 * (cb_point_info.warm_until_settled), and its warm-up goes on, within the
 * same time cap, until CB_SETTLE_CALM_RUNS runs in a row have each been
 * no more than CB_SETTLE_GAIN faster than the best run before them. */
#ifndef CB_WARM_UP_H
#define CB_WARM_UP_H

#include <stdbool.h>

/* A run this much faster than every run before it counts as still
 * settling: above the run-to-run spread of a settled staged copy (1-2 % at
 * 64 MiB), far below the slope's 5-30 % per run. */
#define CB_SETTLE_GAIN 0.03
/* Calm runs in a row that end the warm-up: one calm run can be a pause on
 * the slope (a scheduler tick). */
#define CB_SETTLE_CALM_RUNS 2

typedef struct cb_settle {
    double best; /* the fastest run so far (s) */
    int calm;    /* runs in a row that did not beat `best` by the gain */
} cb_settle;

void cb_settle_init(cb_settle *s);

/* Account one warm-up run of `elapsed` seconds; true once settled. */
bool cb_settle_add(cb_settle *s, double elapsed);

#endif
