/* matmul_tc_stage.cu - staging copies for the Hopper rungs that take any
 * shape: TMA addresses rows whose pitch is a multiple of 16 bytes from a
 * 16-byte aligned base, so an operand without that (BF16 with k or n odd,
 * TF32 with k not a multiple of 4, any leading dimension that breaks the
 * rule) is copied into rows padded to 16 bytes before the GEMM, as part of
 * the run and of its time.
 *
 * Why a copy and not a predicated load path: a pitch that is not a multiple
 * of 16 bytes misaligns every row, not just the tiles at the edge, so a
 * predicated kernel would give up TMA (and its swizzled, zero-filled boxes)
 * for the whole matrix. The copy moves each operand twice more (read and
 * write once): at 8191 x 8193 x 4095 in BF16, 2 x 2 x 67 MB = 268 MB, about
 * 0.09 ms at 3 TB/s, against about 0.7 ms of tensor-core work.
 *
 * One thread writes one 16-byte chunk of a padded row: it reads its 16 /
 * esize elements one by one (the source rows start at any element, so
 * wider loads would be misaligned) and stores the chunk whole; the
 * padding past the last column is written as zeros (TMA's tensor map keeps
 * the real column count, so it is never read; the zeros keep the buffer
 * deterministic). Neighbouring threads read neighbouring elements, so the
 * loads coalesce. */
#include "matmul_tc_plan.h"

namespace
{

template <typename T>
__global__ void __launch_bounds__(256)
    cb_tc_stage_kernel(const T *__restrict__ src, long long src_pitch, uint4 *__restrict__ dst,
                       long long dst_chunks, int rows, int cols)
{
    constexpr int kPer = 16 / (int)sizeof(T);
    const long long total = (long long)rows * dst_chunks;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        const long long row = i / dst_chunks;
        const int col0 = (int)(i - row * dst_chunks) * kPer;
        const T *s = src + row * src_pitch;
        union {
            uint4 v;
            T e[kPer];
        } u;
#pragma unroll
        for (int j = 0; j < kPer; j++)
            u.e[j] = col0 + j < cols ? s[col0 + j] : T(0);
        dst[i] = u.v;
    }
}

template <typename T>
cudaError_t cb_tc_stage_launch(const void *src, long long src_pitch, void *dst, long long dst_pitch,
                               int rows, int cols, cudaStream_t stream)
{
    const long long chunks = dst_pitch * (long long)sizeof(T) / 16;
    const long long total = chunks * rows;
    /* Enough blocks to fill any GPU; the loop covers the rest. */
    const long long blocks = (total + 255) / 256;
    cb_tc_stage_kernel<T><<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, stream>>>(
        static_cast<const T *>(src), src_pitch, static_cast<uint4 *>(dst), chunks, rows, cols);
    return cudaGetLastError();
}

} // namespace

cudaError_t cb_tc_stage_rows(const void *src, long long src_pitch, void *dst, long long dst_pitch,
                             int rows, int cols, int esize, cudaStream_t stream)
{
    if (rows < 1 || cols < 1 || dst_pitch < cols || (dst_pitch * esize) % 16 != 0 ||
        (uintptr_t)dst % 16 != 0)
        return cudaErrorInvalidValue;
    switch (esize) {
    case 1:
        return cb_tc_stage_launch<uint8_t>(src, src_pitch, dst, dst_pitch, rows, cols, stream);
    case 2:
        return cb_tc_stage_launch<uint16_t>(src, src_pitch, dst, dst_pitch, rows, cols, stream);
    case 4:
        return cb_tc_stage_launch<uint32_t>(src, src_pitch, dst, dst_pitch, rows, cols, stream);
    default:
        return cudaErrorInvalidValue;
    }
}
