/* matmul_multistage_kernels.h - the FP32 SIMT rung that carries the
 * tensor-core chapter's techniques back to FFMA (kernels/matmul_multistage.cu):
 * a multi-stage cp.async ring instead of register-staged prefetch, A kept
 * row-major in XOR-swizzled shared memory (no transposing stores), k-slices
 * of 16 or 32, and a tile configuration chosen per shape.
 *
 * Same problem and launcher shape as the other FP32 rungs
 * (matmul_kernels.h): C = alpha A B + beta C, row-major, any m, n, k >= 1
 * (16-byte copies when k and n are multiples of 4 and A, B are 16-byte
 * aligned, 4-byte ones otherwise). `variant` is a cb_matmul_ms_config.
 * Needs cp.async: compute capability 8.0. */
#ifndef CB_MATMUL_MULTISTAGE_KERNELS_H
#define CB_MATMUL_MULTISTAGE_KERNELS_H

#include "matmul_kernels.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Block tile mMnNkK and sSTAGES; CB_MATMUL_MS_CONFIG_NAMES in enum order. */
typedef enum cb_matmul_ms_config {
    CB_MATMUL_MS_M128N128K16S3 = 0, /* 256 threads, 8x8 each, 2 blocks/SM        */
    CB_MATMUL_MS_M128N128K16S4,     /* a deeper ring                             */
    CB_MATMUL_MS_M128N128K32S3,     /* half the barriers per k                   */
    CB_MATMUL_MS_M128N64K16S3,      /* 128 threads: twice the blocks             */
    CB_MATMUL_MS_M64N128K16S3,      /* 128 threads                               */
    CB_MATMUL_MS_M64N64K16S3,       /* 64 threads: small matrices                */
    CB_MATMUL_MS_CONFIG_COUNT
} cb_matmul_ms_config;

#define CB_MATMUL_MS_CONFIG_NAMES                                                                  \
    "m128n128k16s3,m128n128k16s4,m128n128k32s3,m128n64k16s3,m64n128k16s3,m64n64k16s3"

/* The config `config=auto` picks for an m x n product on sm_count SMs: the
 * nearest recorded autotune row for that SM count (within a factor of 2
 * in m and n; *from_table true), else the largest tile whose grid gives
 * every SM two blocks. */
int cb_matmul_ms_auto(int m, int n, int sm_count, bool *from_table);

#ifdef __cplusplus
}
#endif

#endif
