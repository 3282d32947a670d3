/* matmul_tc_wgmma_ws_tf32_sm90a.cu - rung 4 in TF32 (Hopper, sm_90a)
 * without the transpose pass.
 *
 * wgmma multiplies TF32 only with both shared-memory operands K-major,
 * and row-major B (k x n) is N-major, so rungs 3 and 5 first write B^T
 * into a workspace: 8 n k bytes, about 11 % of a 4096^3 product's time at
 * cuBLAS's rate. Here the operands are swapped instead,
 *
 *     C^T (n x m) = B^T (n x k) A^T (k x m),
 *
 * so that wgmma's B operand is A^T, whose K-major layout is row-major A as
 * it lies (from shared memory, as before), and wgmma's A operand is B^T,
 * which wgmma may take from registers in any layout: each consumer loads
 * its 64 n x 8 k fragment per k-step from the stage of B that TMA landed
 * N-major, rounds it to TF32 (cvt.rna, as the transpose did) and issues
 * m64n256k8 with A in registers.
 *
 * A block computes 256 rows of C (wgmma's N) by 128 columns (two consumer
 * warpgroups of 64 n each): 4 stages of 48 KiB (A: 256 rows x 32 floats;
 * B: 4 boxes of 32 k x 32 n), the producer/consumer split, setmaxnreg and
 * the persistent grouped walk of rung 4. Which n each fragment row holds
 * is chosen so that the loads are conflict-free (matmul_tc_layout.h,
 * cb_tc_tf32_frag_n); the epilogue writes C[m][n], C[m][n + 1] pairs from
 * the accumulators of rows g and g + 8.
 *
 * The fragments of a slice must not change while its wgmmas run, and ptxas
 * serialises every wgmma of a kernel that defines a wgmma input while one
 * is in flight (C7513; a first version that loaded slice kt + 1's
 * fragments into a second register set under slice kt's wgmmas got
 * exactly that). So a consumer retires its previous slice (wait_group 0)
 * before loading the next one's fragments: its tensor-core work pauses for
 * the 8 shared loads and 16 conversions, while the other consumer's
 * wgmmas keep the tensor cores busy.
 *
 * Any shape: B is read with its own pitch (staged when that is not a
 * multiple of 16 bytes), TMA zero-fills past m, n and k. */
#include "matmul_tc_sm90.h"

/* Outside the sm_90a pass the kernel is a stub, which leaves the tile
 * constants unreferenced: nvcc's warning 177, an error under -Werror. */
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#pragma nv_diag_suppress 177
#endif

namespace
{

constexpr int kBM = 256, kBN = 128, kBK = 32, kStages = 4, kThreads = 384, kGroupM = 8;
constexpr int kProducerRegs = 40, kConsumerRegs = 232;
constexpr int kStageA = kBM * 128, kStageB = kBN * kBK * 4, kStage = kStageA + kStageB;
typedef cb_wg_ring<kStages, kStageA, kStageB> Ring;
constexpr int kSmem = Ring::BYTES;

/* The producer's loads of k-slice kt: A (256 m-rows x 32 k, K-major) and
 * B (32 k-rows x 128 n in 4 boxes of 32 columns, N-major). */
__device__ __forceinline__ void cb_t32_load_stage(uint32_t sa, uint32_t sb, uint64_t *full,
                                                  const CUtensorMap *map_a,
                                                  const CUtensorMap *map_b, int m0, int n0, int kt)
{
    cb_mbar_expect_tx(full, kStage);
    cb_tma_load_2d(sa, map_a, full, kt * kBK, m0);
#pragma unroll
    for (int j = 0; j < kBN / 32; j++)
        cb_tma_load_2d(sb + j * 4096, map_b, full, n0 + 32 * j, kt * kBK);
}

/* One consumer's fragments of a slice: for each of the 4 k-steps, a[0..3]
 * = B^T(n, k), B^T(n + 1, k), B^T(n, k + 4), B^T(n + 1, k + 4) with k =
 * 8 s + q and n its fragment row's column of C. */
__device__ __forceinline__ void cb_t32_load_frags(uint32_t (&f)[4][4], const uint8_t *sb, int n_wg)
{
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32 % 4, q = lane % 4;
    const int n = n_wg + cb_tc_tf32_frag_n(w, lane / 4);
#pragma unroll
    for (int s = 0; s < kBK / 8; s++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const float2 v =
                *reinterpret_cast<const float2 *>(sb + cb_tc_tf32_b_offset(8 * s + q + 4 * h, n));
            f[s][2 * h] = cb_tc_to_tf32(v.x);
            f[s][2 * h + 1] = cb_tc_to_tf32(v.y);
        }
}

/* The 4 wgmmas of a slice: D (64 n x 256 m) += B^T (64 x 8) A^T (8 x 256)
 * per k-step, A^T from the stage's A rows (K-major, 32 bytes per k-step). */
__device__ __forceinline__ void cb_t32_mma_slice(float (&acc)[128], const uint32_t (&f)[4][4],
                                                 uint32_t sa, bool accumulate)
{
#pragma unroll
    for (int s = 0; s < kBK / 8; s++) {
        const uint64_t db = cb_tc_desc(sa + s * 32, 16, 1024, CB_TC_SWIZZLE_128B);
        cb_wgmma_tf32_ra_n256(acc, f[s], db, accumulate || s > 0 ? 1u : 0u);
    }
}

/* C from one consumer's accumulators: fragment rows g, g + 8 of warp w
 * are columns n, n + 1 of C; accumulator columns 8 j + 2 q, + 1 are rows
 * m0 + 8 j + 2 q, + 1. Pairs along n: (acc[4j], acc[4j+2]) and
 * (acc[4j+1], acc[4j+3]). */
__device__ __forceinline__ void cb_t32_store(const cb_tc_args &g, const float (&acc)[128], int m0,
                                             int n_wg)
{
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32 % 4, q = lane % 4;
    const int n = n_wg + cb_tc_tf32_frag_n(w, lane / 4), row = m0 + 2 * q;
    const bool pairs = cb_tc_pairs(g);
    if (g.beta == 0.0f && pairs && m0 + kBM <= g.m && n_wg + 64 <= g.n) {
        float *p = g.c + (size_t)row * g.ldc + n;
        if (g.alpha == 1.0f) { /* as they are: no temporaries to wait for (cb_wg_store) */
#pragma unroll
            for (int j = 0; j < kBM / 8; j++) {
                *reinterpret_cast<float2 *>(p + (size_t)8 * j * g.ldc) =
                    make_float2(acc[4 * j], acc[4 * j + 2]);
                *reinterpret_cast<float2 *>(p + (size_t)(8 * j + 1) * g.ldc) =
                    make_float2(acc[4 * j + 1], acc[4 * j + 3]);
            }
            return;
        }
#pragma unroll
        for (int j = 0; j < kBM / 8; j++) {
            *reinterpret_cast<float2 *>(p + (size_t)8 * j * g.ldc) =
                make_float2(g.alpha * acc[4 * j], g.alpha * acc[4 * j + 2]);
            *reinterpret_cast<float2 *>(p + (size_t)(8 * j + 1) * g.ldc) =
                make_float2(g.alpha * acc[4 * j + 1], g.alpha * acc[4 * j + 3]);
        }
        return;
    }
#pragma unroll
    for (int j = 0; j < kBM / 8; j++) {
        cb_tc_store_pair(g, pairs, row + 8 * j, n, acc[4 * j], acc[4 * j + 2]);
        cb_tc_store_pair(g, pairs, row + 8 * j + 1, n, acc[4 * j + 1], acc[4 * j + 3]);
    }
}

/* One slice for a consumer: wait for it and for the wgmmas before it
 * (their fragments are about to be overwritten), release the slice before
 * it, load its fragments, issue. */
__device__ __forceinline__ void cb_t32_consume(const Ring &r, float (&acc)[128],
                                               uint32_t (&f)[4][4], uint32_t it, int kt, int cw)
{
    const uint32_t s = it % kStages;
    cb_mbar_wait(&r.full[s], (it / kStages) & 1);
    cb_wgmma_wait<0>();
    if (kt > 0 && threadIdx.x % 32 == 0) cb_mbar_arrive(&r.empty[(it - 1) % kStages]);
    cb_t32_load_frags(f, r.b_ptr(s), 64 * cw);
    /* Keep the conversions above the fence (the cvt asm could sink below it,
     * into the wgmma pipeline). */
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
            asm volatile("" : "+r"(f[i][j])::"memory");
    cb_wgmma_fence();
    cb_t32_mma_slice(acc, f, r.a(s), kt > 0);
    cb_wgmma_commit();
}

__global__ void __launch_bounds__(kThreads, 1)
    cb_tc_ws_tf32_kernel(const __grid_constant__ CUtensorMap map_a,
                         const __grid_constant__ CUtensorMap map_b, cb_tc_args g, int tiles_m,
                         int tiles_n)
{
#if CB_TC_SM90A_DEVICE
    extern __shared__ uint8_t smem_raw[];
    cb_tma_prefetch_maps(&map_a, &map_b);
    const Ring r(smem_raw, 8); /* empty: the 8 consumer warps */
    const int tid = threadIdx.x, wg = tid / 128;
    const int kt_count = (g.k + kBK - 1) / kBK;
    const int tiles = tiles_m * tiles_n;
    __syncthreads();

    if (wg == 0) {
        cb_setmaxnreg_dec<kProducerRegs>();
        if (tid == 0)
            cb_wg_produce<kStages>(r, tiles_m, tiles_n, kGroupM, kt_count,
                                   [&](uint32_t s, int tm, int tn, int kt) {
                                       cb_t32_load_stage(r.a(s), r.b(s), &r.full[s], &map_a, &map_b,
                                                         tm * kBM, tn * kBN, kt);
                                   });
    } else {
        cb_setmaxnreg_inc<kConsumerRegs>();
        const int cw = wg - 1; /* columns 64 cw .. 64 cw + 63 of each tile */
        float acc[128];
        cb_wg_zero_acc(acc);
        uint32_t frag[4][4];
        uint32_t it = 0;
        for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
            int tm, tn;
            cb_tc_tile_coords(t, tiles_m, tiles_n, kGroupM, &tm, &tn);
            for (int kt = 0; kt < kt_count; kt++)
                cb_t32_consume(r, acc, frag, it++, kt, cw);
            cb_wgmma_wait<0>();
            if (tid % 32 == 0) cb_mbar_arrive(&r.empty[(it - 1) % kStages]);
            cb_wgmma_fence_regs(acc);
            cb_t32_store(g, acc, tm * kBM, tn * kBN + 64 * cw);
        }
    }
#endif
}

} // namespace

cudaError_t cb_tc_ws_tf32_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    if (!cb_tc_sm90a_built()) return cudaErrorInvalidValue;
    const cb_tc_args &g = p->args;
    cudaError_t err =
        cb_tc_tensor_map_2d(&p->map_a, p->a, CB_TC_TF32, g.m, g.k, p->layout.lda_read, kBM, kBK);
    if (err == cudaSuccess)
        err =
            cb_tc_tensor_map_2d(&p->map_b, p->b, CB_TC_TF32, g.k, g.n, p->layout.ldb_read, kBK, 32);
    int sms = 0;
    if (err == cudaSuccess) err = cb_context_sm_count(&sms);
    if (err != cudaSuccess) return err;
    p->tile_n = kBN;
    p->tiles_m = cb_tc_cdiv(g.m, kBM);
    p->tiles_n = cb_tc_cdiv(g.n, kBN);
    const long long tiles = (long long)p->tiles_m * p->tiles_n;
    if (tiles > 0x7fffffffLL) return cudaErrorInvalidValue;
    p->variant = 0;
    p->block = dim3(kThreads);
    p->grid = dim3((unsigned)(tiles < sms ? tiles : sms));
    p->smem_bytes = kSmem;
    err = cudaFuncSetAttribute(cb_tc_ws_tf32_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kSmem);
    if (err != cudaSuccess) return err;
    return cb_tc_fill_info(cb_tc_ws_tf32_kernel, p,
                           "256x128x32, operands swapped (B^T in registers), 4 stages, persistent",
                           info);
}

cudaError_t cb_tc_ws_tf32_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    cb_tc_ws_tf32_kernel<<<p->grid, p->block, p->smem_bytes, stream>>>(p->map_a, p->map_b, p->args,
                                                                       p->tiles_m, p->tiles_n);
    return cudaGetLastError();
}
