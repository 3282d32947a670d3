/* bench.h - the benchmark descriptor every family fills in.
 *
 * A benchmark is data: a designated-initialiser table entry in bench/<family>.c
 * naming its axes, its work model and four hooks. Benchmarks never time
 * themselves: `run` only enqueues work on the stream it is given (host
 * benchmarks do the work in `run`), and the runner owns warm-up, batching,
 * L2 flushing, NVTX ranges, events and statistics.
 *
 * Order of calls for one point:
 *   setup -> run -> (sync) -> verify -> run x warm-up -> run x samples -> teardown
 * `setup` must poison every output so that `verify` catches unwritten data, and
 * fill inputs with random (never zero) values.
 */
#ifndef CB_BENCH_H
#define CB_BENCH_H

#include "device.h"
#include "point.h"

#include <cuda_runtime_api.h>

typedef enum cb_target {
    CB_TARGET_CUDA, /* needs a CUDA device; timed with CUDA events by default */
    CB_TARGET_HOST, /* plain CPU code; timed with the host monotonic clock    */
} cb_target;

/* Which timer measures a sample. CUDA benchmarks default to events; a CUDA
 * benchmark whose `run` blocks the host (synchronous cudaMemcpy from pageable
 * memory) may ask for the host clock around `run` + stream sync instead. */
typedef enum cb_timer_kind {
    CB_TIMER_DEFAULT = 0, /* events for CUDA, host clock for HOST            */
    CB_TIMER_EVENT,
    CB_TIMER_HOST,
} cb_timer_kind;

/* Which theoretical peak `pct_peak` in results.csv is taken against. */
typedef enum cb_peak_kind {
    CB_PEAK_NONE = 0,
    CB_PEAK_DRAM, /* GB/s: 2 x memory clock x bus width / 8 (device attributes) */
    CB_PEAK_PCIE, /* GB/s: link generation rate x width x encoding efficiency  */
    CB_PEAK_FP32, /* TFLOP/s: SMs x FP32 lanes/SM x 2 x max SM clock           */
} cb_peak_kind;

/* What kind of measurement a point is. The judge picks a point's default
 * between-run spread by its kind (docs/compare.md): a kernel timed on the
 * device varies far less between processes than a copy through host
 * memory or a Python call. */
typedef enum cb_point_kind {
    CB_KIND_AUTO = 0,    /* from target, timer and devices (cb_bench_kind)   */
    CB_KIND_DEVICE,      /* GPU work timed on the device                     */
    CB_KIND_HOST_COPY,   /* a copy to or from host memory, or GPU work that
                          * the host clock times (synchronous calls)        */
    CB_KIND_STAGED_COPY, /* a copy to or from pageable host memory, which
                          * the driver stages through its own buffer with
                          * the CPU: the host's memory system is timed    */
    CB_KIND_HOST,        /* CPU code                                         */
    CB_KIND_PYTHON,      /* a Python framework's call                        */
    CB_KIND_MULTI_GPU,   /* several GPUs in one point                        */
} cb_point_kind;

/* "device", "host_copy", "staged_copy", "host", "python", "multi_gpu"
 * (results.csv). */
const char *cb_point_kind_name(cb_point_kind kind);

/* How a key figure picks its row among the candidates. */
typedef enum cb_key_rule {
    CB_KEY_BEST = 0, /* the highest GB/s or TFLOP/s                         */
    CB_KEY_LARGEST,  /* the largest work (CPU figures: the best of a small,
                      * cache-resident size says little about the machine) */
} cb_key_rule;

/* A key figure a benchmark's points are candidates for: the report's
 * headline table and `cubench fleet` take, per name, the row the rule
 * picks among the ok rows. The judge and the reports read the name and the
 * rule from results.csv (`key_figure`, `key_rule`): they never name a
 * benchmark themselves. */
typedef struct cb_key_figure {
    const char *name;  /* "vecadd", "pinned H2D"; NULL ends a list         */
    const char *where; /* "memory=pinned;direction=h2d": every axis=value
                        * listed must hold; NULL: every point             */
    cb_key_rule rule;
} cb_key_figure;

/* What a benchmark needs of the GPU beyond what every architecture of the
 * build runs (FP32 SIMT code runs on all of them; cp.async and BF16/TF32
 * tensor cores start at sm_80; wgmma and TMA of sm_90a code run on 9.0
 * only). The runner checks it before setup (capability.h): a GPU outside
 * [min_cc, max_cc] gives a `skip` row "needs sm_80 (cp.async); this GPU is
 * sm_75", and `cubench env` lists it as a benchmark that cannot run there.
 * All zero (the default of a designated initialiser) means no need. */
typedef struct cb_bench_needs {
    int min_cc;          /* lowest compute capability, major * 10 + minor: 80   */
    int max_cc;          /* highest, for arch-specific code (sm_90a: 90); 0: none */
    const char *feature; /* what needs it, for the reason: "cp.async"            */
    /* False (the default): the feature is in the build's own kernels, so the
     * code the build runs on the GPU must be new enough too - a compute_75
     * PTX build JIT-compiled for sm_90 holds the sub-sm_80 stubs of a
     * cp.async kernel, not the kernel. True: a library with GPU code of its
     * own (cuBLAS) provides it, and only the device is checked. */
    bool library_code;
    /* Optional: cudaFuncGetAttributes on the benchmark's own kernel, for code
     * built for other architectures than CMAKE_CUDA_ARCHITECTURES (sm_90a
     * files). The build's common code is probed for every CUDA benchmark. */
    cudaError_t (*probe)(void);
    /* Optional: the variant's own facts hold min_cc, max_cc and feature (a
     * ladder whose kernels declare what they need, so the facts are written
     * once, beside the code): filled from `param` before every check. */
    void (*from_param)(const void *param, int *min_cc, int *max_cc, const char **feature);
} cb_bench_needs;

/* What the runner gives `setup`. */
typedef struct cb_bench_ctx {
    const void *param;         /* the benchmark's `param` (its variant)        */
    const cb_device_info *dev; /* NULL for host benchmarks                    */
    /* Every device of the run (`--device all|0,2`), dev among them; a
     * benchmark that needs several (peer copies, collectives) uses these.
     * The runner's stream and events live on `dev`. */
    const cb_device_info *const *devs;
    int n_devs;
    cudaStream_t stream; /* the runner's dedicated stream (CUDA only)    */
    uint64_t seed;       /* for the benchmark's random inputs            */
    int host_threads;    /* threads a host benchmark may use             */
} cb_bench_ctx;

/* What `setup` may report about a point besides its status. */
typedef struct cb_point_info {
    double occupancy; /* theoretical occupancy 0..1 of the launch; < 0 if none */
    char note[160];   /* one line for the results' `note` column, or ""       */
    /* CUPTI memcpy kinds (CUpti_ActivityMemoryKind: 1 pageable, 2 pinned,
     * 3 device) that every copy of a run must show; 0 means not checked. */
    int memcpy_src_kind, memcpy_dst_kind;
    /* The point's kind when it is not the benchmark's (a copy family whose
     * device-to-device points are device kernels); AUTO keeps it. */
    cb_point_kind kind;
    /* The precision this point's own path can reach, as a relative half-
     * width of the 95% CI of the median, when it is coarser than the run's
     * --target-ci (a copy the driver stages through its pageable bounce
     * buffer, host-timed; CPU threads on a shared host): the stopping rule
     * stops at the larger of the two, and the row's note names the target
     * it used. 0 keeps the run's target. */
    double target_ci_rel;
} cb_point_info;

/* The precision a CPU baseline on several threads declares: threads on
 * every core share them with the runner's own, the driver's and, on a
 * virtual machine, the hypervisor's; on the H200's 16-core host the
 * median's CI after the 1 s budget was 0.6-3.9% (docs/methodology.md),
 * where one thread reaches the run's 0.5%. */
#define CB_HOST_THREADS_TARGET_CI 0.03

/* The hooks, as types, so that families can declare shared ones. */
typedef cb_status (*cb_setup_fn)(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                                 cb_point_info *info, cb_msg *why);
typedef cb_status (*cb_run_fn)(void *state, cudaStream_t stream, cb_msg *why);
typedef cb_status (*cb_verify_fn)(void *state, double *error, cb_msg *why);
typedef void (*cb_teardown_fn)(void *state);
typedef double (*cb_work_fn)(const cb_point *p);

typedef struct cb_bench {
    const char *name;    /* "family/variant", e.g. "vecadd/grid_stride"      */
    const char *summary; /* one line for `cubench list`                       */
    cb_target target;
    cb_point_kind kind;   /* AUTO: host, multi_gpu, host_copy or device  */
    cb_bench_needs needs; /* CUDA only: compute capability and feature    */
    cb_timer_kind timer;
    const cb_axis_def *axes;
    int n_axes;
    cb_peak_kind peak;
    /* Devices one point uses at most (0 or 1: one). The runner runs a
     * benchmark that needs several once per run, not once per device, and
     * hands it every device of the run in ctx->devs; its setup skips a
     * point that needs more than the run has. */
    int devices;
    /* Optional: name of a benchmark with the same axes whose median at the
     * same point gives `pct_ref` (e.g. cuBLAS for the matmul ladder). */
    const char *ref_bench;
    /* Optional: the key figures its points are candidates for (a list
     * ended by an entry whose name is NULL). */
    const cb_key_figure *key_figures;
    /* Work model: the minimum bytes moved (what GB/s counts) and the flops of
     * ONE run. Either may be NULL when it means nothing for the benchmark. */
    cb_work_fn bytes;
    cb_work_fn flops;
    /* The variant: anything the shared hooks need to tell this table entry
     * from its siblings (a kernel enum, a config struct). Handed to `setup`
     * as ctx->param, so one setup serves every variant of a family. */
    const void *param;
    /* Allocate, fill inputs, poison outputs. CB_SKIP with a reason when the
     * point cannot run here (limits, memory, missing library). */
    cb_setup_fn setup;
    /* Enqueue one run on `stream` (host: do it). Returns CB_FAIL with a
     * message when a launch or call fails. Must not synchronize the stream
     * unless the API it measures is itself synchronous. */
    cb_run_fn run;
    /* Check the output of the run that came before. *error is the measured
     * error (0 for exact checks). CB_FAIL with a message when wrong. */
    cb_verify_fn verify;
    cb_teardown_fn teardown;
} cb_bench;

/* The one axes macro of every descriptor table: `CB_AXES(axes_n_block)`. */
#define CB_AXES(table) .axes = (table), .n_axes = CB_ARRAY_LEN(table)

/* The benchmark's needs with `from_param` applied. */
cb_bench_needs cb_bench_needs_of(const cb_bench *b);

/* The kind of the benchmark's points (AUTO resolved). */
cb_point_kind cb_bench_kind(const cb_bench *b);

/* The key figure point `p` of `b` is a candidate for, or NULL. */
const cb_key_figure *cb_bench_key_figure(const cb_bench *b, const cb_point *p);

#endif
