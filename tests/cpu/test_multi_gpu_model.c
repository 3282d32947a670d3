/* test_multi_gpu_model.c - the multi-GPU families without a GPU: the
 * collectives' element counts and nccl-tests bus factors, nccl.csv and
 * p2p_matrix.csv from rows, and the skip reasons a point gets before any
 * CUDA call (too few devices, src = dst, a device not in the run). */
/* test links: cubench_engine cubench_bench */
#include "cb_test.h"
#include "cb_test_files.h"
#include "families.h"
#include "nccl_model.h"
#include "p2p.h"
#include "plan.h"
#include "plan_test_util.h"

#include <stdlib.h>
#include <unistd.h>

static void test_counts_and_factors(void)
{
    size_t s, r;
    CB_CHECK(cb_coll_counts(CB_COLL_ALL_REDUCE, 1024, 4, 4, &s, &r) && s == 256 && r == 256);
    CB_CHECK(cb_coll_counts(CB_COLL_ALL_GATHER, 1024, 4, 4, &s, &r) && s == 64 && r == 256);
    CB_CHECK(cb_coll_counts(CB_COLL_REDUCE_SCATTER, 1024, 4, 2, &s, &r) && s == 512 && r == 128);
    CB_CHECK(cb_coll_counts(CB_COLL_BROADCAST, 6, 8, 2, &s, &r) && s == 3 && r == 3);
    CB_CHECK(!cb_coll_counts(CB_COLL_ALL_GATHER, 1024, 3, 4, &s, &r)); /* 256 / 3 */
    CB_CHECK(!cb_coll_counts(CB_COLL_ALL_REDUCE, 1022, 1, 4, &s, &r)); /* not whole floats */
    CB_CHECK(!cb_coll_counts(CB_COLL_ALL_REDUCE, 0, 1, 4, &s, &r));
    /* nccl-tests: all-reduce 2(n-1)/n, gather/scatter (n-1)/n, broadcast 1. */
    CB_CHECK_NEAR(cb_coll_bus_factor(CB_COLL_ALL_REDUCE, 8), 1.75, 1e-12);
    CB_CHECK_NEAR(cb_coll_bus_factor(CB_COLL_ALL_REDUCE, 2), 1.0, 1e-12);
    CB_CHECK_NEAR(cb_coll_bus_factor(CB_COLL_ALL_REDUCE, 1), 0.0, 1e-12);
    CB_CHECK_NEAR(cb_coll_bus_factor(CB_COLL_ALL_GATHER, 4), 0.75, 1e-12);
    CB_CHECK_NEAR(cb_coll_bus_factor(CB_COLL_REDUCE_SCATTER, 2), 0.5, 1e-12);
    CB_CHECK_NEAR(cb_coll_bus_factor(CB_COLL_BROADCAST, 8), 1.0, 1e-12);
    cb_coll_op op;
    CB_CHECK(cb_coll_op_of("nccl/reduce_scatter", &op) && op == CB_COLL_REDUCE_SCATTER);
    CB_CHECK(!cb_coll_op_of("nccl/alltoall", &op));
}

/* Plan one point of `bench` with the given overrides. */
static const cb_planned_point *plan_one(cb_plan *plan, const char *bench, const char *const *ov,
                                        int n_ov)
{
    cb_msg err = {{0}};
    static cb_device_info fake = {.ordinal = 0, .sm_count = 132, .max_threads_per_block = 1024};
    CB_CHECK_MSG(cb_test_plan(bench, ov, n_ov, &fake, 100, plan, &err), "%s", err.text);
    CB_CHECK_EQ_INT(plan->n, 1);
    return &plan->points[0];
}

static cb_status setup_with(const cb_planned_point *pp, int n_devs, char *reason)
{
    static cb_device_info infos[2];
    static const cb_device_info *devs[2] = {&infos[0], &infos[1]};
    infos[0].ordinal = 0, infos[1].ordinal = 1;
    cb_bench_ctx ctx = {
        .param = pp->bench->param, .dev = &infos[0], .devs = devs, .n_devs = n_devs, .seed = 1};
    cb_point_info info = {.occupancy = -1};
    void *state = NULL;
    cb_msg why = {{0}};
    cb_status st = pp->bench->setup(&pp->point, &ctx, &state, &info, &why);
    CB_CHECK(state == NULL); /* every case here stops before allocating */
    snprintf(reason, CB_MSG_LEN, "%s", why.text);
    return st;
}

static void test_skip_reasons(void)
{
    char reason[CB_MSG_LEN];
    cb_plan plan;
    const char *pair[] = {"src=0", "dst=1", "peer=on", "direction=one", "bytes=1024"};
    const cb_planned_point *pp = plan_one(&plan, "p2p/copy", pair, 5);
    CB_CHECK(pp->bench->devices == 2);
    CB_CHECK(setup_with(pp, 1, reason) == CB_SKIP && strstr(reason, "needs 2 devices"));
    cb_plan_free(&plan);
    const char *same[] = {"src=1", "dst=1", "peer=on", "direction=one", "bytes=1024"};
    pp = plan_one(&plan, "p2p/copy", same, 5);
    CB_CHECK(setup_with(pp, 2, reason) == CB_SKIP && strstr(reason, "transfers/d2d"));
    cb_plan_free(&plan);
    const char *away[] = {"src=0", "dst=5", "peer=off", "direction=both", "bytes=1024"};
    pp = plan_one(&plan, "p2p/copy", away, 5);
    CB_CHECK(setup_with(pp, 2, reason) == CB_SKIP && strstr(reason, "device 5 is not in"));
    cb_plan_free(&plan);

    const char *two[] = {"ranks=2", "dtype=float", "bytes=1024"};
    pp = plan_one(&plan, "nccl/all_reduce", two, 3);
    CB_CHECK(setup_with(pp, 1, reason) == CB_SKIP);
    CB_CHECK(strstr(reason, "needs 2 devices") || strstr(reason, "without NCCL"));
    cb_plan_free(&plan);
}

static cb_result timed_row(const cb_bench *b, const char *axes, double median, double bytes)
{
    cb_result r;
    memset(&r, 0, sizeof r);
    r.bench = b;
    snprintf(r.axes, sizeof r.axes, "%s", axes);
    r.status = CB_OK;
    r.summary.n = 10;
    r.summary.median = median;
    r.bytes = bytes;
    r.gbps = bytes / median / 1e9;
    return r;
}

static char *slurp(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_output_files(void)
{
    char dir[] = "/tmp/cb_test_multi_gpu_XXXXXX";
    CB_CHECK(mkdtemp(dir) != NULL);
    const cb_bench *ar = cb_registry_find("nccl/all_reduce");
    const cb_bench *p2p = cb_registry_find("p2p/copy");
    CB_CHECK(ar && p2p);
    if (!ar || !p2p) return;
    cb_result rows[4];
    rows[0] = timed_row(ar, "ranks=2;dtype=float;bytes=1073741824", 0.01, 1073741824.0);
    rows[1] = timed_row(p2p, "src=0;dst=1;peer=on;direction=one;bytes=1024", 1e-5, 1024);
    rows[2] =
        timed_row(p2p, "src=0;dst=1;peer=on;direction=one;bytes=1073741824", 0.004, 1073741824.0);
    rows[3] = timed_row(p2p, "src=1;dst=0;peer=off;direction=both;bytes=1024", 2e-5, 2048);
    cb_msg why = {{0}};
    CB_CHECK(cb_nccl_write_csv(dir, rows, 4, &why) == CB_OK);
    char *text = slurp(dir, "nccl.csv");
    CB_CHECK(text != NULL);
    /* algbw 107.37 GB/s, busbw = algbw x 2(2-1)/2 = the same. */
    CB_CHECK(text && strstr(text, "nccl/all_reduce,float,2,1.07374182e+09,0.01,107.374182,"
                                  "107.374182,1,ok"));
    CB_CHECK(cb_p2p_write_matrix(dir, rows, 4, &why) == CB_OK);
    text = slurp(dir, "p2p_matrix.csv");
    CB_CHECK(text && strstr(text, "0,1,on,one,1.07374182e+09,268.435456,0.004,ok"));
    CB_CHECK(text && !strstr(text, "0,1,on,one,1024,")); /* the largest size only */
    CB_CHECK(text && strstr(text, "1,0,off,both,1024,"));
    CB_CHECK(cb_test_remove_tree(dir));
}

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    test_counts_and_factors();
    test_skip_reasons();
    test_output_files();
    return cb_test_finish("test_multi_gpu_model");
}
