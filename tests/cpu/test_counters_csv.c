/* test_counters_csv.c - the counters in the run's files, through the sink:
 * metrics.csv in long format (benchmark, axes, device, metric, value, unit;
 * a row per collected metric of each point, none for a point whose pass
 * skipped or that had none), made with the first point that has counters
 * and never otherwise, removed with a discarded run; and results.csv's
 * counters columns (the SOL figures only when collected; status and reason
 * whenever the pass was asked for; all empty without one). Everything under
 * one temporary directory, removed at the end. */
/* test links: cubench_output */
#include "cb_test.h"
#include "cb_test_files.h"
#include "csv_reader.h"
#include "metrics_csv.h"
#include "sink.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_root[] = "/tmp/cb_test_counters_csv_XXXXXX";

static const cb_axis_def axes[] = {{.name = "n", .kind = CB_AXIS_INT, .defaults = "4"}};
static const cb_bench bench = {.name = "fake/add", .axes = axes, .n_axes = 1};

static const char *const names[] = {"dram__throughput.avg.pct_of_peak_sustained_elapsed",
                                    "dram__bytes.sum", "gpu__time_duration.sum"};
static const char *const units[] = {"percent", "byte", "nanosecond"};

static cb_result base_row(const char *axes_text, int device)
{
    cb_result r;
    memset(&r, 0, sizeof r);
    r.bench = &bench;
    snprintf(r.axes, sizeof r.axes, "%s", axes_text);
    r.status = CB_OK;
    r.timer = "event";
    r.cache = "cold";
    r.batch = 1;
    double samples[] = {1e-3, 1.1e-3, 0.9e-3};
    cb_stats_summarise(samples, 3, &r.summary);
    r.cupti_median_s = r.bytes = r.flops = r.gbps = r.tflops = NAN;
    r.peak = r.pct_peak = r.pct_ref = r.occupancy = r.verify_error = NAN;
    r.peak_unit = "";
    r.device = device;
    r.kind = CB_KIND_DEVICE;
    return r;
}

static cb_result collected_row(double *values, const char *axes_text, int kernels)
{
    cb_result r = base_row(axes_text, 1);
    r.counters = (cb_point_counters){.asked = true,
                                     .status = CB_OK,
                                     .kernels = kernels,
                                     .sol_dram_pct = 91.25,
                                     .sol_l2_pct = 40.5,
                                     .sol_l1_pct = NAN, /* not collected: an empty cell */
                                     .sol_sm_pct = 12.0,
                                     .sol_tensor_pct = 0,
                                     .dram_bytes = 3.25e9,
                                     .measured_flops = 268435456,
                                     .passes = 14,
                                     .wall_s = 0.125,
                                     .n = 3,
                                     .names = names,
                                     .units = units,
                                     .values = values};
    return r;
}

static cb_csv *read_csv(const char *dir, const char *file)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    cb_msg err = {{0}};
    cb_csv *csv = cb_csv_read_file(path, &err);
    if (!csv) fprintf(stderr, "%s\n", err.text);
    return csv;
}

static const char *cell(const cb_csv *csv, int row, const char *col)
{
    int c = cb_csv_col(csv, col);
    return c >= 0 && row < cb_csv_rows(csv) ? cb_csv_get(csv, row, c) : "(missing)";
}

static bool exists(const char *dir, const char *file)
{
    char path[600];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return stat(path, &st) == 0;
}

static void check_metrics_csv(const char *dir)
{
    cb_csv *m = read_csv(dir, "metrics.csv");
    CB_CHECK(m != NULL);
    if (!m) return;
    CB_CHECK_EQ_INT(cb_csv_cols(m), 6);
    for (int i = 0; cb_metrics_columns[i]; i++)
        CB_CHECK_STR(cb_csv_header(m, i), cb_metrics_columns[i]);
    CB_CHECK_EQ_INT(cb_csv_rows(m), 6); /* two collected points x 3 metrics */
    CB_CHECK_STR(cell(m, 0, "benchmark"), "fake/add");
    CB_CHECK_STR(cell(m, 0, "axes"), "n=1;block=256");
    CB_CHECK_STR(cell(m, 0, "device"), "1");
    CB_CHECK_STR(cell(m, 0, "metric"), names[0]);
    CB_CHECK_STR(cell(m, 0, "value"), "91.25");
    CB_CHECK_STR(cell(m, 0, "unit"), "percent");
    CB_CHECK_STR(cell(m, 1, "value"), "3.25e+09");
    CB_CHECK_STR(cell(m, 1, "unit"), "byte");
    CB_CHECK_STR(cell(m, 2, "value"), ""); /* NAN from CUPTI: empty, not "nan" */
    CB_CHECK_STR(cell(m, 3, "axes"), "n=4");
    CB_CHECK_STR(cell(m, 5, "metric"), "gpu__time_duration.sum");
    CB_CHECK_STR(cell(m, 5, "value"), "125000");
    cb_csv_free(m);
}

static void check_results_csv(const char *dir)
{
    cb_csv *r = read_csv(dir, "results.csv");
    CB_CHECK(r != NULL);
    if (!r) return;
    CB_CHECK_EQ_INT(cb_csv_rows(r), 4);
    /* collected */
    CB_CHECK_STR(cell(r, 0, "sol_dram_pct"), "91.25");
    CB_CHECK_STR(cell(r, 0, "sol_l1_pct"), "");
    CB_CHECK_STR(cell(r, 0, "sol_tensor_pct"), "0");
    CB_CHECK_STR(cell(r, 0, "dram_bytes"), "3.25e+09");
    CB_CHECK_STR(cell(r, 0, "measured_flops"), "268435456");
    CB_CHECK_STR(cell(r, 0, "metrics_status"), "ok");
    CB_CHECK_STR(cell(r, 0, "metrics_passes"), "14");
    CB_CHECK_STR(cell(r, 0, "metrics_wall_s"), "0.125");
    CB_CHECK_STR(cell(r, 0, "metrics_kernels"), "2");
    CB_CHECK_STR(cell(r, 0, "metrics_reason"), "");
    /* no metric pass asked: every counters cell empty */
    static const char *const cols[] = {"sol_dram_pct",   "sol_sm_pct",      "dram_bytes",
                                       "measured_flops", "metrics_status",  "metrics_reason",
                                       "metrics_passes", "metrics_kernels", "metrics_wall_s"};
    for (int i = 0; i < CB_ARRAY_LEN(cols); i++)
        CB_CHECK_STR(cell(r, 1, cols[i]), "");
    /* asked and skipped: status and reason, no figures */
    CB_CHECK_STR(cell(r, 2, "metrics_status"), "skip");
    CB_CHECK(strstr(cell(r, 2, "metrics_reason"), "only administrators") != NULL);
    CB_CHECK_STR(cell(r, 2, "sol_dram_pct"), "");
    CB_CHECK_STR(cell(r, 2, "metrics_passes"), "0");
    CB_CHECK_STR(cell(r, 2, "metrics_kernels"), "");
    CB_CHECK_STR(cell(r, 2, "status"), "ok"); /* the timing is the point's, untouched */
    /* collected as one range around a run without kernels: 0, and why */
    CB_CHECK_STR(cell(r, 3, "metrics_status"), "ok");
    CB_CHECK_STR(cell(r, 3, "metrics_kernels"), "0");
    CB_CHECK(strstr(cell(r, 3, "metrics_reason"), "no kernel in one run") != NULL);
    cb_csv_free(r);
}

static void test_files(void)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/run", tmp_root);
    cb_sink s;
    cb_msg err = {{0}};
    CB_CHECK(cb_sink_open(&s, dir, &err));
    CB_CHECK(!exists(dir, "metrics.csv")); /* not before a point has counters */

    double values[] = {91.25, 3.25e9, NAN};
    cb_result a = collected_row(values, "n=1;block=256", 2);
    CB_CHECK(cb_metrics_csv_has_rows(&a));
    CB_CHECK(cb_sink_write_point(&s, &a, NULL, NULL, 0, NULL, &err));
    CB_CHECK(exists(dir, "metrics.csv"));

    cb_result none = base_row("n=2", 0);
    CB_CHECK(!cb_metrics_csv_has_rows(&none));
    CB_CHECK(cb_sink_write_point(&s, &none, NULL, NULL, 0, NULL, &err));

    cb_result skipped = base_row("n=3", 0);
    skipped.counters = (cb_point_counters){.asked = true, .status = CB_SKIP, .wall_s = 1e-5};
    snprintf(skipped.counters.reason, sizeof skipped.counters.reason,
             "counters unavailable: the driver lets only administrators read GPU performance "
             "counters");
    CB_CHECK(!cb_metrics_csv_has_rows(&skipped));
    CB_CHECK(cb_sink_write_point(&s, &skipped, NULL, NULL, 0, NULL, &err));

    double values2[] = {50, 1e6, 125000};
    cb_result b = collected_row(values2, "n=4", 0);
    snprintf(b.counters.reason, sizeof b.counters.reason,
             "no kernel in one run: one range around the whole run, launch gaps included");
    CB_CHECK(cb_sink_write_point(&s, &b, NULL, NULL, 0, NULL, &err));
    cb_sink_close(&s);
    check_metrics_csv(dir);
    check_results_csv(dir);

    /* A run without counters leaves no metrics.csv; a discarded run takes
     * its metrics.csv with it. */
    char other[600];
    snprintf(other, sizeof other, "%s/plain", tmp_root);
    CB_CHECK(cb_sink_open(&s, other, &err));
    CB_CHECK(cb_sink_write_point(&s, &none, NULL, NULL, 0, NULL, &err));
    cb_sink_close(&s);
    CB_CHECK(!exists(other, "metrics.csv"));
    snprintf(other, sizeof other, "%s/discarded", tmp_root);
    CB_CHECK(cb_sink_open(&s, other, &err));
    CB_CHECK(cb_sink_write_point(&s, &a, NULL, NULL, 0, NULL, &err));
    CB_CHECK(exists(other, "metrics.csv"));
    cb_sink_discard(&s);
    CB_CHECK(!exists(other, "metrics.csv"));
    CB_CHECK(!exists(tmp_root, "discarded"));
}

static void remove_tree(void)
{
    static const char *const runs[] = {"run", "plain"};
    static const char *const files[] = {"results.csv", "samples.csv", "metrics.csv"};
    char path[700];
    for (int r = 0; r < 2; r++) {
        for (int f = 0; f < 3; f++) {
            snprintf(path, sizeof path, "%s/%s/%s", tmp_root, runs[r], files[f]);
            unlink(path);
        }
        snprintf(path, sizeof path, "%s/%s", tmp_root, runs[r]);
        rmdir(path);
    }
    CB_CHECK(rmdir(tmp_root) == 0);
}

int main(void)
{
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    test_files();
    remove_tree();
    return cb_test_finish("test_counters_csv");
}
