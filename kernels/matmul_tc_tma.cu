/* matmul_tc_tma.cu - TMA tensor maps for the Hopper rungs. The driver's
 * cuTensorMapEncodeTiled is reached through the runtime's entry-point
 * query (cudaGetDriverEntryPointByVersion, the CUDA 12.0 ABI of the
 * function), so the library does not link libcuda itself. */
#include "matmul_tc_plan.h"

#include <cudaTypedefs.h>

namespace
{

PFN_cuTensorMapEncodeTiled_v12000 cb_tc_encode_fn(cudaError_t *err)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
    if (fn) return fn;
    void *p = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    *err = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                            &found);
    if (*err == cudaSuccess && found != cudaDriverEntryPointSuccess) *err = cudaErrorNotSupported;
    if (*err == cudaSuccess) fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
    return fn;
}

} // namespace

cudaError_t cb_tc_tensor_map_2d(CUtensorMap *map, const void *base, cb_tc_precision prec, int rows,
                                int cols, long long pitch, int box_rows, int box_cols)
{
    cudaError_t err = cudaSuccess;
    PFN_cuTensorMapEncodeTiled_v12000 encode = cb_tc_encode_fn(&err);
    if (!encode) return err;
    const cuuint64_t esize = (cuuint64_t)cb_tc_element_bytes(prec);
    /* TF32 operands are read as FP32 words (the tensor cores ignore the low
     * mantissa bits); FP8 as bytes (the type only matters to TMA for its
     * out-of-bounds fill, which is zero bits either way). */
    const CUtensorMapDataType type = prec == CB_TC_BF16   ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                     : prec == CB_TC_TF32 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                                          : CU_TENSOR_MAP_DATA_TYPE_UINT8;
    const cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows}; /* innermost first */
    const cuuint64_t strides[1] = {(cuuint64_t)pitch * esize};       /* bytes, of dim 1 */
    const cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
    const cuuint32_t elem_strides[2] = {1, 1};
    const CUresult r =
        encode(map, type, 2, const_cast<void *>(base), dims, strides, box, elem_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}
