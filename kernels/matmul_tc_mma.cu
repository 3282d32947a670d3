/* matmul_tc_mma.cu - tensor-core rung 1: mma.sync fed from a plain
 * shared-memory tile.
 *
 * The structure is the FP32 ladder's smem_tiled/warptiled one; what changes
 * is the inner product. A block computes a 128x128 tile of C with 8 warps
 * (2 x 4), each warp a 64x32 part of it as 4 x 4 tiles of m16n8. Per
 * k-step a warp issues 16 mma.sync (m16n8k16 BF16, or m16n8k8 TF32), each
 * 4096 (resp. 2048) multiply-adds, where a SIMT warp does 32 per FFMA.
 *
 * The tile is "plain": load -> barrier -> compute -> barrier, one stage,
 * fragments read with ordinary 32-bit (A; a BF16 pair along k) or 16-bit
 * (B, whose fragment pairs two k of one column) shared loads. Rows are
 * padded so those loads are conflict-free (A: 40 BF16 = 20 words per row,
 * so the 8 row groups start at banks 0, 20, 8, 28, 16, 4, 24, 12 and the
 * 4 lanes of a group add 0..3; B: 136 elements per row). TF32 operands are
 * rounded (cvt.rna) as they go into the fragments.
 *
 * Edges: any m, n, k. Each thread stages 16-byte chunks of the next tile
 * in registers; when k and n are multiples of a chunk (8 BF16, 4 FP32) a
 * chunk is either inside the matrix or outside (zeros), else every
 * element is checked (the `scalar` path). C stores are checked per
 * element pair. */
#include "matmul_tc_plan.h"

/* Below sm_80 the kernels here compile to stubs (the default build carries
 * sm_75 too; the runner never launches them there), which leaves the tile
 * constants unreferenced: nvcc's warning 177, an error under -Werror. */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#pragma nv_diag_suppress 177
#endif

namespace
{

constexpr int kBM = 128, kBN = 128, kThreads = 256;
constexpr int kWarpsN = 4;      /* warps 2 (m) x 4 (n): warp tile 64 x 32 */
constexpr int kMT = 4, kNT = 4; /* m16 and n8 tiles per warp */

template <cb_tc_precision P> struct cb_mma_cfg;
template <> struct cb_mma_cfg<CB_TC_BF16> {
    typedef uint16_t elem;
    static constexpr int BK = 32, VEC = 8, KSTEP = 16, A_LD = BK + 8, B_LD = kBN + 8;
};
template <> struct cb_mma_cfg<CB_TC_TF32> {
    typedef float elem;
    static constexpr int BK = 16, VEC = 4, KSTEP = 8, A_LD = BK + 4, B_LD = kBN + 8;
};

/* The VEC elements at (row, col .. col + VEC - 1) of a rows x cols matrix
 * with leading dimension ld, zeros outside. */
template <typename T, int VEC, bool kVec>
__device__ __forceinline__ uint4 cb_mma_chunk(const T *base, int ld, int row, int rows, int col,
                                              int cols)
{
    if constexpr (kVec) {
        if (row < rows && col < cols)
            return *reinterpret_cast<const uint4 *>(base + (size_t)row * ld + col);
        return make_uint4(0u, 0u, 0u, 0u);
    } else {
        union {
            uint4 v;
            T e[VEC];
        } u;
#pragma unroll
        for (int i = 0; i < VEC; i++)
            u.e[i] = row < rows && col + i < cols ? base[(size_t)row * ld + col + i] : T(0);
        return u.v;
    }
}

template <cb_tc_precision P, bool kVec>
__global__ void __launch_bounds__(kThreads) cb_tc_mma_kernel(cb_tc_args g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    typedef cb_mma_cfg<P> C;
    typedef typename C::elem T;
    constexpr int A_CPR = C::BK / C::VEC, B_CPR = kBN / C::VEC; /* chunks per row */
    constexpr int A_LOADS = kBM * A_CPR / kThreads, B_LOADS = C::BK * B_CPR / kThreads;
    static_assert(A_LOADS * kThreads == kBM * A_CPR && B_LOADS * kThreads == C::BK * B_CPR,
                  "tiles split evenly into 16-byte chunks");
    __shared__ __align__(16) T as[kBM][C::A_LD];
    __shared__ __align__(16) T bs[C::BK][C::B_LD];

    const T *A = static_cast<const T *>(g.a), *B = static_cast<const T *>(g.b);
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, gq = lane / 4, q = lane % 4;
    const int wm = warp / kWarpsN, wn = warp % kWarpsN;
    const int bm = blockIdx.y * kBM, bn = blockIdx.x * kBN;

    float acc[kMT][kNT][4];
    cb_tc_zero_tiles(acc);

    for (int k0 = 0; k0 < g.k; k0 += C::BK) {
        uint4 ra[A_LOADS], rb[B_LOADS];
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            const int id = tid + i * kThreads, r = id / A_CPR, c = id % A_CPR;
            ra[i] = cb_mma_chunk<T, C::VEC, kVec>(A, g.k, bm + r, g.m, k0 + c * C::VEC, g.k);
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++) {
            const int id = tid + i * kThreads, r = id / B_CPR, c = id % B_CPR;
            rb[i] = cb_mma_chunk<T, C::VEC, kVec>(B, g.n, k0 + r, g.k, bn + c * C::VEC, g.n);
        }
        __syncthreads(); /* every warp is done with the previous tile */
#pragma unroll
        for (int i = 0; i < A_LOADS; i++) {
            const int id = tid + i * kThreads;
            *reinterpret_cast<uint4 *>(&as[id / A_CPR][id % A_CPR * C::VEC]) = ra[i];
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; i++) {
            const int id = tid + i * kThreads;
            *reinterpret_cast<uint4 *>(&bs[id / B_CPR][id % B_CPR * C::VEC]) = rb[i];
        }
        __syncthreads();

#pragma unroll
        for (int ks = 0; ks < C::BK; ks += C::KSTEP) {
            uint32_t af[kMT][4], bf[kNT][2];
#pragma unroll
            for (int i = 0; i < kMT; i++) {
                const int r = wm * 64 + i * 16 + gq;
                if constexpr (P == CB_TC_BF16) {
                    af[i][0] = *reinterpret_cast<const uint32_t *>(&as[r][ks + 2 * q]);
                    af[i][1] = *reinterpret_cast<const uint32_t *>(&as[r + 8][ks + 2 * q]);
                    af[i][2] = *reinterpret_cast<const uint32_t *>(&as[r][ks + 8 + 2 * q]);
                    af[i][3] = *reinterpret_cast<const uint32_t *>(&as[r + 8][ks + 8 + 2 * q]);
                } else {
                    af[i][0] = cb_tc_to_tf32(as[r][ks + q]);
                    af[i][1] = cb_tc_to_tf32(as[r + 8][ks + q]);
                    af[i][2] = cb_tc_to_tf32(as[r][ks + q + 4]);
                    af[i][3] = cb_tc_to_tf32(as[r + 8][ks + q + 4]);
                }
            }
#pragma unroll
            for (int j = 0; j < kNT; j++) {
                const int n = wn * 32 + j * 8 + gq;
                if constexpr (P == CB_TC_BF16) {
                    const int k = ks + 2 * q;
                    bf[j][0] = (uint32_t)bs[k][n] | (uint32_t)bs[k + 1][n] << 16;
                    bf[j][1] = (uint32_t)bs[k + 8][n] | (uint32_t)bs[k + 9][n] << 16;
                } else {
                    bf[j][0] = cb_tc_to_tf32(bs[ks + q][n]);
                    bf[j][1] = cb_tc_to_tf32(bs[ks + q + 4][n]);
                }
            }
            cb_tc_mma_tiles<P>(acc, af, bf);
        }
    }

    cb_tc_store_tiles(g, acc, bm + wm * 64, bn + wn * 32, gq, q);
#endif
}

typedef void (*cb_mma_kernel_fn)(cb_tc_args);

cb_mma_kernel_fn cb_mma_pick(cb_tc_precision prec, bool vec)
{
    if (prec == CB_TC_BF16)
        return vec ? cb_tc_mma_kernel<CB_TC_BF16, true> : cb_tc_mma_kernel<CB_TC_BF16, false>;
    return vec ? cb_tc_mma_kernel<CB_TC_TF32, true> : cb_tc_mma_kernel<CB_TC_TF32, false>;
}

bool cb_aligned16(const void *p)
{
    return ((uintptr_t)p & 15u) == 0;
}

} // namespace

static cudaError_t cb_tc_mma_prepare(cb_tc_plan *p, cb_matmul_launch_info *info)
{
    const cb_tc_args &g = p->args;
    const int vec = p->prec == CB_TC_BF16 ? 8 : 4;
    const bool v = g.k % vec == 0 && g.n % vec == 0 && cb_aligned16(g.a) && cb_aligned16(g.b);
    p->variant = v;
    p->block = dim3(kThreads);
    p->grid = dim3(cb_tc_cdiv(g.n, kBN), cb_tc_cdiv(g.m, kBM));
    p->smem_bytes = 0;
    char desc[96];
    snprintf(desc, sizeof desc, "128x128x%d tile, 2x4 warps of 64x32, mma.sync %s, %s",
             p->prec == CB_TC_BF16 ? 32 : 16, p->prec == CB_TC_BF16 ? "m16n8k16" : "m16n8k8",
             v ? "16-byte loads" : "scalar edges");
    return cb_tc_fill_info(cb_mma_pick(p->prec, v), p, desc, info);
}

static cudaError_t cb_tc_mma_launch(const cb_tc_plan *p, cudaStream_t stream)
{
    cb_mma_pick(p->prec, p->variant != 0)<<<p->grid, p->block, 0, stream>>>(p->args);
    return cudaGetLastError();
}

/* cb_tc_rung_mma (matmul_tc_kernels.h). */
CB_TC_RUNG(mma, CB_TC_NEEDS_SM80("mma.sync with BF16/TF32"),
           .precisions = CB_TC_PREC_BIT(CB_TC_BF16) | CB_TC_PREC_BIT(CB_TC_TF32),
           .rows = CB_TC_ROWS_ANY, .tf32_bt = false, .persistent = false);
