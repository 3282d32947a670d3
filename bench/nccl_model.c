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

typedef struct coll_rows {
    const cb_result *const *rows;
    const int *ranks;
    const cb_coll_op *ops;
    int n;
} coll_rows;

static void write_rows(FILE *f, const void *ctx)
{
    const coll_rows *c = ctx;
    fputs("benchmark,dtype,ranks,bytes,median_s,algbw_gbps,busbw_gbps,bus_factor,status\n", f);
    for (int i = 0; i < c->n; i++) {
        const cb_result *r = c->rows[i];
        char dtype[16] = "";
        cb_axes_value(r->axes, "dtype", dtype, sizeof dtype);
        double factor = cb_coll_bus_factor(c->ops[i], c->ranks[i]);
        cb_csv_row row;
        cb_csv_begin(&row, f);
        cb_csv_str(&row, r->bench->name);
        cb_csv_str(&row, dtype);
        cb_csv_int(&row, c->ranks[i]);
        cb_csv_num(&row, r->bytes);
        cb_csv_num(&row, r->summary.median);
        cb_csv_num(&row, r->gbps);
        cb_csv_num(&row, r->gbps * factor);
        cb_csv_num(&row, factor);
        cb_csv_str(&row, cb_status_name(r->status));
        cb_csv_end(&row);
    }
}

cb_status cb_nccl_write_csv(const char *dir, const cb_result *rows, int n, cb_msg *why)
{
    const cb_result **picked = malloc(sizeof *picked * (size_t)(n > 0 ? n : 1));
    int *ranks = malloc(sizeof *ranks * (size_t)(n > 0 ? n : 1));
    cb_coll_op *ops = malloc(sizeof *ops * (size_t)(n > 0 ? n : 1));
    cb_status st = CB_OK;
    if (!picked || !ranks || !ops) {
        cb_msg_set(why, "out of memory writing nccl.csv");
        st = CB_FAIL;
    }
    int m = 0;
    for (int i = 0; st == CB_OK && i < n; i++) {
        const cb_result *r = &rows[i];
        char text[32];
        cb_coll_op op;
        if (!cb_coll_op_of(r->bench->name, &op) || !cb_result_timed(r) ||
            !cb_axes_value(r->axes, "ranks", text, sizeof text))
            continue;
        picked[m] = r, ranks[m] = atoi(text), ops[m] = op;
        if (ranks[m] >= 1) m++;
    }
    if (st == CB_OK && m > 0) {
        coll_rows c = {picked, ranks, ops, m};
        st = cb_write_atomically(dir, "nccl.csv", write_rows, &c, why);
    }
    free(picked);
    free(ranks);
    free(ops);
    return st;
}
