/* cpu_isa.c - which vector ISA the CPU supports and the host kernels use. */
#include "cpu_isa.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CB_X86_CPU 1
#else
#define CB_X86_CPU 0
#endif

const char *cb_cpu_isa_dispatched(void)
{
#if CB_X86_CPU
#if CB_CPU_HAS_CLONES
    /* The ifunc resolver of target_clones takes the highest-priority clone
     * the CPU supports; AVX-512F ranks above AVX2. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return "avx512f";
    if (__builtin_cpu_supports("avx2")) return "avx2";
#endif
    return "sse2";
#elif defined(__aarch64__)
    return "aarch64";
#else
    return "baseline";
#endif
}

void cb_cpu_isa_features(char *buf, size_t len)
{
    if (len) buf[0] = '\0';
#if CB_X86_CPU
    __builtin_cpu_init();
    static const char *const names[] = {"sse2", "sse4.2", "avx", "avx2", "fma", "avx512f"};
    const int have[] = {
        __builtin_cpu_supports("sse2"), __builtin_cpu_supports("sse4.2"),
        __builtin_cpu_supports("avx"),  __builtin_cpu_supports("avx2"),
        __builtin_cpu_supports("fma"),  __builtin_cpu_supports("avx512f"),
    };
    size_t used = 0;
    for (size_t i = 0; i < sizeof have / sizeof have[0] && used < len; i++) {
        if (!have[i]) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? " " : "", names[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
#endif
}
