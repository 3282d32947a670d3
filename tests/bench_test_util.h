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

/* setup -> [run] -> sync -> verify -> teardown; returns verify's status (or
 * the first failing step's). With run_first false the run is left out, so a
 * verify that does not catch the poisoned output shows up as CB_OK. */
static inline cb_status cb_test_run_point_threads(const cb_bench *b, const cb_point *p,
                                                  const cb_device_info *dev, cudaStream_t s,
                                                  bool run_first, int host_threads, double *error,
                                                  cb_msg *why)
{
    const cb_device_info *devs[1] = {dev};
    cb_bench_ctx ctx = {.param = b->param,
                        .dev = b->target == CB_TARGET_CUDA ? dev : NULL,
                        .devs = b->target == CB_TARGET_CUDA ? devs : NULL,
                        .n_devs = b->target == CB_TARGET_CUDA && dev ? 1 : 0,
                        .stream = s,
                        .seed = 1234,
                        .host_threads = host_threads};
    cb_point_info info = {.occupancy = -1};
    void *state = NULL;
    cb_status st = b->setup(p, &ctx, &state, &info, why);
    if (st == CB_OK && run_first) st = b->run(state, s, why);
    if (st == CB_OK && s && cudaStreamSynchronize(s) != cudaSuccess) {
        cb_msg_set(why, "stream synchronize failed");
        st = CB_FAIL;
    }
    if (st == CB_OK) st = b->verify(state, error, why);
    if (state) b->teardown(state);
    return st;
}

static inline cb_status cb_test_run_point(const cb_bench *b, const cb_point *p,
                                          const cb_device_info *dev, cudaStream_t s, bool run_first,
                                          double *error, cb_msg *why)
{
    return cb_test_run_point_threads(b, p, dev, s, run_first, 2, error, why);
}

#endif
