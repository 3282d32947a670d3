/* matmul_skinny.cu - the pipelined rung's kernels for skinny products, its
 * `config` values narrow_n and short_m (cb_matmul_config_auto picks them).
 *
 * Why they exist: with n = 1 (C = A x, a GEMV) the tiled kernels compute a
 * block tile at least 64 columns wide to store one of its columns, and
 * their grid has one block per 64 or 128 rows, so most FMAs and most SMs
 * are wasted. A skinny product does 2 min(m, n) flops per element of its
 * large operand, so what bounds it is streaming that operand (A when n is
 * narrow, B when m is short) from DRAM once. Both kernels are built for
 * that:
 *   - every lane keeps several independent loads of the large operand in
 *     flight (the k-loop is unrolled U times, loads first, FMAs after), so
 *     an SM holds tens of KiB of requests, what DRAM latency times
 *     bandwidth asks for;
 *   - the large operand is read with evict-first loads (__ldcs): it is
 *     used once, and must not push the small operand out of L1;
 *   - the small operand (B, k x n floats, or A, m x k) is read through L1
 *     and L2 by every warp that needs it, instead of being staged in
 *     shared memory: it is small enough to stay cached, and no barrier
 *     then stops the stream;
 *   - loads past m or n read a clamped, valid row or column (those sums
 *     are never stored), so only the k tail needs a guard, and only the
 *     last, partial k-step runs with it.
 *
 * narrow_n (n small): a warp owns R rows of A and N columns of C. Its
 * lanes walk k with float4 loads of A (4 consecutive k per lane, 512
 * contiguous bytes per warp load) where k % 4 == 0 and A is 16-byte
 * aligned, else with scalar loads (128 contiguous bytes); for each k a lane
 * reads B's N values of that k-row, shared by the warp's R rows. When n
 * is exactly N, the 4 k-rows of a lane's float4 are 4N contiguous floats of
 * B, read as N float4. The lanes' partial sums meet in a shuffle
 * reduction. More columns than N: blockIdx.y walks groups of N.
 *
 * short_m (m small): a block owns 16 columns of C and M rows of A. Its
 * lanes read B's rows across those 16 columns (a float4 of 4 columns per
 * lane, 4 lanes per 64-byte row segment, 8 k-rows per warp load, where
 * n % 4 == 0 and B is 16-byte aligned; else one column per lane, 16 lanes
 * per row, 2 k-rows per load), and the 8 k-row slots of each of the 8
 * warps take every 64th k-row: k is split 64 ways inside the block, so at
 * m = 1, n = 4096 the grid's 256 blocks of 8 warps keep the whole GPU
 * streaming B. For each k-row a lane reads A's M values of that column of
 * A (a broadcast within the 4 or 16 lanes of the row). The partial sums
 * meet by shuffles within the warp, then in shared memory across warps.
 * More rows than M: blockIdx.y walks groups of M.
 *
 * Both apply alpha and beta as the other kernels do (cb_matmul_store: C is
 * read only when beta != 0) and are right for any m, n, k >= 1. */
#include "matmul_cuda.h"
#include "matmul_skinny.h"

/* Walk k in steps of STEP: step(p0, false) for every whole step, then
 * step(p0, true) once for the partial tail, the only step whose loads
 * check k. */
template <int STEP, typename Step>
__device__ __forceinline__ void cb_skinny_walk_k(int k, Step &step)
{
    int p0 = 0;
    for (; p0 + STEP <= k; p0 += STEP)
        step(p0, false);
    if (p0 < k) step(p0, true);
}

/* A planned skinny launch: the kernel, its grid of 256-thread blocks. */
struct cb_skinny_plan {
    cb_matmul_kernel_fn kernel;
    dim3 grid;
};
static constexpr int CB_SKINNY_WARPS = 8; /* 256 threads per block */
/* The resident blocks per SM __launch_bounds__ asks for: 2, i.e. at most
 * 128 registers. It is what keeps a step's loads in flight together:
 * without a bound, ptxas keeps narrow_n at n = 1 to 32 registers by
 * issuing each load just before its FMAs (two or three loads in flight,
 * the warp stalled on each); with it, all 16 loads of a step issue before
 * the first FMA (80 registers, which still fits 3 blocks per SM). Asking
 * for 4 (64 registers) spills. */
static constexpr int CB_SKINNY_MIN_BLOCKS = 2;

/* A skinny kernel's plan for the shape (desc: its description, when not
 * NULL), and the launch and the query of a plan function. */
typedef cb_skinny_plan (*cb_skinny_plan_fn)(const cb_matmul_args *g, char *desc, size_t len);

template <cb_skinny_plan_fn PLAN>
static cudaError_t cb_skinny_launch(const cb_matmul_args *g, cudaStream_t stream)
{
    const cb_skinny_plan p = PLAN(g, NULL, 0);
    p.kernel<<<p.grid, 32 * CB_SKINNY_WARPS, 0, stream>>>(g->m, g->n, g->k, g->alpha, g->a, g->b,
                                                          g->beta, g->c);
    return cudaGetLastError();
}

template <cb_skinny_plan_fn PLAN>
static cudaError_t cb_skinny_query(const cb_matmul_args *g, cb_matmul_launch_info *info)
{
    char desc[96];
    const cb_skinny_plan p = PLAN(g, desc, sizeof desc);
    return cb_matmul_fill_info(p.kernel, 32 * CB_SKINNY_WARPS, p.grid, desc, info);
}

/* The largest grid.y; bigger problems loop over it inside the kernel. */
static inline unsigned cb_skinny_grid_y(int groups)
{
    return (unsigned)(groups < 65535 ? groups : 65535);
}

/* ---- narrow n ---------------------------------------------------------- */

/* How narrow_n reads, from the shape and the pointers:
 *   VEC_AB - k % 4 == 0, A and B 16-byte aligned, n == N: A and B float4;
 *   VEC_A  - k % 4 == 0, A 16-byte aligned: A float4, B one float at a time;
 *   SCALAR - anything else: one float at a time, lanes over consecutive k. */
enum cb_narrow_mode { CB_NARROW_VEC_AB = 0, CB_NARROW_VEC_A = 1, CB_NARROW_SCALAR = 2 };

/* N columns per pass (1, 2, 4, 8). R rows per warp share each B value a
 * lane reads: at N = 1 one B float per A float is cheap, wider B rows are
 * amortised over more rows. U: A loads per lane, row and k-step, so that
 * R U = 8 float4 (4 KiB per warp) are in flight; at N = 8 the B values of
 * a step (4 U N registers) hold U to 1. */
template <int N> struct cb_narrow_shape {
    static constexpr int R = N == 1 ? 1 : N == 2 ? 2 : 4;
    static constexpr int U = N == 8 ? 1 : 8 / R;
    static constexpr int STEP = 32 * 4 * U; /* k per step of a warp */
};

template <int N, int kMode>
__global__ void __launch_bounds__(32 * CB_SKINNY_WARPS, CB_SKINNY_MIN_BLOCKS)
    cb_narrow_n_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                       const float *__restrict__ b, float beta, float *__restrict__ c)
{
    using S = cb_narrow_shape<N>;
    constexpr int R = S::R, U = S::U;
    const int lane = threadIdx.x & 31;
    const int row0 = (blockIdx.x * CB_SKINNY_WARPS + (threadIdx.x >> 5)) * R;
    if (row0 >= m) return; /* a whole warp; the kernel has no barrier */

    /* Rows past m read row m - 1: valid memory, and their sums are never
     * stored. */
    const float *arow[R];
#pragma unroll
    for (int r = 0; r < R; r++)
        arow[r] = a + (size_t)min(row0 + r, m - 1) * k;

    for (int c0 = blockIdx.y * N; c0 < n; c0 += gridDim.y * N) {
        int col[N]; /* the same for columns past n */
#pragma unroll
        for (int j = 0; j < N; j++)
            col[j] = min(c0 + j, n - 1);
        float acc[R][N];
        cb_matmul_zero_tile(acc);

        /* One k-step from p0: loads first (all in flight), then FMAs. With
         * `guard` (the last, partial step only) elements at or past k read
         * 0 in both A and B, so they add 0 * 0. */
        auto step = [&](int p0, bool guard) {
            if constexpr (kMode == CB_NARROW_SCALAR) {
                float av[R][4 * U], bv[4 * U][N];
#pragma unroll
                for (int e = 0; e < 4 * U; e++) {
                    const int p = p0 + e * 32 + lane;
                    const bool ok = !guard || p < k;
#pragma unroll
                    for (int r = 0; r < R; r++)
                        av[r][e] = ok ? __ldcs(arow[r] + p) : 0.0f;
#pragma unroll
                    for (int j = 0; j < N; j++)
                        bv[e][j] = ok ? __ldg(b + (size_t)p * n + col[j]) : 0.0f;
                }
#pragma unroll
                for (int e = 0; e < 4 * U; e++)
#pragma unroll
                    for (int r = 0; r < R; r++)
#pragma unroll
                        for (int j = 0; j < N; j++)
                            acc[r][j] = fmaf(av[r][e], bv[e][j], acc[r][j]);
            } else {
                /* k % 4 == 0 here, so a float4 is wholly before or past k. */
                const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                float4 av[R][U];
                float bv[U][4][N];
#pragma unroll
                for (int u = 0; u < U; u++) {
                    const int p = p0 + (u * 32 + lane) * 4;
                    const bool ok = !guard || p < k;
#pragma unroll
                    for (int r = 0; r < R; r++)
                        av[r][u] =
                            ok ? __ldcs(reinterpret_cast<const float4 *>(arow[r] + p)) : zero;
                    if (kMode == CB_NARROW_VEC_AB) {
                        /* B's rows p..p+3 are the 4N floats from p N. */
                        const float4 *src = reinterpret_cast<const float4 *>(b + (size_t)p * N);
                        float flat[4 * N];
#pragma unroll
                        for (int q = 0; q < N; q++) {
                            const float4 v = ok ? __ldg(src + q) : zero;
                            flat[4 * q + 0] = v.x, flat[4 * q + 1] = v.y;
                            flat[4 * q + 2] = v.z, flat[4 * q + 3] = v.w;
                        }
#pragma unroll
                        for (int i = 0; i < 4; i++)
#pragma unroll
                            for (int j = 0; j < N; j++)
                                bv[u][i][j] = flat[i * N + j];
                    } else {
#pragma unroll
                        for (int i = 0; i < 4; i++)
#pragma unroll
                            for (int j = 0; j < N; j++)
                                bv[u][i][j] = ok ? __ldg(b + (size_t)(p + i) * n + col[j]) : 0.0f;
                    }
                }
#pragma unroll
                for (int u = 0; u < U; u++)
#pragma unroll
                    for (int r = 0; r < R; r++)
#pragma unroll
                        for (int j = 0; j < N; j++) {
                            acc[r][j] = fmaf(av[r][u].x, bv[u][0][j], acc[r][j]);
                            acc[r][j] = fmaf(av[r][u].y, bv[u][1][j], acc[r][j]);
                            acc[r][j] = fmaf(av[r][u].z, bv[u][2][j], acc[r][j]);
                            acc[r][j] = fmaf(av[r][u].w, bv[u][3][j], acc[r][j]);
                        }
            }
        };

        cb_skinny_walk_k<S::STEP>(k, step);

        /* Every lane ends with the warp's sums; lane r N + j stores (r, j),
         * so R N <= 32 lanes store one value each. */
#pragma unroll
        for (int r = 0; r < R; r++)
#pragma unroll
            for (int j = 0; j < N; j++) {
                float v = acc[r][j];
#pragma unroll
                for (int off = 16; off > 0; off >>= 1)
                    v += __shfl_xor_sync(0xffffffffu, v, off);
                const int row = row0 + r, cc = c0 + j;
                if (lane == r * N + j && row < m && cc < n)
                    cb_matmul_store(c + (size_t)row * n + cc, alpha * v, beta);
            }
    }
}

template <int N> static cb_matmul_kernel_fn cb_narrow_kernel_of(int mode)
{
    switch (mode) {
    case CB_NARROW_VEC_AB:
        return cb_narrow_n_kernel<N, CB_NARROW_VEC_AB>;
    case CB_NARROW_VEC_A:
        return cb_narrow_n_kernel<N, CB_NARROW_VEC_A>;
    default:
        return cb_narrow_n_kernel<N, CB_NARROW_SCALAR>;
    }
}

/* N: the fewest columns per pass that cover n (8 at most); the mode. */
static cb_skinny_plan cb_narrow_plan(const cb_matmul_args *g, char *desc, size_t len)
{
    const int need = g->n < 8 ? g->n : 8;
    const int cols = need == 1 ? 1 : need == 2 ? 2 : need <= 4 ? 4 : 8;
    const bool vec_a = g->k % 4 == 0 && cb_aligned16(g->a);
    const int mode = !vec_a                               ? CB_NARROW_SCALAR
                     : g->n == cols && cb_aligned16(g->b) ? CB_NARROW_VEC_AB
                                                          : CB_NARROW_VEC_A;
    cb_skinny_plan p;
    int rows = 1;
    switch (cols) {
    case 1:
        p.kernel = cb_narrow_kernel_of<1>(mode), rows = cb_narrow_shape<1>::R;
        break;
    case 2:
        p.kernel = cb_narrow_kernel_of<2>(mode), rows = cb_narrow_shape<2>::R;
        break;
    case 4:
        p.kernel = cb_narrow_kernel_of<4>(mode), rows = cb_narrow_shape<4>::R;
        break;
    default:
        p.kernel = cb_narrow_kernel_of<8>(mode), rows = cb_narrow_shape<8>::R;
        break;
    }
    p.grid = dim3(cb_cdiv(g->m, CB_SKINNY_WARPS * rows), cb_skinny_grid_y(cb_cdiv(g->n, cols)));
    if (desc)
        snprintf(desc, len,
                 "narrow n: warp per %d row%s of A, %s over k, %d col%s/pass%s, shuffle reduce",
                 rows, rows > 1 ? "s" : "", mode == CB_NARROW_SCALAR ? "scalar" : "float4", cols,
                 cols > 1 ? "s" : "", mode == CB_NARROW_VEC_AB ? ", B float4" : "");
    return p;
}

extern "C" cudaError_t cb_skinny_narrow_n_launch(const cb_matmul_args *g, cudaStream_t stream)
{
    return cb_skinny_launch<cb_narrow_plan>(g, stream);
}

extern "C" cudaError_t cb_skinny_narrow_n_query(const cb_matmul_args *g,
                                                cb_matmul_launch_info *info)
{
    return cb_skinny_query<cb_narrow_plan>(g, info);
}

/* ---- short m ----------------------------------------------------------- */

/* A block's layout: CW = 16 columns of C; VW columns per lane (a float4 of
 * B where n % 4 == 0 and B is 16-byte aligned, else one float); LC lanes
 * per k-row, LR k-rows per warp load; SLOTS k-rows per block load. U: B
 * loads per lane and k-step: 8 (a warp then has 4 KiB of float4, or 1
 * KiB of floats, in flight), halved where the M U values of A that a step
 * also holds, with their addresses, would crowd the register file (M = 8
 * with float4, M >= 4 with floats). */
template <int M, bool kVec> struct cb_short_shape {
    static constexpr int CW = 16, VW = kVec ? 4 : 1;
    static constexpr int LC = CW / VW, LR = 32 / LC, SLOTS = CB_SKINNY_WARPS * LR;
    static constexpr int U = (kVec ? M <= 4 : M <= 2) ? 8 : 4;
    static constexpr int STEP = SLOTS * U; /* k-rows per step of a block */
};

template <int M, bool kVec>
__global__ void __launch_bounds__(32 * CB_SKINNY_WARPS, CB_SKINNY_MIN_BLOCKS)
    cb_short_m_kernel(int m, int n, int k, float alpha, const float *__restrict__ a,
                      const float *__restrict__ b, float beta, float *__restrict__ c)
{
    using S = cb_short_shape<M, kVec>;
    constexpr int VW = S::VW, U = S::U;
    __shared__ float red[CB_SKINNY_WARPS][M][S::CW];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int lc = lane % S::LC, slot = warp * S::LR + lane / S::LC;
    const int c0 = blockIdx.x * S::CW;
    /* This lane's first column, clamped into B (n >= 4 when kVec): lanes
     * past n read valid columns, and their sums are never stored. */
    const int col = kVec ? min(c0 + lc * 4, n - 4) : min(c0 + lc, n - 1);

    for (int r0 = blockIdx.y * M; r0 < m; r0 += gridDim.y * M) {
        const float *arow[M]; /* rows past m read row m - 1, never stored */
#pragma unroll
        for (int i = 0; i < M; i++)
            arow[i] = a + (size_t)min(r0 + i, m - 1) * k;
        float acc[M][VW];
        cb_matmul_zero_tile(acc);

        /* One k-step from p0: slot s of the block takes k-rows p0 + s,
         * p0 + s + SLOTS, ... With `guard` (the last, partial step only)
         * k-rows at or past k read 0 in both A and B. */
        auto step = [&](int p0, bool guard) {
            float bv[U][VW], av[U][M];
#pragma unroll
            for (int u = 0; u < U; u++) {
                const int p = p0 + u * S::SLOTS + slot;
                const bool ok = !guard || p < k;
                const float *src = b + (size_t)p * n + col;
                if constexpr (kVec) {
                    const float4 v = ok ? __ldcs(reinterpret_cast<const float4 *>(src))
                                        : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                    bv[u][0] = v.x, bv[u][1] = v.y, bv[u][2] = v.z, bv[u][3] = v.w;
                } else {
                    bv[u][0] = ok ? __ldcs(src) : 0.0f;
                }
#pragma unroll
                for (int i = 0; i < M; i++)
                    av[u][i] = ok ? __ldg(arow[i] + p) : 0.0f;
            }
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int i = 0; i < M; i++)
#pragma unroll
                    for (int e = 0; e < VW; e++)
                        acc[i][e] = fmaf(av[u][i], bv[u][e], acc[i][e]);
        };

        cb_skinny_walk_k<S::STEP>(k, step);

        /* The LR k-row slots of a warp (lanes lc, lc + LC, ...) meet by
         * shuffles, then the 8 warps through shared memory. */
#pragma unroll
        for (int i = 0; i < M; i++)
#pragma unroll
            for (int e = 0; e < VW; e++)
#pragma unroll
                for (int off = S::LC; off < 32; off <<= 1)
                    acc[i][e] += __shfl_xor_sync(0xffffffffu, acc[i][e], off);
        if (lane < S::LC) {
#pragma unroll
            for (int i = 0; i < M; i++)
#pragma unroll
                for (int e = 0; e < VW; e++)
                    red[warp][i][lc * VW + e] = acc[i][e];
        }
        __syncthreads();
        if (threadIdx.x < M * S::CW) {
            const int i = threadIdx.x / S::CW, cc = threadIdx.x % S::CW;
            float v = 0.0f;
#pragma unroll
            for (int w = 0; w < CB_SKINNY_WARPS; w++)
                v += red[w][i][cc];
            const int row = r0 + i, cn = c0 + cc;
            if (row < m && cn < n) cb_matmul_store(c + (size_t)row * n + cn, alpha * v, beta);
        }
        __syncthreads(); /* red is written again by the next row group */
    }
}

template <int M> static cb_matmul_kernel_fn cb_short_kernel_of(bool vec)
{
    return vec ? cb_short_m_kernel<M, true> : cb_short_m_kernel<M, false>;
}

/* M: the fewest rows per block that cover m (8 at most); the load width. */
static cb_skinny_plan cb_short_plan(const cb_matmul_args *g, char *desc, size_t len)
{
    const int need = g->m < 8 ? g->m : 8;
    const int rows = need == 1 ? 1 : need == 2 ? 2 : need <= 4 ? 4 : 8;
    const bool vec = g->n % 4 == 0 && cb_aligned16(g->b);
    cb_skinny_plan p;
    switch (rows) {
    case 1:
        p.kernel = cb_short_kernel_of<1>(vec);
        break;
    case 2:
        p.kernel = cb_short_kernel_of<2>(vec);
        break;
    case 4:
        p.kernel = cb_short_kernel_of<4>(vec);
        break;
    default:
        p.kernel = cb_short_kernel_of<8>(vec);
        break;
    }
    p.grid = dim3(cb_cdiv(g->n, 16), cb_skinny_grid_y(cb_cdiv(g->m, rows)));
    if (desc)
        snprintf(desc, len, "short m: %d row%s x 16 cols/block, %s B, k split %d ways, smem reduce",
                 rows, rows > 1 ? "s" : "", vec ? "float4" : "scalar",
                 vec ? cb_short_shape<1, true>::SLOTS : cb_short_shape<1, false>::SLOTS);
    return p;
}

extern "C" cudaError_t cb_skinny_short_m_launch(const cb_matmul_args *g, cudaStream_t stream)
{
    return cb_skinny_launch<cb_short_plan>(g, stream);
}

extern "C" cudaError_t cb_skinny_short_m_query(const cb_matmul_args *g, cb_matmul_launch_info *info)
{
    return cb_skinny_query<cb_short_plan>(g, info);
}
