/* matmul_tc_cuda.h - CUDA-only pieces the tensor-core kernels share: the
 * warp-level PTX (mma.sync, ldmatrix, the TF32 rounding; cp.async in
 * cb_cp_async.h) and the
 * epilogue that writes alpha * acc + beta * C with bounds checks.
 *
 * Fragment layouts (PTX ISA, "Matrix fragments for mma.m16n8k16" and
 * "...m16n8k8"), with g = lane / 4 and q = lane % 4:
 *   C/D (both): c0, c1 at (row g, cols 2q, 2q+1), c2, c3 at row g + 8;
 *   BF16 A 16x16: reg0 (g, 2q..2q+1), reg1 (g+8, 2q..), reg2 (g, 2q+8..),
 *                 reg3 (g+8, 2q+8..), the lower k in the low 16 bits;
 *   BF16 B 16x8:  reg0 (k 2q..2q+1, n g), reg1 (k 2q+8..2q+9, n g);
 *   TF32 A 16x8:  a0 (g, q), a1 (g+8, q), a2 (g, q+4), a3 (g+8, q+4);
 *   TF32 B 8x8:   b0 (k q, n g), b1 (k q+4, n g).
 * The same C layout, repeated every 8 columns, is wgmma's accumulator
 * layout for each warp's 16 rows. */
#ifndef CB_MATMUL_TC_CUDA_H
#define CB_MATMUL_TC_CUDA_H

#include "matmul_tc_kernels.h"
#include "matmul_tc_layout.h"
#include "cb_cp_async.h"

#include <stdint.h>

static inline int cb_tc_cdiv(int a, int b)
{
    return (a + b - 1) / b;
}

__device__ __forceinline__ uint32_t cb_tc_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* FP32 -> TF32, round to nearest (ties away), as cuBLAS' TF32 path does;
 * the low 13 bits of the result are zero. */
__device__ __forceinline__ uint32_t cb_tc_to_tf32(float x)
{
    uint32_t r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
#else
    r = __float_as_uint(x);
#endif
    return r;
}

/* d += a * b on one m16n8 tile. The rungs that call these are compiled
 * for sm_80+ only (guarded in the kernels). */
__device__ __forceinline__ void cb_tc_mma_bf16(float (&d)[4], const uint32_t (&a)[4],
                                               const uint32_t (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

__device__ __forceinline__ void cb_tc_mma_tf32(float (&d)[4], const uint32_t (&a)[4],
                                               const uint32_t (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

/* Four 8x8 matrices of 16-bit elements (lanes 8i..8i+7 give the row
 * addresses of matrix i); .trans hands each lane a column pair instead. */
__device__ __forceinline__ void cb_tc_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
#endif
}

__device__ __forceinline__ void cb_tc_ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
#endif
}

/* Whether C's column pairs (col even) can be stored as one float2: n even
 * (col and col + 1 are both inside the matrix or both outside) and ldc
 * even (the pair is 8-byte aligned). */
__host__ __device__ __forceinline__ bool cb_tc_pairs(const cb_tc_args &g)
{
    return g.n % 2 == 0 && g.ldc % 2 == 0;
}

/* C[row][col], C[row][col+1] = alpha * (v0, v1) + beta * C, inside the
 * matrix only (row pitch ldc); C is read only when beta != 0. `pairs`:
 * cb_tc_pairs(g). */
__device__ __forceinline__ void cb_tc_store_pair(const cb_tc_args &g, bool pairs, int row, int col,
                                                 float v0, float v1)
{
    if (row >= g.m || col >= g.n) return;
    float *p = g.c + (size_t)row * g.ldc + col;
    v0 *= g.alpha, v1 *= g.alpha;
    if (pairs) {
        if (g.beta != 0.0f) {
            const float2 old = *reinterpret_cast<const float2 *>(p);
            v0 += g.beta * old.x, v1 += g.beta * old.y;
        }
        *reinterpret_cast<float2 *>(p) = make_float2(v0, v1);
        return;
    }
    p[0] = g.beta != 0.0f ? v0 + g.beta * p[0] : v0;
    if (col + 1 < g.n) p[1] = g.beta != 0.0f ? v1 + g.beta * p[1] : v1;
}

/* A warp's MT x NT m16n8 accumulator tiles (the C layout above), for the
 * mma.sync rungs. */
template <int MT, int NT> __device__ __forceinline__ void cb_tc_zero_tiles(float (&acc)[MT][NT][4])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;
}

/* acc[i][j] += af[i] bf[j] for every tile: one k-step of precision P. */
template <cb_tc_precision P, int MT, int NT>
__device__ __forceinline__ void
cb_tc_mma_tiles(float (&acc)[MT][NT][4], const uint32_t (&af)[MT][4], const uint32_t (&bf)[NT][2])
{
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) {
            if constexpr (P == CB_TC_BF16)
                cb_tc_mma_bf16(acc[i][j], af[i], bf[j]);
            else
                cb_tc_mma_tf32(acc[i][j], af[i], bf[j]);
        }
}

/* The epilogue of the tiles: tile (i, j) holds C rows wrow + 16 i + gq (and
 * + 8), columns wcol + 8 j + 2 q (and + 1); gq = lane / 4, q = lane % 4. */
template <int MT, int NT>
__device__ __forceinline__ void cb_tc_store_tiles(const cb_tc_args &g,
                                                  const float (&acc)[MT][NT][4], int wrow, int wcol,
                                                  int gq, int q)
{
    const bool pairs = cb_tc_pairs(g);
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) {
            const int row = wrow + i * 16 + gq, col = wcol + j * 8 + 2 * q;
            cb_tc_store_pair(g, pairs, row, col, acc[i][j][0], acc[i][j][1]);
            cb_tc_store_pair(g, pairs, row + 8, col, acc[i][j][2], acc[i][j][3]);
        }
}

#endif
