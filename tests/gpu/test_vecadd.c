/* test_vecadd.c - every vector-add variant over a small sweep verifies, a
 * skipped output is caught, and impossible points skip with a reason. */
/* test links: cubench_engine cubench_bench */
#include "gpu_test_util.h"
#include "families.h"

int main(void)
{
    CB_CHECK(cb_families_register_builtin(NULL) == CB_OK);
    cb_device_info dev;
    cudaStream_t s = cb_test_gpu_stream(&dev, "test_vecadd");

    static const char *const sizes[] = {"1", "3", "1000", "4097", "65537", "2^20", "2^22+3"};
    static const char *const blocks[] = {"32", "256", "1024"};
    static const char *const grids[] = {"1", "auto", "2sm"};
    int checked = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        if (strncmp(b->name, "vecadd/", 7) != 0 || b->target != CB_TARGET_CUDA) continue;
        for (int n = 0; n < CB_ARRAY_LEN(sizes); n++) {
            /* "2^22+3" is not in the grammar: spell it out. */
            const char *size = strcmp(sizes[n], "2^22+3") == 0 ? "4194307" : sizes[n];
            for (int k = 0; k < CB_ARRAY_LEN(blocks); k++) {
                for (int g = 0; g < CB_ARRAY_LEN(grids); g++) {
                    const char *values[5] = {size, blocks[k], grids[g], g == 1 ? "4" : "1",
                                             k == 1 ? "stream" : "none"};
                    cb_point p;
                    if (b->n_axes == 2 && g > 0) continue; /* no grid axis */
                    CB_CHECK(cb_test_point(b, &dev, values, &p));
                    double err = -1;
                    cb_msg why = {{0}};
                    cb_status st = cb_test_run_point(b, &p, &dev, s, true, &err, &why);
                    CB_CHECK_EQ_INT(st, CB_OK);
                    if (st != CB_OK)
                        fprintf(stderr, "  %s n=%s block=%s grid=%s: %s\n", b->name, size,
                                blocks[k], grids[g], why.text);
                    CB_CHECK_NEAR(err, 0, 0);
                    checked++;
                }
            }
        }
        /* Planted fault: without the run, the poisoned output must fail. */
        const char *values[5] = {"4096", "256", "auto", "1", "none"};
        cb_point p;
        CB_CHECK(cb_test_point(b, &dev, values, &p));
        double err = 0;
        cb_msg why = {{0}};
        CB_CHECK_EQ_INT(cb_test_run_point(b, &p, &dev, s, false, &err, &why), CB_FAIL);
        CB_CHECK(strstr(why.text, "4096 of 4096 elements wrong") != NULL);
        /* A block beyond the device limit is a skip with its reason. */
        const char *too_big[5] = {"4096", "2048", "auto", "1", "none"};
        CB_CHECK(cb_test_point(b, &dev, too_big, &p));
        CB_CHECK_EQ_INT(cb_test_run_point(b, &p, &dev, s, true, &err, &why), CB_SKIP);
        CB_CHECK(strstr(why.text, "exceeds the device limit") != NULL);
    }
    printf("test_vecadd: %d points verified\n", checked);
    CB_CHECK(checked >= 100);
    cudaStreamDestroy(s);
    return cb_test_finish("test_vecadd");
}
