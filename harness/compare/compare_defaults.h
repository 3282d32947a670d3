/* compare_defaults.h - the between-run spread compare assumes for a point
 * of each kind when nothing better is known (compare_spread.h, step 4).
 *
 * Measured on the recorded H200 runs (tests/data) by
 * scripts/record/compare_defaults.py, which states the method and the
 * trust rule: per kind (device kernels also per time tier of the median)
 * the between-process spread pooled over points, its degrees of freedom
 * counted by processes for the part a whole run shares, and raised where
 * needed so that its 99% intervals held 99% of the recorded pairs of
 * processes. A default is trusted when at least 3 processes of one build
 * on one GPU, back to back, measured the kind, over at least 10 points;
 * a kind recorded in fewer (multi-GPU points: none yet) has none, and its
 * points are `inconclusive` from one run per side (the report says why and
 * what helps). So has a kind whose recorded pairs understate how far a
 * whole process moves (copies staged through pageable memory). The table
 * and the script are checked against each other by
 * tests/py/test_compare_aa.py (docs/compare.md has the figures). */
#ifndef CB_COMPARE_DEFAULTS_H
#define CB_COMPARE_DEFAULTS_H

#include "compare_spread.h"

typedef struct cb_kind_default {
    cb_cmp_kind kind;
    double below_s;        /* for BASE medians below this (the tiers of a kind) */
    double sd, df;         /* between-run spread per run and its df            */
    double run_sd, run_df; /* the part a whole run shares (NAN: unknown) */
    int processes, points; /* what it was measured on                    */
    bool trusted;
    const char *no_default; /* why the kind has none whatever its recorded
                             * pairs say (the note), or NULL              */
} cb_kind_default;

/* The table, in kind order, tiers ascending. */
const cb_kind_default *cb_kind_defaults(int *n);

/* The default of a point: true with *out filled (out->what names the
 * tier), false when its kind has none (*why says why, for the note). */
bool cb_kind_default_spread(cb_cmp_kind kind, double median_s, cb_spread *out, const char **why);

#endif
