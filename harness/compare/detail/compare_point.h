/* compare_point.h - the test of one point timed on both sides: the
 * between-run widening (compare_spread.h), Welch-Satterthwaite degrees of
 * freedom, the minimum-effect p-value, the CI of the ratio, the minimum
 * detectable effect and the timer floor (compare.h states the formulas).
 * compare.c adds the q-value and the verdict. */
#ifndef CB_COMPARE_POINT_H
#define CB_COMPARE_POINT_H

#include "compare.h"

/* Fill row->widening, spread, log_ratio, var, df, ratio, ci_lo, ci_hi, p,
 * mde and floor_s for points `b` (BASE) and `c` (NEW), whose sides are
 * estimated in row->base/cand. row->var is NaN (and the point untested)
 * when a side has no spread (one sample per run) or no between-run spread
 * is known for it (widening CB_WIDEN_UNKNOWN; the note says why). */
void cb_compare_point_test(cb_compare_row *row, const cb_cmp_point *b, const cb_cmp_point *c,
                           const char *device_name, const cb_compare_opts *o);

/* The timer floor of one side's point: resolution per run / batch. */
double cb_compare_floor(const cb_cmp_point *p, const cb_side_est *e, const cb_compare_opts *o);

#endif
