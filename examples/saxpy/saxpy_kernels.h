/* saxpy_kernels.h - launchers of the example family (docs/adding-a-benchmark.md). */
#ifndef CB_EXAMPLE_SAXPY_KERNELS_H
#define CB_EXAMPLE_SAXPY_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cb_example_saxpy_kind {
    CB_EXAMPLE_SAXPY_SCALAR, /* one float per thread                         */
    CB_EXAMPLE_SAXPY_FLOAT4, /* one float4 per thread (x, y 16-byte aligned) */
} cb_example_saxpy_kind;

/* y = a * x + y over n floats on stream s; returns the launch error. */
cudaError_t cb_example_saxpy(cb_example_saxpy_kind kind, float a, const float *x, float *y,
                             size_t n, int block, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
