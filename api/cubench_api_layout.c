/* cubench_api_layout.c - the layout of every struct of cubench_api.h as
 * this library was compiled, so a binding (the Python package's ctypes
 * Structures) can check its own copy field by field at load time instead
 * of trusting a version number bumped by hand. */
#include "cubench_api.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

typedef struct api_field {
    const char *type, *field; /* field NULL: the row gives sizeof(type) */
    size_t value;
} api_field;

#define SIZE(t)                                                                                    \
    {                                                                                              \
#t, NULL, sizeof(t)                                                                        \
    }
#define FIELD(t, f)                                                                                \
    {                                                                                              \
#t, #f, offsetof(t, f)                                                                     \
    }

static const api_field api_layout[] = {
    SIZE(cb_api_axis),
    FIELD(cb_api_axis, name),
    FIELD(cb_api_axis, kind),
    FIELD(cb_api_axis, defaults),
    FIELD(cb_api_axis, choices),
    FIELD(cb_api_axis, min_value),
    FIELD(cb_api_axis, help),
    SIZE(cb_api_bench),
    FIELD(cb_api_bench, name),
    FIELD(cb_api_bench, summary),
    FIELD(cb_api_bench, target),
    FIELD(cb_api_bench, timer),
    FIELD(cb_api_bench, peak),
    FIELD(cb_api_bench, n_axes),
    FIELD(cb_api_bench, axes),
    FIELD(cb_api_bench, ref_bench),
    FIELD(cb_api_bench, has_bytes),
    FIELD(cb_api_bench, has_flops),
    FIELD(cb_api_bench, handle),
    SIZE(cb_api_point),
    FIELD(cb_api_point, n_axes),
    FIELD(cb_api_point, names),
    FIELD(cb_api_point, ints),
    FIELD(cb_api_point, texts),
    FIELD(cb_api_point, text),
    FIELD(cb_api_point, floats),
    SIZE(cb_api_ctx),
    FIELD(cb_api_ctx, stream),
    FIELD(cb_api_ctx, device),
    FIELD(cb_api_ctx, sm_count),
    FIELD(cb_api_ctx, l2_bytes),
    FIELD(cb_api_ctx, seed),
    FIELD(cb_api_ctx, host_threads),
    SIZE(cb_api_info),
    FIELD(cb_api_info, occupancy),
    FIELD(cb_api_info, memcpy_src_kind),
    FIELD(cb_api_info, memcpy_dst_kind),
    FIELD(cb_api_info, note),
    SIZE(cb_api_hooks),
    FIELD(cb_api_hooks, setup),
    FIELD(cb_api_hooks, run),
    FIELD(cb_api_hooks, verify),
    FIELD(cb_api_hooks, teardown),
    FIELD(cb_api_hooks, work),
    SIZE(cb_api_run_result),
    FIELD(cb_api_run_result, dir),
    FIELD(cb_api_run_result, exit_code),
    FIELD(cb_api_run_result, ok),
    FIELD(cb_api_run_result, noisy),
    FIELD(cb_api_run_result, skip),
    FIELD(cb_api_run_result, fail),
    FIELD(cb_api_run_result, interrupted),
};

static int64_t api_lookup(const char *type, const char *field)
{
    if (!type) return -1;
    for (size_t i = 0; i < sizeof api_layout / sizeof api_layout[0]; i++) {
        const api_field *f = &api_layout[i];
        bool same_field = field ? f->field && strcmp(f->field, field) == 0 : !f->field;
        if (strcmp(f->type, type) == 0 && same_field) return (int64_t)f->value;
    }
    return -1;
}

int64_t cb_api_sizeof(const char *type)
{
    return api_lookup(type, NULL);
}

int64_t cb_api_offsetof(const char *type, const char *field)
{
    return field ? api_lookup(type, field) : -1;
}
