/* test_counters_aggregate.c - a point's kernels into one row
 * (counters_aggregate.c), from synthetic per-range values: which metrics
 * add up and which are averaged by GPU time (by CUPTI's name grammar), the
 * weighted mean against the figure taken over the whole run (sum of counts
 * over sum of capacity), one range passed through untouched, and what a
 * value CUPTI could not evaluate does to each kind. */
/* test links: cubench_timing */
#include "cb_test.h"
#include "counters_session.h"

#include <math.h>
#include <string.h>

static void test_combine_rules(void)
{
    static const struct {
        const char *name;
        cb_counters_combine how;
    } cases[] = {
        {"dram__bytes.sum", CB_COUNTERS_COMBINE_SUM},
        {"gpu__time_duration.sum", CB_COUNTERS_COMBINE_SUM},
        {"sm__cycles_elapsed.avg", CB_COUNTERS_COMBINE_SUM},
        {"sm__cycles_active.max", CB_COUNTERS_COMBINE_SUM},
        {"smsp__warps_launched.min", CB_COUNTERS_COMBINE_SUM},
        {"smsp__thread_inst_executed.sum", CB_COUNTERS_COMBINE_SUM},
        {"dram__throughput.avg.pct_of_peak_sustained_elapsed", CB_COUNTERS_COMBINE_TIME_MEAN},
        {"l1tex__throughput.avg.pct_of_peak_sustained_active", CB_COUNTERS_COMBINE_TIME_MEAN},
        {"sm__cycles_elapsed.avg.per_second", CB_COUNTERS_COMBINE_TIME_MEAN},
        {"smsp__inst_executed.avg.per_cycle_active", CB_COUNTERS_COMBINE_TIME_MEAN},
        {"lts__t_sector_hit_rate.pct", CB_COUNTERS_COMBINE_TIME_MEAN},
        {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
         CB_COUNTERS_COMBINE_TIME_MEAN},
        {"sm__inst_executed.max_rate", CB_COUNTERS_COMBINE_TIME_MEAN}, /* not .max */
        {"dram__bytes.sum.peak_sustained", CB_COUNTERS_COMBINE_TIME_MEAN},
        {"dram__bytes.sum.per_second", CB_COUNTERS_COMBINE_TIME_MEAN},
        {"weird", CB_COUNTERS_COMBINE_TIME_MEAN},
    };
    for (int i = 0; i < CB_ARRAY_LEN(cases); i++) {
        cb_counters_combine how = cb_counters_combine_of(cases[i].name);
        if (how != cases[i].how) fprintf(stderr, "combine of %s\n", cases[i].name);
        CB_CHECK(how == cases[i].how);
    }
    CB_CHECK_STR(cb_counters_combine_name(CB_COUNTERS_COMBINE_SUM), "sum");
    CB_CHECK_STR(cb_counters_combine_name(CB_COUNTERS_COMBINE_TIME_MEAN), "time-weighted mean");
}

/* A transpose (short, DRAM-bound) and a GEMM (long, SM-bound) of one point,
 * as an H200 might read them. The point's DRAM share must equal its DRAM
 * bytes over its DRAM capacity across both kernels' time: the bytes per ns
 * at 100% are the same in both ranges (one clock), so the share over the
 * run is (sum of bytes) / (peak x total time). */
static void test_transpose_and_gemm(void)
{
    enum { N = 5, TIME = 0, BYTES = 1, DRAM = 2, SM = 3, CLOCK = 4 };
    const char *names[N] = {"gpu__time_duration.sum", "dram__bytes.sum",
                            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
                            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                            "sm__cycles_elapsed.avg.per_second"};
    const double peak_bytes_per_ns = 4800; /* 4.8 TB/s */
    double rows[2][N] = {{20e3, 0, 0, 9.0, 1.98e9}, {700e3, 0, 0, 91.5, 1.755e9}};
    rows[0][BYTES] = 0.8 * peak_bytes_per_ns * rows[0][TIME]; /* at 80% of peak */
    rows[1][BYTES] = 0.1 * peak_bytes_per_ns * rows[1][TIME]; /* at 10% */
    rows[0][DRAM] = 80;
    rows[1][DRAM] = 10;
    double out[N];
    cb_counters_aggregate(names, N, &rows[0][0], 2, TIME, out);
    CB_CHECK_NEAR(out[TIME], 720e3, 1e-6);
    CB_CHECK_NEAR(out[BYTES], rows[0][BYTES] + rows[1][BYTES], 1e-3);
    double over_run = 100 * out[BYTES] / (peak_bytes_per_ns * out[TIME]);
    CB_CHECK_NEAR(out[DRAM], over_run, 1e-9);
    CB_CHECK_NEAR(out[DRAM], (20 * 80 + 700 * 10) / 720.0, 1e-9);
    CB_CHECK_NEAR(out[SM], (20 * 9.0 + 700 * 91.5) / 720.0, 1e-9);
    /* The clock over the run: total cycles over total time. */
    double cycles = 20e3 * 1.98e9 + 700e3 * 1.755e9;
    CB_CHECK_NEAR(out[CLOCK], cycles / 720e3, 1e-3);
}

/* One kernel: CUPTI's values as they are, whatever the weight says. */
static void test_one_range(void)
{
    const char *names[3] = {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes.sum",
                            "lts__t_sector_hit_rate.pct"};
    double row[3] = {91.5, 3.2e9, NAN};
    double out[3] = {0, 0, 0};
    cb_counters_aggregate(names, 3, row, 1, -1, out);
    CB_CHECK_NEAR(out[0], 91.5, 0);
    CB_CHECK_NEAR(out[1], 3.2e9, 0);
    CB_CHECK(isnan(out[2]));
    /* No range: nothing to say. */
    cb_counters_aggregate(names, 3, row, 0, -1, out);
    CB_CHECK(isnan(out[0]) && isnan(out[1]) && isnan(out[2]));
}

/* A count with a term CUPTI could not evaluate is unknown; a share skips
 * the range that has none (a hit rate of a kernel without loads), and a
 * range without a usable weight; with no weight known it is unknown. */
static void test_missing_values(void)
{
    enum { N = 3 };
    const char *names[N] = {"gpu__time_duration.sum", "l1tex__t_bytes.sum",
                            "l1tex__t_sector_hit_rate.pct"};
    double rows[3][N] = {{100, 10, 50}, {300, NAN, NAN}, {0, 5, 99}};
    double out[N];
    cb_counters_aggregate(names, N, &rows[0][0], 3, 0, out);
    CB_CHECK_NEAR(out[0], 400, 0);
    CB_CHECK(isnan(out[1]));
    CB_CHECK_NEAR(out[2], 50, 0); /* range 1 has no rate, range 2 no time */
    /* Without the time metric a mean over several kernels is unknown, a
     * sum still a sum. */
    double two[2][N] = {{100, 10, 50}, {300, 20, 70}};
    cb_counters_aggregate(names, N, &two[0][0], 2, -1, out);
    CB_CHECK_NEAR(out[1], 30, 0);
    CB_CHECK(isnan(out[2]));
    cb_counters_aggregate(names, N, &two[0][0], 2, 0, out);
    CB_CHECK_NEAR(out[2], (100 * 50 + 300 * 70) / 400.0, 1e-12);
    /* Every weight unusable: unknown, not 0. */
    double unweighed[2][N] = {{NAN, 1, 50}, {-5, 2, 70}};
    cb_counters_aggregate(names, N, &unweighed[0][0], 2, 0, out);
    CB_CHECK(isnan(out[0]) && isnan(out[2]));
    CB_CHECK_NEAR(out[1], 3, 0);
}

int main(void)
{
    test_combine_rules();
    test_transpose_and_gemm();
    test_one_range();
    test_missing_values();
    return cb_test_finish("test_counters_aggregate");
}
