/* matmul_pipelined.cu - rung 8: the warp-tiled kernel with a software
 * pipeline (see matmul_warptile.h): register-staged global prefetch of the
 * next k-slice, two shared-memory stages with one barrier per slice, and
 * double-buffered register fragments. `variant` is a cb_matmul_config.
 * Skinny products (n or m of a few) take the narrow_n and short_m
 * configurations instead, kernels that stream the large operand once
 * (matmul_skinny.cu). */
#include "matmul_skinny.h"
#include "matmul_warptile.h"
#include "matmul_warptile_sk.h"

#include <string.h>

/* Template arguments per config: warps (M, N), 4x4 sub-tiles per lane
 * (M, N), k-slice. Block tile = (16 SUB_M WARPS_M) x (32 SUB_N WARPS_N). */
#define CB_PIPELINED_CONFIGS(X)                                                                    \
    X(CB_MATMUL_M128N128K8, 4, 2, 2, 2, 8)                                                         \
    X(CB_MATMUL_M128N128K16, 4, 2, 2, 2, 16)                                                       \
    X(CB_MATMUL_M128N64K8, 4, 1, 2, 2, 8)                                                          \
    X(CB_MATMUL_M64N128K8, 2, 2, 2, 2, 8)                                                          \
    X(CB_MATMUL_M64N64K8, 2, 1, 2, 2, 8)                                                           \
    X(CB_MATMUL_M128N256K8, 2, 4, 4, 2, 8)                                                         \
    X(CB_MATMUL_M256N128K8, 4, 2, 4, 2, 8)

static const cb_matmul_instance cb_pipelined_instances[] = {
#define CB_X(cfg, wm, wn, sm, sn, bk)                                                              \
    {cfg, cb_wt_launch<wm, wn, sm, sn, bk, true>, cb_wt_query<wm, wn, sm, sn, bk, true>},
    CB_PIPELINED_CONFIGS(CB_X)
#undef CB_X
        {CB_MATMUL_M128N128K8_STREAMK, cb_wt_sk_launch<4, 2, 2, 2, 8>,
         cb_wt_sk_query<4, 2, 2, 2, 8>},
    {CB_MATMUL_NARROW_N, cb_skinny_narrow_n_launch, cb_skinny_narrow_n_query},
    {CB_MATMUL_SHORT_M, cb_skinny_short_m_launch, cb_skinny_short_m_query},
};

/* The widest n (narrow_n) and the tallest m (short_m) that the skinny
 * kernels take. A tiled block is at least 64 columns and 64 rows, so at
 * n <= 8 (or m <= 8) seven eighths or more of its FMAs fall outside C and
 * its grid has a block per 64 rows (columns): at 4096 x 1 x 4096, 64
 * blocks for 132 SMs. The skinny kernels instead stream A (B) once at
 * DRAM speed, and 8 is the most they hold in one pass: narrow_n keeps its
 * R x N <= 32 sums and the 4 N B values per float4 of A in registers and
 * reads A once for N <= 8 columns (more columns: another pass over A, and
 * 4 N B loads per A load through L1); short_m likewise keeps M <= 8 rows
 * of sums, with M loads of A per float4 of B. Beyond that the tiled
 * kernels' reuse grows with the short side while the skinny kernels' cost
 * grows with it; where exactly they cross above 8 is for a measurement. */
#define CB_MATMUL_SKINNY_MAX 8

/* The 128 x 128 tile's resident blocks per SM (its launch bound): the
 * slots a wave of its tiles fills. */
static const int cb_m128n128k8_per_sm = cb_wt_shape<4, 2, 2, 2, 8>::MIN_BLOCKS;

/* Skinny first: n <= 8 (and narrower than tall) is narrow_n, m <= 8 is
 * short_m; when both are, the shorter side picks (m = 8, n = 1: eight
 * rows of A dotted with one column, narrow_n). Otherwise a tile: fewer
 * blocks than SMs leaves SMs idle for the whole kernel, which costs more
 * than the lower data reuse of a smaller tile.
 *
 * 128 x 128 tiles over at least one whole wave whose last wave is at most
 * 85 % full take the stream-K tail (matmul_stream_k.h): on an H200 8192^2
 * is 4096 tiles on 264 slots, 15.5 waves run as 16, and the tail spreads
 * the last 136 tiles' work over all 264 (22.82 -> 22.24 ms). Beyond its
 * share the tail costs about 0.1 ms at 4096^2 and 8192^2 alike (its
 * kernel's slower k-slices, the partial sums' round trip through L2, a
 * second launch): a half-idle last wave repays that, an 88 % full one
 * (4096^2: 0.5 % slower with the tail) or a 91 % full one does not
 * (tests/data/h200-r3/fp32-streamk). Only whole tiles in m and n: the
 * stream-K kernel's edge paths pair ~300 of their 512 FFMAs in a register
 * bank, against 131-171 on whole tiles (matmul_warptile_sk.h). */
extern "C" cb_matmul_config cb_matmul_config_auto(int m, int n, int sm_count)
{
    if (n <= CB_MATMUL_SKINNY_MAX && n < m) return CB_MATMUL_NARROW_N;
    if (m <= CB_MATMUL_SKINNY_MAX) return CB_MATMUL_SHORT_M;
    const long long need = sm_count > 0 ? sm_count : 1;
    const long long tiles = (long long)cb_cdiv(m, 128) * cb_cdiv(n, 128);
    if (tiles >= need) {
        const long long slots = need * cb_m128n128k8_per_sm, last = tiles % slots;
        if (m % 128 == 0 && n % 128 == 0 && tiles >= slots && last != 0 && 20 * last <= 17 * slots)
            return CB_MATMUL_M128N128K8_STREAMK;
        return CB_MATMUL_M128N128K8;
    }
    if ((long long)cb_cdiv(m, 128) * cb_cdiv(n, 64) >= need) return CB_MATMUL_M128N64K8;
    return CB_MATMUL_M64N64K8;
}

/* The `config` axis: `auto` (cb_matmul_config_auto) or one of
 * CB_MATMUL_CONFIG_NAMES, whose position is its cb_matmul_config. */
static int cb_pipelined_variant_of(const char *text, int m, int n, int sm_count, char *why,
                                   size_t len)
{
    return cb_matmul_config_of(text, CB_MATMUL_CONFIG_NAMES,
                               (int)cb_matmul_config_auto(m, n, sm_count), why, len);
}

CB_MATMUL_RUNG_OF(pipelined, cb_pipelined_instances, "config", cb_pipelined_variant_of);
