/* matmul_tc_transpose.cu - B^T for the TF32 WGMMA rungs: wgmma reads TF32
 * operands only K-major, and row-major B (k x n) is N-major, so each run
 * first writes bt (n x k) = B^T, rounded to TF32 (cvt.rna, as the mma.sync
 * rungs round their fragments). B may have any row pitch; bt's rows are
 * padded to a multiple of 16 bytes (the plan's workspace), so TMA can read
 * it whatever k is. 32 x 32 tiles through shared memory
 * padded to 33 columns: reads and writes are both coalesced rows, and the
 * column reads from the tile hit 32 different banks. It moves 8 n k bytes,
 * 0.5 GB at n = k = 8192 (about 0.15 ms at 3.5 TB/s), and is part of the
 * timed run. */
#include "matmul_tc_plan.h"

namespace
{

constexpr int kTile = 32, kRows = 8; /* 32 x 8 threads, 4 rows each */

__global__ void __launch_bounds__(kTile *kRows)
    cb_tc_transpose_kernel(const float *__restrict__ b, long long ldb, float *__restrict__ bt,
                           long long ldbt, int k, int n)
{
    __shared__ float tile[kTile][kTile + 1];
    const int n0 = blockIdx.x * kTile, k0 = blockIdx.y * kTile;
    const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
    for (int i = ty; i < kTile; i += kRows) {
        const int kk = k0 + i, nn = n0 + tx;
        if (kk < k && nn < n) tile[i][tx] = b[kk * ldb + nn];
    }
    __syncthreads();
#pragma unroll
    for (int i = ty; i < kTile; i += kRows) {
        const int nn = n0 + i, kk = k0 + tx;
        if (nn < n && kk < k) bt[nn * ldbt + kk] = __uint_as_float(cb_tc_to_tf32(tile[tx][i]));
    }
}

} // namespace

cudaError_t cb_tc_transpose_tf32(const float *b, long long ldb, float *bt, long long ldbt, int k,
                                 int n, cudaStream_t stream)
{
    const dim3 grid((unsigned)cb_tc_cdiv(n, kTile), (unsigned)cb_tc_cdiv(k, kTile));
    if (grid.y > 65535u) return cudaErrorInvalidValue;
    cb_tc_transpose_kernel<<<grid, dim3(kTile, kRows), 0, stream>>>(b, ldb, bt, ldbt, k, n);
    return cudaGetLastError();
}
