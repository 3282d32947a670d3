/* cubench_api.h - the flat C interface of libcubench.so, for front ends that
 * are not C: the Python package drives it with ctypes, so every type here is
 * a plain integer, double, char pointer or struct of those (no enum in a
 * struct, no cb_point, no callback that takes a C struct by value).
 *
 * One runner: a front end describes its benchmarks (cb_api_bench), and this
 * layer turns them into cb_bench table entries whose hooks are trampolines
 * (cubench_api.c) that call the front end's five hooks (cb_api_hooks) with
 * the benchmark's handle. The C runner then plans, verifies, times, records
 * CUPTI and NVTX and writes the run directory exactly as for the C families.
 *
 * Order of calls:
 *   cb_api_sizeof / cb_api_offsetof    a binding checks its copies of the
 *                                      structs below against the library's
 *   cb_api_init(&hooks, err, len)      hooks + the C families (once)
 *   cb_api_add_family(...)             every front-end family (repeatable)
 *   cb_api_set_meta_hook(hook)         optional: the front end's own meta file
 *   cb_api_run(argc, argv, &result)    `cubench run ...`: the run directory
 *                                      and totals come back
 *   cb_api_main(argc, argv)            any other `cubench <command> ...`
 *   cb_api_reset()                     forget every family (tests)
 */
#ifndef CB_API_H
#define CB_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever a signature below changes; struct layouts are checked
 * field by field (cb_api_sizeof, cb_api_offsetof), not through this. */
#define CB_API_ABI_VERSION 2

/* What a hook returns. 0 is reserved: ctypes makes a callback whose Python
 * code raised past its own handler return 0, and that must never read as
 * success. Anything other than these is treated as CB_API_BROKEN. */
enum {
    CB_API_BROKEN = 0, /* the hook itself failed: a fail row saying so */
    CB_API_OK = 1,
    CB_API_SKIP = 2, /* the point cannot run here; `why` says why      */
    CB_API_FAIL = 3, /* an error or a wrong result; `why` says which  */
    /* The user interrupted the front end's code (KeyboardInterrupt): the
     * run stops as after Ctrl-C (exit 130); the point is not written. */
    CB_API_INTERRUPTED = 4,
};

/* Values of cb_api_bench.target / timer / peak and cb_api_axis.kind: the
 * engine's enums (bench.h, axis.h) as plain ints. */
enum { CB_API_TARGET_CUDA = 0, CB_API_TARGET_HOST = 1 };
enum { CB_API_TIMER_DEFAULT = 0, CB_API_TIMER_EVENT = 1, CB_API_TIMER_HOST = 2 };
enum { CB_API_PEAK_NONE = 0, CB_API_PEAK_DRAM = 1, CB_API_PEAK_PCIE = 2, CB_API_PEAK_FP32 = 3 };
enum { CB_API_AXIS_INT = 0, CB_API_AXIS_ENUM = 1, CB_API_AXIS_FLOAT = 2 };
enum { CB_API_WORK_BYTES = 0, CB_API_WORK_FLOPS = 1 };

/* One axis, in the grammar of axis.h. */
typedef struct cb_api_axis {
    const char *name;
    int32_t kind;         /* CB_API_AXIS_*                              */
    const char *defaults; /* a SPEC                                      */
    const char *choices;  /* comma-separated words, or NULL / ""         */
    int64_t min_value;    /* smallest integer accepted (INT axes)        */
    const char *help;     /* one line, with the unit                     */
} cb_api_axis;

/* One benchmark. Everything is copied by cb_api_add_family. */
typedef struct cb_api_bench {
    const char *name;    /* "family/variant"                           */
    const char *summary; /* one line for `cubench list`                */
    int32_t target;      /* CB_API_TARGET_*                            */
    int32_t timer;       /* CB_API_TIMER_*                             */
    int32_t peak;        /* CB_API_PEAK_*                              */
    int32_t n_axes;      /* 0 .. 8 (0: one point, no axes)              */
    const cb_api_axis *axes;
    const char *ref_bench; /* same-axes reference for pct_ref, or NULL   */
    int32_t has_bytes;     /* the work hook answers CB_API_WORK_BYTES    */
    int32_t has_flops;     /* ... CB_API_WORK_FLOPS                      */
    int64_t handle;        /* the front end's id, handed back to hooks   */
} cb_api_bench;

/* What a hook sees of a point: parallel arrays in declaration order. */
typedef struct cb_api_point {
    int32_t n_axes;
    const char *const *names;
    const int64_t *ints;      /* the integer, or -1 for a word (`auto`)   */
    const char *const *texts; /* canonical text: "1024", "auto", "pinned" */
    const char *text;         /* "n=1024;block=256": the row's `axes`     */
    const double *floats;     /* the number (FLOAT axes; INT axes: the integer) */
} cb_api_point;

/* What the runner gives setup. */
typedef struct cb_api_ctx {
    uint64_t stream;      /* the runner's cudaStream_t as an integer; 0 on host */
    int32_t device;       /* CUDA ordinal; -1 for host benchmarks             */
    int32_t sm_count;     /* 0 for host benchmarks                            */
    int64_t l2_bytes;     /* 0 for host benchmarks                            */
    uint64_t seed;        /* for random inputs                                */
    int32_t host_threads; /* threads a host benchmark may use                 */
} cb_api_ctx;

/* What setup may report besides its status (cb_point_info of bench.h). */
typedef struct cb_api_info {
    double occupancy;                         /* 0..1, or < 0 when not a kernel launch       */
    int32_t memcpy_src_kind, memcpy_dst_kind; /* CUPTI kinds to check; 0 none */
    char note[160];                           /* the row's note, or ""          */
} cb_api_info;

/* The hooks, shared by every front-end benchmark; `bench` is the handle of
 * cb_api_bench, `state` whatever setup stored in *state. `why` has room
 * for why_len bytes including the NUL. */
typedef int32_t (*cb_api_setup_hook)(int64_t bench, const cb_api_point *point,
                                     const cb_api_ctx *ctx, int64_t *state, cb_api_info *info,
                                     char *why, size_t why_len);
typedef int32_t (*cb_api_run_hook)(int64_t state, uint64_t stream, char *why, size_t why_len);
typedef int32_t (*cb_api_verify_hook)(int64_t state, double *error, char *why, size_t why_len);
typedef void (*cb_api_teardown_hook)(int64_t state);
/* bytes or flops of one run at `point` (which: CB_API_WORK_*); NaN: none. */
typedef double (*cb_api_work_hook)(int64_t bench, int32_t which, const cb_api_point *point);

typedef struct cb_api_hooks {
    cb_api_setup_hook setup;
    cb_api_run_hook run;
    cb_api_verify_hook verify;
    cb_api_teardown_hook teardown;
    cb_api_work_hook work;
} cb_api_hooks;

/* CB_API_ABI_VERSION of the library. */
int32_t cb_api_abi_version(void);

/* "0.1.0 (abc123def456)": the version and source of the library. */
const char *cb_api_version(void);

/* Keep `hooks` (all five required; may be called again to replace them)
 * and register the C families compiled in (once). 0 on success, else -1
 * with a message in err. */
int32_t cb_api_init(const cb_api_hooks *hooks, char *err, size_t err_len);

/* Register a family of front-end benchmarks, every name "name/variant".
 * Copies everything. 0 on success; -1 with a message (a duplicate name, an
 * axis the grammar refuses, no axes, a missing hook set). */
int32_t cb_api_add_family(const char *name, const cb_api_bench *benches, int32_t count, char *err,
                          size_t err_len);

/* What cb_api_run reports. */
typedef struct cb_api_run_result {
    char dir[4096];    /* the run directory; "" when none was made        */
    int32_t exit_code; /* as `cubench run` exits (README: exit codes)     */
    int32_t ok, noisy, skip, fail;
    int32_t interrupted; /* 1 when Ctrl-C (or a hook's INTERRUPTED) stopped it */
} cb_api_run_result;

/* `cubench run ARGS...` in this process: argv[0] is "run", the rest are its
 * options and globs. The run directory and totals land in *result; the
 * first Ctrl-C stops the run between samples and also reaches the host's
 * own SIGINT handler (Python raises KeyboardInterrupt in its next bytecode:
 * a hook that sees it returns CB_API_INTERRUPTED). Returns the exit code. */
int32_t cb_api_run(int32_t argc, char **argv, cb_api_run_result *result);

/* A front end's own meta file: called with the run directory after
 * meta.json is first written (final 0) and again at the end (final 1).
 * Nonzero (with a reason in why) is a failed write: the run stops with
 * exit 1. NULL removes it. */
typedef int32_t (*cb_api_meta_hook)(const char *dir, int32_t final, char *why, size_t why_len);
void cb_api_set_meta_hook(cb_api_meta_hook hook);

/* The size of an API struct ("cb_api_bench", ...) and the offset of one of
 * its fields, as this library was compiled; -1 when the name is unknown.
 * A binding compares its own layout with these at load time. */
int64_t cb_api_sizeof(const char *type);
int64_t cb_api_offsetof(const char *type, const char *field);

/* Run `cubench ARGS...` in this process: argv[0] is the program name as the
 * run should record it, argv[1] the command (run, list, env, compare...).
 * Returns the CLI's exit code. stdout and stderr are flushed before it
 * returns, and the SIGINT/SIGTERM handlers the runner installs are replaced
 * by the ones in place before the call. */
int32_t cb_api_main(int32_t argc, char **argv);

/* CUDA devices the library sees (cubench's view, to set a framework's
 * beside); 0 with the reason in why when there are none. */
int32_t cb_api_device_count(char *why, size_t why_len);

/* "NVIDIA H200, GPU-1a2b..., sm_90, 132 SMs" for device `ordinal`; 0, or -1
 * with the reason in buf. */
int32_t cb_api_device_describe(int32_t ordinal, char *buf, size_t len);

/* Forget every family (C and front end) and free the front end's copies;
 * the next cb_api_init registers the C families again. Not during a run. */
void cb_api_reset(void);

#ifdef __cplusplus
}
#endif

#endif
