/* matmul.cu - the FP32 ladder's plan (matmul_kernels.h): the rung's query
 * once, then its launcher for every run. */
#include "matmul_kernels.h"

extern "C" cudaError_t cb_matmul_plan_make(const cb_matmul_rung *rung, int variant,
                                           const cb_matmul_args *args, cb_matmul_plan *plan,
                                           cb_matmul_launch_info *info)
{
    if (!rung || !args || !plan) return cudaErrorInvalidValue;
    cb_matmul_launch_info scratch;
    cudaError_t err = rung->query(args, variant, info ? info : &scratch);
    if (err != cudaSuccess) return err;
    plan->rung = rung;
    plan->variant = variant;
    plan->args = *args;
    return cudaSuccess;
}

extern "C" cudaError_t cb_matmul_plan_run(const cb_matmul_plan *plan, cudaStream_t stream)
{
    return plan->rung->launch(&plan->args, plan->variant, stream);
}
