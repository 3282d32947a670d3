/* gpu_vecadd_fixture.h - a vector add of n floats on the device, for GPU
 * tests that register a benchmark of their own around it (the runner's
 * tests): the buffers, the float4 rung's launch, and a check of the first
 * and last element. a holds 0x3f3f3f3f (0.747 as a float), b 0x40404040
 * (3.0), and c starts as NaN, so a run that wrote nothing fails. */
#ifndef CB_GPU_VECADD_FIXTURE_H
#define CB_GPU_VECADD_FIXTURE_H

#include "cb_common.h"
#include "vecadd_kernels.h"

#include <cuda_runtime_api.h>

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

#endif
