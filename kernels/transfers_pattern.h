/* transfers_pattern.h - the data the transfers family moves, shared by host
 * and device code so either side can recompute any byte from its offset.
 *
 * Copies move a counter-based byte pattern: 8-byte word i of a buffer is
 * splitmix64 output i for the buffer's seed, stored little-endian, so byte b
 * is byte (b % 8) of word (b / 8). Every word differs from its neighbours, so
 * a chunk copied to the wrong offset cannot pass. Outputs are poisoned with
 * the bitwise complement of the pattern: every byte of an unwritten output
 * is wrong, so the byte count of a skipped copy is exact.
 *
 * The overlap pipeline moves floats in [1, 2) and transforms each with a
 * chain of `fma` fused multiply-adds; fmaf is correctly rounded on both the
 * GPU and the CPU (C11 fmaf), so the host recomputes results bit for bit. */
#ifndef CB_TRANSFERS_PATTERN_H
#define CB_TRANSFERS_PATTERN_H

#include "cb_random.h"

#include <math.h>
#include <stdint.h>

/* Word i of the pattern with `seed`; never zero. */
CB_HD uint64_t cb_xfer_word(uint64_t seed, uint64_t i)
{
    uint64_t w = cb_mix64(seed + i * 0x9e3779b97f4a7c15ull);
    return w ? w : 0x5a5a5a5a5a5a5a5aull;
}

/* The pattern byte at byte offset `b`. */
CB_HD uint8_t cb_xfer_byte(uint64_t seed, uint64_t b)
{
    return (uint8_t)(cb_xfer_word(seed, b >> 3) >> (8 * (b & 7)));
}

/* How many of the 8 bytes of a and b differ. The shifts fold each byte's
 * bits into its lowest bit (no shift reaches the next byte's bit 0), and the
 * multiply sums the eight 0/1 bytes into the top byte. */
CB_HD unsigned cb_xfer_bytes_differ(uint64_t a, uint64_t b)
{
    uint64_t d = a ^ b;
    d |= d >> 4;
    d |= d >> 2;
    d |= d >> 1;
    d &= 0x0101010101010101ull;
    return (unsigned)((d * 0x0101010101010101ull) >> 56);
}

/* Overlap input element i: a float in [1, 2) on a 2^-23 grid (exact). */
CB_HD float cb_xfer_overlap_input(uint64_t seed, uint64_t i)
{
    return 1.0f + (float)(uint32_t)(cb_xfer_word(seed, i) >> 41) * (1.0f / 8388608.0f);
}

/* The overlap kernel's per-element work: `fma` dependent FMAs. The two steps
 * alternate so that their product is ~1: the value stays near its input
 * (no overflow for any chain length) and distinct inputs stay distinct, so a
 * misplaced chunk is still caught after thousands of steps. */
CB_HD float cb_xfer_overlap_value(float x, int fma)
{
    int k = 0;
#ifdef __CUDA_ARCH__
#pragma unroll 8 /* keep loop bookkeeping out of the FMA issue slots */
#endif
    for (; k + 1 < fma; k += 2) {
        x = fmaf(x, 1.0001f, 0.0001f);
        x = fmaf(x, 0.9999f, -0.0001f);
    }
    if (k < fma) x = fmaf(x, 1.0001f, 0.0001f);
    return x;
}

#endif
