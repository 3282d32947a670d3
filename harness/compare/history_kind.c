/* history_kind.c - the kind of a point (device, host_copy, host, python,
 * multi_gpu): what results.csv's `kind` column says, or for runs written
 * before it, what the benchmark's family and timer imply. */
#include "history_impl.h"

#include <string.h>

static const char *const kinds[] = {"device", "host_copy", "host", "python", "multi_gpu"};

/* The families of `python -m cubench` (bench/python/; docs/python.md). */
static const char *const python_families[] = {"torch",  "cupy",  "jax",   "numba",
                                              "triton", "numpy", "python"};

/* Does benchmark "FAMILY/VARIANT" belong to `family`? */
static bool in_family(const char *benchmark, const char *family)
{
    size_t n = strlen(family);
    return strncmp(benchmark, family, n) == 0 && benchmark[n] == '/';
}

static bool in_any_family(const char *benchmark, const char *const *families, int n)
{
    for (int i = 0; i < n; i++)
        if (in_family(benchmark, families[i])) return true;
    return false;
}

const char *cb_hist_kind(const char *benchmark, const char *timer, const char *column)
{
    for (int i = 0; column && i < CB_ARRAY_LEN(kinds); i++)
        if (strcmp(column, kinds[i]) == 0) return kinds[i];
    static const char *const multi[] = {"p2p", "nccl"};
    if (in_any_family(benchmark, multi, CB_ARRAY_LEN(multi))) return "multi_gpu";
    if (in_any_family(benchmark, python_families, CB_ARRAY_LEN(python_families))) return "python";
    /* Copies that touch host memory; device-to-device ones are the GPU's. */
    if (in_family(benchmark, "transfers") && strcmp(benchmark, "transfers/d2d") != 0)
        return "host_copy";
    const char *variant = strchr(benchmark, '/');
    if ((timer && strcmp(timer, "host") == 0) || (variant && strncmp(variant + 1, "host", 4) == 0))
        return "host";
    return "device";
}
