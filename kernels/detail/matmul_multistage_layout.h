/* matmul_multistage_layout.h - where the multistage SGEMM rung keeps A in
 * shared memory (kernels/matmul_multistage.cu), as a plain function that
 * compiles as C (tests/cpu/test_matmul_multistage.c checks its banks
 * without a GPU) and as CUDA (the kernel calls it).
 *
 * A stage holds BM rows of BK floats (BK = 16 or 32: rows of 4 or 8
 * 16-byte chunks). Chunk c of row r is stored at chunk c ^ ((r / 4) mod
 * (BK / 4)): the 4 lane rows of a warp read rows 4 apart at the same k,
 * which without the XOR would sit in the same banks. */
#ifndef CB_MATMUL_MULTISTAGE_LAYOUT_H
#define CB_MATMUL_MULTISTAGE_LAYOUT_H

#ifdef __CUDACC__
#define CB_MS_HD static inline __host__ __device__
#else
#define CB_MS_HD static inline
#endif

/* Float offset of A(r, kk) in a stage with rows of `bk` floats. */
CB_MS_HD int cb_ms_a_offset(int r, int kk, int bk)
{
    return r * bk + (((kk >> 2) ^ ((r >> 2) & (bk / 4 - 1))) << 2) + (kk & 3);
}

#endif
