/* axis.h - benchmark axes and the axis value grammar.
 *
 * Grammar (one `--axis NAME=SPEC` or a descriptor default):
 *   SPEC  := ITEM (',' ITEM)*
 *   ITEM  := VALUE | VALUE ':' VALUE [':' STEP] | WORD
 *   VALUE := NUM [UNIT] | NUM '^' NUM | [NUM] 'sm'
 *   NUM   := decimal digits; every value is an integer in 0 .. 2^62
 *   UNIT  := k M G (1e3, 1e6, 1e9) | Ki Mi Gi, KiB MiB GiB (2^10, 2^20, 2^30)
 *   STEP  := 'x' NUM (multiply, NUM >= 2) | ['+'] NUM (add, NUM >= 1)
 *   WORD  := a name from the axis' choices (enum axes, or `auto`)
 * `sm` is the streaming-multiprocessor count of the selected device, so
 * `1sm:8sm:x2` is 1, 2, 4 and 8 waves of one block per SM.
 * Ranges include both ends when the step lands on the end.
 *
 * FLOAT axes take a plain list of finite numbers instead (decimal or
 * scientific: 0.5, 1e-3, -2), for parameters that are not counts.
 *
 * Every canonical text (cb_axis_value.text, the `axes` cells of
 * results.csv) parses back to the same value. Parsing is linear in the
 * length of the spec: powers use exponentiation by squaring (0^k and 1^k
 * for any k at once), and a value's syntax is checked before any arithmetic.
 */
#ifndef CB_AXIS_H
#define CB_AXIS_H

#include "cb_common.h"

typedef enum cb_axis_kind {
    CB_AXIS_INT,   /* integers; `choices` may add symbolic words such as "auto" */
    CB_AXIS_ENUM,  /* one of the comma-separated words in `choices`              */
    CB_AXIS_FLOAT, /* a list of finite numbers ("0.5,1e-3"); no ranges or units  */
} cb_axis_kind;

typedef struct cb_axis_def {
    const char *name; /* short, lower case: "n", "block", "kind"           */
    cb_axis_kind kind;
    const char *defaults; /* a SPEC in the grammar above                        */
    const char *choices;  /* allowed words, comma-separated; NULL for none      */
    int64_t min_value;    /* smallest integer accepted (CB_AXIS_INT)            */
    const char *help;     /* one line, with the unit: "elements per vector"     */
} cb_axis_def;

/* The integer that stands for a symbolic word (e.g. `auto`) on an INT axis. */
#define CB_AXIS_WORD (-1)
/* The integer of an item that needs the device and was planned without one
 * (`4sm`, `1sm:8sm:x2`, kept as text; see cb_axis_context.defer_device).
 * Such a value is only listed, never run. */
#define CB_AXIS_DEFERRED (-2)

typedef struct cb_axis_value {
    int64_t i;     /* the integer, or CB_AXIS_WORD for a word (0 on FLOAT axes) */
    double f;      /* FLOAT axes: the number; INT axes: i as a double            */
    char text[32]; /* canonical text: the integer, the shortest text that reads
                    * back as the same double, or the word itself             */
} cb_axis_value;

#define CB_AXIS_MAX_VALUES 512

typedef struct cb_axis_values {
    int count;
    cb_axis_value v[CB_AXIS_MAX_VALUES];
} cb_axis_values;

/* What the grammar needs from the device. sm_count 0 means unknown: a SPEC
 * that uses `sm` is then an error, unless `defer_device` is set: then each
 * item that uses `sm` is checked as far as it can be without the SM count
 * and kept unresolved (CB_AXIS_DEFERRED, canonical text such as "4sm"). */
typedef struct cb_axis_context {
    int sm_count;
    bool defer_device;
    bool host; /* a host benchmark's axis: `sm` is refused whatever the device */
} cb_axis_context;

/* Expand `spec` for axis `def`. Returns false with a message naming the axis
 * and the offending text when the spec is malformed, out of range, or expands
 * to more than CB_AXIS_MAX_VALUES values. Duplicates are kept in order of
 * first appearance and removed after. */
bool cb_axis_expand(const cb_axis_def *def, const char *spec, const cb_axis_context *ctx,
                    cb_axis_values *out, cb_msg *err);

/* Parse one VALUE (no ranges) to an integer; `sm` needs ctx->sm_count. */
bool cb_axis_parse_value(const char *text, const cb_axis_context *ctx, int64_t *out, cb_msg *err);

#endif
