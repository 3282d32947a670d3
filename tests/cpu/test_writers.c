/* test_writers.c - CSV and JSON writers and the results sink against golden
 * files in tests/golden/ (regenerate with CB_UPDATE_GOLDEN=1 after an
 * intended format change, and bump the schema version if columns change),
 * and the sink on a full disk (RLIMIT_FSIZE stands in for one: writes past
 * the limit fail with EFBIG as they would with ENOSPC). Everything is written
 * under one temporary directory, removed at the end. */
/* test links: cubench_output */
#include "cb_test.h"
#include "cb_test_files.h"
#include "csv_writer.h"
#include "json_writer.h"
#include "sink.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_root[] = "/tmp/cb_test_writers_XXXXXX";

/* A path under the test's temporary directory. */
static const char *tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmp_root, name);
    return buf;
}

#define GOLDEN_DIR CB_SOURCE_DIR "/tests/golden/"

static void check_golden(const char *produced_path, const char *golden_name)
{
    char golden[1024];
    snprintf(golden, sizeof golden, "%s%s", GOLDEN_DIR, golden_name);
    size_t plen = 0, glen = 0;
    char *p = cb_test_read_all(produced_path, &plen);
    if (getenv("CB_UPDATE_GOLDEN")) {
        FILE *f = fopen(golden, "wb");
        fwrite(p, 1, plen, f);
        fclose(f);
    }
    char *g = cb_test_read_all(golden, &glen);
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
    char path[512];
    FILE *f = fopen(tmp_path(path, sizeof path, "csv_out.csv"), "w");
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
    check_golden(path, "csv_fields.csv");
}

static void test_json(void)
{
    char path[512];
    FILE *f = fopen(tmp_path(path, sizeof path, "json_out.json"), "w");
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
    cb_json_kv_object_begin(&j, "nested"); /* the shorthand writes the same */
    cb_json_kv_str(&j, "ctl", "\x01");
    /* Valid UTF-8 passes through; Latin-1, a lone continuation byte, an
     * overlong form and a surrogate each become U+FFFD. */
    cb_json_kv_str(&j, "utf8", "H\xc3\xa9llo \xe2\x82\xac");
    cb_json_kv_str(&j, "latin1", "caf\xe9");
    cb_json_kv_str(&j, "bad", "\x80|\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe2\x82");
    cb_json_object_end(&j);
    cb_json_end(&j);
    fclose(f);
    check_golden(path, "json_writer.json");
}

static double fake_bytes(const cb_point *p)
{
    return 12.0 * (double)cb_point_int(p, "n");
}

/* An ok row of `bench` at n=4, timed by events, cold, batch 1. */
static void ok_row(cb_result *r, const cb_bench *bench)
{
    memset(r, 0, sizeof *r);
    r->bench = bench;
    snprintf(r->axes, sizeof r->axes, "n=4");
    r->status = CB_OK;
    r->timer = "event";
    r->cache = "cold";
    r->batch = 1;
}

static void test_sink(void)
{
    static const cb_axis_def axes[] = {{.name = "n", .kind = CB_AXIS_INT, .defaults = "4"}};
    static const cb_bench bench = {
        .name = "fake/one", .axes = axes, .n_axes = 1, .bytes = fake_bytes};
    char dir[512];
    tmp_path(dir, sizeof dir, "sink");
    cb_sink s;
    cb_msg err;
    CB_CHECK(cb_sink_open(&s, dir, &err));
    cb_result r;
    ok_row(&r, &bench);
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
    r.device = 0;
    snprintf(r.device_uuid, sizeof r.device_uuid, "GPU-0000");
    r.replicates = 2;
    r.telemetry.valid = true;
    r.telemetry.sm_clock_min_mhz = 1755;
    r.telemetry.sm_clock_median_mhz = 1980;
    r.telemetry.sm_clock_max_mhz = 1980;
    r.telemetry.mem_clock_median_mhz = 3201;
    r.telemetry.power_mean_w = 412.5;
    r.telemetry.temp_max_c = NAN;
    snprintf(r.telemetry.throttle, sizeof r.telemetry.throttle, "sw_power_cap");
    r.peak_source = "attribute: 2 x memory clock x bus width / 8";
    static const cb_key_figure key = {.name = "fake peak", .rule = CB_KEY_BEST};
    r.kind = CB_KIND_DEVICE;
    r.key_figure = &key;
    r.point.expanded = true;
    r.phases = (cb_phase_times){.setup_s = 0.25,
                                .verify_s = 0.125,
                                .warmup_s = 0.0625,
                                .sampling_s = 1.5,
                                .teardown_s = 0.001};
    r.throttled_samples = 2;
    r.throttle_wait_s = 0.75;
    const int replicate[] = {0, 1, 1};
    const double clocks[] = {1980, 1755, NAN};
    const char *const throttle[] = {"none", "sw_power_cap", NULL};
    cb_sample_extras extras = {
        .replicate = replicate, .sm_clock_mhz = clocks, .throttle = throttle};
    CB_CHECK(cb_sink_write_point(&s, &r, samples, NULL, 3, &extras, &err));
    /* A skipped point: untimed columns stay empty. */
    cb_result skip = r;
    skip.status = CB_SKIP;
    snprintf(skip.reason, sizeof skip.reason, "block 2048 exceeds the device limit of 1024");
    memset(&skip.summary, 0, sizeof skip.summary);
    skip.cupti_median_s = skip.gbps = skip.pct_peak = skip.peak = skip.verify_error = NAN;
    skip.kernels[0] = skip.note[0] = '\0';
    skip.peak_unit = "";
    skip.device = -1;
    skip.device_uuid[0] = '\0';
    skip.replicates = 0;
    skip.telemetry.valid = false;
    skip.peak_source = NULL;
    skip.kind = CB_KIND_HOST;
    skip.key_figure = NULL;
    skip.point.expanded = false; /* skipped before setup: no phase times */
    CB_CHECK(cb_sink_write_point(&s, &skip, NULL, NULL, 0, NULL, &err));
    cb_sink_close(&s);
    char path[600];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    check_golden(path, "results_two_rows.csv");
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    check_golden(path, "samples_three.csv");

    /* A directory that holds files is never reused. */
    cb_sink again;
    CB_CHECK(!cb_sink_open(&again, dir, &err));
    CB_CHECK(strstr(err.text, "never overwrites") != NULL);
    /* A path below a regular file cannot be created. */
    char below[512];
    CB_CHECK(!cb_sink_open(&again, tmp_path(below, sizeof below, "csv_out.csv/sub"), &err));
    CB_CHECK(strstr(err.text, "cannot create") != NULL);
}

/* Lines in a file, and whether it ends with a newline (whole rows). */
static int count_lines(const char *path, bool *ends_whole)
{
    size_t len = 0;
    char *text = cb_test_read_all(path, &len);
    int lines = 0;
    for (size_t i = 0; text && i < len; i++)
        lines += text[i] == '\n';
    *ends_whole = text && len > 0 && text[len - 1] == '\n';
    free(text);
    return lines;
}

/* A disk that fills up mid-run: the write fails with a message, the files
 * keep every earlier point as whole rows, and later writes fail too. */
static void test_sink_full_disk(void)
{
    static const cb_axis_def axes[] = {{.name = "n", .kind = CB_AXIS_INT, .defaults = "4"}};
    static const cb_bench bench = {.name = "fake/full", .axes = axes, .n_axes = 1};
    char dir[512];
    tmp_path(dir, sizeof dir, "full");
    cb_sink s;
    cb_msg err = {{0}};
    CB_CHECK(cb_sink_open(&s, dir, &err));
    cb_result r;
    ok_row(&r, &bench);
    r.device = -1;
    enum { N = 8000 };
    static double samples[N];
    for (int i = 0; i < N; i++)
        samples[i] = 1e-6 * (1 + i % 7);
    cb_stats_summarise(samples, N, &r.summary);
    CB_CHECK(cb_sink_write_point(&s, &r, samples, NULL, 10, NULL, &err));

    /* From here on no file may grow past 64 KiB: the next point's 8000
     * samples (~250 KiB) do not fit. */
    struct rlimit old, lim;
    CB_CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = 64 << 10;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    CB_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    bool ok = cb_sink_write_point(&s, &r, samples, NULL, N, NULL, &err);
    bool again = cb_sink_write_point(&s, &r, samples, NULL, 1, NULL, &err);
    CB_CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);
    CB_CHECK(!ok);
    CB_CHECK(strstr(err.text, "cannot write") != NULL || strstr(err.text, "earlier") != NULL);
    CB_CHECK(!again);
    cb_sink_close(&s);

    char path[600];
    bool whole = false;
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    CB_CHECK_EQ_INT(count_lines(path, &whole), 1 + 10); /* header + the first point */
    CB_CHECK(whole);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    CB_CHECK_EQ_INT(count_lines(path, &whole), 1 + 1);
    CB_CHECK(whole);
}

/* A run that cannot start leaves nothing behind, and the same --out can
 * be used again. */
static void test_sink_discard(void)
{
    char dir[512];
    tmp_path(dir, sizeof dir, "discard/run");
    cb_sink s;
    cb_msg err = {{0}};
    CB_CHECK(cb_sink_open(&s, dir, &err));
    char meta[600];
    snprintf(meta, sizeof meta, "%s/.meta.json.tmp", dir);
    FILE *f = fopen(meta, "w");
    CB_CHECK(f != NULL);
    if (f) fclose(f);
    cb_sink_discard(&s);
    struct stat st;
    char parent[512];
    tmp_path(parent, sizeof parent, "discard");
    CB_CHECK(stat(dir, &st) != 0);    /* made by the sink, so removed, */
    CB_CHECK(stat(parent, &st) != 0); /* and so is the parent it made */
    CB_CHECK(cb_sink_open(&s, dir, &err));
    cb_sink_discard(&s);
    /* A directory the user made stays, empty. */
    CB_CHECK(mkdir(parent, 0777) == 0 && mkdir(dir, 0777) == 0);
    CB_CHECK(cb_sink_open(&s, dir, &err));
    cb_sink_discard(&s);
    CB_CHECK(stat(dir, &st) == 0 && S_ISDIR(st.st_mode));
    CB_CHECK(cb_sink_open(&s, dir, &err));
    cb_sink_close(&s);
    /* Under a directory the user made, only what the sink made goes. */
    char deep[600];
    snprintf(deep, sizeof deep, "%s/a/b", parent);
    CB_CHECK(cb_sink_open(&s, deep, &err));
    cb_sink_discard(&s);
    CB_CHECK(stat(parent, &st) == 0 && S_ISDIR(st.st_mode));
    snprintf(deep, sizeof deep, "%s/a", parent);
    CB_CHECK(stat(deep, &st) != 0);
}

int main(void)
{
    if (!cb_test_temp_dir(tmp_root)) return 1;
    test_csv();
    test_json();
    test_sink();
    test_sink_full_disk();
    test_sink_discard();
    CB_CHECK(cb_test_remove_tree(tmp_root));
    return cb_test_finish("test_writers");
}
