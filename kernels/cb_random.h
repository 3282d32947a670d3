/* cb_random.h - the counter-based generator shared by host and device.
 *
 * value(seed, i) depends only on the seed and the index, so a GPU kernel can
 * fill a vector of any size in one pass and a CPU reference (or a GPU check)
 * can recompute any element independently of the buffers under test.
 * Values are uniform on a 2^-23 grid in (-1, 1) and never exactly zero. */
#ifndef CB_RANDOM_H
#define CB_RANDOM_H

#include <stdint.h>

#ifdef __CUDACC__
#define CB_HD __host__ __device__ __forceinline__
#else
#define CB_HD static inline
#endif

/* splitmix64 finaliser: a bijective mix with good avalanche. */
CB_HD uint64_t cb_mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Uniform in (-1, 1): ((k + 0.5) / 2^23) - 1 for k in [0, 2^24), never 0. */
CB_HD float cb_random_value(uint64_t seed, uint64_t i)
{
    uint32_t k = (uint32_t)(cb_mix64(seed ^ cb_mix64(i)) >> 40);
    return ((float)k + 0.5f) * (1.0f / 8388608.0f) - 1.0f;
}

#endif
