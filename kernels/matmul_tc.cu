/* matmul_tc.cu - the tensor-core ladder's public entry points
 * (matmul_tc_kernels.h): what a rung can run, read from its facts, and
 * plan / run / destroy, which call the rung's own prepare and launch. */
#include "matmul_tc_plan.h"

#include <new>
#include <stdarg.h>

namespace
{

bool cb_tc_refuse(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* The device and the build, from the rung's facts. */
bool cb_tc_device_ok(const cb_tc_rung *rung, int cc_major, int cc_minor, char *why, size_t len)
{
    const int cc = cc_major * 10 + cc_minor;
    if (cc < rung->min_cc || (rung->max_cc && cc > rung->max_cc))
        return cb_tc_refuse(why, len, "%s needs compute capability %s%d.%d; device is %d.%d",
                            rung->feature,
                            rung->max_cc == rung->min_cc ? "" : ">= ", rung->min_cc / 10,
                            rung->min_cc % 10, cc_major, cc_minor);
    if (rung->sm90a && !cb_tc_sm90a_built())
        return cb_tc_refuse(why, len, "built without sm_90a (CMAKE_CUDA_ARCHITECTURES has no 90)");
    return true;
}

/* The row pitches, from the rung's facts. */
bool cb_tc_rows_ok(const cb_tc_rung *rung, cb_tc_precision prec, int n, int k, char *why,
                   size_t len)
{
    const int vec = prec == CB_TC_BF16 ? 8 : 4;
    const char *pname = prec == CB_TC_BF16 ? "BF16" : "TF32";
    const bool n_too = rung->rows == CB_TC_ROWS_CP_ASYNC || prec == CB_TC_BF16;
    if (rung->rows == CB_TC_ROWS_ANY || (k % vec == 0 && (!n_too || n % vec == 0))) return true;
    if (n_too)
        return cb_tc_refuse(why, len,
                            "k=%d n=%d: this %s rung needs k and n multiples of %d (rows of "
                            "16-byte chunks for %s)",
                            k, n, pname, vec,
                            rung->rows == CB_TC_ROWS_CP_ASYNC ? "cp.async" : "TMA");
    return cb_tc_refuse(why, len,
                        "k=%d: the TF32 wgmma rungs need k a multiple of 4 (TMA rows of A and "
                        "B^T in 16-byte steps)",
                        k);
}

/* The grid: 128-row tiles along grid.y, or a persistent grid's tile count. */
bool cb_tc_tiles_ok(const cb_tc_rung *rung, int m, int n, char *why, size_t len)
{
    if (!rung->persistent && (m + 127) / 128 > 65535)
        return cb_tc_refuse(why, len, "m=%d: more than 65535 tile rows of 128", m);
    if (rung->persistent && (long long)((m + 127) / 128) * ((n + 255) / 256) > 0x3fffffff)
        return cb_tc_refuse(why, len, "m=%d n=%d: too many tiles", m, n);
    return true;
}

} // namespace

extern "C" bool cb_tc_supported(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n, int k,
                                int cc_major, int cc_minor, char *why, size_t why_len)
{
    if (why && why_len) why[0] = '\0';
    if (!rung || (prec != CB_TC_BF16 && prec != CB_TC_TF32))
        return cb_tc_refuse(why, why_len, "no such tensor-core rung or precision");
    if (m < 1 || n < 1 || k < 1)
        return cb_tc_refuse(why, why_len, "m=%d n=%d k=%d: each must be at least 1", m, n, k);
    return cb_tc_device_ok(rung, cc_major, cc_minor, why, why_len) &&
           cb_tc_rows_ok(rung, prec, n, k, why, why_len) &&
           cb_tc_tiles_ok(rung, m, n, why, why_len);
}

extern "C" size_t cb_tc_workspace_bytes(const cb_tc_rung *rung, cb_tc_precision prec, int m, int n,
                                        int k)
{
    (void)m;
    if (rung && rung->rows == CB_TC_ROWS_TMA && prec == CB_TC_TF32)
        return (size_t)n * k * sizeof(float);
    return 0;
}

extern "C" cudaError_t cb_tc_plan_create(const cb_tc_rung *rung, cb_tc_precision prec,
                                         const cb_tc_args *args, cb_tc_plan **out,
                                         cb_matmul_launch_info *info)
{
    *out = nullptr;
    int dev = 0, major = 0, minor = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (err != cudaSuccess) return err;
    if (!cb_tc_supported(rung, prec, args->m, args->n, args->k, major, minor, nullptr, 0))
        return cudaErrorInvalidValue;
    cb_tc_plan *p = new (std::nothrow) cb_tc_plan();
    if (!p) return cudaErrorMemoryAllocation;
    p->rung = rung;
    p->prec = prec;
    p->args = *args;
    p->args.workspace = nullptr;
    const size_t work = cb_tc_workspace_bytes(rung, prec, args->m, args->n, args->k);
    if (work > 0) err = cudaMalloc(&p->args.workspace, work);
    cb_matmul_launch_info scratch;
    if (err == cudaSuccess) err = rung->prepare(p, info ? info : &scratch);
    if (err != cudaSuccess) {
        cb_tc_plan_destroy(p);
        return err;
    }
    *out = p;
    return cudaSuccess;
}

extern "C" cudaError_t cb_tc_plan_run(const cb_tc_plan *plan, cudaStream_t stream)
{
    if (!plan) return cudaErrorInvalidValue;
    return plan->rung->launch(plan, stream);
}

extern "C" void cb_tc_plan_destroy(cb_tc_plan *plan)
{
    if (!plan) return;
    cudaFree(plan->args.workspace); /* NULL is fine; errors cannot be acted on here */
    delete plan;
}
