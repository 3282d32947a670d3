/* point.h - one point of a sweep: a value for every axis of a benchmark. */
#ifndef CB_POINT_H
#define CB_POINT_H

#include "axis.h"

#define CB_MAX_AXES   8
#define CB_POINT_TEXT 256

typedef struct cb_point {
    bool expanded;           /* false: a benchmark skipped before its axes were expanded */
    int n_axes;              /* 0 for a benchmark without axes (one point)               */
    const cb_axis_def *defs; /* the benchmark's axis table          */
    cb_axis_value values[CB_MAX_AXES]; /* values[i] belongs to defs[i]         */
} cb_point;

/* Does the point's benchmark declare axis `name`? (Shared setups whose
 * variants have different knobs.) */
bool cb_point_has(const cb_point *p, const char *name);

/* The integer value of axis `name`; CB_AXIS_WORD for a word such as `auto`.
 * Asking for an axis the benchmark does not declare is a programming error
 * and aborts with a message. */
int64_t cb_point_int(const cb_point *p, const char *name);

/* The number on axis `name` (FLOAT axes; INT axes give their integer).
 * Aborts like cb_point_int for an undeclared axis. */
double cb_point_float(const cb_point *p, const char *name);

/* The canonical text of axis `name` ("256", "auto", "pinned"). Aborts like
 * cb_point_int for an undeclared axis. */
const char *cb_point_str(const cb_point *p, const char *name);

/* True when the point's axis `name` holds the word `word`. */
bool cb_point_is(const cb_point *p, const char *name, const char *word);

/* "n=1024;block=256;grid=auto": the identity used in every output file.
 * Axis order is the declaration order. */
void cb_point_format(const cb_point *p, char *buf, size_t len);

#endif
