/* row_groups.h - what per-run output writers (the engine's fits.csv, a
 * family's own files) share: reading a row's identity text, grouping rows
 * into curves, and replacing a file atomically. */
#ifndef CB_ROW_GROUPS_H
#define CB_ROW_GROUPS_H

#include "csv_writer.h"
#include "results.h"

#include <stdio.h>

/* Copy the value of item `name` of an identity text "a=1;b=2" into buf;
 * false when absent. */
bool cb_axes_value(const char *axes, const char *name, char *buf, size_t len);

/* `axes` without item `name`, order kept. */
void cb_axes_without(const char *axes, const char *name, char *buf, size_t len);

/* Was the row timed (ok or noisy, with a positive median)? */
bool cb_result_timed(const cb_result *r);

/* A row in a curve: the rows of one benchmark that agree on every axis but
 * one are sorted next to each other by cb_curve_rows_sort. */
typedef struct cb_curve_row {
    const cb_result *r;
    int order;               /* index in the run, for a stable output order */
    char key[CB_POINT_TEXT]; /* axes without the swept (or split) axis     */
    double x, t;
} cb_curve_row;

void cb_curve_rows_sort(cb_curve_row *rows, int n);
bool cb_curve_rows_same(const cb_curve_row *p, const cb_curve_row *q);

/* Write `dir`/name through a temporary file, fsync and rename: a reader sees
 * the old file or the new one, never half of one. CB_FAIL with the reason
 * when any step fails (the temporary file is removed). */
typedef void (*cb_table_writer)(FILE *f, const void *ctx);
cb_status cb_write_atomically(const char *dir, const char *name, cb_table_writer write,
                              const void *ctx, cb_msg *why);

/* The format of a CSV file of a family's or the engine's own: a header
 * line, then one row per item of an array, whose fields `row` writes
 * between cb_csv_begin and cb_csv_end. */
typedef void (*cb_csv_item_writer)(cb_csv_row *row, const void *item);
typedef struct cb_csv_layout {
    const char *header; /* the first line, without its newline */
    size_t item_size;   /* bytes of one item of the array      */
    cb_csv_item_writer row;
} cb_csv_layout;

/* Write `dir`/name atomically (cb_write_atomically): the layout's header,
 * then a row for each of items[0..n). */
cb_status cb_write_csv_table(const char *dir, const char *name, const cb_csv_layout *layout,
                             const void *items, int n, cb_msg *why);

/* qsort's comparison of output items whose struct begins with `int order`
 * (the index of its first row in the run): a file in the run's order. */
int cb_cmp_leading_order(const void *a, const void *b);

/* The end of such a write: flush, fsync and close f (closed whatever
 * happens), then rename tmp to path. 0, or the errno of the first step that
 * failed (EIO where that step set none); the caller removes tmp on failure. */
int cb_commit_file(FILE *f, const char *tmp, const char *path);

#endif
