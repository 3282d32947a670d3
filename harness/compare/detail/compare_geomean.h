/* compare_geomean.h - geometric means of ratios with their CIs, the
 * run-wide offset included (compare.h states the rule). */
#ifndef CB_COMPARE_GEOMEAN_H
#define CB_COMPARE_GEOMEAN_H

#include "compare.h"

/* Each tested row's deviation, per directory of one side, from that side's
 * center: dev[row * dirs + d] (NAN where the directory has no samples).
 * Only for a side of >= CB_CMP_MIN_RUNS directories (else dirs is 0). */
typedef struct cb_offsets {
    int dirs;
    double *dev;
} cb_offsets;

/* Fill `off` for side BASE (base_side) or NEW of the rows. False with `err`
 * set when out of memory. */
bool cb_offsets_fill(cb_offsets *off, const cb_compare_row *rows, int n, bool base_side,
                     const cb_cmp_run *run, cb_msg *err);

void cb_offsets_free(cb_offsets *off);

/* The geometric mean over rows[idx[0..k)] that were tested. */
cb_geomean cb_geomean_of(const cb_compare_row *rows, const int *idx, int k, const cb_offsets *ob,
                         const cb_offsets *on, const cb_compare_opts *o);

/* The result's groups, one per benchmark in identity order (of each
 * group's first row), each with its counts and geometric mean. Rows must
 * still be in identity order. False with `err` set when out of memory. */
bool cb_compare_groups(cb_compare_result *out, const cb_offsets *ob, const cb_offsets *on,
                       const cb_compare_opts *o, cb_msg *err);

#endif
