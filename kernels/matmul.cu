/* matmul.cu - the FP32 ladder's plan (matmul_kernels.h): the rung's query
 * once, with the workspace it asks for, then its launcher for every run. */
#include "matmul_kernels.h"

#include <string.h>

extern "C" cudaError_t cb_matmul_plan_make(const cb_matmul_rung *rung, int variant,
                                           const cb_matmul_args *args, cb_matmul_plan *plan,
                                           cb_matmul_launch_info *info)
{
    if (!rung || !args || !plan) return cudaErrorInvalidValue;
    memset(plan, 0, sizeof *plan);
    cb_matmul_launch_info scratch;
    if (!info) info = &scratch;
    memset(info, 0, sizeof *info);
    cudaError_t err = rung->query(args, variant, info);
    if (err != cudaSuccess) return err;
    plan->rung = rung;
    plan->variant = variant;
    plan->args = *args;
    plan->args.workspace = NULL;
    plan->args.workspace_bytes = 0;
    if (info->workspace_bytes > 0) {
        /* Zeroed: the stream-K flags start lowered (matmul_warptile_sk.h). */
        err = cudaMalloc(&plan->args.workspace, info->workspace_bytes);
        if (err == cudaSuccess) err = cudaMemset(plan->args.workspace, 0, info->workspace_bytes);
        if (err != cudaSuccess) {
            cudaFree(plan->args.workspace);
            plan->args.workspace = NULL;
            return err;
        }
        plan->args.workspace_bytes = info->workspace_bytes;
    }
    return cudaSuccess;
}

extern "C" void cb_matmul_plan_release(cb_matmul_plan *plan)
{
    if (!plan) return;
    cudaFree(plan->args.workspace); /* after a failure too: nothing to report */
    plan->args.workspace = NULL;
    plan->args.workspace_bytes = 0;
}

extern "C" cudaError_t cb_matmul_plan_run(const cb_matmul_plan *plan, cudaStream_t stream)
{
    return plan->rung->launch(&plan->args, plan->variant, stream);
}
