/* cubench_api.c - libcubench.so's flat interface (cubench_api.h): front-end
 * benchmarks become cb_bench table entries whose hooks are the trampolines
 * below, so the C runner runs them like any C family.
 *
 * Each front-end benchmark gets its own copy of its axis table. Hooks that
 * receive a ctx find the benchmark through ctx->param (its api_bench_rec);
 * the work-model hooks receive only the point, and find it through the
 * point's axis table pointer, which is unique to the benchmark. */
#include "cubench_api.h"

#include "build_info.h"
#include "cli.h"
#include "families.h"
#include "registry.h"
#include "signals.h"

#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a front-end benchmark's `param` points at. */
typedef struct api_bench_rec {
    int64_t handle;
    const char *name;
    bool has_bytes, has_flops;
} api_bench_rec;

/* One registered front-end family and everything it owns. */
typedef struct api_family {
    struct api_family *next;
    cb_family family;
    cb_bench *benches;
    api_bench_rec *recs;
    cb_axis_def *axes; /* count x CB_MAX_AXES: a slice per benchmark */
    char **strings;    /* every copied string, to free               */
    int n_strings, cap_strings;
} api_family;

/* The state pointer the runner holds for a front-end point. */
typedef struct api_state {
    const api_bench_rec *rec;
    int64_t handle;
} api_state;

static cb_api_hooks g_hooks;
static bool g_have_hooks;
static api_family *g_families;

int32_t cb_api_abi_version(void)
{
    return CB_API_ABI_VERSION;
}

const char *cb_api_version(void)
{
    return CB_VERSION " (" CB_GIT_SHA ")";
}

static void api_err(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void api_err(char *err, size_t len, const char *fmt, ...)
{
    if (!err || !len) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

int32_t cb_api_init(const cb_api_hooks *hooks, char *err, size_t err_len)
{
    if (!hooks || !hooks->setup || !hooks->run || !hooks->verify || !hooks->teardown ||
        !hooks->work) {
        api_err(err, err_len, "cb_api_init: all five hooks are required");
        return -1;
    }
    g_hooks = *hooks;
    g_have_hooks = true;
    cb_msg why = {{0}};
    if (cb_families_register_builtin(&why) != CB_OK) {
        api_err(err, err_len, "cb_api_init: %s", why.text);
        return -1;
    }
    return 0;
}

/* ---- the point as the front end sees it ---- */

typedef struct api_point_view {
    cb_api_point view;
    const char *names[CB_MAX_AXES];
    int64_t ints[CB_MAX_AXES];
    const char *texts[CB_MAX_AXES];
    double floats[CB_MAX_AXES];
    char text[CB_POINT_TEXT];
} api_point_view;

static void view_point(const cb_point *p, api_point_view *v)
{
    int n = p->n_axes < CB_MAX_AXES ? p->n_axes : CB_MAX_AXES;
    for (int i = 0; i < n; i++) {
        v->names[i] = p->defs[i].name;
        v->ints[i] = p->values[i].i;
        v->texts[i] = p->values[i].text;
        v->floats[i] = p->values[i].f;
    }
    v->text[0] = '\0';
    if (n > 0) cb_point_format(p, v->text, sizeof v->text);
    v->view = (cb_api_point){.n_axes = n,
                             .names = v->names,
                             .ints = v->ints,
                             .texts = v->texts,
                             .text = v->text,
                             .floats = v->floats};
}

/* A hook's return value as a status; a fail or skip always has a reason. */
static cb_status api_status(int32_t rc, const char *hook, const api_bench_rec *rec, cb_msg *why)
{
    why->text[CB_MSG_LEN - 1] = '\0';
    switch (rc) {
    case CB_API_OK:
        return CB_OK;
    case CB_API_SKIP:
        if (!why->text[0]) cb_msg_set(why, "%s: the %s hook skipped the point", rec->name, hook);
        return CB_SKIP;
    case CB_API_FAIL:
        if (!why->text[0]) cb_msg_set(why, "%s: the %s hook failed", rec->name, hook);
        return CB_FAIL;
    case CB_API_INTERRUPTED:
        /* The runner abandons a point whose hook failed while a stop is
         * requested: nothing is written for it, and the run ends as after
         * Ctrl-C. */
        cb_request_stop();
        cb_msg_set(why, "%s: interrupted in the %s hook", rec->name, hook);
        return CB_FAIL;
    default:
        cb_msg_set(why,
                   "%s: the %s hook broke (returned %d): an error escaped the front end's "
                   "handler; see stderr",
                   rec->name, hook, (int)rc);
        return CB_FAIL;
    }
}

/* ---- the trampolines: cb_bench hooks that call the front end ---- */

static cb_status api_setup(const cb_point *p, const cb_bench_ctx *ctx, void **state,
                           cb_point_info *info, cb_msg *why)
{
    const api_bench_rec *rec = ctx->param;
    api_state *box = calloc(1, sizeof *box);
    if (!box) {
        cb_msg_set(why, "out of host memory");
        return CB_SKIP;
    }
    api_point_view v;
    view_point(p, &v);
    const cb_api_ctx c = {.stream = (uint64_t)(uintptr_t)ctx->stream,
                          .device = ctx->dev ? ctx->dev->ordinal : -1,
                          .sm_count = ctx->dev ? ctx->dev->sm_count : 0,
                          .l2_bytes = ctx->dev ? (int64_t)ctx->dev->l2_bytes : 0,
                          .seed = ctx->seed,
                          .host_threads = ctx->host_threads};
    cb_api_info ai;
    memset(&ai, 0, sizeof ai);
    ai.occupancy = -1.0;
    int64_t handle = 0;
    why->text[0] = '\0';
    int32_t rc = g_hooks.setup(rec->handle, &v.view, &c, &handle, &ai, why->text, sizeof why->text);
    ai.note[sizeof ai.note - 1] = '\0';
    info->occupancy = ai.occupancy;
    info->memcpy_src_kind = ai.memcpy_src_kind;
    info->memcpy_dst_kind = ai.memcpy_dst_kind;
    snprintf(info->note, sizeof info->note, "%s", ai.note);
    cb_status st = api_status(rc, "setup", rec, why);
    if (st != CB_OK) {
        free(box);
        return st;
    }
    box->rec = rec;
    box->handle = handle;
    *state = box;
    return CB_OK;
}

static cb_status api_run(void *state, cudaStream_t stream, cb_msg *why)
{
    const api_state *box = state;
    why->text[0] = '\0';
    int32_t rc = g_hooks.run(box->handle, (uint64_t)(uintptr_t)stream, why->text, sizeof why->text);
    return rc == CB_API_OK ? CB_OK : api_status(rc, "run", box->rec, why);
}

static cb_status api_verify(void *state, double *error, cb_msg *why)
{
    const api_state *box = state;
    why->text[0] = '\0';
    *error = NAN;
    int32_t rc = g_hooks.verify(box->handle, error, why->text, sizeof why->text);
    return api_status(rc, "verify", box->rec, why);
}

static void api_teardown(void *state)
{
    api_state *box = state;
    g_hooks.teardown(box->handle);
    free(box);
}

static const api_bench_rec *rec_of_axes(const cb_axis_def *defs)
{
    for (const api_family *f = g_families; f; f = f->next)
        for (int i = 0; i < f->family.count; i++)
            if (f->benches[i].axes == defs) return &f->recs[i];
    return NULL;
}

static double api_work(const cb_point *p, int32_t which)
{
    const api_bench_rec *rec = rec_of_axes(p->defs);
    if (!rec) return NAN;
    api_point_view v;
    view_point(p, &v);
    return g_hooks.work(rec->handle, which, &v.view);
}

static double api_bytes(const cb_point *p)
{
    return api_work(p, CB_API_WORK_BYTES);
}

static double api_flops(const cb_point *p)
{
    return api_work(p, CB_API_WORK_FLOPS);
}

/* ---- families ---- */

static void family_free(api_family *f)
{
    if (!f) return;
    for (int i = 0; i < f->n_strings; i++)
        free(f->strings[i]);
    free(f->strings);
    free(f->benches);
    free(f->recs);
    free(f->axes);
    free(f);
}

/* A copy owned by the family; NULL stays NULL. *ok turns false when out of memory. */
static const char *family_strdup(api_family *f, const char *s, bool *ok)
{
    if (!s) return NULL;
    if (f->n_strings == f->cap_strings) {
        int cap = f->cap_strings ? 2 * f->cap_strings : 32;
        char **grown = realloc(f->strings, sizeof *grown * (size_t)cap);
        if (!grown) {
            *ok = false;
            return NULL;
        }
        f->strings = grown;
        f->cap_strings = cap;
    }
    char *copy = strdup(s);
    if (!copy) {
        *ok = false;
        return NULL;
    }
    f->strings[f->n_strings++] = copy;
    return copy;
}

static cb_axis_kind axis_kind_of(int32_t api_kind)
{
    return api_kind == CB_API_AXIS_ENUM    ? CB_AXIS_ENUM
           : api_kind == CB_API_AXIS_FLOAT ? CB_AXIS_FLOAT
                                           : CB_AXIS_INT;
}

/* Check one described axis; the defaults must expand (with a stand-in SM
 * count, so `4sm` is accepted here and resolved on the device). */
static bool check_axis(const char *bench, const cb_api_axis *a, char *err, size_t len)
{
    static cb_axis_values values; /* 20 KiB: not on the stack */
    if (!a->name || !a->name[0] || strlen(a->name) >= 32) {
        api_err(err, len, "%s: an axis needs a name of 1 to 31 characters", bench);
        return false;
    }
    if (a->kind != CB_API_AXIS_INT && a->kind != CB_API_AXIS_ENUM && a->kind != CB_API_AXIS_FLOAT) {
        api_err(err, len, "%s: axis '%s' has a kind that is not int, enum or float", bench,
                a->name);
        return false;
    }
    if (!a->defaults || !a->defaults[0]) {
        api_err(err, len, "%s: axis '%s' needs defaults", bench, a->name);
        return false;
    }
    const cb_axis_def def = {.name = a->name,
                             .kind = axis_kind_of(a->kind),
                             .defaults = a->defaults,
                             .choices = a->choices && a->choices[0] ? a->choices : NULL,
                             .min_value = a->min_value,
                             .help = a->help};
    if (def.kind == CB_AXIS_ENUM && !def.choices) {
        api_err(err, len, "%s: enum axis '%s' needs choices", bench, a->name);
        return false;
    }
    const cb_axis_context probe = {.sm_count = 1};
    cb_msg why = {{0}};
    if (!cb_axis_expand(&def, a->defaults, &probe, &values, &why)) {
        api_err(err, len, "%s: %s", bench, why.text);
        return false;
    }
    return true;
}

static bool check_bench(const char *family, const cb_api_bench *d, char *err, size_t len)
{
    size_t flen = strlen(family);
    if (!d->name || strncmp(d->name, family, flen) != 0 || d->name[flen] != '/' ||
        !d->name[flen + 1]) {
        api_err(err, len,
                "benchmark '%s' does not belong to family '%s' (names are family/variant)",
                d->name ? d->name : "(null)", family);
        return false;
    }
    if (d->n_axes < 0 || d->n_axes > CB_MAX_AXES || (d->n_axes > 0 && !d->axes)) {
        api_err(err, len, "%s: needs 0 to %d axes, has %d", d->name, CB_MAX_AXES, (int)d->n_axes);
        return false;
    }
    if (d->target < CB_API_TARGET_CUDA || d->target > CB_API_TARGET_HOST ||
        d->timer < CB_API_TIMER_DEFAULT || d->timer > CB_API_TIMER_HOST ||
        d->peak < CB_API_PEAK_NONE || d->peak > CB_API_PEAK_FP32) {
        api_err(err, len, "%s: target, timer or peak out of range", d->name);
        return false;
    }
    for (int a = 0; a < d->n_axes; a++) {
        if (!check_axis(d->name, &d->axes[a], err, len)) return false;
        for (int b = 0; b < a; b++)
            if (strcmp(d->axes[a].name, d->axes[b].name) == 0) {
                api_err(err, len, "%s: axis '%s' is declared twice", d->name, d->axes[a].name);
                return false;
            }
    }
    return true;
}

static bool family_copy(api_family *f, const char *name, const cb_api_bench *d, int32_t count)
{
    bool ok = true;
    f->family.name = family_strdup(f, name, &ok);
    for (int i = 0; i < count && ok; i++) {
        cb_axis_def *axes = &f->axes[(size_t)i * CB_MAX_AXES];
        for (int a = 0; a < d[i].n_axes; a++) {
            const cb_api_axis *s = &d[i].axes[a];
            axes[a] = (cb_axis_def){
                .name = family_strdup(f, s->name, &ok),
                .kind = axis_kind_of(s->kind),
                .defaults = family_strdup(f, s->defaults, &ok),
                .choices = s->choices && s->choices[0] ? family_strdup(f, s->choices, &ok) : NULL,
                .min_value = s->min_value,
                .help = family_strdup(f, s->help ? s->help : "", &ok)};
        }
        f->recs[i] = (api_bench_rec){.handle = d[i].handle,
                                     .name = family_strdup(f, d[i].name, &ok),
                                     .has_bytes = d[i].has_bytes != 0,
                                     .has_flops = d[i].has_flops != 0};
        f->benches[i] = (cb_bench){
            .name = f->recs[i].name,
            .summary = family_strdup(f, d[i].summary ? d[i].summary : "", &ok),
            .target = d[i].target == CB_API_TARGET_HOST ? CB_TARGET_HOST : CB_TARGET_CUDA,
            .kind = d[i].target == CB_API_TARGET_HOST ? CB_KIND_HOST : CB_KIND_PYTHON,
            .timer = (cb_timer_kind)d[i].timer,
            .axes = axes,
            .n_axes = d[i].n_axes,
            .peak = (cb_peak_kind)d[i].peak,
            .ref_bench =
                d[i].ref_bench && d[i].ref_bench[0] ? family_strdup(f, d[i].ref_bench, &ok) : NULL,
            .bytes = d[i].has_bytes ? api_bytes : NULL,
            .flops = d[i].has_flops ? api_flops : NULL,
            .param = &f->recs[i],
            .setup = api_setup,
            .run = api_run,
            .verify = api_verify,
            .teardown = api_teardown};
    }
    return ok;
}

int32_t cb_api_add_family(const char *name, const cb_api_bench *benches, int32_t count, char *err,
                          size_t err_len)
{
    if (!g_have_hooks) {
        api_err(err, err_len, "cb_api_add_family: call cb_api_init first");
        return -1;
    }
    if (!name || !name[0] || strchr(name, '/') || count < 1 || !benches) {
        api_err(err, err_len, "family '%s': needs a name without '/' and at least one benchmark",
                name ? name : "(null)");
        return -1;
    }
    for (int i = 0; i < count; i++)
        if (!check_bench(name, &benches[i], err, err_len)) return -1;

    api_family *f = calloc(1, sizeof *f);
    bool ok = f != NULL;
    if (ok) {
        f->benches = calloc((size_t)count, sizeof *f->benches);
        f->recs = calloc((size_t)count, sizeof *f->recs);
        f->axes = calloc((size_t)count * CB_MAX_AXES, sizeof *f->axes);
        ok = f->benches && f->recs && f->axes && family_copy(f, name, benches, count);
    }
    if (!ok) {
        family_free(f);
        api_err(err, err_len, "family '%s': out of host memory", name);
        return -1;
    }
    f->family.benches = f->benches;
    f->family.count = count;
    cb_msg why = {{0}};
    if (cb_registry_add_family(&f->family, &why) != CB_OK) {
        family_free(f);
        api_err(err, err_len, "%s", why.text);
        return -1;
    }
    f->next = g_families;
    g_families = f;
    return 0;
}

static cb_api_meta_hook g_meta_hook;

void cb_api_set_meta_hook(cb_api_meta_hook hook)
{
    g_meta_hook = hook;
}

static cb_status api_write_meta(void *ctx, const char *dir, bool final, cb_msg *why)
{
    (void)ctx;
    if (!g_meta_hook) return CB_OK;
    why->text[0] = '\0';
    if (g_meta_hook(dir, final ? 1 : 0, why->text, sizeof why->text) == 0) return CB_OK;
    why->text[CB_MSG_LEN - 1] = '\0';
    if (!why->text[0]) cb_msg_set(why, "the front end's meta file could not be written");
    return CB_FAIL;
}

int32_t cb_api_run(int32_t argc, char **argv, cb_api_run_result *result)
{
    cb_api_run_result blank;
    if (!result) result = &blank;
    memset(result, 0, sizeof *result);
    if (argc < 1 || !argv || !argv[0] || strcmp(argv[0], "run") != 0) {
        fprintf(stderr, "cubench: cb_api_run needs argv[0] = \"run\"\n");
        result->exit_code = CB_EXIT_USAGE;
        return CB_EXIT_USAGE;
    }
    /* meta.json records the command as `libcubench run ...`. */
    char **full = malloc(sizeof *full * (size_t)(argc + 2));
    if (!full) {
        result->exit_code = CB_EXIT_FAILURES;
        return CB_EXIT_FAILURES;
    }
    full[0] = "libcubench";
    memcpy(full + 1, argv, sizeof *full * (size_t)argc);
    full[argc + 1] = NULL;
    const cb_cli_run_hooks hooks = {.write_meta = api_write_meta, .chain_signals = true};
    cb_session_result res;
    int rc = cb_cli_run_with(argc, argv, argc + 1, full, &hooks, &res);
    free(full);
    fflush(stdout);
    fflush(stderr);
    snprintf(result->dir, sizeof result->dir, "%s", res.dir);
    result->exit_code = rc;
    result->ok = res.totals.ok;
    result->noisy = res.totals.noisy;
    result->skip = res.totals.skip;
    result->fail = res.totals.fail;
    result->interrupted = res.totals.interrupted ? 1 : 0;
    return rc;
}

int32_t cb_api_main(int32_t argc, char **argv)
{
    if (argc < 1 || !argv || !argv[0]) {
        fprintf(stderr, "cubench: cb_api_main needs argv[0]\n");
        return CB_EXIT_USAGE;
    }
    /* The runner installs its own SIGINT/SIGTERM handlers (stop between
     * samples); the host process gets its own back afterwards. */
    struct sigaction old_int, old_term;
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    int rc = cb_cli_main(argc, argv);
    fflush(stdout);
    fflush(stderr);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}

int32_t cb_api_device_count(char *why, size_t why_len)
{
    cb_msg msg = {{0}};
    int n = cb_device_count(&msg);
    if (n <= 0) api_err(why, why_len, "%s", msg.text);
    return n > 0 ? n : 0;
}

int32_t cb_api_device_describe(int32_t ordinal, char *buf, size_t len)
{
    cb_device_info dev;
    cb_msg why = {{0}};
    if (cb_device_query(ordinal, &dev, &why) != CB_OK) {
        api_err(buf, len, "%s", why.text);
        return -1;
    }
    api_err(buf, len, "%s, %s, sm_%d%d, %d SMs", dev.name, dev.uuid, dev.cc_major, dev.cc_minor,
            dev.sm_count);
    return 0;
}

void cb_api_reset(void)
{
    cb_registry_clear();
    while (g_families) {
        api_family *next = g_families->next;
        family_free(g_families);
        g_families = next;
    }
}
