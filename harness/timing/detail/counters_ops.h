/* counters_ops.h - the CUPTI calls the counters module makes, as two tables.
 *
 * counters_cupti_host.c and counters_cupti_target.c fill them with CUPTI
 * itself; the CPU tests pass stand-ins (a chip's recorded metric list, a
 * profiler that refuses or returns scripted values), so validation, the
 * skip path and the pass loop are tested without a GPU. Every call returns
 * a CUptiResult (cupti_result.h is plain C; cupti_profiler_host.h is not). */
#ifndef CB_COUNTERS_OPS_H
#define CB_COUNTERS_OPS_H

#include "cb_common.h"

#include <cupti_result.h>
#include <stddef.h>
#include <stdint.h>

/* Declare NAME, the parameter struct TYPE of a CUPTI call, with its
 * structSize set as every CUPTI call asks (TYPE_STRUCT_SIZE) and the fields
 * given after it: the two CUPTI-backed tables write each call's struct
 * through this rather than spelling the type twice. */
#define CB_CUPTI_PARAMS(TYPE, NAME, ...) TYPE NAME = {.structSize = TYPE##_STRUCT_SIZE, __VA_ARGS__}

/* CUpti_MetricType's values. */
enum { CB_METRIC_COUNTER = 0, CB_METRIC_RATIO = 1, CB_METRIC_THROUGHPUT = 2, CB_METRIC_TYPES = 3 };

typedef struct cb_metric_props {
    const char *description; /* owned by the host object */
    const char *dim_unit;    /* "byte", "percent", "nanosecond", ... */
    int type;                /* CB_METRIC_* */
} cb_metric_props;

/* The host side (cupti_profiler_host.h): one chip's metrics, without a GPU.
 * A host object accumulates the metrics of one config image: validate a
 * name on a fresh object (a failed add spoils the object it was made on). */
typedef struct cb_counters_host_ops {
    CUptiResult (*chips)(const char *const **names, size_t *n);
    CUptiResult (*open)(const char *chip, void **host);
    void (*close)(void *host);
    CUptiResult (*base_metrics)(void *host, int type, const char *const **names, size_t *n);
    CUptiResult (*properties)(void *host, const char *name, cb_metric_props *props);
    CUptiResult (*submetrics)(void *host, const char *base, int type, const char *const **subs,
                              size_t *n);
    /* Add `names` to the object and build its config image (malloc'd into
     * *image) and the number of replay passes it needs. */
    CUptiResult (*config)(void *host, const char *const *names, size_t n, uint8_t **image,
                          size_t *size, size_t *passes);
    /* The metrics' values in one range (0-based, in launch order) of a
     * decoded counter data image. */
    CUptiResult (*evaluate)(void *host, const uint8_t *data, size_t size, size_t range,
                            const char *const *names, size_t n, double *values);
    const char *(*result_name)(CUptiResult r);
} cb_counters_host_ops;

/* What cuptiProfilerDeviceSupported says, as CUpti_Profiler_Support_Level
 * values (3 supported, 2 disabled by the system, 1 unsupported, 0 unknown). */
typedef struct cb_counters_support {
    int overall, architecture, sli, vgpu, confidential_compute, cmp, wsl;
} cb_counters_support;

/* How a metric pass delimits its ranges. Per kernel: CUPTI's auto ranges,
 * one around each kernel launched between start and stop, which is what
 * Nsight Compute measures (the range lasts as long as the kernel). Whole
 * run: one user range (push/pop) around the point's whole enqueue, which
 * also sees copies but lasts from the push to the pop, launch gaps
 * included. */
typedef enum cb_counters_scope {
    CB_COUNTERS_PER_KERNEL = 0,
    CB_COUNTERS_WHOLE_RUN = 1,
} cb_counters_scope;

/* The target side (cupti_profiler_target.h, cupti_range_profiler.h,
 * cupti_target.h) and the two CUDA calls the pass needs. */
typedef struct cb_counters_target_ops {
    CUptiResult (*initialize)(void); /* cuptiProfilerInitialize, once */
    void (*deinitialize)(void);
    CUptiResult (*chip_name)(int device, const char **chip);
    CUptiResult (*device_supported)(int device, cb_counters_support *s);
    /* The current CUDA context (the runner's device is current). */
    CUptiResult (*current_context)(void **ctx);
    /* Ask for the counter availability image: where the driver refuses
     * counters to this user it says so here, before anything is enabled. */
    CUptiResult (*availability)(void *ctx);
    CUptiResult (*enable)(void *ctx, void **profiler);
    CUptiResult (*disable)(void *profiler);
    /* Size, allocate (malloc) and initialize a counter data image for up
     * to `max_ranges` ranges of `names`. */
    CUptiResult (*counter_data)(void *profiler, const char *const *names, size_t n,
                                size_t max_ranges, uint8_t **data, size_t *size);
    /* The config, the ranges (`scope`, at most `max_ranges` per pass) and
     * user replay: cubench replays the point's enqueue pass after pass. */
    CUptiResult (*set_config)(void *profiler, const uint8_t *config, size_t config_size,
                              uint8_t *data, size_t data_size, cb_counters_scope scope,
                              size_t max_ranges);
    CUptiResult (*start)(void *profiler);
    CUptiResult (*push)(void *profiler, const char *range); /* whole run only */
    CUptiResult (*pop)(void *profiler);
    CUptiResult (*stop)(void *profiler, bool *all_passes_submitted);
    CUptiResult (*decode)(void *profiler, size_t *ranges_dropped);
    CUptiResult (*ranges)(const uint8_t *data, size_t size, size_t *n);
    /* Wait for the device; false with the CUDA error in *why. */
    bool (*synchronize)(cb_msg *why);
} cb_counters_target_ops;

/* CUPTI's own tables (counters_cupti_host.c, counters_cupti_target.c). */
const cb_counters_host_ops *cb_counters_cupti_host(void);
const cb_counters_target_ops *cb_counters_cupti_target(void);

typedef struct cb_counters_ops {
    const cb_counters_host_ops *host;
    const cb_counters_target_ops *target;
} cb_counters_ops;

struct cb_counters;

/* cb_counters_open with other tables (tests); NULL members mean CUPTI's.
 * With ops->target == NULL and n_ordinals > 0 the chips come from CUPTI. */
cb_status cb_counters_open_with(const char *spec, const int *ordinals, int n_ordinals,
                                const cb_counters_ops *ops, struct cb_counters **out, cb_msg *why);

#endif
