/* cb_e4m3.h - FP8 E4M3 rounding shared by host and device.
 *
 * The FP8 rungs quantise their inputs on the device and the host recomputes
 * sampled entries of the same product, so both sides must make the same
 * bytes from the same floats. Every step here is integer arithmetic on the
 * float's bits, plus one division and one multiplication made as IEEE
 * operations rounded to nearest on both sides (the device's __fdiv_rn and
 * __fmul_rn, whatever -prec-div or contraction say): one function, one
 * result. tests/cpu/test_matmul_e4m3.c holds it to the host's earlier
 * encoder over every float, tests/gpu/test_matmul_fp8_device.c the
 * device's bytes and values to the host's.
 *
 * E4M3: 1 sign, 4 exponent bits of bias 7, 3 mantissa bits; largest finite
 * 448 = 1.75 x 2^8, no infinities, NaN 0x7f / 0xff; subnormals m x 2^-9
 * for m = 1..7. */
#ifndef CB_E4M3_H
#define CB_E4M3_H

#include <stdint.h>
#include <string.h>

#ifndef CB_HD
#ifdef __CUDACC__
#define CB_HD __host__ __device__ __forceinline__
#else
#define CB_HD static inline
#endif
#endif

/* Round to the nearest E4M3 value, ties to even; from 448 on (infinity
 * included) saturate to +-448, the sign kept (-0 is 0x80); NaN is 0x7f. */
CB_HD uint8_t cb_e4m3_from_float(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    const uint8_t sign = (uint8_t)(u >> 24 & 0x80u);
    u &= 0x7fffffffu;
    if (u > 0x7f800000u) return 0x7f;
    /* 0x43e00000 is 448: everything from there on rounds to it or beyond
     * (the next step, 480, does not exist). */
    if (u >= 0x43e00000u) return sign | 0x7e;
    /* Below 2^-6 (0x3c800000), the grid m x 2^-9, m = 0..8 (8 is 2^-6,
     * whose code 0x08 follows on): the float's significand (hidden bit
     * set) times 2^(e - 141) rounded to an integer, ties to even. Exponents
     * under 117 shift it by more than 24 bits: under half a step, 0. */
    if (u < 0x3c800000u) {
        const uint32_t e = u >> 23;
        if (e < 117u) return sign;
        const uint32_t shift = 141u - e, sig = (u & 0x007fffffu) | 0x00800000u;
        return sign | (uint8_t)((sig + (1u << (shift - 1)) - 1u + (sig >> shift & 1u)) >> shift);
    }
    /* Normal: round the 23-bit mantissa to 3 bits at bit 20, ties to even;
     * a carry moves into the exponent by itself (at most to 448). */
    u += 0x7ffffu + (u >> 20 & 1u);
    return sign | (uint8_t)(((u >> 23) - 120u) << 3) | (uint8_t)(u >> 20 & 7u);
}

/* The value of a code, exact in FP32; both NaN codes give the quiet NaN
 * 0x7fc00000. */
CB_HD float cb_e4m3_value(uint8_t code)
{
    const uint32_t sign = (uint32_t)(code & 0x80u) << 24;
    int e = code >> 3 & 0xf;
    uint32_t sig = code & 7u, u = sign;
    if (e == 0xf && sig == 7u) {
        u = 0x7fc00000u;
    } else if (e > 0 || sig > 0) {
        /* (8 + mant) x 2^(e - 10); a subnormal m x 2^-9 is m x 2^(1 - 10),
         * its significand shifted up to the hidden bit, one exponent step
         * down per shift. */
        if (e > 0) sig |= 8u;
        if (e == 0) e = 1;
        while (sig < 8u)
            sig <<= 1, e--;
        u = sign | (uint32_t)(e + 120) << 23 | (sig & 7u) << 20;
    }
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The code of x quantised with a per-tensor scale: e4m3(x / scale). */
CB_HD uint8_t cb_e4m3_quantize(float x, float scale)
{
#ifdef __CUDA_ARCH__
    return cb_e4m3_from_float(__fdiv_rn(x, scale));
#else
    return cb_e4m3_from_float(x / scale);
#endif
}

/* What an FP8 GEMM multiplies for a code: scale times its value, rounded
 * to FP32 (for a NaN code a NaN, whose bits are each side's own). */
CB_HD float cb_e4m3_dequantize(uint8_t code, float scale)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(scale, cb_e4m3_value(code));
#else
    return scale * cb_e4m3_value(code);
#endif
}

#endif
