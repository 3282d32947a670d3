/* nccl_model.h - what the collectives family computes without a GPU: the
 * element counts of each collective for a size, the nccl-tests bus
 * bandwidth factor, and nccl.csv. */
#ifndef CB_NCCL_MODEL_H
#define CB_NCCL_MODEL_H

#include "registry.h"

typedef enum cb_coll_op {
    CB_COLL_ALL_REDUCE,
    CB_COLL_ALL_GATHER,
    CB_COLL_REDUCE_SCATTER,
    CB_COLL_BROADCAST,
} cb_coll_op;

/* Elements each rank sends and receives for nccl-tests' size `bytes` (per
 * rank for all-reduce and broadcast, the gathered output for all-gather,
 * each input for reduce-scatter). False when `bytes` does not split into
 * whole elements per rank, or is 0. */
bool cb_coll_counts(cb_coll_op op, uint64_t bytes, int ranks, size_t elem, size_t *send_count,
                    size_t *recv_count);

/* busbw = algbw x factor (nccl-tests' PERFORMANCE.md): all-reduce
 * 2(n-1)/n, all-gather and reduce-scatter (n-1)/n, broadcast 1. A bus
 * figure that can be set against the link's speed whatever the rank count. */
double cb_coll_bus_factor(cb_coll_op op, int ranks);

/* The op of a benchmark name ("nccl/all_gather"); false when not one. */
bool cb_coll_op_of(const char *bench, cb_coll_op *op);

/* nccl.csv: one row per timed collective point, with algbw and busbw. */
cb_status cb_nccl_write_csv(const char *dir, const cb_result *rows, int n, cb_msg *why);

#endif
