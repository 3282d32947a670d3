/* test_setup_sizes.c - a sweep value too large for memory is a `skip` with
 * the numbers, from every setup, before anything is allocated: byte counts
 * that overflow 64 bits (n = 2^62 floats x 12 bytes) and counts that fit 64
 * bits but not this machine (12 TiB of host memory). Host setups are run
 * for real; GPU setups are run with a made-up device, which works here
 * because an overflowing count is refused before the first CUDA call. */
/* test links: cubench_engine cubench_bench */
#include "cb_test.h"
#include "families.h"
#include "plan.h"
#include "plan_test_util.h"
#include "registry.h"

#include <stdlib.h>

/* An H200-like device: only what setups read before allocating. */
static const cb_device_info fake_dev = {.name = "made-up",
                                        .sm_count = 132,
                                        .max_threads_per_block = 1024,
                                        .max_threads_per_sm = 2048,
                                        .max_blocks_per_sm = 32,
                                        .warp_size = 32};

/* Plan `bench` with the overrides and run the first point's setup: it must
 * skip with a reason that contains `needle`. */
static void check_skip(const char *bench, const char *const *axes, int n_axes, const char *needle)
{
    cb_msg err = {{0}};
    cb_plan plan;
    bool planned = cb_test_plan(bench, axes, n_axes, &fake_dev, 1000, &plan, &err);
    CB_CHECK(planned);
    if (!planned) {
        fprintf(stderr, "  %s: %s\n", bench, err.text);
        return;
    }
    const cb_planned_point *pp = &plan.points[0];
    cb_bench_ctx ctx = {.param = pp->bench->param,
                        .dev = pp->bench->target == CB_TARGET_CUDA ? &fake_dev : NULL,
                        .seed = 1,
                        .host_threads = 1};
    void *state = NULL;
    cb_point_info info = {.occupancy = -1};
    cb_msg why = {{0}};
    cb_status s = pp->bench->setup(&pp->point, &ctx, &state, &info, &why);
    CB_CHECK_EQ_INT(s, CB_SKIP);
    CB_CHECK(strstr(why.text, needle) != NULL);
    if (s != CB_SKIP || !strstr(why.text, needle))
        fprintf(stderr, "  %s %s: status %d, reason '%s' (wanted '%s')\n", bench, axes[0], (int)s,
                why.text, needle);
    if (state && pp->bench->teardown) pp->bench->teardown(state);
    cb_plan_free(&plan);
}

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);

    /* Host: 2^62 floats x 3 vectors overflows; 2^40 floats is 12 TiB. */
    check_skip("vecadd/host", (const char *[]){"n=2^62", "threads=1"}, 2, "overflows 64 bits");
    check_skip("vecadd/host", (const char *[]){"n=2^40", "threads=1"}, 2,
               "needs 12.0 TiB of host memory; ");
    check_skip("matmul/host_blocked", (const char *[]){"m=2147483647"}, 1, "overflows 64 bits");
    check_skip("matmul/host_blocked", (const char *[]){"m=2^20"}, 1, "TiB of host memory; ");

    /* GPU: counts that overflow are refused before any CUDA call. */
    const char *gpu_vecadd[] = {"vecadd/thread_per_elem", "vecadd/float4_per_thread",
                                "vecadd/grid_stride", "vecadd/grid_stride_float4"};
    for (int i = 0; i < CB_ARRAY_LEN(gpu_vecadd); i++)
        check_skip(gpu_vecadd[i], (const char *[]){"n=2^62", "block=256"}, 2,
                   "of device memory (the byte count overflows 64 bits)");
    const char *gpu_matmul[] = {"matmul/naive_coalesced", "matmul/smem_tiled", "matmul/cublas_fp32",
                                "matmul/cublas_bf16"};
    for (int i = 0; i < CB_ARRAY_LEN(gpu_matmul); i++)
        check_skip(gpu_matmul[i], (const char *[]){"m=2147483647"}, 1, "overflows 64 bits");

    /* Transfers: page-locked host memory comes first (half the available). */
    check_skip("transfers/memcpy_sync",
               (const char *[]){"bytes=2^62", "memory=pinned", "direction=h2d"}, 3,
               "of host memory; ");
    check_skip("transfers/zero_copy", (const char *[]){"bytes=2^62"}, 1, "of host memory; ");
    check_skip("transfers/overlap", (const char *[]){"bytes=2^62", "streams=1", "fma=0"}, 3,
               "of host memory; ");
    return cb_test_finish("test_setup_sizes");
}
