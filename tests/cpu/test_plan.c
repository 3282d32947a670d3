/* test_plan.c - the registry, globbing, overrides and the cartesian product. */
/* test links: cubench_engine cubench_bench */
#include "cb_test.h"
#include "plan.h"
#include "families.h"

/* Plan `glob` (NULL: the default suite) with overrides; the result of
 * cb_plan_build, with the plan in *plan and the message in *err. */
static bool plan_with(const char *glob, const char *const *axes, int n_axes,
                      const cb_device_info *dev, bool expand_skipped, cb_plan *plan, cb_msg *err)
{
    static cb_axis_override ov[8];
    for (int i = 0; i < n_axes; i++)
        CB_CHECK(cb_axis_override_parse(axes[i], &ov[i], err));
    const char *globs[] = {glob};
    cb_plan_request req = {.globs = globs,
                           .n_globs = glob ? 1 : 0,
                           .overrides = ov,
                           .n_overrides = n_axes,
                           .dev = dev,
                           .no_device_reason = dev ? NULL : "no GPU here",
                           .omit_cuda_without_device = glob == NULL,
                           .expand_skipped = expand_skipped,
                           .max_points = 100000};
    return cb_plan_build(&req, plan, err);
}

/* Without a GPU every override is still checked (`--axis
 * n=garbage` for a GPU benchmark exited 0), and a listing shows the GPU
 * points with the device-dependent values unresolved. */
static void check_without_device(void)
{
    cb_plan plan;
    cb_msg err = {{0}};
    CB_CHECK(!plan_with("vecadd/grid_stride", (const char *[]){"n=garbage"}, 1, NULL, false, &plan,
                        &err));
    CB_CHECK(strstr(err.text, "vecadd/grid_stride: axis 'n': 'garbage' is not a number") != NULL);
    CB_CHECK(!plan_with("vecadd/grid_stride", (const char *[]){"grid=4smx"}, 1, NULL, true, &plan,
                        &err));
    CB_CHECK(strstr(err.text, "axis 'grid'") != NULL);
    /* The default suite leaves GPU benchmarks out, but checks their axes. */
    CB_CHECK(!plan_with(NULL, (const char *[]){"grid=garbage"}, 1, NULL, false, &plan, &err));
    CB_CHECK(strstr(err.text, "axis 'grid': 'garbage' is not a number") != NULL);
    /* ... so a GPU-only axis means the same with and without a GPU. */
    bool ok = plan_with(NULL, (const char *[]){"block=64", "n=2^10"}, 2, NULL, false, &plan, &err);
    CB_CHECK(ok);
    if (!ok) fprintf(stderr, "  default suite with block=64: %s\n", err.text);
    for (int i = 0; ok && i < plan.n; i++)
        CB_CHECK(plan.points[i].bench->target == CB_TARGET_HOST);
    if (ok) cb_plan_free(&plan);

    /* A run: one skip point per GPU benchmark. */
    const char *axes[] = {"n=2^20", "block=256", "grid=auto,4sm,1sm:8sm:x2,64"};
    CB_CHECK(plan_with("vecadd/grid_stride", axes, 3, NULL, false, &plan, &err));
    CB_CHECK_EQ_INT(plan.n, 1);
    CB_CHECK_EQ_INT(plan.points[0].point.n_axes, 0);
    CB_CHECK(!plan.points[0].point.expanded);
    CB_CHECK_STR(plan.points[0].skip_reason, "no GPU here");
    cb_plan_free(&plan);
    /* A listing: every point, each a skip, sm values unresolved. */
    ok = plan_with("vecadd/grid_stride", axes, 3, NULL, true, &plan, &err);
    CB_CHECK(ok);
    CB_CHECK_EQ_INT(ok ? plan.n : 0, 4);
    const char *want[] = {"n=1048576;block=256;grid=auto", "n=1048576;block=256;grid=4sm",
                          "n=1048576;block=256;grid=1sm:8sm:x2", "n=1048576;block=256;grid=64"};
    for (int i = 0; ok && i < plan.n && i < 4; i++) {
        char text[CB_POINT_TEXT];
        cb_point_format(&plan.points[i].point, text, sizeof text);
        CB_CHECK_STR(text, want[i]);
        CB_CHECK_STR(plan.points[i].skip_reason, "no GPU here");
    }
    if (ok) cb_plan_free(&plan);
}

/* With a device, `sm` resolves against its SM count. */
static void check_with_device(void)
{
    const cb_device_info dev = {.sm_count = 132, .max_threads_per_block = 1024};
    cb_plan plan;
    cb_msg err = {{0}};
    bool ok = plan_with("vecadd/grid_stride", (const char *[]){"n=2^20", "block=256", "grid=4sm"},
                        3, &dev, true, &plan, &err);
    CB_CHECK(ok && plan.n == 1);
    if (!ok) return;
    CB_CHECK_EQ_INT(cb_point_int(&plan.points[0].point, "grid"), 528);
    CB_CHECK_STR(plan.points[0].skip_reason, "");
    cb_plan_free(&plan);
}

/* The registry holds the families and finds by name. */
static void check_registry_lookup(void)
{
    CB_CHECK(cb_registry_count() >= 4);
    const cb_bench *host = cb_registry_find("vecadd/host");
    CB_CHECK(host != NULL && host->target == CB_TARGET_HOST);
    CB_CHECK(cb_registry_find("vecadd/nope") == NULL);
}

/* The default values of every axis of `b` parse. */
static void check_default_axes(const cb_bench *b)
{
    cb_axis_context ctx = {.sm_count = 132};
    for (int a = 0; a < b->n_axes; a++) {
        static cb_axis_values v;
        cb_msg err;
        bool ok = cb_axis_expand(&b->axes[a], b->axes[a].defaults, &ctx, &v, &err);
        CB_CHECK(ok);
        if (!ok) fprintf(stderr, "  %s axis %s: %s\n", b->name, b->axes[a].name, err.text);
    }
}

/* A reference must run first so its median is known. */
static void check_reference_first(const cb_bench *b, int i)
{
    if (!b->ref_bench) return;
    const cb_bench *ref = cb_registry_find(b->ref_bench);
    CB_CHECK(ref != NULL);
    for (int j = 0; ref && j < cb_registry_count(); j++) {
        if (cb_registry_get(j) == ref) break;
        if (j == i) CB_CHECK(!"ref_bench comes after its user");
    }
}

/* Every descriptor is complete, uniquely named, and its default axes parse. */
static void check_descriptors(void)
{
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        CB_CHECK(b->name && b->summary && b->setup && b->run && b->verify && b->teardown);
        CB_CHECK(strchr(b->name, '/') != NULL);
        CB_CHECK(b->n_axes >= 1 && b->n_axes <= CB_MAX_AXES);
        for (int j = 0; j < i; j++)
            CB_CHECK(strcmp(b->name, cb_registry_get(j)->name) != 0);
        check_default_axes(b);
        check_reference_first(b, i);
    }
}

static void check_globs(void)
{
    CB_CHECK(cb_registry_matches("vecadd*", "vecadd/host"));
    CB_CHECK(cb_registry_matches("vecadd", "vecadd/host"));
    CB_CHECK(!cb_registry_matches("vec", "vecadd/host"));
    CB_CHECK(!cb_registry_matches("matmul/*", "vecadd/host"));
}

/* Plan: host vecadd with an override of n and threads. */
static void check_host_plan(void)
{
    const char *globs[] = {"vecadd/host"};
    cb_axis_override ov[2];
    cb_msg err;
    CB_CHECK(cb_axis_override_parse("n=2^10:2^14:x2", &ov[0], &err));
    CB_CHECK(cb_axis_override_parse("threads=1,2", &ov[1], &err));
    CB_CHECK_STR(ov[0].name, "n");
    cb_plan_request req = {.globs = globs,
                           .n_globs = 1,
                           .overrides = ov,
                           .n_overrides = 2,
                           .no_device_reason = "no GPU",
                           .max_points = 1000};
    cb_plan plan;
    CB_CHECK(cb_plan_build(&req, &plan, &err));
    CB_CHECK_EQ_INT(plan.n, 10);
    char axes[CB_POINT_TEXT];
    cb_point_format(&plan.points[0].point, axes, sizeof axes);
    CB_CHECK_STR(axes, "n=1024;threads=1");
    cb_point_format(&plan.points[1].point, axes, sizeof axes);
    CB_CHECK_STR(axes, "n=1024;threads=2"); /* the last axis turns fastest */
    cb_point_format(&plan.points[9].point, axes, sizeof axes);
    CB_CHECK_STR(axes, "n=16384;threads=2");
    CB_CHECK_EQ_INT(cb_point_int(&plan.points[9].point, "n"), 16384);
    cb_plan_free(&plan);
}

/* Without a device, an explicit GPU glob gives one skip per benchmark ...
 * and the default suite leaves GPU benchmarks out. */
static void check_gpu_globs_without_device(void)
{
    cb_plan plan;
    cb_msg err;
    const char *gpu_globs[] = {"vecadd/grid_stride"};
    cb_plan_request gpu = {
        .globs = gpu_globs, .n_globs = 1, .no_device_reason = "no GPU here", .max_points = 1000};
    CB_CHECK(cb_plan_build(&gpu, &plan, &err));
    CB_CHECK_EQ_INT(plan.n, 1);
    CB_CHECK_STR(plan.points[0].skip_reason, "no GPU here");
    cb_plan_free(&plan);
    cb_plan_request all = {
        .no_device_reason = "no GPU", .omit_cuda_without_device = true, .max_points = 100000};
    CB_CHECK(cb_plan_build(&all, &plan, &err));
    for (int i = 0; i < plan.n; i++)
        CB_CHECK(plan.points[i].bench->target == CB_TARGET_HOST);
    cb_plan_free(&plan);
}

/* Planning `glob` with the override `axis` (NULL: none) and at most
 * `max_points` points fails with a message that contains `needle`. */
static void check_refused(const char *glob, const char *axis, int max_points, const char *needle)
{
    const char *globs[] = {glob};
    cb_axis_override ov;
    cb_msg err;
    if (axis) CB_CHECK(cb_axis_override_parse(axis, &ov, &err));
    cb_plan_request req = {.globs = globs,
                           .n_globs = 1,
                           .overrides = axis ? &ov : NULL,
                           .n_overrides = axis ? 1 : 0,
                           .max_points = max_points};
    cb_plan plan;
    CB_CHECK(!cb_plan_build(&req, &plan, &err));
    CB_CHECK(strstr(err.text, needle) != NULL);
}

/* A scoped override reaches only the benchmarks its glob matches: vecadd's
 * n (a length) and matmul's n (a dimension) in one command. */
static void check_scoped_overrides(void)
{
    cb_axis_override ov[3];
    cb_msg err = {{0}};
    CB_CHECK(cb_axis_override_parse("vecadd/*:n=2^12", &ov[0], &err));
    CB_CHECK_STR(ov[0].scope, "vecadd/*");
    CB_CHECK_STR(ov[0].name, "n");
    CB_CHECK_STR(ov[0].spec, "2^12");
    CB_CHECK(cb_axis_override_parse("matmul/*:n=64", &ov[1], &err));
    CB_CHECK(cb_axis_override_parse("m=32:64:x2", &ov[2], &err)); /* a range: ':' after '=' */
    CB_CHECK_STR(ov[2].scope, "");
    CB_CHECK_STR(ov[2].spec, "32:64:x2");
    const char *globs[] = {"vecadd/host", "matmul/host_blocked"};
    cb_plan_request req = {
        .globs = globs, .n_globs = 2, .overrides = ov, .n_overrides = 3, .max_points = 100000};
    cb_plan plan;
    bool ok = cb_plan_build(&req, &plan, &err);
    CB_CHECK_MSG(ok, "%s", err.text);
    int vec = 0, mm = 0;
    for (int i = 0; ok && i < plan.n; i++) {
        char axes[CB_POINT_TEXT];
        cb_point_format(&plan.points[i].point, axes, sizeof axes);
        if (strncmp(plan.points[i].bench->name, "vecadd/", 7) == 0) {
            vec++;
            CB_CHECK_MSG(strncmp(axes, "n=4096;", 7) == 0, "%s", axes);
        } else {
            mm++;
            CB_CHECK_MSG(strstr(axes, "n=64") != NULL && strncmp(axes, "m=", 2) == 0, "%s", axes);
        }
    }
    CB_CHECK(vec > 0 && mm == 2);
    if (ok) cb_plan_free(&plan);
    /* A scope that reaches no benchmark with the axis is refused, naming both. */
    check_refused("vecadd/host", "matmul/*:n=64", 10,
                  "--axis matmul/*:n: no selected benchmark matching 'matmul/*' has an axis "
                  "named 'n'");
    CB_CHECK(!cb_axis_override_parse(":n=5", &ov[0], &err));
    CB_CHECK(strstr(err.text, "empty benchmark glob") != NULL);
    CB_CHECK(!cb_axis_override_parse("vecadd/*:=5", &ov[0], &err));
}

static void check_errors(void)
{
    check_refused("nosuch*", NULL, 10, "no benchmark matches 'nosuch*'");
    check_refused("vecadd/host", "colour=red", 10,
                  "no selected benchmark has an axis named 'colour'");
    check_refused("vecadd/host", "n=12x", 10, "vecadd/host: axis 'n'");
    check_refused("vecadd/host", "n=1:500", 100, "more than 100 points");
    cb_axis_override bad;
    cb_msg err;
    CB_CHECK(!cb_axis_override_parse("n", &bad, &err));
    CB_CHECK(!cb_axis_override_parse("=5", &bad, &err));
    CB_CHECK(!cb_axis_override_parse("n=", &bad, &err));
}

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    check_registry_lookup();
    check_descriptors();
    check_globs();
    check_host_plan();
    check_gpu_globs_without_device();
    check_without_device();
    check_with_device();
    check_errors();
    check_scoped_overrides();
    return cb_test_finish("test_plan");
}
