/* matmul_pipelined.cu - rung 8: the warp-tiled kernel with a software
 * pipeline (see matmul_warptile.h): register-staged global prefetch of the
 * next k-slice, two shared-memory stages with one barrier per slice, and
 * double-buffered register fragments. `variant` is a cb_matmul_config. */
#include "matmul_warptile.h"

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
};

/* Fewer blocks than SMs leaves SMs idle for the whole kernel, which costs
 * more than the lower data reuse of a smaller tile. */
extern "C" cb_matmul_config cb_matmul_config_auto(int m, int n, int sm_count)
{
    const long long need = sm_count > 0 ? sm_count : 1;
    if ((long long)cb_cdiv(m, 128) * cb_cdiv(n, 128) >= need) return CB_MATMUL_M128N128K8;
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
