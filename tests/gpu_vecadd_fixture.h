/* gpu_vecadd_fixture.h - a vector add of n floats on the device, for GPU
 * tests that register a benchmark of their own around it (the runner's
 * tests): the buffers, the float4 rung's launch, and a check of the first
 * and last element. a holds 0x3f3f3f3f (0.747 as a float), b 0x40404040
 * (3.0), and c starts as NaN, so a run that wrote nothing fails.
 *
 * And the benchmark those tests build on it: the same add behind a host
 * that is slow to enqueue it (a spin on the host clock before the launch,
 * as a slow front end would), optionally waiting for it after (a
 * synchronous call). Its param is a cb_test_host_delay; its axis `n`. */
#ifndef CB_GPU_VECADD_FIXTURE_H
#define CB_GPU_VECADD_FIXTURE_H

#include "bench.h"
#include "cb_common.h"
#include "vecadd_kernels.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

extern const cb_vecadd_kernel cb_vecadd_kernel_float4_per_thread;

typedef struct cb_test_vecadd {
    float *a, *b, *c;
    size_t n;
} cb_test_vecadd;

static inline cb_status cb_test_vecadd_alloc(cb_test_vecadd *v, size_t n, cb_msg *why)
{
    v->n = n;
    const size_t bytes = n * sizeof(float);
    CB_CUDA(cudaMalloc((void **)&v->a, bytes));
    CB_CUDA(cudaMalloc((void **)&v->b, bytes));
    CB_CUDA(cudaMalloc((void **)&v->c, bytes));
    CB_CUDA(cudaMemset(v->a, 0x3f, bytes));
    CB_CUDA(cudaMemset(v->b, 0x40, bytes));
    CB_CUDA(cudaMemset(v->c, 0xff, bytes));
    return CB_OK;
}

static inline cb_status cb_test_vecadd_launch(const cb_test_vecadd *v, cudaStream_t stream,
                                              cb_msg *why)
{
    const cb_vecadd_launch l = {.a = v->a, .b = v->b, .c = v->c, .n = v->n, .block = 256, .ilp = 1};
    CB_CUDA(cb_vecadd_kernel_float4_per_thread.launch(&l, stream));
    return CB_OK;
}

static inline cb_status cb_test_vecadd_verify(const cb_test_vecadd *v, double *error, cb_msg *why)
{
    float a = 0, b = 0, c[2] = {0, 0};
    CB_CUDA(cudaMemcpy(&a, v->a, sizeof a, cudaMemcpyDeviceToHost));
    CB_CUDA(cudaMemcpy(&b, v->b, sizeof b, cudaMemcpyDeviceToHost));
    CB_CUDA(cudaMemcpy(&c[0], v->c, sizeof c[0], cudaMemcpyDeviceToHost));
    CB_CUDA(cudaMemcpy(&c[1], v->c + v->n - 1, sizeof c[1], cudaMemcpyDeviceToHost));
    *error = 0;
    if (c[0] != a + b || c[1] != a + b) {
        cb_msg_set(why, "c[0] = %g, c[n-1] = %g, want %g", c[0], c[1], a + b);
        return CB_FAIL;
    }
    return CB_OK;
}

static inline void cb_test_vecadd_free(cb_test_vecadd *v)
{
    cudaFree(v->a);
    cudaFree(v->b);
    cudaFree(v->c);
}

/* How the host delays each run: it spins *spin_s seconds (read at every
 * run, so a test may size it after measuring the GPU) before the launch,
 * and with `sync` waits for the kernel before returning. */
typedef struct cb_test_host_delay {
    const double *spin_s;
    bool sync;
} cb_test_host_delay;

typedef struct cb_test_delayed_vecadd {
    cb_test_vecadd v;
    const cb_test_host_delay *delay;
} cb_test_delayed_vecadd;

static inline cb_status cb_test_delayed_setup(const cb_point *p, const cb_bench_ctx *ctx,
                                              void **state, cb_point_info *info, cb_msg *why)
{
    (void)info;
    cb_test_delayed_vecadd *st = calloc(1, sizeof *st);
    if (!st) {
        cb_msg_set(why, "host out of memory");
        return CB_SKIP;
    }
    *state = st;
    st->delay = ctx->param;
    return cb_test_vecadd_alloc(&st->v, (size_t)cb_point_int(p, "n"), why);
}

static inline cb_status cb_test_delayed_run(void *state, cudaStream_t stream, cb_msg *why)
{
    const cb_test_delayed_vecadd *st = state;
    if (*st->delay->spin_s > 0)
        for (double until = cb_now_s() + *st->delay->spin_s; cb_now_s() < until;)
            ;
    cb_status ret = cb_test_vecadd_launch(&st->v, stream, why);
    if (ret == CB_OK && st->delay->sync) CB_CUDA(cudaStreamSynchronize(stream));
    return ret;
}

static inline cb_status cb_test_delayed_verify(void *state, double *error, cb_msg *why)
{
    return cb_test_vecadd_verify(&((cb_test_delayed_vecadd *)state)->v, error, why);
}

static inline void cb_test_delayed_teardown(void *state)
{
    cb_test_delayed_vecadd *st = state;
    if (!st) return;
    cb_test_vecadd_free(&st->v);
    free(st);
}

static inline double cb_test_delayed_bytes(const cb_point *p)
{
    return 12.0 * (double)cb_point_int(p, "n");
}

/* The descriptor of one such benchmark: its name, its `n` axis and its
 * cb_test_host_delay. */
#define CB_TEST_DELAYED_VECADD(bench_name, axes_array, delay)                                      \
    {                                                                                              \
        .name = bench_name, .summary = "test", .target = CB_TARGET_CUDA, .axes = axes_array,       \
        .n_axes = 1, .bytes = cb_test_delayed_bytes, .param = &delay,                              \
        .setup = cb_test_delayed_setup, .run = cb_test_delayed_run,                                \
        .verify = cb_test_delayed_verify, .teardown = cb_test_delayed_teardown                     \
    }

#endif
