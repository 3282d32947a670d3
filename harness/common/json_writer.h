/* json_writer.h - a small streaming JSON writer with pretty indentation.
 * Callers emit keys and values in order; the writer handles commas, nesting
 * and string escaping. Nesting deeper than CB_JSON_MAX_DEPTH is a bug. */
#ifndef CB_JSON_WRITER_H
#define CB_JSON_WRITER_H

#include <stdbool.h>
#include <stdio.h>

#define CB_JSON_MAX_DEPTH 16

typedef struct cb_json {
    FILE *f;
    int depth;
    bool first[CB_JSON_MAX_DEPTH]; /* no member written yet at this depth */
    bool after_key;                /* a key was written; its value comes next */
} cb_json;

void cb_json_begin(cb_json *j, FILE *f); /* starts the top-level object */
void cb_json_end(cb_json *j);            /* closes it and adds a newline */

void cb_json_key(cb_json *j, const char *key);
void cb_json_object_begin(cb_json *j);
void cb_json_object_end(cb_json *j);
void cb_json_array_begin(cb_json *j);
void cb_json_array_end(cb_json *j);
void cb_json_str(cb_json *j, const char *s); /* NULL writes null */
void cb_json_num(cb_json *j, double v);      /* non-finite writes null */
void cb_json_int(cb_json *j, long long v);
void cb_json_bool(cb_json *j, bool v);
void cb_json_null(cb_json *j);

/* Shorthands for "key": value. */
void cb_json_kv_str(cb_json *j, const char *key, const char *s);
void cb_json_kv_num(cb_json *j, const char *key, double v);
void cb_json_kv_int(cb_json *j, const char *key, long long v);
void cb_json_kv_bool(cb_json *j, const char *key, bool v);
/* "key": { and "key": [ : a named member that holds an object or an array,
 * closed by cb_json_object_end / cb_json_array_end as any other. */
void cb_json_kv_object_begin(cb_json *j, const char *key);
void cb_json_kv_array_begin(cb_json *j, const char *key);

#endif
