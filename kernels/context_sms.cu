/* context_sms.cu - how many SMs the calling thread's current context may
 * run blocks on. A process does not always own the whole device: a green
 * context holds a partition of its SMs, and a grid sized for the device's
 * slots there is several waves where the plan meant one, or (a cooperative
 * launch) refused. The driver's cuCtxGetDevResource (CUDA 12.4 ABI, reached
 * through the runtime's entry-point query so that the library does not
 * link libcuda) names the context's SM share; without it, or without a
 * current context yet, the answer is the device's count. */
#include "common_kernels.h"

#include <cuda.h>

namespace
{

typedef CUresult (*cb_ctx_current_fn)(CUcontext *);
typedef CUresult (*cb_ctx_resource_fn)(CUcontext, CUdevResource *, CUdevResourceType);

struct cb_ctx_entries {
    cb_ctx_current_fn current;
    cb_ctx_resource_fn resource;
};

void *cb_entry_12040(const char *name)
{
    void *fn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12040, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        (void)cudaGetLastError(); /* an older driver: not an error of the caller's */
        return nullptr;
    }
    return fn;
}

/* Resolved once per process (a function-local static is initialised once,
 * even when several threads arrive together). */
const cb_ctx_entries &cb_ctx_entry_points()
{
    static const cb_ctx_entries e = {
        reinterpret_cast<cb_ctx_current_fn>(cb_entry_12040("cuCtxGetCurrent")),
        reinterpret_cast<cb_ctx_resource_fn>(cb_entry_12040("cuCtxGetDevResource"))};
    return e;
}

} // namespace

extern "C" cudaError_t cb_context_sm_count(int *sms)
{
    int dev = 0, all = 0;
    cudaError_t err = cudaGetDevice(&dev);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&all, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess) return err;
    *sms = all;
    const cb_ctx_entries &e = cb_ctx_entry_points();
    CUcontext ctx = nullptr;
    if (!e.current || !e.resource || e.current(&ctx) != CUDA_SUCCESS || !ctx) return cudaSuccess;
    CUdevResource res = {};
    if (e.resource(ctx, &res, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS) return cudaSuccess;
    if (res.sm.smCount > 0 && (int)res.sm.smCount < all) *sms = (int)res.sm.smCount;
    return cudaSuccess;
}
