/* matmul_fp8_quant.cu - the FP8 rungs' inputs made on the device
 * (matmul_check_kernels.h): one pass over an FP32 input writes its E4M3
 * bytes, row-major or transposed, and the dequantised values in place.
 * The rounding is cb_e4m3.h's, the host's own function, so the host can
 * recompute any dequantised element from the generator alone.
 *
 * A block owns 32 x 32 tiles: it reads and rewrites the floats a row at a
 * time (coalesced), and for the transposed bytes stages the tile's codes in
 * shared memory, so that its writes run along the transposed rows too. */
#include "cb_e4m3.h"
#include "matmul_check_kernels.h"

namespace
{

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8; /* a tile in four passes */
constexpr int kThreads = kTile * kRowsPerPass;

__global__ void __launch_bounds__(kThreads)
    quantize_e4m3_kernel(float *x, int rows, int cols, float scale, uint8_t *q, bool transpose)
{
    /* Rows of 36 bytes, an odd 9 words: the column reads of the transposed
     * writes fall in 32 different banks (rows of 32 bytes would put every
     * fourth thread in one). */
    __shared__ uint8_t tile[kTile][kTile + 4];
    const size_t tiles_x = ((size_t)cols + kTile - 1) / kTile;
    const size_t tiles = tiles_x * (((size_t)rows + kTile - 1) / kTile);
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int r0 = (int)(t / tiles_x) * kTile, c0 = (int)(t % tiles_x) * kTile;
        for (int j = ty; j < kTile; j += kRowsPerPass) {
            const int r = r0 + j, c = c0 + tx;
            if (r >= rows || c >= cols) continue;
            const size_t i = (size_t)r * cols + c;
            const uint8_t code = cb_e4m3_quantize(x[i], scale);
            x[i] = cb_e4m3_dequantize(code, scale);
            if (transpose)
                tile[j][tx] = code;
            else
                q[i] = code;
        }
        if (!transpose) continue; /* uniform across the block */
        __syncthreads();
        for (int j = ty; j < kTile; j += kRowsPerPass) {
            const int c = c0 + j, r = r0 + tx;
            if (c < cols && r < rows) q[(size_t)c * rows + r] = tile[tx][j];
        }
        __syncthreads(); /* the tile is reused by the next iteration */
    }
}

} // namespace

extern "C" cudaError_t cb_matmul_launch_quantize_e4m3(float *x, int rows, int cols, float scale,
                                                      uint8_t *q, bool transpose, cudaStream_t s)
{
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    const size_t tiles =
        (((size_t)rows + kTile - 1) / kTile) * (((size_t)cols + kTile - 1) / kTile);
    /* The tile loop covers the rest: 16K blocks of 256 threads fill any GPU. */
    const int blocks = tiles > 16384 ? 16384 : (int)tiles;
    quantize_e4m3_kernel<<<blocks, dim3(kTile, kRowsPerPass), 0, s>>>(x, rows, cols, scale, q,
                                                                      transpose);
    return cudaGetLastError();
}
