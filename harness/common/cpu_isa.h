/* cpu_isa.h - the vector instruction set the CPU baselines run with.
 *
 * cubench is built for the compiler's baseline target (x86-64: SSE2), so a
 * plain loop would use 128-bit SSE even on an AVX-512 machine and the CPU
 * baselines would undersell the CPU. The host kernels (vecadd/host,
 * matmul/host_blocked) are therefore marked CB_CPU_CLONES: the compiler
 * builds them for AVX-512F, AVX2 and the baseline, and the loader picks the
 * best the CPU (and OS) supports at start-up (GCC/Clang target_clones +
 * ifunc, x86-64 Linux). cb_cpu_isa_dispatched names the one it picks, by the
 * same rule, for the rows' notes and meta.json. */
#ifndef CB_CPU_ISA_H
#define CB_CPU_ISA_H

#include <stddef.h>

#if defined(__x86_64__) && defined(__linux__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define CB_CPU_CLONES     __attribute__((target_clones("avx512f", "avx2", "default")))
#define CB_CPU_HAS_CLONES 1
#endif
#endif
#ifndef CB_CPU_CLONES
#define CB_CPU_CLONES
#define CB_CPU_HAS_CLONES 0
#endif

/* The clone CB_CPU_CLONES code runs on this CPU: "avx512f", "avx2", or the
 * baseline ("sse2" on x86-64; the machine name elsewhere, e.g. "aarch64"). */
const char *cb_cpu_isa_dispatched(void);

/* The vector extensions this CPU supports, oldest first, space separated:
 * "sse2 sse4.2 avx avx2 fma avx512f" (x86-64), "" where unknown. */
void cb_cpu_isa_features(char *buf, size_t len);

#endif
