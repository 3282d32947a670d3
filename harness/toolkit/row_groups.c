/* row_groups.c - identity text, curve grouping and atomic file writes for
 * per-run output writers. */
#include "row_groups.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool cb_axes_value(const char *axes, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (const char *item = axes; item && *item;) {
        const char *end = strchr(item, ';');
        size_t il = end ? (size_t)(end - item) : strlen(item);
        if (il > nl && strncmp(item, name, nl) == 0 && item[nl] == '=') {
            size_t vl = il - nl - 1;
            if (vl >= len) vl = len - 1;
            memcpy(buf, item + nl + 1, vl);
            buf[vl] = '\0';
            return true;
        }
        item = end ? end + 1 : NULL;
    }
    return false;
}

void cb_axes_without(const char *axes, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name), used = 0;
    buf[0] = '\0';
    for (const char *item = axes; item && *item;) {
        const char *end = strchr(item, ';');
        size_t il = end ? (size_t)(end - item) : strlen(item);
        bool skip = il > nl && strncmp(item, name, nl) == 0 && item[nl] == '=';
        if (!skip && used + il + 2 < len) {
            if (used) buf[used++] = ';';
            memcpy(buf + used, item, il);
            used += il;
            buf[used] = '\0';
        }
        item = end ? end + 1 : NULL;
    }
}

bool cb_result_timed(const cb_result *r)
{
    return r->bench && r->bench->name && (r->status == CB_OK || r->status == CB_NOISY) &&
           r->summary.n > 0 && isfinite(r->summary.median) && r->summary.median > 0;
}

static int cmp_curve_row(const void *a, const void *b)
{
    const cb_curve_row *p = a, *q = b;
    int c = strcmp(p->r->bench->name, q->r->bench->name);
    if (c == 0) c = strcmp(p->key, q->key);
    if (c == 0) c = (p->order > q->order) - (p->order < q->order);
    return c;
}

void cb_curve_rows_sort(cb_curve_row *rows, int n)
{
    if (n > 1) qsort(rows, (size_t)n, sizeof *rows, cmp_curve_row);
}

bool cb_curve_rows_same(const cb_curve_row *p, const cb_curve_row *q)
{
    return strcmp(p->r->bench->name, q->r->bench->name) == 0 && strcmp(p->key, q->key) == 0;
}

int cb_commit_file(FILE *f, const char *tmp, const char *path)
{
    int err = 0;
    if (fflush(f) != 0 || ferror(f)) err = errno ? errno : EIO;
    if (!err && fsync(fileno(f)) != 0) err = errno;
    if (fclose(f) != 0 && !err) err = errno ? errno : EIO;
    if (!err && rename(tmp, path) != 0) err = errno;
    return err;
}

cb_status cb_write_atomically(const char *dir, const char *name, cb_table_writer write,
                              const void *ctx, cb_msg *why)
{
    char path[4096], tmp[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name) >= (int)sizeof tmp) {
        cb_msg_set(why, "path too long for %s in %s", name, dir);
        return CB_FAIL;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cb_msg_set(why, "cannot write %s: %s", tmp, strerror(errno));
        return CB_FAIL;
    }
    write(f, ctx);
    int err = cb_commit_file(f, tmp, path);
    if (err) {
        cb_msg_set(why, "cannot write %s: %s", path, strerror(err));
        remove(tmp);
        return CB_FAIL;
    }
    return CB_OK;
}

typedef struct csv_table {
    const cb_csv_layout *layout;
    const char *items;
    int n;
} csv_table;

static void write_csv_table(FILE *f, const void *ctx)
{
    const csv_table *t = ctx;
    fputs(t->layout->header, f);
    fputc('\n', f);
    for (int i = 0; i < t->n; i++) {
        cb_csv_row row;
        cb_csv_begin(&row, f);
        t->layout->row(&row, t->items + (size_t)i * t->layout->item_size);
        cb_csv_end(&row);
    }
}

cb_status cb_write_csv_table(const char *dir, const char *name, const cb_csv_layout *layout,
                             const void *items, int n, cb_msg *why)
{
    csv_table table = {layout, items, n};
    return cb_write_atomically(dir, name, write_csv_table, &table, why);
}

int cb_cmp_leading_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
