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

static cudaError_t cb_matmul_pipelined(const cb_matmul_args *g, int variant, cudaStream_t stream)
{
    switch (variant) {
#define CB_X(cfg, wm, wn, sm, sn, bk)                                                              \
    case cfg:                                                                                      \
        return cb_wt_launch<wm, wn, sm, sn, bk, true>(g, stream);
        CB_PIPELINED_CONFIGS(CB_X)
#undef CB_X
    default:
        return cudaErrorInvalidValue;
    }
}

static cudaError_t cb_matmul_pipelined_query(const cb_matmul_args *g, int variant,
                                             cb_matmul_launch_info *info)
{
    switch (variant) {
#define CB_X(cfg, wm, wn, sm, sn, bk)                                                              \
    case cfg:                                                                                      \
        return cb_wt_query<wm, wn, sm, sn, bk, true>(g, info);
        CB_PIPELINED_CONFIGS(CB_X)
#undef CB_X
    default:
        return cudaErrorInvalidValue;
    }
}

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
    if (strcmp(text, "auto") == 0) return (int)cb_matmul_config_auto(m, n, sm_count);
    const char *list = CB_MATMUL_CONFIG_NAMES;
    const size_t want = strlen(text);
    for (int i = 0; *list; i++) {
        const size_t item = strcspn(list, ",");
        if (item == want && strncmp(list, text, want) == 0) return i;
        list += item + (list[item] == ',');
    }
    snprintf(why, len, "config=%s: not one of auto," CB_MATMUL_CONFIG_NAMES, text);
    return -1;
}

extern "C" const cb_matmul_rung cb_matmul_rung_pipelined = {
    .name = "pipelined",
    .launch = cb_matmul_pipelined,
    .query = cb_matmul_pipelined_query,
    .variant_axis = "config",
    .variant_of = cb_pipelined_variant_of,
};
