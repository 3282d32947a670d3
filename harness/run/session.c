/* session.c - one run from request to finished directory (session.h).
 *
 * The phases, each a function below:
 *   session_devices    --device against the machine
 *   session_counters   --metrics checked on the devices' chips (counters.h)
 *   session_plans      one plan per device (its `sm` values and limits are
 *                      its own); later devices keep only per-device points
 *   session_open       the run directory, telemetry, NVTX and CUPTI, and
 *                      meta.json (plus the front end's own meta) at the start
 *   session_passes     the runner over every device's plan into one sink
 *   session_finish     fits.csv and the families' files, meta.json at the end
 * Everything a user can get wrong (devices, globs, axis values, the output
 * directory) is refused before the first point runs. */
#include "session.h"

#include "buffer_pool.h"
#include "counters.h"
#include "cupti_timer.h"
#include "device_set.h"
#include "fit.h"
#include "meta.h"
#include "noisy_account.h"
#include "nvtx_ranges.h"
#include "profile_point.h"
#include "registry.h"
#include "runner.h"
#include "signals.h"

#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CB_SESSION_MAX_POINTS 200000

/* What one session holds while it runs. */
typedef struct session {
    const cb_session_request *req;
    cb_session_result *res;
    cb_run_config cfg;
    cb_device_set devices;
    cb_plan plans[CB_MAX_RUN_DEVICES];
    int n_plans;
    cb_sink sink;
    bool sink_open;
    cb_meta meta;
    cb_result *rows;
    /* Host clock (cb_now_s) at the session's start, and around its points:
     * where the time outside the points went. */
    double t_begin, t_points_begin, t_points_end;
} session;

static void notice(const session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void notice(const session *s, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (s->req->notice)
        s->req->notice(s->req->ctx, text);
    else
        fprintf(stderr, "cubench: %s\n", text);
}

static int session_devices(session *s, cb_msg *why)
{
    const cb_session_request *req = s->req;
    cb_msg no_device = {{0}};
    cb_status st = cb_device_set_resolve(req->device_spec ? req->device_spec : "0",
                                         req->device_spec != NULL, &s->devices, &no_device, why);
    if (st == CB_SKIP) return CB_EXIT_USAGE;
    if (st != CB_OK) return CB_EXIT_FAILURES;
    if (s->devices.n == 0) {
        snprintf(s->cfg.no_device_reason, sizeof s->cfg.no_device_reason, "%s", no_device.text);
    } else {
        s->cfg.devs = s->devices.ptr;
        s->cfg.n_devs = s->devices.n;
        s->cfg.dev = s->devices.ptr[0];
    }
    return -1;
}

/* --metrics: every name checked on the chip of each device of the run (on
 * every chip CUPTI knows without one) before anything runs. */
static int session_counters(session *s, cb_msg *why)
{
    if (!s->req->metrics) return -1;
    int ordinals[CB_MAX_RUN_DEVICES];
    for (int d = 0; d < s->devices.n; d++)
        ordinals[d] = s->devices.ptr[d]->ordinal;
    if (cb_counters_open(s->req->metrics, ordinals, s->devices.n, &s->cfg.counters, why) != CB_OK)
        return CB_EXIT_USAGE;
    if (cb_counters_notice(s->cfg.counters))
        notice(s, "--metrics: %s", cb_counters_notice(s->cfg.counters));
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

static int session_plans(session *s, cb_msg *why)
{
    const cb_session_request *req = s->req;
    const cb_device_set *ds = &s->devices;
    int n_passes = ds->n > 0 ? ds->n : 1;
    bool has_cuda = false;
    for (int d = 0; d < n_passes; d++) {
        cb_plan_request pr = {.globs = req->globs,
                              .n_globs = req->n_globs,
                              .overrides = req->overrides,
                              .n_overrides = req->n_overrides,
                              .dev = ds->n > 0 ? ds->ptr[d] : NULL,
                              .no_device_reason = s->cfg.no_device_reason,
                              .omit_cuda_without_device = req->n_globs == 0,
                              .expand_skipped = req->dry_run,
                              .max_points = CB_SESSION_MAX_POINTS};
        if (!cb_plan_build(&pr, &s->plans[d], why)) return CB_EXIT_USAGE;
        s->n_plans = d + 1;
        if (d > 0) keep_per_device_points(&s->plans[d]);
        s->res->n_points += s->plans[d].n;
        for (int i = 0; i < s->plans[d].n; i++)
            has_cuda |= s->plans[d].points[i].bench->target == CB_TARGET_CUDA;
    }
    if (ds->n == 0 && has_cuda)
        notice(s, "no CUDA device (%s); GPU points are skipped", s->cfg.no_device_reason);
    else if (ds->n == 0 && req->n_globs == 0)
        notice(s, "no CUDA device (%s); running the CPU baseline only", s->cfg.no_device_reason);
    if (s->cfg.profile && s->res->n_points != 1) {
        cb_msg_set(why,
                   "--profile needs exactly one point, the selection has %d; narrow it with a "
                   "benchmark name, one value per --axis and one --device (see --dry-run)",
                   s->res->n_points);
        return CB_EXIT_USAGE;
    }
    return -1;
}

static void session_list(const session *s)
{
    for (int d = 0; d < s->n_plans; d++)
        for (int i = 0; i < s->plans[d].n; i++) {
            const cb_planned_point *pp = &s->plans[d].points[i];
            int device = s->devices.n > 1 ? s->devices.ptr[d]->ordinal : -1;
            /* The no-device reason was said once; each point just says so. */
            const char *why = strcmp(pp->skip_reason, s->cfg.no_device_reason) == 0
                                  ? "no CUDA device"
                                  : pp->skip_reason;
            if (s->req->list_point) s->req->list_point(s->req->ctx, device, pp, why);
        }
}

/* NVTX and CUPTI: NVTX injection must be configured before the first NVTX
 * call; CUPTI falls back to events only, saying why. */
static void session_observers(session *s)
{
    cb_run_config *cfg = &s->cfg;
    cb_meta *meta = &s->meta;
    snprintf(meta->cupti_state, sizeof meta->cupti_state, "%s",
             cfg->use_cupti ? "not started" : "off (--no-cupti)");
    if (!cfg->use_cupti) cb_cupti_set_off("--no-cupti");
    if (!cfg->dev || !cfg->use_cupti) {
        if (cfg->nvtx) cb_nvtx_init(false);
        return;
    }
    if (cfg->nvtx) cb_nvtx_init(true);
    (void)cudaSetDevice(cfg->dev->ordinal);
    cb_msg why = {{0}};
    if (cb_cupti_start(&why)) {
        snprintf(meta->cupti_state, sizeof meta->cupti_state, "active");
        return;
    }
    snprintf(meta->cupti_state, sizeof meta->cupti_state, "%s", cb_cupti_state());
    notice(s, "%s; timing with CUDA events only", why.text);
    if (cfg->cupti_primary) {
        notice(s, "--timer cupti falls back to events");
        cfg->cupti_primary = false;
    }
}

static bool session_telemetry(session *s, cb_msg *why)
{
    const char *uuids[CB_MAX_RUN_DEVICES];
    for (int d = 0; d < s->devices.n; d++)
        uuids[d] = s->devices.ptr[d]->uuid;
    s->cfg.telemetry = cb_telemetry_open(&s->req->telemetry, uuids, s->devices.n);
    if (s->cfg.dev && !cb_telemetry_sampling(s->cfg.telemetry))
        notice(s, "no telemetry: %s", cb_telemetry_unavailable_reason(s->cfg.telemetry));
    if (!s->req->telemetry.lock_mhz) return true;
    /* Opt-in: locked for the run, reset on every way out (clock_lock.c). */
    cb_signals_on_fatal(cb_telemetry_unlock_for_exit);
    if (cb_telemetry_lock_clocks(s->cfg.telemetry, s->req->telemetry.lock_mhz, why) != CB_OK)
        return false;
    notice(s, "SM clock locked at %u MHz for the run", s->req->telemetry.lock_mhz);
    return true;
}

/* meta.json, then the front end's own file. */
static bool write_metas(session *s, bool final, cb_msg *why)
{
    if (!cb_meta_write(s->sink.dir, &s->meta, why)) return false;
    return !s->req->write_meta || s->req->write_meta(s->req->ctx, s->sink.dir, final, why) == CB_OK;
}

static void print_profile_commands(session *s)
{
    const cb_planned_point *pp = &s->plans[0].points[0];
    char axes[CB_POINT_TEXT];
    cb_point_format(&pp->point, axes, sizeof axes);
    const char *cache_args[] = {"--cache", "hot"};
    bool hot = s->cfg.cache == CB_CACHE_HOT;
    cb_profile_target target = {.program = s->req->argc > 0 ? s->req->argv[0] : "cubench",
                                .bench = pp->bench->name,
                                .axes = axes,
                                .hot = hot,
                                .n_extra = hot ? 2 : 0,
                                .extra = cache_args};
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) return;
    cb_profile_print_commands(mem, &target);
    if (fclose(mem) == 0 && text) notice(s, "profile this point with:\n%s", text);
    free(text);
}

static int session_open(session *s, cb_msg *why)
{
    if (!cb_sink_open(&s->sink, s->req->out_dir, why)) return CB_EXIT_USAGE;
    s->sink_open = true;
    snprintf(s->res->dir, sizeof s->res->dir, "%s", s->sink.dir);
    if (!session_telemetry(s, why)) {
        /* Asked for and not possible: nothing ran, nothing is left behind. */
        cb_sink_discard(&s->sink);
        s->sink_open = false;
        s->res->dir[0] = '\0';
        return CB_EXIT_USAGE;
    }
    s->meta = (cb_meta){
        .argc = s->req->argc, .argv = s->req->argv, .started = time(NULL), .cfg = &s->cfg};
    session_observers(s);
    if (!write_metas(s, false, why)) {
        /* Nothing ran: leave nothing behind, so a retry into --out works. */
        cb_sink_discard(&s->sink);
        s->sink_open = false;
        s->res->dir[0] = '\0';
        return CB_EXIT_FAILURES;
    }
    notice(s, "%d points%s -> %s/", s->res->n_points, s->devices.n > 1 ? " over the devices" : "",
           s->sink.dir);
    if (s->cfg.profile) print_profile_commands(s);
    return -1;
}

/* Append one pass's rows to the session's. */
static bool keep_rows(session *s, cb_result *part, int n_part, int *n_all)
{
    if (n_part == 0) return true;
    cb_result *grown = realloc(s->rows, sizeof *grown * (size_t)(*n_all + n_part));
    if (!grown) return false;
    s->rows = grown;
    memcpy(s->rows + *n_all, part, sizeof *part * (size_t)n_part);
    *n_all += n_part;
    return true;
}

static void add_totals(cb_run_totals *sum, const cb_run_totals *t)
{
    sum->ok += t->ok, sum->noisy += t->noisy, sum->skip += t->skip, sum->fail += t->fail;
    sum->interrupted |= t->interrupted;
    sum->context_lost |= t->context_lost;
    sum->write_failed |= t->write_failed;
    if (t->stop_reason[0])
        snprintf(sum->stop_reason, sizeof sum->stop_reason, "%s", t->stop_reason);
}

/* Every pass into the one sink; the rows of all passes end in s->rows. */
static int session_passes(session *s)
{
    cb_run_totals *totals = &s->meta.totals;
    memset(totals, 0, sizeof *totals);
    int n_all = 0;
    s->t_points_begin = cb_now_s();
    for (int d = 0; d < s->n_plans; d++) {
        if (s->devices.n > 0) s->cfg.dev = s->devices.ptr[d];
        if (s->devices.n > 1)
            notice(s, "device %d (%s): %d points", s->devices.ptr[d]->ordinal,
                   s->devices.ptr[d]->name, s->plans[d].n);
        cb_result *part = NULL;
        cb_run_totals t;
        cb_msg why = {{0}};
        cb_status st =
            cb_runner_run(&s->cfg, s->plans[d].points, s->plans[d].n, &s->sink, &part, &t, &why);
        bool kept = st == CB_OK && keep_rows(s, part, t.ok + t.noisy + t.skip + t.fail, &n_all);
        free(part);
        if (!kept) {
            notice(s, "run: %s", st == CB_OK ? "out of host memory for the rows" : why.text);
            totals->write_failed = true;
            break;
        }
        add_totals(totals, &t);
        if (t.interrupted || t.write_failed || t.context_lost) break;
    }
    s->cfg.dev = s->devices.n > 0 ? s->devices.ptr[0] : NULL; /* meta.json's "device" */
    s->t_points_end = cb_now_s();
    return n_all;
}

/* Where the run's time went, by family and phase, from the rows' phase
 * columns (summed over rounds): the first thing to read when a suite is
 * slow. The last line splits the session's wall time: start-up (devices,
 * plans, telemetry, meta.json), the points' phases, the time between them
 * (each round's L2 flush and hold, waits before a round for a throttled
 * GPU, metric passes, CUPTI's flushes, writing rows) and the end (the
 * per-run files). A run of more families than the table holds counts the
 * rest in "all" only. */
static void notice_where_time_went(const session *s, int n_rows)
{
    enum { MAX_FAMILIES = 48, PHASES = 5 };
    typedef struct {
        char name[32];
        int points, noisy;
        double t[PHASES + 1]; /* the phases, then their sum */
    } family_time;
    family_time fam[MAX_FAMILIES + 1], *all = &fam[MAX_FAMILIES];
    memset(fam, 0, sizeof fam);
    int n_fam = 0;
    double throttle_s = 0;
    snprintf(all->name, sizeof all->name, "all");
    for (int i = 0; i < n_rows; i++) {
        const cb_result *r = &s->rows[i];
        char key[sizeof fam[0].name]; /* the family: the name up to its '/' */
        snprintf(key, sizeof key, "%.*s", (int)strcspn(r->bench->name, "/"), r->bench->name);
        int f = 0;
        while (f < n_fam && strcmp(fam[f].name, key) != 0)
            f++;
        if (f == n_fam && n_fam < MAX_FAMILIES) snprintf(fam[n_fam++].name, sizeof key, "%s", key);
        const double t[PHASES] = {r->phases.setup_s, r->phases.verify_s, r->phases.warmup_s,
                                  r->phases.sampling_s, r->phases.teardown_s};
        family_time *into[2] = {f < n_fam ? &fam[f] : NULL, all};
        for (int g = 0; g < 2; g++) {
            if (!into[g]) continue;
            into[g]->points++;
            into[g]->noisy += r->status == CB_NOISY;
            for (int c = 0; c < PHASES; c++)
                into[g]->t[c] += t[c], into[g]->t[PHASES] += t[c];
        }
        throttle_s += r->throttle_wait_s;
    }
    char text[4096];
    int used = snprintf(
        text, sizeof text, "where the time went (s):\n  %-12s %6s %5s %8s %8s %8s %8s %8s %8s",
        "family", "points", "noisy", "setup", "verify", "warm-up", "sampling", "teardown", "total");
    for (int f = 0; f <= MAX_FAMILIES && used < (int)sizeof text - 160; f++) {
        if (f == n_fam) f = MAX_FAMILIES; /* the totals last */
        const family_time *ft = &fam[f];
        used +=
            snprintf(text + used, sizeof text - (size_t)used,
                     "\n  %-12s %6d %5d %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f", ft->name, ft->points,
                     ft->noisy, ft->t[0], ft->t[1], ft->t[2], ft->t[3], ft->t[4], ft->t[5]);
    }
    const double now = cb_now_s(), in_points = all->t[PHASES];
    const double between = s->t_points_end - s->t_points_begin - in_points;
    snprintf(text + used, sizeof text - (size_t)used,
             "\n  run %.1f s: start-up %.1f s, the points' phases %.1f s, between them %.1f s "
             "(waits before rounds, flushes and holds, metric passes, rows), end %.1f s; "
             "waits for a throttled GPU %.1f s (in sampling, and before rounds)",
             now - s->t_begin, s->t_points_begin - s->t_begin, in_points,
             between > 0 ? between : 0.0, now - s->t_points_end, throttle_s);
    notice(s, "%s", text);
    char why_noisy[512];
    cb_noisy_account(s->rows, n_rows, why_noisy, sizeof why_noisy);
    if (why_noisy[0])
        notice(s, "%s (docs/methodology.md: why each kind misses its target)", why_noisy);
}

static void session_finish(session *s, int n_rows)
{
    cb_run_totals *totals = &s->meta.totals;
    cb_msg why = {{0}};
    if (totals->stop_reason[0])
        notice(s, "run: stopped early: %s (every finished point is on disk)", totals->stop_reason);
    /* The per-run files are derived from the rows: a failure to write them
     * is a write error. */
    bool written = !totals->write_failed &&
                   cb_fits_write(s->sink.dir, s->rows, n_rows, &why) == CB_OK &&
                   cb_registry_write_outputs(s->sink.dir, s->rows, n_rows, &why) == CB_OK;
    if (!written && !totals->write_failed) notice(s, "run: %s", why.text);
    if (cb_cupti_active()) cb_cupti_stop();
    cb_buffer_pool_drain(); /* the buffers families kept across points */
    s->meta.finished = time(NULL);
    s->meta.complete = !totals->interrupted && !totals->context_lost && written;
    if (!write_metas(s, true, &why)) {
        notice(s, "run: %s", why.text);
        written = false;
    }
    s->res->complete = s->meta.complete;
    s->res->written = written;
    s->res->totals = *totals;
    if (n_rows > 0) notice_where_time_went(s, n_rows);
    notice(s, "%d ok, %d noisy, %d skip, %d fail%s; %s %s/results.csv", totals->ok, totals->noisy,
           totals->skip, totals->fail, totals->interrupted ? " (interrupted)" : "",
           written ? "wrote" : "COULD NOT FINISH WRITING", s->sink.dir);
}

static int exit_code_of(const cb_session_result *res)
{
    if (res->totals.interrupted) return CB_EXIT_INTERRUPTED;
    if (!res->written) return CB_EXIT_FAILURES;
    return (res->totals.fail || res->totals.context_lost) ? CB_EXIT_FAILURES : CB_EXIT_OK;
}

static void session_free(session *s)
{
    if (s->sink_open) cb_sink_close(&s->sink);
    cb_telemetry_close(s->cfg.telemetry);
    s->cfg.telemetry = NULL;
    cb_counters_close(s->cfg.counters);
    s->cfg.counters = NULL;
    for (int d = 0; d < s->n_plans; d++)
        cb_plan_free(&s->plans[d]);
    free(s->rows);
}

int cb_session_run(const cb_session_request *req, cb_session_result *result, cb_msg *why)
{
    memset(result, 0, sizeof *result);
    /* Large (64 device infos and plans): not on the stack of a front end's
     * thread, which may be small (ctypes callbacks, Python threads). */
    session *s = calloc(1, sizeof *s);
    if (!s) {
        cb_msg_set(why, "out of host memory");
        return CB_EXIT_FAILURES;
    }
    s->req = req;
    s->res = result;
    s->cfg = req->cfg;
    s->t_begin = cb_now_s();
    /* A file-size limit (ulimit -f) must fail a write with EFBIG, so the
     * sink can cut the file back to its last whole row, rather than kill
     * the process mid-row. */
    signal(SIGXFSZ, SIG_IGN);
    int rc = session_devices(s, why);
    if (rc < 0) rc = session_counters(s, why);
    if (rc < 0) rc = session_plans(s, why);
    if (rc < 0 && req->dry_run) {
        session_list(s);
        rc = CB_EXIT_OK;
    }
    if (rc < 0) rc = session_open(s, why);
    if (rc < 0) {
        cb_install_signal_handlers(req->chain_signals);
        session_finish(s, session_passes(s));
        cb_restore_signal_handlers();
        rc = exit_code_of(result);
    }
    session_free(s);
    free(s);
    return rc;
}
