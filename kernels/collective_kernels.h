/* collective_kernels.h - inputs and checks for the collectives family.
 *
 * Element i of rank r's input is a small integer in [-4, 3] from a
 * counter-based hash of (seed, r, i): exact in float and in bf16, and so is
 * any sum of them over a few thousand ranks, whatever order NCCL adds them
 * in. So a reduction's result is checked exactly, element by element. */
#ifndef CB_COLLECTIVE_KERNELS_H
#define CB_COLLECTIVE_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cb_coll_dtype { CB_COLL_FLOAT, CB_COLL_BF16 } cb_coll_dtype;

/* What element i of a checked buffer must hold. */
typedef enum cb_coll_expect {
    CB_COLL_EXPECT_SUM,  /* sum over ranks 0..nranks-1 of input(r, index0 + i) */
    CB_COLL_EXPECT_COPY, /* input(rank, index0 + i)                            */
} cb_coll_expect;

/* buf[i] = input(seed, rank, index0 + i) for i < count. */
cudaError_t cb_coll_launch_fill(void *buf, cb_coll_dtype t, size_t count, uint64_t seed, int rank,
                                size_t index0, cudaStream_t s);

/* Adds to *bad (device memory) the elements of buf that differ from what
 * `expect` says (NaN counts as wrong). */
cudaError_t cb_coll_launch_check(const void *buf, cb_coll_dtype t, size_t count, uint64_t seed,
                                 cb_coll_expect expect, int nranks, int rank, size_t index0,
                                 unsigned long long *bad, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
