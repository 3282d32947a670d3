/* vecadd_host.h - the CPU vector add, registered in bench/vecadd.c. */
#ifndef CB_VECADD_HOST_H
#define CB_VECADD_HOST_H

#include "bench.h"

/* The vector length of every vecadd entry, GPU and CPU: one definition, so
 * that `n` reads the same in each; each entry picks its sweep. */
#define CB_VECADD_N_AXIS(defaults_list)                                                            \
    {                                                                                              \
        .name = "n", .kind = CB_AXIS_INT, .defaults = defaults_list, .min_value = 1,               \
        .help = "elements per vector (float32)"                                                    \
    }

#define CB_VECADD_HOST_N_AXES 2
extern const cb_axis_def cb_vecadd_host_axes[CB_VECADD_HOST_N_AXES];

cb_status cb_vecadd_host_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                               cb_point_info *info, cb_msg *why);
cb_status cb_vecadd_host_run(void *state, cudaStream_t stream, cb_msg *why);
cb_status cb_vecadd_host_verify(void *state, double *error, cb_msg *why);
void cb_vecadd_host_teardown(void *state);

#endif
