/* bench_test_util.h - the one way tests drive a benchmark point: build a
 * point from axis values, then setup -> run -> sync -> verify -> teardown
 * with the context the runner would give (the variant's param included).
 * CPU and GPU tests alike. */
#ifndef CB_BENCH_TEST_UTIL_H
#define CB_BENCH_TEST_UTIL_H

#include "bench.h"
#include "cb_test.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

/* Build a point of `b` from "name=value" pairs given as one spec per axis in
 * declaration order (each spec must expand to one value). */
static inline bool cb_test_point(const cb_bench *b, const cb_device_info *dev,
                                 const char *const *values, cb_point *p)
{
    cb_axis_context ctx = {.sm_count = dev ? dev->sm_count : 0};
    p->n_axes = b->n_axes;
    p->defs = b->axes;
    for (int a = 0; a < b->n_axes; a++) {
        static cb_axis_values v;
        cb_msg err;
        if (!cb_axis_expand(&b->axes[a], values[a], &ctx, &v, &err) || v.count != 1) {
            fprintf(stderr, "bad test point for %s axis %s: %s\n", b->name, b->axes[a].name,
                    err.text);
            return false;
        }
        p->values[a] = v.v[0];
    }
    return true;
}

/* A point set up for a test and driven one step at a time: every test
 * that drives points goes through these three calls. */
typedef struct cb_point_under_test {
    const cb_bench *b;
    void *state;
    cb_point_info info;
    cudaStream_t stream;
} cb_point_under_test;

/* setup with the context the runner would give: `ctx` with the variant's
 * param. CB_SKIP or CB_FAIL say why; the state is torn down by
 * cb_test_teardown either way. */
static inline cb_status cb_test_setup(const cb_bench *b, const cb_point *p, const cb_bench_ctx *ctx,
                                      cb_point_under_test *tp, cb_msg *why)
{
    cb_bench_ctx variant = *ctx;
    variant.param = b->param;
    *tp = (cb_point_under_test){.b = b, .stream = ctx->stream, .info = {.occupancy = -1}};
    return b->setup(p, &variant, &tp->state, &tp->info, why);
}

/* `runs` runs back to back (0: none, so a verify that does not catch the
 * poisoned output shows up as CB_OK), a stream synchronize, then verify:
 * its status (or the first failing step's) and its error. */
static inline cb_status cb_test_run_verify(cb_point_under_test *tp, int runs, double *error,
                                           cb_msg *why)
{
    cb_status st = CB_OK;
    for (int i = 0; i < runs && st == CB_OK; i++)
        st = tp->b->run(tp->state, tp->stream, why);
    cudaError_t e = st == CB_OK && tp->stream ? cudaStreamSynchronize(tp->stream) : cudaSuccess;
    if (e != cudaSuccess) {
        cb_msg_set(why, "stream synchronize: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
        st = CB_FAIL;
    }
    return st == CB_OK ? tp->b->verify(tp->state, error, why) : st;
}

static inline void cb_test_teardown(cb_point_under_test *tp)
{
    if (tp->state) tp->b->teardown(tp->state);
    tp->state = NULL;
}

/* setup -> [run] -> sync -> verify -> teardown in one call; returns
 * verify's status (or the first failing step's). */
static inline cb_status cb_test_run_point_threads(const cb_bench *b, const cb_point *p,
                                                  const cb_device_info *dev, cudaStream_t s,
                                                  bool run_first, int host_threads, double *error,
                                                  cb_msg *why)
{
    const cb_device_info *devs[1] = {dev};
    cb_bench_ctx ctx = {.dev = b->target == CB_TARGET_CUDA ? dev : NULL,
                        .devs = b->target == CB_TARGET_CUDA ? devs : NULL,
                        .n_devs = b->target == CB_TARGET_CUDA && dev ? 1 : 0,
                        .stream = s,
                        .seed = 1234,
                        .host_threads = host_threads};
    cb_point_under_test tp;
    cb_status st = cb_test_setup(b, p, &ctx, &tp, why);
    if (st == CB_OK) st = cb_test_run_verify(&tp, run_first ? 1 : 0, error, why);
    cb_test_teardown(&tp);
    return st;
}

static inline cb_status cb_test_run_point(const cb_bench *b, const cb_point *p,
                                          const cb_device_info *dev, cudaStream_t s, bool run_first,
                                          double *error, cb_msg *why)
{
    return cb_test_run_point_threads(b, p, dev, s, run_first, 2, error, why);
}

#endif
