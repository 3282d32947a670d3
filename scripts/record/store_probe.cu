// store_probe.cu - how fast can 128 blocks each write one 128 x 192 FP32
// tile of C (96 KiB, 12 MB in all: what the BF16 top rung stores at the end
// of 1000 x 3000 x 200, every block at once), and does the way the bytes
// leave the SM matter? Three kernels, each run 5 times:
//   store_regs     16-byte st.global from registers, whole row segments
//   store_bulk     the tile written to shared memory, then one
//                  cp.async.bulk (shared -> global) per 768-byte row
//   store_smem_st  the tile in shared memory, then 16-byte st.global
//                  (the rung's staged epilogue, in one pass)
// and store_regs again with 512 blocks (48 MB): the rate when there is
// enough to write. Each kernel writes a known pattern that the program
// checks after the runs (one tile per variant, every element).
// Build: nvcc -O3 -std=c++17 -arch=sm_90a -o store_probe store_probe.cu
// Run under Nsight Compute for the kernels' own times:
//   ncu --clock-control none --cache-control all \
//       --metrics gpu__time_duration.sum,lts__t_sectors_op_write.sum ./store_probe
#include <cstdint>
#include <vector>

#include "probe_kernels.cuh"

constexpr int BM = 128, BN = 192, LDC = 3072, TILES_N = 16, THREADS = 256;
constexpr int VECS = BM * BN / 4; // float4 per tile

__device__ __forceinline__ float4 pattern(int block, int r, int q, float v)
{
    return make_float4(v, (float)r, (float)q, (float)block);
}

__device__ __forceinline__ float *tile_base(float *c)
{
    const int tm = blockIdx.x / TILES_N, tn = blockIdx.x % TILES_N;
    return c + (size_t)(tm * BM) * LDC + tn * BN;
}

__global__ void __launch_bounds__(THREADS) store_regs(float *c, float v)
{
    float *base = tile_base(c);
#pragma unroll
    for (int i = 0; i < VECS / THREADS; i++) {
        const int e = i * THREADS + threadIdx.x, r = e / (BN / 4), q = e % (BN / 4);
        reinterpret_cast<float4 *>(base + (size_t)r * LDC)[q] = pattern(blockIdx.x, r, q, v);
    }
}

__device__ __forceinline__ void fill_tile(float4 *tile, float v)
{
    for (int e = threadIdx.x; e < VECS; e += THREADS)
        tile[e] = pattern(blockIdx.x, e / (BN / 4), e % (BN / 4), v);
}

__global__ void __launch_bounds__(THREADS) store_bulk(float *c, float v)
{
    extern __shared__ __align__(128) float4 tile[];
    fill_tile(tile, v);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // generic writes -> bulk copy
    __syncthreads();
    if (threadIdx.x < BM) {
        const int r = threadIdx.x;
        float *dst = tile_base(c) + (size_t)r * LDC;
        const uint32_t src = (uint32_t)__cvta_generic_to_shared(tile + r * (BN / 4));
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst),
                     "r"(src), "r"(BN * 4)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); // shared memory stays until read
    }
    __syncthreads();
}

__global__ void __launch_bounds__(THREADS) store_smem_st(float *c, float v)
{
    extern __shared__ __align__(128) float4 tile[];
    fill_tile(tile, v);
    __syncthreads();
    float *base = tile_base(c);
    for (int e = threadIdx.x; e < VECS; e += THREADS) {
        const int r = e / (BN / 4), q = e % (BN / 4);
        reinterpret_cast<float4 *>(base + (size_t)r * LDC)[q] = tile[e];
    }
}

// Every element of the tiles of blocks 0 .. blocks-1 as the pattern says.
static int check(const float *d_c, int blocks, float v, const char *what)
{
    std::vector<float> h((size_t)(blocks / TILES_N) * BM * LDC);
    CK(cudaMemcpy(h.data(), d_c, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int b = 0; b < blocks; b++)
        for (int r = 0; r < BM; r++)
            for (int col = 0; col < BN; col++) {
                const float *p = &h[(size_t)((b / TILES_N) * BM + r) * LDC + (b % TILES_N) * BN + col];
                const int q = col / 4;
                const float want[4] = {v, (float)r, (float)q, (float)b};
                bad += *p != want[col % 4];
            }
    printf("%-14s %d blocks: %ld wrong elements\n", what, blocks, bad);
    return bad != 0;
}

int main()
{
    float *c = nullptr;
    const int max_blocks = 512;
    const size_t bytes = (size_t)(max_blocks / TILES_N) * BM * LDC * sizeof(float);
    CK(cudaMalloc(&c, bytes));
    const int smem = BM * BN * 4;
    CK(cudaFuncSetAttribute(store_bulk, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaFuncSetAttribute(store_smem_st, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int bad = 0;
    for (int rep = 0; rep < 5; rep++) {
        CK(cudaMemset(c, 0xff, bytes)); // poison
        store_regs<<<128, THREADS>>>(c, 1.0f);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (rep == 0) bad |= check(c, 128, 1.0f, "store_regs");
        store_bulk<<<128, THREADS, smem>>>(c, 2.0f);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (rep == 0) bad |= check(c, 128, 2.0f, "store_bulk");
        store_smem_st<<<128, THREADS, smem>>>(c, 3.0f);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (rep == 0) bad |= check(c, 128, 3.0f, "store_smem_st");
        store_regs<<<max_blocks, THREADS>>>(c, 4.0f);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (rep == 0) bad |= check(c, max_blocks, 4.0f, "store_regs");
    }
    CK(cudaFree(c));
    return bad;
}
