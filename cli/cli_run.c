/* cli_run.c - `cubench run`: the option table, then the engine's session.
 *
 * Everything that can be wrong with the command line (options, globs, axis
 * values, devices, the output directory) is refused before the first point
 * runs, with one line and exit code 2. The run itself is cb_session_run's. */
#include "cli.h"

#include "options.h"
#include "parse_number.h"
#include "session.h"
#include "stats.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OVERRIDES 32

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

/* What the options fill; numbers as the option layer stores them. */
typedef struct run_args {
    cb_axis_override overrides[MAX_OVERRIDES];
    int n_overrides;
    const char *out_dir;
    const char *device;
    int cache; /* index in "cold,hot" */
    double max_time_s;
    long long min_samples;
    double target_rel;
    bool quick;
    long long replicates; /* 0: auto */
    bool keep_throttled;
    bool full_budget;
    long long seed;
    long long threads;
    int timer; /* index in "event,cupti" */
    bool no_cupti, no_nvtx, no_telemetry;
    double telemetry_period_s;
    long long lock_mhz;
    bool profile, dry_run, quiet;
    const char *metrics;
} run_args;

static bool take_replicates(void *args, const char *value, cb_msg *why)
{
    run_args *a = args;
    if (strcmp(value, "auto") == 0) {
        a->replicates = 0;
        return true;
    }
    if (!cb_parse_int(value, 1, 1000, &a->replicates, why)) {
        cb_msg_set(why, "'%.60s' is not auto or a whole number in [1, 1000]", value);
        return false;
    }
    return true;
}

static bool take_axis(void *args, const char *value, cb_msg *why)
{
    run_args *a = args;
    if (a->n_overrides == MAX_OVERRIDES) {
        cb_msg_set(why, "at most %d --axis options", MAX_OVERRIDES);
        return false;
    }
    if (!cb_axis_override_parse(value, &a->overrides[a->n_overrides], why)) return false;
    a->n_overrides++;
    return true;
}

#define OFF(field) offsetof(run_args, field)

static const cb_option run_options[] = {
    CB_OPTION_REPEATED("axis", "[GLOB:]NAME=VALUES", take_axis,
                       "override an axis of every selected benchmark that has it, or with GLOB of\n"
                       "the benchmarks it matches only ('matmul/*:n=4096'); repeatable, the last\n"
                       "that applies wins.\n"
                       "VALUES: lists 32,64,128; ranges START:STOP[:STEP] with STEP xK\n"
                       "(multiply) or +K; powers 2^20; units k M G, Ki Mi Gi (KiB MiB GiB);\n"
                       "SM multiples 4sm; words like auto"),
    CB_OPTION_STRING("out", "DIR", OFF(out_dir),
                     "write here (a new or empty directory; default results/<UTC time>-<host>);\n"
                     "a run never overwrites another"),
    CB_OPTION_STRING("device", "N|all|N,M", OFF(device),
                     "CUDA device(s): every single-GPU point runs on each, in turn, into one\n"
                     "run directory (rows say `device`); multi-GPU points (p2p, nccl) run once\n"
                     "over them all. An ordinal the machine lacks is refused; without a GPU,\n"
                     "leave it out and GPU points are skipped (default 0)"),
    CB_OPTION_CHOICE("cache", "cold|hot", "cold,hot", OFF(cache),
                     "cold: flush L2 before every sample, one run per sample;\n"
                     "hot: batch runs into samples >= 100 us"),
    CB_OPTION_NUMBER(CB_OPT_DOUBLE, "max-time-per-point", "S", OFF(max_time_s), 0, 86400,
                     "sampling budget per point in seconds; a point that runs out with its CI\n"
                     "still wider than the target is `noisy`"),
    CB_OPTION_NUMBER(CB_OPT_INT, "min-samples", "N", OFF(min_samples), 1, 10000,
                     "samples before the stopping rule may stop (at least the fewest that can\n"
                     "give a 95% CI of the median: 6)"),
    CB_OPTION_DOUBLE_SCALED("target-ci", "PCT", OFF(target_rel), 0.001, 100, 0.01,
                            "stop when the 95% CI of the median is within +-PCT % of it"),
    CB_OPTION_FLAG("quick", OFF(quick),
                   "smoke run: 6 samples, +-2% target, 0.05 s per point, 1 warm-up run"),
    {.name = "replicates",
     .kind = CB_OPT_HANDLER,
     .metavar = "auto|R",
     .handle = take_replicates,
     .help = "rounds: run the point list R times, each point set up afresh per round,\n"
             "rounds interleaved over the points; each round gets 1/R of the time\n"
             "budget. auto (default): 3 rounds for points under 65 us per run, 1 for\n"
             "the rest (the first round with the whole budget). samples.csv says which\n"
             "round each sample is from (docs/methodology.md)"},
    CB_OPTION_FLAG("keep-throttled", OFF(keep_throttled),
                   "keep samples taken while the GPU throttles (studies of sustained power);\n"
                   "by default they are set aside and the runner waits for the clock to\n"
                   "recover"),
    CB_OPTION_FLAG("full-budget", OFF(full_budget),
                   "rounds that cannot reach the CI target sample to the end of their budget;\n"
                   "by default one stops, `noisy`, once half its budget is spent if its\n"
                   "interval, shrinking as 1/sqrt(n), would still be over 3x the target\n"
                   "(docs/methodology.md)"),
    CB_OPTION_NUMBER(CB_OPT_INT, "seed", "N", OFF(seed), 0, 4611686018427387904.0,
                     "seed of the random inputs"),
    CB_OPTION_NUMBER_DEFAULT_IN_HELP(
        CB_OPT_INT, "threads", "N", OFF(threads), 1, 256,
        "threads for host benchmarks, OpenBLAS's included\n(default: all cores)"),
    CB_OPTION_CHOICE("timer", "event|cupti", "event,cupti", OFF(timer),
                     "what the statistics use (CUPTI times are recorded next to events\n"
                     "whenever CUPTI is on)"),
    CB_OPTION_FLAG("no-cupti", OFF(no_cupti), "no CUPTI subscriber (use under nsys or ncu)"),
    CB_OPTION_FLAG("no-nvtx", OFF(no_nvtx), "no NVTX ranges"),
    /* At least 1 ms: one reading is five NVML calls of tens of microseconds
     * each. */
    CB_OPTION_DOUBLE_SCALED(
        "telemetry-period", "MS", OFF(telemetry_period_s), 1, 10000, 1e-3,
        "NVML readings (SM/memory clock, power, temperature, throttle reasons)\n"
        "every MS ms while a point samples (docs/telemetry.md)"),
    CB_OPTION_NUMBER_DEFAULT_IN_HELP(
        CB_OPT_INT, "lock-clocks", "MHZ", OFF(lock_mhz), 100, 5000,
        "lock every sampled GPU's SM clock at MHZ for the run through NVML (needs\n"
        "root or `nvidia-smi -acp UNRESTRICTED`); reset at the end, on exit and on\n"
        "a second Ctrl-C; recorded in meta.json. Off by default: a shared machine's\n"
        "clocks are not cubench's to change"),
    CB_OPTION_FLAG("no-telemetry", OFF(no_telemetry),
                   "no NVML sampler (the telemetry columns stay empty)"),
    CB_OPTION_STRING("metrics", "PRESET|LIST", OFF(metrics),
                     "hardware counters of each GPU point in a replay pass after its samples:\n"
                     "sol, memory, compute, or CUPTI metric names, comma-separated\n"
                     "(sol,dram__bytes_read.sum); results.csv gains the sol_* columns,\n"
                     "metrics.csv every metric (docs/counters.md)"),
    CB_OPTION_FLAG("profile", OFF(profile),
                   "bracket the sampling with cudaProfilerStart/Stop; needs exactly one\n"
                   "point. Prints the ncu/nsys command lines"),
    CB_OPTION_FLAG("dry-run", OFF(dry_run),
                   "print the points and exit (GPU points too, without a GPU: values that\n"
                   "need the device, like 4sm, unresolved)"),
    CB_OPTION_FLAG("quiet", OFF(quiet), "no progress line"),
};

static const cb_env_var run_env[] = {
    CB_ENV_VAR_NVML_LIBRARY,
    {"CUDA_VISIBLE_DEVICES", "which GPUs the CUDA runtime shows (and so --device numbers)"},
    {"NVTX_INJECTION64_PATH", "an NVTX tool to load instead of CUPTI's (nsys, ncu set it)"},
};

static const cb_command run_command = {
    .name = "run",
    .synopsis = "[GLOB...] [options]",
    .about = "Runs every benchmark matching a GLOB ('vecadd*', 'matmul/smem_tiled', or a\n"
             "family name); with none, the whole default suite. Without a GPU, CUDA\n"
             "benchmarks are skipped (left out of the default suite) and the CPU\n"
             "baselines run.",
    CB_COMMAND_OPTIONS(run_options),
    CB_COMMAND_ENV(run_env),
    .epilogue = "exit codes: 0 all points ran (ok, noisy or skip); 1 at least one point\n"
                "failed or a file could not be written; 2 bad usage or input;\n"
                "130 interrupted (the files hold every finished point)",
    .min_args = 0,
    .max_args = -1,
};

/* The option defaults, from the engine's run defaults. */
static void run_defaults(run_args *a)
{
    cb_run_config cfg;
    cb_run_config_defaults(&cfg);
    cb_telemetry_options t;
    cb_telemetry_options_defaults(&t);
    memset(a, 0, sizeof *a);
    a->max_time_s = cfg.stop.max_time_s;
    a->min_samples = cfg.stop.min_samples;
    a->target_rel = cfg.stop.target_rel;
    a->replicates = cfg.replicates;
    a->seed = (long long)cfg.seed;
    a->threads = cfg.host_threads;
    a->telemetry_period_s = t.period_s;
}

/* Options into the session's settings; -1 to go on, else an exit code. */
static int settings_of(const run_args *a, const cb_parsed *p, cb_session_request *req)
{
    cb_run_config *cfg = &req->cfg;
    cb_run_config_defaults(cfg);
    cb_telemetry_options_defaults(&req->telemetry);
    if (a->min_samples < ci_min_samples())
        return cb_options_refuse(
            &run_command,
            "--min-samples %lld: a 95%% CI of the median needs at least %d samples (with %d, "
            "the widest interval [min, max] covers only %.2f%%)",
            a->min_samples, ci_min_samples(), ci_min_samples() - 1,
            100.0 * (1.0 - 2.0 / (double)(1LL << (ci_min_samples() - 1))));
    if (a->timer == 1 && a->no_cupti)
        return cb_options_refuse(&run_command,
                                 "--timer cupti and --no-cupti contradict each other");
    cfg->cache = a->cache == 1 ? CB_CACHE_HOT : CB_CACHE_COLD;
    cfg->stop.max_time_s = a->max_time_s;
    cfg->stop.min_samples = (int)a->min_samples;
    cfg->stop.target_rel = a->target_rel;
    cfg->replicates = (int)a->replicates;
    cfg->keep_throttled = a->keep_throttled;
    if (a->full_budget) cfg->stop.futile_share = 0.0;
    cfg->seed = (uint64_t)a->seed;
    cfg->host_threads = (int)a->threads;
    cfg->cupti_primary = a->timer == 1;
    cfg->use_cupti = !a->no_cupti;
    cfg->nvtx = !a->no_nvtx;
    cfg->profile = a->profile;
    cfg->quiet = a->quiet;
    req->telemetry.off = a->no_telemetry;
    req->telemetry.period_s = a->telemetry_period_s;
    req->telemetry.lock_mhz = (unsigned)a->lock_mhz;
    if (a->quick) {
        /* --quick sets what the user did not set. */
        if (!cb_options_seen(&run_command, p, "min-samples"))
            cfg->stop.min_samples = ci_min_samples();
        if (!cb_options_seen(&run_command, p, "max-time-per-point")) cfg->stop.max_time_s = 0.05;
        if (!cb_options_seen(&run_command, p, "target-ci")) cfg->stop.target_rel = 0.02;
        cfg->warmup_runs = 1;
    }
    req->globs = (const char *const *)p->args;
    req->n_globs = p->n_args;
    req->overrides = a->overrides;
    req->n_overrides = a->n_overrides;
    req->out_dir = a->out_dir;
    req->device_spec = a->device;
    req->dry_run = a->dry_run;
    req->metrics = a->metrics;
    return -1;
}

static void print_notice(void *ctx, const char *text)
{
    (void)ctx;
    fprintf(stderr, "cubench: %s\n", text);
}

static void print_point(void *ctx, int device, const cb_planned_point *pp, const char *skip_why)
{
    (void)ctx;
    char axes[CB_POINT_TEXT] = "";
    if (pp->point.expanded) cb_point_format(&pp->point, axes, sizeof axes);
    if (device >= 0) printf("[device %d] ", device);
    if (pp->skip_reason[0])
        printf("%s %s (skip: %s)\n", pp->bench->name, axes, skip_why);
    else
        printf("%s %s\n", pp->bench->name, axes);
}

int cb_cli_run_with(int argc, char **argv, int full_argc, char **full_argv,
                    const cb_cli_run_hooks *hooks, cb_session_result *result)
{
    static run_args args; /* the overrides are large: not on the stack */
    run_defaults(&args);
    cb_parsed parsed;
    memset(result, 0, sizeof *result);
    int rc = cb_options_parse_defaulted(&run_command, argc, argv, &args, sizeof args, &parsed);
    if (rc >= 0) return rc;
    cb_session_request req;
    memset(&req, 0, sizeof req);
    rc = settings_of(&args, &parsed, &req);
    if (rc >= 0) return rc;
    req.argc = full_argc;
    req.argv = full_argv;
    req.notice = print_notice;
    req.list_point = print_point;
    if (hooks) {
        req.write_meta = hooks->write_meta;
        req.ctx = hooks->ctx;
        req.chain_signals = hooks->chain_signals;
    }
    cb_msg why = {{0}};
    rc = cb_session_run(&req, result, &why);
    if (rc == CB_EXIT_USAGE || (rc != CB_EXIT_OK && why.text[0]))
        fprintf(stderr, "cubench run: %s\n", why.text);
    if (req.dry_run && rc == CB_EXIT_OK) fprintf(stderr, "%d points\n", result->n_points);
    return rc;
}

int cb_cli_run(int argc, char **argv, int full_argc, char **full_argv)
{
    cb_session_result result;
    return cb_cli_run_with(argc, argv, full_argc, full_argv, NULL, &result);
}
