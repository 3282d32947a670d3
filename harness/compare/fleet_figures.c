/* fleet_figures.c - which points each key figure of the fleet report is the
 * best of. Names follow bench/families.def; a family that renames a variant
 * must update its line here (tests/cpu/test_fleet.c runs every matcher
 * against the recorded H200 runs, so a rename fails there). */
#include "fleet.h"

#include <string.h>

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Is `token` one whole `name=value` entry of the ';'-separated axes? */
static bool has_axis(const char *axes, const char *token)
{
    size_t len = strlen(token);
    for (const char *s = axes; (s = strstr(s, token)) != NULL; s++) {
        bool starts = s == axes || s[-1] == ';';
        bool ends = s[len] == '\0' || s[len] == ';';
        if (starts && ends) return true;
    }
    return false;
}

/* The GPU variants of vecadd (vecadd/host is the CPU baseline). */
static bool gpu_vecadd(const char *b, const char *axes)
{
    (void)axes;
    return starts_with(b, "vecadd/") && strcmp(b, "vecadd/host") != 0;
}

static bool pinned_h2d(const char *b, const char *axes)
{
    return strcmp(b, "transfers/memcpy_async") == 0 && has_axis(axes, "memory=pinned") &&
           has_axis(axes, "direction=h2d");
}

static bool pinned_d2h(const char *b, const char *axes)
{
    return strcmp(b, "transfers/memcpy_async") == 0 && has_axis(axes, "memory=pinned") &&
           has_axis(axes, "direction=d2h");
}

static bool cublas_fp32(const char *b, const char *axes)
{
    (void)axes;
    return strcmp(b, "matmul/cublas_fp32") == 0;
}

/* The hand-written rungs: every matmul variant but the cuBLAS references and
 * the host baselines. */
static bool ladder(const char *b, const char *axes)
{
    (void)axes;
    return starts_with(b, "matmul/") && !starts_with(b, "matmul/cublas_") &&
           !starts_with(b, "matmul/host_");
}

static bool host_vecadd(const char *b, const char *axes)
{
    (void)axes;
    return strcmp(b, "vecadd/host") == 0;
}

static bool host_blocked(const char *b, const char *axes)
{
    (void)axes;
    return strcmp(b, "matmul/host_blocked") == 0;
}

const cb_fleet_figure cb_fleet_figures[CB_FLEET_FIGURES] = {
    /* name, unit, cpu, flops, largest, match */
    {"vecadd", "GB/s", false, false, false, gpu_vecadd},
    {"pinned H2D", "GB/s", false, false, false, pinned_h2d},
    {"pinned D2H", "GB/s", false, false, false, pinned_d2h},
    {"cuBLAS FP32", "TFLOP/s", false, true, false, cublas_fp32},
    {"ladder best", "TFLOP/s", false, true, false, ladder},
    {"vecadd/host", "GB/s", true, false, true, host_vecadd},
    {"matmul/host_blocked", "TFLOP/s", true, true, true, host_blocked},
};

const char *cb_fleet_verdict_name(cb_fleet_verdict v)
{
    static const char *const names[] = {"", "ok", "slow", "fast", "missing", "unjudged"};
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}
