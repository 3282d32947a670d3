/* test_writers.c - CSV and JSON writers and the results sink against golden
 * files in tests/golden/ (regenerate with CB_UPDATE_GOLDEN=1 after an
 * intended format change, and bump the schema version if columns change). */
#include "cb_test.h"
#include "csv_writer.h"
#include "json_writer.h"
#include "sink.h"

#include <stdlib.h>
#include <unistd.h>

#define GOLDEN_DIR CB_SOURCE_DIR "/tests/golden/"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) n = 0;
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void check_golden(const char *produced_path, const char *golden_name)
{
    char golden[1024];
    snprintf(golden, sizeof golden, "%s%s", GOLDEN_DIR, golden_name);
    size_t plen = 0, glen = 0;
    char *p = slurp(produced_path, &plen);
    if (getenv("CB_UPDATE_GOLDEN")) {
        FILE *f = fopen(golden, "wb");
        fwrite(p, 1, plen, f);
        fclose(f);
    }
    char *g = slurp(golden, &glen);
    CB_CHECK(p != NULL && g != NULL);
    bool same = p && g && plen == glen && memcmp(p, g, plen) == 0;
    CB_CHECK(same);
    if (!same)
        fprintf(stderr, "  %s differs from %s\n--- produced:\n%s\n", produced_path, golden,
                p ? p : "(none)");
    free(p);
    free(g);
}

static void test_csv(void)
{
    FILE *f = fopen("csv_out.csv", "w");
    cb_csv_row r;
    cb_csv_begin(&r, f);
    cb_csv_str(&r, "plain");
    cb_csv_str(&r, "a,b");
    cb_csv_str(&r, "say \"hi\"");
    cb_csv_str(&r, "two\nlines");
    cb_csv_str(&r, NULL);
    cb_csv_num(&r, 1.0 / 3.0);
    cb_csv_num(&r, NAN);
    cb_csv_num(&r, INFINITY);
    cb_csv_int(&r, -42);
    cb_csv_num(&r, 4.38e12);
    cb_csv_end(&r);
    fclose(f);
    check_golden("csv_out.csv", "csv_fields.csv");
}

static void test_json(void)
{
    FILE *f = fopen("json_out.json", "w");
    cb_json j;
    cb_json_begin(&j, f);
    cb_json_kv_str(&j, "name", "NVIDIA \"H200\"\t\\");
    cb_json_kv_int(&j, "sms", 132);
    cb_json_kv_num(&j, "peak", 4915.2);
    cb_json_kv_num(&j, "missing", NAN);
    cb_json_kv_bool(&j, "ok", true);
    cb_json_key(&j, "list");
    cb_json_array_begin(&j);
    cb_json_str(&j, "run");
    cb_json_str(&j, NULL);
    cb_json_array_end(&j);
    cb_json_key(&j, "empty");
    cb_json_object_begin(&j);
    cb_json_object_end(&j);
    cb_json_key(&j, "nested");
    cb_json_object_begin(&j);
    cb_json_kv_str(&j, "ctl", "\x01");
    cb_json_object_end(&j);
    cb_json_end(&j);
    fclose(f);
    check_golden("json_out.json", "json_writer.json");
}

static double fake_bytes(const cb_point *p)
{
    return 12.0 * (double)cb_point_int(p, "n");
}

static void test_sink(void)
{
    static const cb_axis_def axes[] = {{.name = "n", .kind = CB_AXIS_INT, .defaults = "4"}};
    static const cb_bench bench = {
        .name = "fake/one", .axes = axes, .n_axes = 1, .bytes = fake_bytes};
    char dir[] = "sink_test_XXXXXX";
    CB_CHECK(mkdtemp(dir) != NULL);
    cb_sink s;
    cb_msg err;
    CB_CHECK(cb_sink_open(&s, dir, &err));
    cb_result r;
    memset(&r, 0, sizeof r);
    r.bench = &bench;
    snprintf(r.axes, sizeof r.axes, "n=4");
    r.status = CB_OK;
    r.timer = "event";
    r.cache = "cold";
    r.batch = 1;
    double samples[] = {2e-6, 1e-6, 3e-6};
    cb_stats_summarise(samples, 3, &r.summary);
    r.cupti_median_s = 1.5e-6;
    snprintf(r.kernels, sizeof r.kernels, "k1|k2");
    r.bytes = 48;
    r.flops = NAN;
    r.gbps = 48 / 2e-6 / 1e9;
    r.tflops = NAN;
    r.peak = 4915.2;
    r.peak_unit = "GB/s";
    r.pct_peak = 100 * r.gbps / r.peak;
    r.pct_ref = NAN;
    r.occupancy = 1.0;
    r.verify_error = 0;
    snprintf(r.note, sizeof r.note, "grid 132, \"auto\"");
    cb_sink_write_samples(&s, &r, samples, NULL, 3);
    cb_sink_write_result(&s, &r);
    /* A skipped point: untimed columns stay empty. */
    cb_result skip = r;
    skip.status = CB_SKIP;
    snprintf(skip.reason, sizeof skip.reason, "block 2048 exceeds the device limit of 1024");
    memset(&skip.summary, 0, sizeof skip.summary);
    skip.cupti_median_s = skip.gbps = skip.pct_peak = skip.peak = skip.verify_error = NAN;
    skip.kernels[0] = skip.note[0] = '\0';
    skip.peak_unit = "";
    cb_sink_write_result(&s, &skip);
    cb_sink_close(&s);
    char path[512];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    check_golden(path, "results_two_rows.csv");
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    check_golden(path, "samples_three.csv");

    /* A directory that holds files is never reused. */
    cb_sink again;
    CB_CHECK(!cb_sink_open(&again, dir, &err));
    CB_CHECK(strstr(err.text, "never overwrites") != NULL);
    /* A path below a regular file cannot be created. */
    CB_CHECK(!cb_sink_open(&again, "csv_out.csv/sub", &err));
}

int main(void)
{
    test_csv();
    test_json();
    test_sink();
    return cb_test_finish("test_writers");
}
