/* test_plan.c - the registry, globbing, overrides and the cartesian product. */
#include "cb_test.h"
#include "plan.h"
#include "families.h"

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    /* The registry holds the families and finds by name. */
    CB_CHECK(cb_registry_count() >= 4);
    const cb_bench *host = cb_registry_find("vecadd/host");
    CB_CHECK(host != NULL && host->target == CB_TARGET_HOST);
    CB_CHECK(cb_registry_find("vecadd/nope") == NULL);
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        /* Every descriptor is complete and its default axes parse. */
        CB_CHECK(b->name && b->summary && b->setup && b->run && b->verify && b->teardown);
        CB_CHECK(strchr(b->name, '/') != NULL);
        CB_CHECK(b->n_axes >= 1 && b->n_axes <= CB_MAX_AXES);
        for (int j = 0; j < i; j++)
            CB_CHECK(strcmp(b->name, cb_registry_get(j)->name) != 0);
        cb_axis_context ctx = {.sm_count = 132};
        for (int a = 0; a < b->n_axes; a++) {
            static cb_axis_values v;
            cb_msg err;
            bool ok = cb_axis_expand(&b->axes[a], b->axes[a].defaults, &ctx, &v, &err);
            CB_CHECK(ok);
            if (!ok) fprintf(stderr, "  %s axis %s: %s\n", b->name, b->axes[a].name, err.text);
        }
        if (b->ref_bench) {
            const cb_bench *ref = cb_registry_find(b->ref_bench);
            CB_CHECK(ref != NULL);
            /* A reference must run first so its median is known. */
            for (int j = 0; ref && j < cb_registry_count(); j++) {
                if (cb_registry_get(j) == ref) break;
                if (j == i) CB_CHECK(!"ref_bench comes after its user");
            }
        }
    }
    CB_CHECK(cb_registry_matches("vecadd*", "vecadd/host"));
    CB_CHECK(cb_registry_matches("vecadd", "vecadd/host"));
    CB_CHECK(!cb_registry_matches("vec", "vecadd/host"));
    CB_CHECK(!cb_registry_matches("matmul/*", "vecadd/host"));

    /* Plan: host vecadd with an override of n and threads. */
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

    /* Without a device, an explicit GPU glob gives one skip per benchmark. */
    const char *gpu_globs[] = {"vecadd/grid_stride"};
    cb_plan_request gpu = {
        .globs = gpu_globs, .n_globs = 1, .no_device_reason = "no GPU here", .max_points = 1000};
    CB_CHECK(cb_plan_build(&gpu, &plan, &err));
    CB_CHECK_EQ_INT(plan.n, 1);
    CB_CHECK_STR(plan.points[0].skip_reason, "no GPU here");
    cb_plan_free(&plan);
    /* ... and the default suite leaves GPU benchmarks out. */
    cb_plan_request all = {
        .no_device_reason = "no GPU", .omit_cuda_without_device = true, .max_points = 100000};
    CB_CHECK(cb_plan_build(&all, &plan, &err));
    for (int i = 0; i < plan.n; i++)
        CB_CHECK(plan.points[i].bench->target == CB_TARGET_HOST);
    cb_plan_free(&plan);

    /* Errors. */
    const char *bad_glob[] = {"nosuch*"};
    cb_plan_request r1 = {.globs = bad_glob, .n_globs = 1, .max_points = 10};
    CB_CHECK(!cb_plan_build(&r1, &plan, &err));
    CB_CHECK(strstr(err.text, "no benchmark matches 'nosuch*'") != NULL);
    cb_axis_override bad_axis;
    CB_CHECK(cb_axis_override_parse("colour=red", &bad_axis, &err));
    cb_plan_request r2 = {
        .globs = globs, .n_globs = 1, .overrides = &bad_axis, .n_overrides = 1, .max_points = 10};
    CB_CHECK(!cb_plan_build(&r2, &plan, &err));
    CB_CHECK(strstr(err.text, "no selected benchmark has an axis named 'colour'") != NULL);
    cb_axis_override bad_value;
    CB_CHECK(cb_axis_override_parse("n=12x", &bad_value, &err));
    cb_plan_request r3 = {
        .globs = globs, .n_globs = 1, .overrides = &bad_value, .n_overrides = 1, .max_points = 10};
    CB_CHECK(!cb_plan_build(&r3, &plan, &err));
    CB_CHECK(strstr(err.text, "vecadd/host: axis 'n'") != NULL);
    cb_axis_override big;
    CB_CHECK(cb_axis_override_parse("n=1:500", &big, &err));
    cb_plan_request r4 = {
        .globs = globs, .n_globs = 1, .overrides = &big, .n_overrides = 1, .max_points = 100};
    CB_CHECK(!cb_plan_build(&r4, &plan, &err));
    CB_CHECK(strstr(err.text, "more than 100 points") != NULL);
    CB_CHECK(!cb_axis_override_parse("n", &big, &err));
    CB_CHECK(!cb_axis_override_parse("=5", &big, &err));
    CB_CHECK(!cb_axis_override_parse("n=", &big, &err));
    return cb_test_finish("test_plan");
}
