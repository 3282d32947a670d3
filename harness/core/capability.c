/* capability.c - benchmark needs against the device, and the build's code
 * against the device (see capability.h). */
#include "capability.h"

#include "build_info.h"
#include "build_probe.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cb_device_cc(const cb_device_info *d)
{
    return d->cc_major * 10 + d->cc_minor;
}

bool cb_bench_needs_met(const cb_bench *b, int cc, cb_msg *why)
{
    const cb_bench_needs needs = cb_bench_needs_of(b), *n = &needs;
    const char *what = n->feature && n->feature[0] ? n->feature : "its kernels";
    const bool exact = n->min_cc > 0 && n->max_cc == n->min_cc;
    if ((n->min_cc > 0 && cc < n->min_cc) || (n->max_cc > 0 && cc > n->max_cc)) {
        if (exact)
            cb_msg_set(why, "needs sm_%d exactly (%s); this GPU is sm_%d", n->min_cc, what, cc);
        else if (n->min_cc > 0 && cc < n->min_cc)
            cb_msg_set(why, "needs sm_%d (%s); this GPU is sm_%d", n->min_cc, what, cc);
        else
            cb_msg_set(why, "needs sm_%d or older (%s); this GPU is sm_%d", n->max_cc, what, cc);
        return false;
    }
    return true;
}

/* Next entry of a comma-separated list: its number and letter suffix
 * ("90a" -> 90, 'a'); false at the end. */
static bool next_arch(const char **list, int *number, char *suffix)
{
    const char *p = *list;
    while (*p == ',' || *p == ' ')
        p++;
    if (!isdigit((unsigned char)*p)) return false;
    char *end;
    *number = (int)strtol(p, &end, 10);
    *suffix = isalpha((unsigned char)*end) ? *end++ : '\0';
    while (*end && *end != ',')
        end++;
    *list = end;
    return true;
}

/* SASS sm_XY runs on X.Y .. X.9; an arch-specific sm_XYa on X.Y only; a
 * family-specific sm_XYf on X.Y and later minors of X, like plain SASS. */
static bool sass_runs_on(int arch, char suffix, int cc)
{
    if (suffix == 'a') return arch == cc;
    return arch / 10 == cc / 10 && arch % 10 <= cc % 10;
}

/* PTX compute_XY is JIT-compiled for any later GPU; a suffixed one is tied
 * to its architecture (a) or family (f) like SASS. */
static bool ptx_runs_on(int arch, char suffix, int cc)
{
    if (suffix) return sass_runs_on(arch, suffix, cc);
    return arch <= cc;
}

/* The newest entry of `list` that runs on cc by `runs_on`, written to arch
 * ("90a"); false when none does. SASS and PTX lists are searched alike. */
static bool newest_arch(const char *list, bool (*runs_on)(int, char, int), int cc, char *arch,
                        size_t len)
{
    int best = -1, number;
    char best_suffix = '\0', suffix;
    for (const char *p = list ? list : ""; next_arch(&p, &number, &suffix);) {
        if (runs_on(number, suffix, cc) && number >= best) {
            best = number;
            best_suffix = suffix;
        }
    }
    if (best < 0) return false;
    snprintf(arch, len, "%d%s", best, best_suffix ? (char[2]){best_suffix, '\0'} : "");
    return true;
}

cb_code_kind cb_build_code_for(int cc, const char *sass, const char *ptx, char *arch, size_t len)
{
    if (newest_arch(sass, sass_runs_on, cc, arch, len)) return CB_CODE_SASS;
    if (newest_arch(ptx, ptx_runs_on, cc, arch, len)) return CB_CODE_PTX;
    if (len) arch[0] = '\0';
    return CB_CODE_NONE;
}

bool cb_bench_build_has_feature(const cb_bench *b, int cc, const char *sass, const char *ptx,
                                cb_msg *why)
{
    const cb_bench_needs needs = cb_bench_needs_of(b), *n = &needs;
    if (n->library_code || n->min_cc <= 0) return true;
    char arch[16];
    cb_code_kind kind = cb_build_code_for(cc, sass, ptx, arch, sizeof arch);
    if (kind == CB_CODE_NONE || atoi(arch) >= n->min_cc) return true;
    cb_msg_set(why,
               "the build's code for sm_%d is %s_%s %s, without %s (needs sm_%d); rebuild with "
               "-DCMAKE_CUDA_ARCHITECTURES=native",
               cc, kind == CB_CODE_SASS ? "sm" : "compute", arch,
               kind == CB_CODE_SASS ? "SASS" : "PTX",
               n->feature && n->feature[0] ? n->feature : "its kernels", n->min_cc);
    return false;
}

cb_code_kind cb_build_code_describe(int cc, char *buf, size_t len)
{
    char arch[16];
    cb_code_kind kind =
        cb_build_code_for(cc, CB_CUDA_SASS_ARCHS, CB_CUDA_PTX_ARCHS, arch, sizeof arch);
    if (kind == CB_CODE_SASS)
        snprintf(buf, len, "sm_%s SASS", arch);
    else if (kind == CB_CODE_PTX)
        snprintf(buf, len, "compute_%s PTX, JIT-compiled by the driver", arch);
    else
        snprintf(buf, len, "none: this build has no code for sm_%d", cc);
    return kind;
}

/* Why the driver could not give a kernel for this device, as a skip reason;
 * false for errors that are not about the build's code. `whose`: NULL for
 * the build's common code, else the benchmark with a kernel of its own. */
static bool no_code_reason(cudaError_t err, int cc, const char *whose, cb_msg *why)
{
    switch (err) {
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
        if (whose)
            cb_msg_set(why,
                       "this build has no code of %s for sm_%d; rebuild with "
                       "-DCMAKE_CUDA_ARCHITECTURES=native",
                       whose, cc);
        else
            cb_msg_set(why,
                       "this build has no code for sm_%d (SASS {%s}, PTX {%s}); rebuild with "
                       "-DCMAKE_CUDA_ARCHITECTURES=native",
                       cc, CB_CUDA_SASS_ARCHS[0] ? CB_CUDA_SASS_ARCHS : "none",
                       CB_CUDA_PTX_ARCHS[0] ? CB_CUDA_PTX_ARCHS : "none");
        return true;
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidPtx:
    case cudaErrorJitCompilerNotFound:
    case cudaErrorJitCompilationDisabled:
        cb_msg_set(why,
                   "the driver cannot JIT this build's PTX (CUDA %s) for sm_%d: %s; update the "
                   "driver or rebuild with -DCMAKE_CUDA_ARCHITECTURES=native",
                   CB_CUDA_TOOLKIT_VERSION, cc, cudaGetErrorName(err));
        return true;
    default:
        return false;
    }
}

cb_status cb_build_runs_on(const cb_device_info *d, cb_msg *why)
{
    cudaError_t err = cb_build_probe(d->ordinal);
    if (err == cudaSuccess) return CB_OK;
    if (no_code_reason(err, cb_device_cc(d), NULL, why)) return CB_SKIP;
    cb_msg_set(why, "cannot load the build's GPU code on device %d: %s (%s)", d->ordinal,
               cudaGetErrorString(err), cudaGetErrorName(err));
    return CB_FAIL;
}

cb_status cb_bench_can_run(const cb_bench *b, const cb_device_info *d, cb_msg *why)
{
    const int cc = cb_device_cc(d);
    if (!cb_bench_needs_met(b, cc, why)) return CB_SKIP;
    if (!cb_bench_build_has_feature(b, cc, CB_CUDA_SASS_ARCHS, CB_CUDA_PTX_ARCHS, why))
        return CB_SKIP;
    cb_status s = cb_build_runs_on(d, why);
    if (s != CB_OK || !b->needs.probe) return s;
    cudaError_t err = b->needs.probe();
    (void)cudaGetLastError();
    if (err == cudaSuccess) return CB_OK;
    if (no_code_reason(err, cc, b->name, why)) return CB_SKIP;
    cb_msg_set(why, "cannot load %s's kernel on device %d: %s (%s)", b->name, d->ordinal,
               cudaGetErrorString(err), cudaGetErrorName(err));
    return CB_FAIL;
}
