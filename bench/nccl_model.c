/* nccl_model.c - counts, bus factors and nccl.csv for the collectives. */
#include "nccl_model.h"

#include "csv_writer.h"
#include "row_groups.h"

#include <stdlib.h>
#include <string.h>

bool cb_coll_counts(cb_coll_op op, uint64_t bytes, int ranks, size_t elem, size_t *send_count,
                    size_t *recv_count)
{
    if (bytes == 0 || ranks < 1 || elem == 0 || bytes % elem != 0) return false;
    uint64_t total = bytes / elem;
    switch (op) {
    case CB_COLL_ALL_REDUCE:
    case CB_COLL_BROADCAST:
        *send_count = *recv_count = (size_t)total;
        return true;
    case CB_COLL_ALL_GATHER: /* total = gathered output */
        if (total % (uint64_t)ranks) return false;
        *send_count = (size_t)(total / (uint64_t)ranks);
        *recv_count = (size_t)total;
        return true;
    case CB_COLL_REDUCE_SCATTER: /* total = each input */
        if (total % (uint64_t)ranks) return false;
        *send_count = (size_t)total;
        *recv_count = (size_t)(total / (uint64_t)ranks);
        return true;
    }
    return false;
}

double cb_coll_bus_factor(cb_coll_op op, int ranks)
{
    double n = ranks;
    switch (op) {
    case CB_COLL_ALL_REDUCE:
        return 2.0 * (n - 1) / n;
    case CB_COLL_ALL_GATHER:
    case CB_COLL_REDUCE_SCATTER:
        return (n - 1) / n;
    case CB_COLL_BROADCAST:
        return 1.0;
    }
    return 0.0;
}

bool cb_coll_op_of(const char *bench, cb_coll_op *op)
{
    static const struct {
        const char *name;
        cb_coll_op op;
    } names[] = {{"nccl/all_reduce", CB_COLL_ALL_REDUCE},
                 {"nccl/all_gather", CB_COLL_ALL_GATHER},
                 {"nccl/reduce_scatter", CB_COLL_REDUCE_SCATTER},
                 {"nccl/broadcast", CB_COLL_BROADCAST}};
    for (int i = 0; i < CB_ARRAY_LEN(names); i++)
        if (strcmp(bench, names[i].name) == 0) {
            *op = names[i].op;
            return true;
        }
    return false;
}

/* A row of nccl.csv: a timed collective, its rank count and operation. */
typedef struct coll_row {
    const cb_result *r;
    int ranks;
    cb_coll_op op;
} coll_row;

static void write_coll_row(cb_csv_row *row, const void *item)
{
    const coll_row *c = item;
    const cb_result *r = c->r;
    char dtype[16] = "";
    cb_axes_value(r->axes, "dtype", dtype, sizeof dtype);
    double factor = cb_coll_bus_factor(c->op, c->ranks);
    cb_csv_str(row, r->bench->name);
    cb_csv_str(row, dtype);
    cb_csv_int(row, c->ranks);
    cb_csv_num(row, r->bytes);
    cb_csv_num(row, r->summary.median);
    cb_csv_num(row, r->gbps);
    cb_csv_num(row, r->gbps * factor);
    cb_csv_num(row, factor);
    cb_csv_str(row, cb_status_name(r->status));
}

/* nccl.csv: one row per timed collective, with its bus bandwidth. */
static const cb_csv_layout nccl_csv = {
    .header = "benchmark,dtype,ranks,bytes,median_s,algbw_gbps,busbw_gbps,bus_factor,status",
    .item_size = sizeof(coll_row),
    .row = write_coll_row,
};

cb_status cb_nccl_write_csv(const char *dir, const cb_result *rows, int n, cb_msg *why)
{
    coll_row *picked = malloc(sizeof *picked * (size_t)(n > 0 ? n : 1));
    if (!picked) {
        cb_msg_set(why, "out of memory writing nccl.csv");
        return CB_FAIL;
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        const cb_result *r = &rows[i];
        char text[32];
        cb_coll_op op;
        if (!cb_coll_op_of(r->bench->name, &op) || !cb_result_timed(r) ||
            !cb_axes_value(r->axes, "ranks", text, sizeof text))
            continue;
        picked[m] = (coll_row){.r = r, .ranks = atoi(text), .op = op};
        if (picked[m].ranks >= 1) m++;
    }
    cb_status st = CB_OK;
    if (m > 0) st = cb_write_csv_table(dir, "nccl.csv", &nccl_csv, picked, m, why);
    free(picked);
    return st;
}
