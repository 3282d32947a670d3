/* matmul_tc.cu - the tensor-core ladder's public entry points
 * (matmul_tc_kernels.h): what each rung can run, and plan / run / destroy, which
 * dispatch to the rung files through matmul_tc_plan.h. */
#include "matmul_tc_plan.h"

#include <new>
#include <stdarg.h>

namespace
{

struct cb_tc_rung_ops {
    cudaError_t (*prepare)(cb_tc_plan *, cb_matmul_launch_info *);
    cudaError_t (*launch)(const cb_tc_plan *, cudaStream_t);
};

const cb_tc_rung_ops cb_tc_ops[CB_TC_RUNG_COUNT] = {
    {cb_tc_mma_prepare, cb_tc_mma_launch},
    {cb_tc_ldmatrix_prepare, cb_tc_ldmatrix_launch},
    {cb_tc_wgmma_prepare, cb_tc_wgmma_launch},
    {cb_tc_wgmma_ws_prepare, cb_tc_wgmma_ws_launch},
    {cb_tc_wgmma_cluster_prepare, cb_tc_wgmma_cluster_launch},
};

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

bool cb_tc_hopper(cb_tc_rung rung)
{
    return rung == CB_TC_WGMMA || rung == CB_TC_WGMMA_WS || rung == CB_TC_WGMMA_CLUSTER;
}

} // namespace

extern "C" bool cb_tc_supported(cb_tc_rung rung, cb_tc_precision prec, int m, int n, int k,
                                int cc_major, int cc_minor, char *why, size_t why_len)
{
    if (why && why_len) why[0] = '\0';
    if ((int)rung < 0 || rung >= CB_TC_RUNG_COUNT || (prec != CB_TC_BF16 && prec != CB_TC_TF32))
        return cb_tc_refuse(why, why_len, "no such tensor-core rung or precision");
    if (m < 1 || n < 1 || k < 1)
        return cb_tc_refuse(why, why_len, "m=%d n=%d k=%d: each must be at least 1", m, n, k);
    const char *pname = prec == CB_TC_BF16 ? "BF16" : "TF32";
    if (cb_tc_hopper(rung)) {
        if (cc_major != 9 || cc_minor != 0)
            return cb_tc_refuse(why, why_len,
                                "wgmma needs compute capability 9.0 (sm_90a); device is %d.%d",
                                cc_major, cc_minor);
        if (!cb_tc_sm90a_built())
            return cb_tc_refuse(why, why_len,
                                "built without sm_90a (CMAKE_CUDA_ARCHITECTURES has no 90)");
    } else if (cc_major < 8) {
        return cb_tc_refuse(why, why_len,
                            "mma.sync with %s needs compute capability 8.0; device is %d.%d", pname,
                            cc_major, cc_minor);
    }
    /* Rows of 16-byte chunks: cp.async copies them whole, and TMA needs
     * every row pitch to be a multiple of 16 bytes. */
    const int vec = prec == CB_TC_BF16 ? 8 : 4;
    if (rung == CB_TC_LDMATRIX || (cb_tc_hopper(rung) && prec == CB_TC_BF16)) {
        if (k % vec != 0 || n % vec != 0)
            return cb_tc_refuse(why, why_len,
                                "k=%d n=%d: this %s rung needs k and n multiples of %d (rows of "
                                "16-byte chunks for %s)",
                                k, n, pname, vec, rung == CB_TC_LDMATRIX ? "cp.async" : "TMA");
    } else if (cb_tc_hopper(rung) && k % vec != 0) {
        return cb_tc_refuse(why, why_len,
                            "k=%d: the TF32 wgmma rungs need k a multiple of 4 (TMA rows of A "
                            "and B^T in 16-byte steps)",
                            k);
    }
    /* 128-row tiles along grid.y for the non-persistent rungs. */
    const bool persistent = rung == CB_TC_WGMMA_WS || rung == CB_TC_WGMMA_CLUSTER;
    if (!persistent && (m + 127) / 128 > 65535)
        return cb_tc_refuse(why, why_len, "m=%d: more than 65535 tile rows of 128", m);
    if (persistent && (long long)((m + 127) / 128) * ((n + 255) / 256) > 0x3fffffff)
        return cb_tc_refuse(why, why_len, "m=%d n=%d: too many tiles", m, n);
    return true;
}

extern "C" size_t cb_tc_workspace_bytes(cb_tc_rung rung, cb_tc_precision prec, int m, int n, int k)
{
    (void)m;
    if (cb_tc_hopper(rung) && prec == CB_TC_TF32) return (size_t)n * k * sizeof(float);
    return 0;
}

extern "C" cudaError_t cb_tc_plan_create(cb_tc_rung rung, cb_tc_precision prec,
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
    if (cb_tc_workspace_bytes(rung, prec, args->m, args->n, args->k) > 0 && !args->workspace)
        return cudaErrorInvalidValue;
    cb_tc_plan *p = new (std::nothrow) cb_tc_plan();
    if (!p) return cudaErrorMemoryAllocation;
    p->rung = rung;
    p->prec = prec;
    p->args = *args;
    cb_matmul_launch_info scratch;
    err = cb_tc_ops[rung].prepare(p, info ? info : &scratch);
    if (err != cudaSuccess) {
        delete p;
        return err;
    }
    *out = p;
    return cudaSuccess;
}

extern "C" cudaError_t cb_tc_plan_run(const cb_tc_plan *plan, cudaStream_t stream)
{
    if (!plan) return cudaErrorInvalidValue;
    return cb_tc_ops[plan->rung].launch(plan, stream);
}

extern "C" void cb_tc_plan_destroy(cb_tc_plan *plan)
{
    delete plan;
}
