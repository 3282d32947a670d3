/* cli_run.c - `cubench run`: parse, plan, open the output, run, finalise.
 *
 * Everything that can be wrong with the command line (options, globs, axis
 * values, the output directory) is checked before the first point runs, and
 * answered with a message and exit code 2. */
#include "cli.h"
#include "counters.h"
#include "cupti_timer.h"
#include "meta.h"
#include "nvtx_ranges.h"
#include "fit.h"
#include "plan.h"
#include "runner.h"
#include "profile_point.h"
#include "registry.h"
#include "signals.h"
#include "telemetry.h"

#include <cuda_runtime_api.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_OVERRIDES 32
#define MAX_POINTS    200000

/* The confidence level of the stopping rule's interval (stats.c). */
#define CI_LEVEL 0.95

/* The fewest samples whose order statistics can bracket the median at
 * CI_LEVEL: with n samples the widest interval, [x(1), x(n)], covers it
 * with probability 1 - 2 / 2^n, 93.75% for n = 5 and 96.9% for n = 6.
 * Fewer samples can never meet a CI target, so --quick uses this many and
 * --min-samples refuses less. */
static int ci_min_samples(void)
{
    int n = 1, lo, hi;
    while (!cb_stats_median_ci_ranks(n, CI_LEVEL, &lo, &hi))
        n++;
    return n;
}

static void run_usage(FILE *f)
{
    fprintf(
        f,
        "usage: cubench run [GLOB...] [options]\n"
        "  Runs every benchmark matching a GLOB ('vecadd*', 'matmul/smem_tiled', or a family\n"
        "  name); with none, the whole default suite. Without a GPU, CUDA benchmarks are\n"
        "  skipped (left out of the default suite) and the CPU baseline runs.\n"
        "\n"
        "options:\n"
        "  --axis NAME=VALUES      override an axis of every selected benchmark that has it;\n"
        "                          repeatable. VALUES: lists 32,64,128; ranges START:STOP[:STEP]\n"
        "                          with STEP xK (multiply) or +K; powers 2^20; units k M G,\n"
        "                          Ki Mi Gi (KiB MiB GiB); SM multiples 4sm; words like auto\n"
        "  --out DIR               write here (new or empty directory; default\n"
        "                          results/<UTC time>-<host>); a run never overwrites another\n"
        "  --device N|all|N,M,...  CUDA device(s): every single-GPU point runs on each, in\n"
        "                          turn, into one run directory (rows say `device`);\n"
        "                          multi-GPU points (p2p, nccl) run once over them all\n"
        "                          (an ordinal the machine lacks is refused; without a GPU,\n"
        "                          only the default: GPU points are then skipped)\n"
        "                          (default 0)\n"
        "  --cache cold|hot        cold: flush L2 before every sample, one run per sample\n"
        "                          (default); hot: batch runs into samples >= 100 us\n"
        "  --max-time-per-point S  sampling budget per point in seconds (default 1)\n"
        "  --min-samples N         samples before the stopping rule may stop (default 10;\n"
        "                          at least %d, the fewest that can give a 95%% CI)\n"
        "  --target-ci PCT         stop when the 95%% CI of the median is within +-PCT %%\n"
        "                          of it (default 0.5)\n"
        "  --quick                 smoke run: %d samples, +-2%% target, 0.05 s per point\n"
        "  --replicates R          run the point list R times (default 1), each point set\n"
        "                          up afresh per round, rounds interleaved over the points;\n"
        "                          each round gets 1/R of the time budget. samples.csv\n"
        "                          says which round each sample is from (docs/methodology.md)\n"
        "  --seed N                seed of the random inputs (default fixed)\n"
        "  --threads N             threads for host benchmarks (default: all cores)\n"
        "  --timer event|cupti     what the statistics use (default event; CUPTI times\n"
        "                          are recorded next to events whenever CUPTI is on)\n"
        "  --no-cupti              no CUPTI subscriber (use under nsys or ncu)\n"
        "  --no-nvtx               no NVTX ranges\n"
        "  --telemetry-period MS   NVML readings (SM/memory clock, power, temperature,\n"
        "                          throttle reasons) every MS ms while a point samples\n"
        "                          (default 10; docs/telemetry.md)\n"
        "  --no-telemetry          no NVML sampler (the telemetry columns stay empty)\n"
        "  --metrics PRESET|LIST   hardware counters of each GPU point in a replay pass after\n"
        "                          its samples: sol, memory, compute, or CUPTI metric names,\n"
        "                          comma-separated (sol,dram__bytes_read.sum); results.csv\n"
        "                          gains the sol_* columns, metrics.csv every metric\n"
        "                          (docs/counters.md)\n"
        "  --profile               bracket the sampling with cudaProfilerStart/Stop; needs\n"
        "                          exactly one point. Prints the ncu/nsys command lines\n"
        "  --dry-run               print the points and exit (GPU points too, without a\n"
        "                          GPU: values that need the device, like 4sm, unresolved)\n"
        "  --quiet                 no progress line\n"
        "\n"
        "exit codes: 0 all points ran (ok, noisy or skip); 1 at least one point failed;\n"
        "            2 bad usage or input; 130 interrupted (files hold every finished point)\n",
        ci_min_samples(), ci_min_samples());
}

typedef struct run_args {
    cb_run_config cfg;
    const char *out_dir;
    const char *device_spec; /* "0" (default), "all", or "0,2,..."   */
    bool device_given;
    cb_axis_override overrides[MAX_OVERRIDES];
    int n_overrides;
    bool dry_run;
    const char **globs;
    int n_globs;
    cb_telemetry_options telemetry;
    const char *metrics; /* --metrics, or NULL */
} run_args;

/* Parse options into `a`; returns -1 to go on, else an exit code. */
static int parse_run_args(int argc, char **argv, run_args *a)
{
    enum {
        O_AXIS = 256,
        O_OUT,
        O_DEVICE,
        O_CACHE,
        O_MAXT,
        O_MINS,
        O_CI,
        O_QUICK,
        O_SEED,
        O_THREADS,
        O_TIMER,
        O_NOCUPTI,
        O_NONVTX,
        O_PROFILE,
        O_DRY,
        O_QUIET,
        O_REPLICATES,
        O_TPERIOD,
        O_NOTELEM,
        O_METRICS
    };
    static const struct option opts[] = {{"axis", required_argument, NULL, O_AXIS},
                                         {"out", required_argument, NULL, O_OUT},
                                         {"device", required_argument, NULL, O_DEVICE},
                                         {"cache", required_argument, NULL, O_CACHE},
                                         {"max-time-per-point", required_argument, NULL, O_MAXT},
                                         {"min-samples", required_argument, NULL, O_MINS},
                                         {"target-ci", required_argument, NULL, O_CI},
                                         {"quick", no_argument, NULL, O_QUICK},
                                         {"seed", required_argument, NULL, O_SEED},
                                         {"threads", required_argument, NULL, O_THREADS},
                                         {"timer", required_argument, NULL, O_TIMER},
                                         {"no-cupti", no_argument, NULL, O_NOCUPTI},
                                         {"no-nvtx", no_argument, NULL, O_NONVTX},
                                         {"profile", no_argument, NULL, O_PROFILE},
                                         {"dry-run", no_argument, NULL, O_DRY},
                                         {"quiet", no_argument, NULL, O_QUIET},
                                         {"replicates", required_argument, NULL, O_REPLICATES},
                                         {"telemetry-period", required_argument, NULL, O_TPERIOD},
                                         {"no-telemetry", no_argument, NULL, O_NOTELEM},
                                         {"metrics", required_argument, NULL, O_METRICS},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    cb_run_config_defaults(&a->cfg);
    cb_telemetry_options_defaults(&a->telemetry);
    bool quick = false, set_time = false, set_min = false, set_ci = false;
    long long iv;
    double dv;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_AXIS: {
            if (a->n_overrides == MAX_OVERRIDES) {
                fprintf(stderr, "cubench run: at most %d --axis options\n", MAX_OVERRIDES);
                return CB_EXIT_USAGE;
            }
            cb_msg err;
            if (!cb_axis_override_parse(optarg, &a->overrides[a->n_overrides], &err)) {
                fprintf(stderr, "cubench run: %s\n", err.text);
                return CB_EXIT_USAGE;
            }
            a->n_overrides++;
            break;
        }
        case O_OUT:
            a->out_dir = optarg;
            break;
        case O_DEVICE:
            a->device_spec = optarg;
            a->device_given = true;
            break;
        case O_CACHE:
            if (strcmp(optarg, "cold") == 0)
                a->cfg.cache = CB_CACHE_COLD;
            else if (strcmp(optarg, "hot") == 0)
                a->cfg.cache = CB_CACHE_HOT;
            else {
                fprintf(stderr, "cubench run: --cache: '%s' is not cold or hot\n", optarg);
                return CB_EXIT_USAGE;
            }
            break;
        case O_MAXT:
            if (!cb_cli_parse_double("run", "--max-time-per-point", optarg, 0, 86400, &dv))
                return CB_EXIT_USAGE;
            a->cfg.stop.max_time_s = dv;
            set_time = true;
            break;
        case O_MINS:
            if (!cb_cli_parse_int("run", "--min-samples", optarg, 1, 10000, &iv))
                return CB_EXIT_USAGE;
            if (iv < ci_min_samples()) {
                fprintf(
                    stderr,
                    "cubench run: --min-samples %lld: a 95%% CI of the median needs at least %d "
                    "samples (with %d, the widest interval [min, max] covers only %.2f%%)\n",
                    iv, ci_min_samples(), ci_min_samples() - 1,
                    100.0 * (1.0 - 2.0 / (double)(1LL << (ci_min_samples() - 1))));
                return CB_EXIT_USAGE;
            }
            a->cfg.stop.min_samples = (int)iv;
            set_min = true;
            break;
        case O_CI:
            if (!cb_cli_parse_double("run", "--target-ci", optarg, 0.001, 100, &dv))
                return CB_EXIT_USAGE;
            a->cfg.stop.target_rel = dv / 100.0;
            set_ci = true;
            break;
        case O_QUICK:
            quick = true;
            break;
        case O_SEED:
            if (!cb_cli_parse_int("run", "--seed", optarg, 0, (long long)1 << 62, &iv))
                return CB_EXIT_USAGE;
            a->cfg.seed = (uint64_t)iv;
            break;
        case O_THREADS:
            if (!cb_cli_parse_int("run", "--threads", optarg, 1, 256, &iv)) return CB_EXIT_USAGE;
            a->cfg.host_threads = (int)iv;
            break;
        case O_TIMER:
            if (strcmp(optarg, "event") == 0)
                a->cfg.cupti_primary = false;
            else if (strcmp(optarg, "cupti") == 0)
                a->cfg.cupti_primary = true;
            else {
                fprintf(stderr, "cubench run: --timer: '%s' is not event or cupti\n", optarg);
                return CB_EXIT_USAGE;
            }
            break;
        case O_NOCUPTI:
            a->cfg.use_cupti = false;
            break;
        case O_NONVTX:
            a->cfg.nvtx = false;
            break;
        case O_PROFILE:
            a->cfg.profile = true;
            break;
        case O_DRY:
            a->dry_run = true;
            break;
        case O_QUIET:
            a->cfg.quiet = true;
            break;
        case O_REPLICATES:
            if (!cb_cli_parse_int("run", "--replicates", optarg, 1, 1000, &iv))
                return CB_EXIT_USAGE;
            a->cfg.replicates = (int)iv;
            break;
        case O_TPERIOD:
            /* From 1 ms: one reading is five NVML calls of tens of microseconds each. */
            if (!cb_cli_parse_double("run", "--telemetry-period", optarg, 1, 10000, &dv))
                return CB_EXIT_USAGE;
            a->telemetry.period_s = dv / 1e3;
            break;
        case O_NOTELEM:
            a->telemetry.off = true;
            break;
        case O_METRICS:
            a->metrics = optarg;
            break;
        case 'h':
            run_usage(stdout);
            return CB_EXIT_OK;
        default:
            run_usage(stderr);
            return CB_EXIT_USAGE;
        }
    }
    if (a->cfg.cupti_primary && !a->cfg.use_cupti) {
        fprintf(stderr, "cubench run: --timer cupti and --no-cupti contradict each other\n");
        return CB_EXIT_USAGE;
    }
    if (quick) {
        if (!set_min) a->cfg.stop.min_samples = ci_min_samples();
        if (!set_time) a->cfg.stop.max_time_s = 0.05;
        if (!set_ci) a->cfg.stop.target_rel = 0.02;
        a->cfg.warmup_runs = 1;
    }
    a->globs = (const char **)argv + optind;
    a->n_globs = argc - optind;
    return -1;
}

/* The points of one pass; `device` >= 0 prefixes them when the run has
 * several devices. */
static void print_points(const cb_plan *plan, int device, const char *no_device_reason)
{
    for (int i = 0; i < plan->n; i++) {
        const cb_planned_point *pp = &plan->points[i];
        char axes[CB_POINT_TEXT] = "";
        if (pp->point.n_axes) cb_point_format(&pp->point, axes, sizeof axes);
        if (device >= 0) printf("[device %d] ", device);
        /* The no-device reason is on stderr in full once, not on every line. */
        const char *why =
            strcmp(pp->skip_reason, no_device_reason) == 0 ? "no CUDA device" : pp->skip_reason;
        if (pp->skip_reason[0])
            printf("%s %s (skip: %s)\n", pp->bench->name, axes, why);
        else
            printf("%s %s\n", pp->bench->name, axes);
    }
}

/* ---- devices: --device N|all|N,M and one pass per device ---- */

#define CB_MAX_RUN_DEVICES 64

typedef struct device_set {
    int n;
    cb_device_info info[CB_MAX_RUN_DEVICES];
    const cb_device_info *ptr[CB_MAX_RUN_DEVICES];
    int ordinals[CB_MAX_RUN_DEVICES];
} device_set;

/* Resolve the --device text against the machine. Returns -1 to go on (ds
 * filled; ds->n == 0 without a usable device, the reason in *why), or an
 * exit code after a message. An ordinal the user named must exist. */
static int resolve_devices(const char *spec, bool given, device_set *ds, cb_msg *why)
{
    ds->n = 0;
    int count = cb_device_count(why);
    int want[CB_MAX_RUN_DEVICES], n_want = 0;
    if (strcmp(spec, "all") == 0) {
        for (int d = 0; d < count && d < CB_MAX_RUN_DEVICES; d++)
            want[n_want++] = d;
    } else {
        const char *p = spec;
        while (*p) {
            char *end = NULL;
            errno = 0;
            long v = strtol(p, &end, 10);
            if (end == p || errno || v < 0 || v > 4096 || (*end && *end != ',')) {
                fprintf(stderr,
                        "cubench run: --device: '%s' is not all or a list of ordinals "
                        "(0, or 0,2)\n",
                        spec);
                return CB_EXIT_USAGE;
            }
            if (n_want == CB_MAX_RUN_DEVICES) {
                fprintf(stderr, "cubench run: --device: at most %d devices\n", CB_MAX_RUN_DEVICES);
                return CB_EXIT_USAGE;
            }
            for (int k = 0; k < n_want; k++)
                if (want[k] == (int)v) {
                    fprintf(stderr, "cubench run: --device: %ld is listed twice\n", v);
                    return CB_EXIT_USAGE;
                }
            want[n_want++] = (int)v;
            p = *end ? end + 1 : end;
            if (*end && !*p) {
                fprintf(stderr, "cubench run: --device: '%s' ends with a comma\n", spec);
                return CB_EXIT_USAGE;
            }
        }
        if (n_want == 0) {
            fprintf(stderr, "cubench run: --device: empty\n");
            return CB_EXIT_USAGE;
        }
    }
    for (int k = 0; k < n_want; k++) {
        if (want[k] >= count) {
            if (count == 0 && !given) return -1; /* the default, on a machine without one */
            if (count == 0)
                fprintf(stderr, "cubench run: no CUDA device; --device %d cannot be used (%s)\n",
                        want[k], why->text);
            else
                fprintf(stderr, "cubench run: --device %d: only %d device(s) (0..%d)\n", want[k],
                        count, count - 1);
            return CB_EXIT_USAGE;
        }
    }
    for (int k = 0; k < n_want; k++) {
        if (cb_device_query(want[k], &ds->info[ds->n], why) != CB_OK) {
            fprintf(stderr, "cubench run: cannot query device %d: %s\n", want[k], why->text);
            return CB_EXIT_FAILURES;
        }
        ds->ptr[ds->n] = &ds->info[ds->n];
        ds->ordinals[ds->n] = want[k];
        ds->n++;
    }
    return -1;
}

/* A pass after the first runs only what runs per device: single-GPU CUDA
 * points. Host points and multi-GPU points ran in the first pass. */
static void keep_per_device_points(cb_plan *plan)
{
    int kept = 0;
    for (int i = 0; i < plan->n; i++) {
        const cb_bench *b = plan->points[i].bench;
        if (b->target == CB_TARGET_CUDA && b->devices <= 1) plan->points[kept++] = plan->points[i];
    }
    plan->n = kept;
}

static void free_plans(cb_plan *plans, int n)
{
    for (int d = 0; d < n; d++)
        cb_plan_free(&plans[d]);
}

/* Run every pass into the one sink; the rows of all passes end in *rows. */
static cb_status run_passes(cb_run_config *cfg, const device_set *ds, cb_plan *plans, int n_passes,
                            cb_sink *sink, cb_result **rows, cb_run_totals *totals, cb_msg *why)
{
    cb_result *all = NULL;
    int n_all = 0;
    memset(totals, 0, sizeof *totals);
    for (int d = 0; d < n_passes; d++) {
        if (ds->n > 0) cfg->dev = ds->ptr[d];
        if (ds->n > 1)
            fprintf(stderr, "cubench: device %d (%s): %d points\n", ds->ptr[d]->ordinal,
                    ds->ptr[d]->name, plans[d].n);
        cb_result *part = NULL;
        cb_run_totals t;
        cb_status st = cb_runner_run(cfg, plans[d].points, plans[d].n, sink, &part, &t, why);
        int n_part = t.ok + t.noisy + t.skip + t.fail;
        cb_result *grown = n_part ? realloc(all, sizeof *all * (size_t)(n_all + n_part)) : all;
        if (st != CB_OK || (n_part && !grown)) {
            free(part);
            *rows = all;
            if (st == CB_OK) cb_msg_set(why, "out of host memory for %d rows", n_all + n_part);
            return CB_FAIL;
        }
        all = grown;
        if (n_part) memcpy(all + n_all, part, sizeof *all * (size_t)n_part);
        n_all += n_part;
        free(part);
        totals->ok += t.ok, totals->noisy += t.noisy, totals->skip += t.skip,
            totals->fail += t.fail;
        totals->interrupted |= t.interrupted;
        totals->context_lost |= t.context_lost;
        totals->write_failed |= t.write_failed;
        if (t.stop_reason[0])
            snprintf(totals->stop_reason, sizeof totals->stop_reason, "%s", t.stop_reason);
        if (t.interrupted || t.write_failed || t.context_lost) break;
    }
    *rows = all;
    return CB_OK;
}

static int run_command(int argc, char **argv, int full_argc, char **full_argv);

int cb_cli_run(int argc, char **argv, int full_argc, char **full_argv)
{
    /* getopt_long permutes argv in place; meta.json records the command line
     * as typed, so keep a copy of the original order first. */
    char **typed = malloc(sizeof(char *) * (size_t)(full_argc + 1));
    if (!typed) return CB_EXIT_FAILURES;
    memcpy(typed, full_argv, sizeof(char *) * (size_t)full_argc);
    typed[full_argc] = NULL;
    full_argv = typed;
    int rc = run_command(argc, argv, full_argc, full_argv);
    free(typed);
    return rc;
}

static int run_command(int argc, char **argv, int full_argc, char **full_argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    int rc = parse_run_args(argc, argv, &a);
    if (rc >= 0) return rc;

    /* The devices, so that `sm` axis values and device limits can be used. */
    static device_set ds;
    cb_msg why = {{0}};
    rc = resolve_devices(a.device_given ? a.device_spec : "0", a.device_given, &ds, &why);
    if (rc >= 0) return rc;
    if (ds.n == 0) {
        snprintf(a.cfg.no_device_reason, sizeof a.cfg.no_device_reason, "%s", why.text);
    } else {
        a.cfg.devs = ds.ptr;
        a.cfg.n_devs = ds.n;
        a.cfg.dev = ds.ptr[0];
    }

    /* One plan per device (its `sm` values and limits are its own). */
    static cb_plan plans[CB_MAX_RUN_DEVICES];
    int n_passes = ds.n > 0 ? ds.n : 1, total = 0;
    bool has_cuda = false;
    for (int d = 0; d < n_passes; d++) {
        cb_plan_request req = {.globs = a.globs,
                               .n_globs = a.n_globs,
                               .overrides = a.overrides,
                               .n_overrides = a.n_overrides,
                               .dev = ds.n > 0 ? ds.ptr[d] : NULL,
                               .no_device_reason = a.cfg.no_device_reason,
                               .omit_cuda_without_device = a.n_globs == 0,
                               .expand_skipped = a.dry_run,
                               .max_points = MAX_POINTS};
        if (!cb_plan_build(&req, &plans[d], &why)) {
            fprintf(stderr, "cubench run: %s\n", why.text);
            free_plans(plans, d);
            return CB_EXIT_USAGE;
        }
        if (d > 0) keep_per_device_points(&plans[d]);
        total += plans[d].n;
        for (int i = 0; i < plans[d].n; i++)
            has_cuda |= plans[d].points[i].bench->target == CB_TARGET_CUDA;
    }
    /* --metrics: every name checked on the chips of the run's devices before
     * anything runs (counters.h); a bad one is a usage error. */
    if (a.metrics &&
        cb_counters_open(a.metrics, ds.ordinals, ds.n, &a.cfg.counters, &why) != CB_OK) {
        fprintf(stderr, "cubench run: %s\n", why.text);
        free_plans(plans, n_passes);
        return CB_EXIT_USAGE;
    }
    if (cb_counters_notice(a.cfg.counters))
        fprintf(stderr, "cubench: --metrics: %s\n", cb_counters_notice(a.cfg.counters));
    if (ds.n == 0 && has_cuda)
        fprintf(stderr, "cubench: no CUDA device (%s); GPU points are skipped\n", why.text);
    else if (ds.n == 0 && a.n_globs == 0)
        fprintf(stderr, "cubench: no CUDA device (%s); running the CPU baseline only\n", why.text);
    if (a.dry_run) {
        for (int d = 0; d < n_passes; d++)
            print_points(&plans[d], ds.n > 1 ? ds.ptr[d]->ordinal : -1, a.cfg.no_device_reason);
        fprintf(stderr, "%d points\n", total);
        cb_counters_close(a.cfg.counters);
        free_plans(plans, n_passes);
        return CB_EXIT_OK;
    }
    if (a.cfg.profile && total != 1) {
        fprintf(stderr,
                "cubench run: --profile needs exactly one point, the selection has %d; narrow it "
                "with a benchmark name, one value per --axis and one --device (see --dry-run)\n",
                total);
        cb_counters_close(a.cfg.counters);
        free_plans(plans, n_passes);
        return CB_EXIT_USAGE;
    }
    cb_plan plan = plans[0]; /* the first device's: --profile and the banner */

    cb_sink sink;
    if (!cb_sink_open(&sink, a.out_dir, &why)) {
        fprintf(stderr, "cubench run: %s\n", why.text);
        cb_counters_close(a.cfg.counters);
        free_plans(plans, n_passes);
        return CB_EXIT_USAGE;
    }
    /* NVML for the run's devices (matched by UUID); without it the telemetry
     * columns stay empty and meta.json says why. */
    const char *uuids[CB_MAX_RUN_DEVICES];
    for (int d = 0; d < ds.n; d++)
        uuids[d] = ds.ptr[d]->uuid;
    a.cfg.telemetry = cb_telemetry_open(&a.telemetry, uuids, ds.n);
    if (a.cfg.dev && !cb_telemetry_sampling(a.cfg.telemetry))
        fprintf(stderr, "cubench: no telemetry: %s\n",
                cb_telemetry_unavailable_reason(a.cfg.telemetry));
    cb_meta meta = {.argc = full_argc, .argv = full_argv, .started = time(NULL), .cfg = &a.cfg};
    snprintf(meta.cupti_state, sizeof meta.cupti_state, "%s",
             a.cfg.use_cupti ? "not started" : "off (--no-cupti)");
    if (!a.cfg.use_cupti) cb_cupti_set_off("--no-cupti");
    if (a.cfg.dev && a.cfg.use_cupti) {
        /* NVTX injection must be configured before the first NVTX call. */
        if (a.cfg.nvtx) cb_nvtx_init(true);
        (void)cudaSetDevice(a.cfg.dev->ordinal);
        if (cb_cupti_start(&why)) {
            snprintf(meta.cupti_state, sizeof meta.cupti_state, "active");
        } else {
            snprintf(meta.cupti_state, sizeof meta.cupti_state, "%s", cb_cupti_state());
            fprintf(stderr, "cubench: %s; timing with CUDA events only\n", why.text);
            if (a.cfg.cupti_primary) {
                fprintf(stderr, "cubench: --timer cupti falls back to events\n");
                a.cfg.cupti_primary = false;
            }
        }
    } else if (a.cfg.nvtx) {
        cb_nvtx_init(false);
    }
    if (!cb_meta_write(sink.dir, &meta, &why)) {
        /* Nothing ran: leave nothing behind, so a retry into --out works. */
        fprintf(stderr, "cubench run: %s\n", why.text);
        cb_sink_discard(&sink);
        cb_telemetry_close(a.cfg.telemetry);
        cb_counters_close(a.cfg.counters);
        free_plans(plans, n_passes);
        return CB_EXIT_FAILURES;
    }
    fprintf(stderr, "cubench: %d points%s -> %s/\n", total, ds.n > 1 ? " over the devices" : "",
            sink.dir);
    if (a.cfg.profile) {
        char axes[CB_POINT_TEXT];
        cb_point_format(&plan.points[0].point, axes, sizeof axes);
        const char *cache_args[] = {"--cache", "hot"};
        cb_profile_target target = {.program = full_argv[0],
                                    .bench = plan.points[0].bench->name,
                                    .axes = axes,
                                    .hot = a.cfg.cache == CB_CACHE_HOT,
                                    .n_extra = a.cfg.cache == CB_CACHE_HOT ? 2 : 0,
                                    .extra = cache_args};
        cb_profile_print_commands(stderr, &target);
    }

    cb_install_signal_handlers();
    cb_result *results = NULL;
    if (run_passes(&a.cfg, &ds, plans, n_passes, &sink, &results, &meta.totals, &why) != CB_OK) {
        fprintf(stderr, "cubench run: %s\n", why.text);
        meta.totals.write_failed = true;
    }
    a.cfg.dev = ds.n > 0 ? ds.ptr[0] : NULL; /* meta.json's "device" is the first */
    if (meta.totals.stop_reason[0])
        fprintf(stderr, "cubench run: stopped early: %s (every finished point is on disk)\n",
                meta.totals.stop_reason);
    int n_results = meta.totals.ok + meta.totals.noisy + meta.totals.skip + meta.totals.fail;
    /* The per-run files (fits.csv, and each family's own, e.g. overlap.csv)
     * are derived from the rows: a failure to write them is a write error. */
    bool written = !meta.totals.write_failed &&
                   cb_fits_write(sink.dir, results, n_results, &why) == CB_OK &&
                   cb_registry_write_outputs(sink.dir, results, n_results, &why) == CB_OK;
    if (!written && !meta.totals.write_failed) fprintf(stderr, "cubench run: %s\n", why.text);
    if (cb_cupti_active()) cb_cupti_stop();

    meta.finished = time(NULL);
    meta.complete = !meta.totals.interrupted && !meta.totals.context_lost && written;
    if (!cb_meta_write(sink.dir, &meta, &why)) {
        fprintf(stderr, "cubench run: %s\n", why.text);
        written = false;
    }
    cb_sink_close(&sink);
    cb_telemetry_close(a.cfg.telemetry);
    cb_counters_close(a.cfg.counters);
    fprintf(stderr, "cubench: %d ok, %d noisy, %d skip, %d fail%s; %s %s/results.csv\n",
            meta.totals.ok, meta.totals.noisy, meta.totals.skip, meta.totals.fail,
            meta.totals.interrupted ? " (interrupted)" : "",
            written ? "wrote" : "COULD NOT FINISH WRITING", sink.dir);
    free(results);
    free_plans(plans, n_passes);
    if (meta.totals.interrupted) return CB_EXIT_INTERRUPTED;
    if (!written) return CB_EXIT_FAILURES;
    return (meta.totals.fail || meta.totals.context_lost) ? CB_EXIT_FAILURES : CB_EXIT_OK;
}
