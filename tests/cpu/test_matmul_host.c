/* test_matmul_host.c - the CPU rungs of the matmul family through their
 * descriptors, no GPU needed: odd shapes verify, thread counts agree, an
 * unwritten (NaN-poisoned) output fails, and the axis words work. */
/* test links: cubench_bench */
#include "bench_test_util.h"
#include "matmul_common.h"
#include "families.h"

static const char *const cb_shapes[][3] = {
    {"1", "m", "m"},      {"7", "m", "m"},     {"64", "m", "m"},     {"127", "m", "m"},
    {"129", "130", "67"}, {"300", "200", "1"}, {"513", "65", "257"},
};

static cb_status cb_host_point(const cb_bench *b, const char *const *values, int threads,
                               bool run_first, double *err, cb_msg *why)
{
    cb_point p;
    if (!cb_test_point(b, NULL, values, &p)) return CB_FAIL;
    return cb_test_run_point_threads(b, &p, NULL, NULL, run_first, threads, err, why);
}

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    const char *names[] = {"matmul/host_blocked", "matmul/host_cblas"};
    for (int r = 0; r < 2; r++) {
        const cb_bench *b = cb_registry_find(names[r]);
        CB_CHECK(b != NULL && b->target == CB_TARGET_HOST);
        if (!b) continue;
        for (int t = 0; t < CB_ARRAY_LEN(cb_shapes); t++) {
            for (int threads = 1; threads <= 4; threads += 3) {
                double err = -1.0;
                cb_msg why = {{0}};
                cb_status st = cb_host_point(b, cb_shapes[t], threads, true, &err, &why);
                printf("  %s m=%s n=%s k=%s threads=%d: %s err %.3g %s\n", b->name, cb_shapes[t][0],
                       cb_shapes[t][1], cb_shapes[t][2], threads, cb_status_name(st), err,
                       why.text);
                if (r == 1 && st == CB_SKIP) {
                    CB_CHECK_STR(why.text, "built without CBLAS");
                    continue;
                }
                CB_CHECK_EQ_INT(st, CB_OK);
                CB_CHECK(err >= 0.0 && err < cb_matmul_tolerance(CB_MATMUL_FP32, 1));
            }
        }
        /* Planted fault: no run leaves the NaN poison, which must fail. */
        double err = 0.0;
        cb_msg why = {{0}};
        cb_status st = cb_host_point(b, cb_shapes[4], 2, false, &err, &why);
        if (!(r == 1 && st == CB_SKIP)) {
            CB_CHECK_EQ_INT(st, CB_FAIL);
            CB_CHECK(strstr(why.text, "non-finite") != NULL);
        }
    }
    /* n and k default to the word `m`: a square problem. */
    const cb_bench *b = cb_registry_find("matmul/host_blocked");
    if (b) {
        cb_point p;
        const char *values[3] = {"96", "m", "m"};
        CB_CHECK(cb_test_point(b, NULL, values, &p));
        char axes[CB_POINT_TEXT];
        cb_point_format(&p, axes, sizeof axes);
        CB_CHECK_STR(axes, "m=96;n=m;k=m");
        CB_CHECK_NEAR(b->flops(&p), 2.0 * 96 * 96 * 96, 0);
        CB_CHECK_NEAR(b->bytes(&p), 4.0 * (96 * 96 * 4), 0);
    }
    /* Every matmul rung shares the identity axes m, n, k (pct_ref). */
    int rungs = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *m = cb_registry_get(i);
        if (strncmp(m->name, "matmul/", 7) != 0) continue;
        rungs++;
        CB_CHECK(m->n_axes >= 3 && strcmp(m->axes[0].name, "m") == 0 &&
                 strcmp(m->axes[1].name, "n") == 0 && strcmp(m->axes[2].name, "k") == 0);
        if (m->ref_bench) {
            const cb_bench *ref = cb_registry_find(m->ref_bench);
            CB_CHECK(ref != NULL && ref < m); /* the reference comes first */
        }
    }
    CB_CHECK_EQ_INT(rungs, 15); /* 4 cuBLAS(Lt) references, 9 hand-written, 2 host */
    return cb_test_finish("test_matmul_host");
}
