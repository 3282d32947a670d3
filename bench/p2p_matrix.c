/* p2p_matrix.c - p2p_matrix.csv from the p2p/copy rows of a run: the figure
 * per ordered pair that nvbandwidth prints as its matrix, at the largest
 * size each pair was timed at. */
#include "p2p.h"

#include "csv_writer.h"
#include "row_groups.h"

#include <stdlib.h>
#include <string.h>

typedef struct pair_cell {
    const cb_result *r;
    char src[16], dst[16], peer[8], direction[8];
    double bytes;
} pair_cell;

static void write_cell_row(cb_csv_row *row, const void *item)
{
    const pair_cell *c = item;
    cb_csv_str(row, c->src);
    cb_csv_str(row, c->dst);
    cb_csv_str(row, c->peer);
    cb_csv_str(row, c->direction);
    cb_csv_num(row, c->bytes);
    cb_csv_num(row, c->r->gbps);
    cb_csv_num(row, c->r->summary.median);
    cb_csv_str(row, cb_status_name(c->r->status));
}

/* p2p_matrix.csv: one row per ordered pair and mode, at its largest size. */
static const cb_csv_layout matrix_csv = {
    .header = "src,dst,peer,direction,bytes,gbps,median_s,status",
    .item_size = sizeof(pair_cell),
    .row = write_cell_row,
};

static bool same_cell(const pair_cell *a, const pair_cell *b)
{
    return strcmp(a->src, b->src) == 0 && strcmp(a->dst, b->dst) == 0 &&
           strcmp(a->peer, b->peer) == 0 && strcmp(a->direction, b->direction) == 0;
}

/* The cell of a timed p2p/copy row, from its axes; false for any other
 * row. */
static bool cell_of(const cb_result *r, pair_cell *c)
{
    if (strcmp(r->bench->name, "p2p/copy") != 0 || !cb_result_timed(r)) return false;
    *c = (pair_cell){.r = r, .bytes = r->bytes};
    char size[32];
    if (!cb_axes_value(r->axes, "src", c->src, sizeof c->src) ||
        !cb_axes_value(r->axes, "dst", c->dst, sizeof c->dst) ||
        !cb_axes_value(r->axes, "peer", c->peer, sizeof c->peer) ||
        !cb_axes_value(r->axes, "direction", c->direction, sizeof c->direction) ||
        !cb_axes_value(r->axes, "bytes", size, sizeof size))
        return false;
    c->bytes = strtod(size, NULL);
    return true;
}

/* One cell per pair and mode: the largest size wins (few pairs, so a
 * linear search over the cells kept so far is enough). */
static void keep_largest(pair_cell *cells, int *m, const pair_cell *c)
{
    int k = 0;
    while (k < *m && !same_cell(&cells[k], c))
        k++;
    if (k == *m)
        cells[(*m)++] = *c;
    else if (c->bytes >= cells[k].bytes)
        cells[k] = *c;
}

cb_status cb_p2p_write_matrix(const char *dir, const cb_result *rows, int n, cb_msg *why)
{
    pair_cell *cells = calloc((size_t)(n > 0 ? n : 1), sizeof *cells);
    if (!cells) {
        cb_msg_set(why, "out of memory writing p2p_matrix.csv");
        return CB_FAIL;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        pair_cell c;
        if (cell_of(&rows[i], &c)) keep_largest(cells, &m, &c);
    }
    cb_status st = CB_OK;
    if (m > 0) st = cb_write_csv_table(dir, "p2p_matrix.csv", &matrix_csv, cells, m, why);
    free(cells);
    return st;
}
