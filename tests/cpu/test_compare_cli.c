/* test_compare_cli.c - `cubench compare` end to end through cb_compare_main,
 * on run directories written to a temporary directory: schema 2 runs with
 * rounds (test_compare_sim.h) and schema 1 runs as the first version wrote them; the
 * side syntaxes, exit codes 0/1/2, the markdown and CSV, --calibrate and
 * --calibration, conditions that differ, throttled points, input errors
 * (meta.json through jansson included), and time bounds on hostile input. */
/* test links: cubench_cli */
#include "cli.h"

#include "cb_test_files.h"
#include "csv_reader.h"

#include "cb_test.h"
#include "test_compare_sim.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp_root[64];

/* CPU seconds of this process: a busy CI machine must not fail the bound. */
static double now_s(void)
{
    return (double)clock() / CLOCKS_PER_SEC;
}

static const char *tmp_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmp_root, name);
    return buf;
}

/* Call cb_compare_main with "compare" and the NULL-terminated arguments. */
static int run_cli(const char *first, ...)
{
    char *argv[40];
    va_list ap;
    va_start(ap, first);
    int argc = cb_test_argv(argv, 40, "compare", first, ap);
    va_end(ap);
    return cb_cli_compare(argc, argv);
}

/* A schema 1 run directory as the first version wrote it: one unit per point. */
typedef struct spec_point {
    const char *bench, *axes, *status, *reason;
    int n;
    double median; /* times are median * (1 + 0.01 * (u - 0.5)) */
} spec_point;

static void write_v1_run(const char *dir, const spec_point *pts, int n_pts)
{
    CB_CHECK(mkdir(dir, 0700) == 0);
    char path[512];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *r = fopen(path, "w");
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *s = fopen(path, "w");
    CB_CHECK(r && s);
    if (!r || !s) return;
    fputs("schema_version,benchmark,family,axes,status,reason,timer,batch,median_s\n", r);
    fputs("benchmark,axes,sample,time_s,cupti_s,batch\n", s);
    for (int i = 0; i < n_pts; i++) {
        const spec_point *p = &pts[i];
        fprintf(r, "1,%s,fam,%s,%s,\"", p->bench, p->axes, p->status);
        for (const char *c = p->reason ? p->reason : ""; *c; c++) {
            if (*c == '"') fputc('"', r); /* RFC 4180: a quote inside is doubled */
            fputc(*c, r);
        }
        fprintf(r, "\",event,1,%.9g\n", p->median);
        for (int k = 0; k < p->n; k++)
            fprintf(s, "%s,%s,%d,%.9g,,1\n", p->bench, p->axes, k,
                    p->median * (1.0 + 0.01 * (sim_uniform() - 0.5)));
    }
    fclose(r);
    fclose(s);
}

/* The default simulation with `points` points. */
static sim_model sim_points(int points)
{
    sim_model m = sim_default();
    m.points = points;
    return m;
}

/* Each directory after `meta`, up to NULL, a simulated run of *m on
 * `device`; false from the first that could not be written. */
static bool write_sims(const sim_model *m, const char *device, const char *meta, ...)
{
    va_list ap;
    va_start(ap, meta);
    bool ok = true;
    for (const char *dir; ok && (dir = va_arg(ap, const char *)) != NULL;)
        ok = sim_write_dir(dir, m, device, meta);
    va_end(ap);
    return ok;
}

/* The file at `path` must contain each of the texts after it, up to NULL. */
static void check_says(const char *path, ...)
{
    char *text = cb_test_read_all(path, NULL);
    va_list ap;
    va_start(ap, path);
    for (const char *want; (want = va_arg(ap, const char *)) != NULL;)
        CB_CHECK_CONTAINS(text, want);
    va_end(ap);
    free(text);
}

/* The CSV's value of `col` in data row `row`, or "" (a static buffer). */
static const char *csv_cell(const char *path, int row, const char *col)
{
    static char cell[256];
    cell[0] = '\0';
    cb_msg err;
    cb_csv *c = cb_csv_read_file(path, &err);
    CB_CHECK_MSG(c != NULL, "%s", err.text);
    if (c && cb_csv_col(c, col) >= 0 && row < cb_csv_rows(c))
        snprintf(cell, sizeof cell, "%s", cb_csv_get(c, row, cb_csv_col(c, col)));
    cb_csv_free(c);
    return cell;
}

/* The schema 2 directories: A/A runs a, b, c and 20%-slower s1, s2, s3. */
typedef struct {
    char a[256], b[256], c[256], s1[256], s2[256], s3[256], md[256], csv[256], cal[256];
} schema2_dirs;

static void schema2_write(schema2_dirs *d)
{
    tmp_path(d->a, sizeof d->a, "a"), tmp_path(d->b, sizeof d->b, "b");
    tmp_path(d->c, sizeof d->c, "c");
    tmp_path(d->s1, sizeof d->s1, "s1"), tmp_path(d->s2, sizeof d->s2, "s2");
    tmp_path(d->s3, sizeof d->s3, "s3");
    tmp_path(d->md, sizeof d->md, "out.md"), tmp_path(d->csv, sizeof d->csv, "out.csv");
    tmp_path(d->cal, sizeof d->cal, "cal.csv");
    sim_model m = sim_points(30);
    sim_model slow = m;
    slow.slowdown = 1.2;
    const char *tele = ", \"telemetry\": {\"power_limit_w\": 700, \"ecc\": true, \"clocks\": "
                       "{\"sm_max_mhz\": 1980}, \"series\": [1, 2]}";
    CB_CHECK(write_sims(&m, "Test GPU", tele, d->a, d->b, d->c, NULL));
    CB_CHECK(write_sims(&slow, "Test GPU", tele, d->s1, d->s2, d->s3, NULL));
}

/* A/A: exit 0, nothing slower, and the report says what it knows */
static void schema2_aa(const schema2_dirs *d)
{
    CB_CHECK(run_cli(d->a, d->b, "--markdown", d->md, "--csv", d->csv, NULL) == 0);
    char *text = cb_test_read_all(d->md, NULL);
    CB_CHECK_CONTAINS(text, "git sim, Test GPU");
    CB_CHECK_CONTAINS(text, "- BASE: 1 run, 5 rounds each.");
    CB_CHECK_CONTAINS(text,
                      "BASE's uncertainty at 30 points: the spread of its rounds inside each run");
    CB_CHECK_CONTAINS(text, "Assumed a default between-run spread at 30 points");
    CB_CHECK_CONTAINS(text, "`cubench compare --calibrate A B C -o FILE`");
    CB_CHECK_CONTAINS(text, "| MDE |");
    CB_CHECK(text && !strstr(text, "**slower**") && !strstr(text, "different conditions"));
    free(text);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "basis"), "rounds/rounds") == 0);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "base_units"), "5") == 0);
}

/* 20% slower everywhere: exit 1, slower rows first with their MDE */
static void schema2_slower(const schema2_dirs *d)
{
    CB_CHECK(run_cli(d->a, d->s1, "--markdown", d->md, "--csv", d->csv, "--title", "PR 7", NULL) ==
             1);
    check_says(d->md, "### PR 7: **", "| **slower** | sim/", "| 99% CI |", NULL);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "verdict"), "slower") == 0);
    double mde = atof(csv_cell(d->csv, 0, "mde"));
    CB_CHECK(mde > 0.03 && mde < 0.2);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "widening"), "default") == 0);
    /* --between-run 0: the rounds alone, and the report warns */
    CB_CHECK(run_cli("--between-run", "0", d->a, d->s1, "--markdown", d->md, "--csv", d->csv,
                     NULL) == 1);
    check_says(d->md, "Rounds stand in for separate processes here", NULL);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "widening"), "none") == 0);
    CB_CHECK(run_cli("--fail-on", "none", d->a, d->s1, "--markdown", d->md, NULL) == 0);
}

/* two runs per side with `--`: still rounds; three with --base/--new: runs */
static void schema2_sides(const schema2_dirs *d)
{
    CB_CHECK(run_cli("--markdown", d->md, "--csv", d->csv, d->a, d->b, "--", d->s1, d->s2, NULL) ==
             1);
    check_says(d->md, "/a` + 1 more run (git sim, Test GPU) → NEW `", NULL);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "base_runs"), "2") == 0);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "basis"), "rounds/rounds") == 0);
    CB_CHECK(run_cli("--base", d->a, "--base", d->b, "--base", d->c, "--new", d->s1, "--new", d->s2,
                     "--new", d->s3, "--csv", d->csv, "--markdown", d->md, NULL) == 1);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "basis"), "runs/runs") == 0);
    CB_CHECK(run_cli("--base", d->a, "--base", d->b, "--base", d->c, "--new", d->a, "--new", d->b,
                     "--new", d->c, "--csv", d->csv, "--markdown", d->md, NULL) == 0);
}

/* --calibrate records three A/A runs; --calibration uses it and says so */
static void schema2_calibration(const schema2_dirs *d)
{
    CB_CHECK(run_cli("--calibrate", d->a, d->b, d->c, "-o", d->cal, NULL) == 0);
    CB_CHECK(strcmp(csv_cell(d->cal, 0, "calibration_version"), "3") == 0);
    CB_CHECK(strcmp(csv_cell(d->cal, 0, "basis"), "rounds") == 0);
    CB_CHECK(strcmp(csv_cell(d->cal, 0, "device"), "Test GPU") == 0);
    CB_CHECK(run_cli(d->a, d->c, "--calibration", d->cal, "--markdown", d->md, "--csv", d->csv,
                     NULL) == 0);
    char *text = cb_test_read_all(d->md, NULL);
    CB_CHECK_CONTAINS(text, "by the between-run spread of the calibration");
    CB_CHECK(text && !strstr(text, "Rounds stand in"));
    free(text);
    CB_CHECK(strcmp(csv_cell(d->csv, 0, "widening"), "calibration") == 0);
}

/* Different conditions: another driver and power limit on NEW's side. */
static void schema2_conditions(const schema2_dirs *d)
{
    char path[512];
    snprintf(path, sizeof path, "%s/meta.json", d->c);
    CB_CHECK(cb_test_write_text(
        path, "{\"schema_version\": 2, \"git_sha\": \"sim\", \"device\": {\"name\": \"Test "
              "GPU\", \"uuid\": \"GPU-other\"}, \"cuda\": {\"driver_api_version\": \"12.8\"}, "
              "\"telemetry\": {\"power_limit_w\": 600, \"ecc\": true}}"));
    CB_CHECK(run_cli(d->a, d->c, "--markdown", d->md, NULL) == 0);
    char *text = cb_test_read_all(d->md, NULL);
    CB_CHECK_CONTAINS(text, "**Warning:** BASE and NEW ran under different conditions");
    CB_CHECK_CONTAINS(text, "> | device.uuid | GPU-sim | GPU-other |");
    CB_CHECK_CONTAINS(text, "> | cuda.driver_api_version | 13.0 | 12.8 |");
    CB_CHECK_CONTAINS(text, "> | telemetry.power_limit_w | 700 | 600 |");
    CB_CHECK(text && !strstr(text, "telemetry.ecc") && !strstr(text, "telemetry.series"));
    free(text);
}

/* The throttle column of the row that starts with ROW_START (its last
 * field, "none") set to REASONS. */
static void set_throttle(const char *path, const char *row_start, const char *reasons)
{
    char *res = cb_test_read_all(path, NULL);
    char *hit = res ? strstr(res, row_start) : NULL;
    char *none = hit ? strstr(hit, ",none\n") : NULL;
    if (none) {
        *none = '\0';
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%s,%s\n%s", res, reasons, none + 6);
            fclose(f);
        }
    }
    CB_CHECK(none != NULL);
    free(res);
}

/* A throttled point is named, with its side and reasons. */
static void schema2_throttled(const schema2_dirs *d)
{
    char path[512];
    snprintf(path, sizeof path, "%s/results.csv", d->b);
    set_throttle(path, "sim/even,sim,i=0,", "gpu_idle+sw_power_cap+hw_slowdown");
    /* and one point that was only idle: no throttling */
    set_throttle(path, "sim/odd,sim,i=1,", "gpu_idle");
    CB_CHECK(run_cli(d->a, d->b, "--markdown", d->md, NULL) == 0);
    char *text = cb_test_read_all(d->md, NULL);
    CB_CHECK_CONTAINS(
        text,
        "**Throttled** (clock-event reasons while sampling, or steady SM clocks apart) at 1 point: "
        "sim/even "
        "[i=0] NEW sw_power_cap+hw_slowdown.");
    free(text);
}

static void test_schema2(void)
{
    schema2_dirs d;
    schema2_write(&d);
    schema2_aa(&d);
    schema2_slower(&d);
    schema2_sides(&d);
    schema2_calibration(&d);
    schema2_conditions(&d);
    schema2_throttled(&d);
}

static void test_schema1_and_sides(void)
{
    char base[256], same[256], skip[256], added[256], md[256], csv[256];
    tmp_path(base, sizeof base, "v1base"), tmp_path(same, sizeof same, "v1same");
    tmp_path(skip, sizeof skip, "v1skip"), tmp_path(added, sizeof added, "v1added");
    tmp_path(md, sizeof md, "out.md"), tmp_path(csv, sizeof csv, "out.csv");
    const spec_point pts[] = {
        {"vecadd/grid_stride", "n=1024", "ok", NULL, 30, 10e-6},
        {"matmul/naive", "n=512", "ok", NULL, 20, 2e-3},
        {"transfers/h2d", "bytes=1048576", "ok", NULL, 20, 50e-6},
    };
    spec_point skipped[3], more[4];
    memcpy(skipped, pts, sizeof pts);
    skipped[2].status = "skip";
    skipped[2].reason = "no pinned memory, \"really\"";
    skipped[2].n = 0;
    memcpy(more, pts, sizeof pts);
    more[3] = (spec_point){"vecadd/new_rung", "n=1024", "skip", "not on this GPU", 0, 0};
    write_v1_run(base, pts, 3);
    write_v1_run(same, pts, 3);
    write_v1_run(skip, skipped, 3);
    write_v1_run(added, more, 4);

    /* schema 1: one unit per run, the default widening, and the report says so */
    CB_CHECK(run_cli(base, same, "--markdown", md, "--csv", csv, NULL) == 0);
    check_says(md,
               "- BASE: 1 run, one round each; schema 1: no replicates, throttle or "
               "telemetry recorded.",
               "Assumed a default between-run spread at 3 points",
               "Runs without meta.json (conditions unknown): BASE 1 of 1, NEW 1 of 1.", NULL);
    CB_CHECK(strcmp(csv_cell(csv, 0, "widening"), "default") == 0);
    CB_CHECK(strcmp(csv_cell(csv, 0, "basis"), "samples/samples") == 0);

    /* NEW skipped a point: missing with its reason; the other way: new */
    CB_CHECK(run_cli(base, skip, "--markdown", md, NULL) == 0);
    check_says(md, "| missing | transfers/h2d | bytes=1048576 |",
               "NEW: skip: no pinned memory, \"really\"", NULL);
    CB_CHECK(run_cli(skip, base, "--markdown", md, NULL) == 0);
    check_says(md, "| new | transfers/h2d |", NULL);
    /* a point only NEW lists (skipped there) is new, never missing */
    CB_CHECK(run_cli(base, added, "--markdown", md, NULL) == 0);
    char *text = cb_test_read_all(md, NULL);
    CB_CHECK_CONTAINS(text, "| new | vecadd/new_rung | n=1024 |");
    CB_CHECK(text && !strstr(text, "missing"));
    free(text);
    /* nothing timed on both sides: exit 2 */
    spec_point all_skip[3];
    memcpy(all_skip, skipped, sizeof skipped);
    for (int i = 0; i < 3; i++)
        all_skip[i].status = "skip", all_skip[i].n = 0;
    char none[256];
    tmp_path(none, sizeof none, "v1none");
    write_v1_run(none, all_skip, 3);
    CB_CHECK(run_cli(none, none, "--markdown", md, NULL) == 2);
    check_says(md, "3 untimed", NULL);
    CB_CHECK(run_cli(base, none, "--markdown", md, NULL) == 2);
    /* --min-abs-delta 0 is accepted (it removes the floor) */
    CB_CHECK(run_cli("--min-abs-delta", "0", base, same, "--markdown", md, NULL) == 0);
}

static void test_usage_errors(void)
{
    char md[256];
    tmp_path(md, sizeof md, "out.md");
    CB_CHECK(run_cli("--help", NULL) == 0);
    CB_CHECK(run_cli(NULL) == 2);
    CB_CHECK(run_cli("only_one_dir", NULL) == 2);
    CB_CHECK(run_cli("a", "b", "c", NULL) == 2);
    CB_CHECK(run_cli("--bogus", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--delta", "abc", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--delta", "0", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--alpha", "0.7", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--power", "0.3", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--min-samples", "2.5", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--min-abs-delta", "-1", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--fail-on", "faster", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("--base", "a", "b", "c", NULL) == 2);  /* mixed forms */
    CB_CHECK(run_cli("--base", "a", "--", "b", NULL) == 2); /* mixed forms */
    CB_CHECK(run_cli("a", "b", "--", NULL) == 2);           /* NEW empty */
    CB_CHECK(run_cli("--calibrate", "a", "b", NULL) == 2);  /* no -o */
    CB_CHECK(run_cli("--calibrate", "--calibration", "c.csv", "a", "b", "c", "-o", "x.csv", NULL) ==
             2); /* one or the other: FILE would be ignored */
    CB_CHECK(run_cli("-o", "x.csv", "a", "b", NULL) == 2); /* -o without --calibrate */
    CB_CHECK(run_cli("--markdown", "-", "--csv", "-", "a", "b", NULL) == 2);
    CB_CHECK(run_cli("/nonexistent/base", "/nonexistent/new", "--markdown", md, NULL) == 2);
}

/* A copy of a good run with one file replaced. */
static void broken_run(const char *name, const char *file, const char *text, char *dir, size_t len)
{
    tmp_path(dir, len, name);
    sim_model m = sim_points(3);
    CB_CHECK(sim_write_dir(dir, &m, "Test GPU", ""));
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    CB_CHECK(cb_test_write_text(path, text));
}

static void test_input_errors(void)
{
    char md[256], good[256], dir[256], cal[256];
    tmp_path(md, sizeof md, "out.md");
    tmp_path(good, sizeof good, "good");
    sim_model m = sim_points(3);
    CB_CHECK(sim_write_dir(good, &m, "Test GPU", ""));
    CB_CHECK(run_cli(good, good, "--markdown", md, NULL) == 0);

    /* Each a run whose one file is broken: exit 2. meta.json: invalid JSON,
     * not an object (nested too deep below). */
    static const struct {
        const char *name, *file, *text;
    } broken[] = {
        {"v4", "results.csv", "schema_version,benchmark,axes,status\n4,sim/even,i=0,ok\n"},
        {"nostatus", "results.csv", "schema_version,benchmark,axes\n1,sim/even,i=0\n"},
        {"trunc", "samples.csv",
         "benchmark,axes,time_s,replicate\nsim/even,i=0,1e-3,0\nsim/even,i=0,1e"},
        {"zero", "samples.csv", "benchmark,axes,time_s\nsim/even,i=0,0\n"},
        {"badrep", "samples.csv", "benchmark,axes,time_s,replicate\nsim/even,i=0,1e-3,x\n"},
        {"twice", "results.csv",
         "schema_version,benchmark,axes,status\n2,sim/even,i=0,ok\n2,sim/even,i=0,ok\n"},
        /* a sample row listed twice, and a round after a later one: either
         * would narrow the point's interval */
        {"dupsample", "samples.csv",
         "benchmark,axes,sample,time_s,replicate\nsim/even,i=0,0,1e-3,0\nsim/even,i=0,1,1e-3,0\n"
         "sim/even,i=0,0,1e-3,0\n"},
        {"roundback", "samples.csv",
         "benchmark,axes,sample,time_s,replicate\nsim/even,i=0,0,1e-3,1\nsim/even,i=0,0,1e-3,0\n"},
        {"negmedian", "results.csv",
         "schema_version,benchmark,axes,status,median_s\n2,sim/even,i=0,ok,-5\n"},
        {"nanclock", "results.csv",
         "schema_version,benchmark,axes,status,sm_clock_median_mhz\n2,sim/even,i=0,ok,nan\n"},
        {"badjson", "meta.json", "{\"git_sha\": \"abc\",}"},
        {"array", "meta.json", "[1, 2]"},
    };
    for (int i = 0; i < CB_ARRAY_LEN(broken); i++) {
        broken_run(broken[i].name, broken[i].file, broken[i].text, dir, sizeof dir);
        CB_CHECK_MSG(run_cli(good, dir, "--markdown", md, NULL) == 2, "%s", broken[i].name);
    }
    char deep[512] = "";
    for (int i = 0; i < 100; i++)
        strcat(deep, "[");
    for (int i = 0; i < 100; i++)
        strcat(deep, "]");
    broken_run("deep", "meta.json", deep, dir, sizeof dir);
    CB_CHECK(run_cli(good, dir, "--markdown", md, NULL) == 2);
    CB_CHECK(cb_cmp_json_depth(deep, strlen(deep), 1000) == 100);
    CB_CHECK(cb_cmp_json_depth("{\"a\": \"[[[\"}", 12, 1000) == 1); /* brackets in strings */
    /* files that are no regular files: refused at once, not read until a
     * writer comes (a FIFO) or for ever (a device); a calibration too */
    static const char *const fifo_files[] = {"results.csv", "meta.json", "samples.csv"};
    for (int i = 0; i < CB_ARRAY_LEN(fifo_files); i++) {
        char name[32], path[512];
        snprintf(name, sizeof name, "fifo-%d", i);
        broken_run(name, "README", "", dir, sizeof dir);
        snprintf(path, sizeof path, "%s/%s", dir, fifo_files[i]);
        CB_CHECK(unlink(path) == 0 && mkfifo(path, 0600) == 0);
        CB_CHECK_MSG(run_cli(good, dir, "--markdown", md, NULL) == 2, "%s", fifo_files[i]);
    }
    CB_CHECK(run_cli(good, good, "--calibration", "/dev/zero", "--markdown", md, NULL) == 2);
    /* a calibration that is not one */
    tmp_path(cal, sizeof cal, "badcal.csv");
    static const char cal_head[] =
        "calibration_version,kind,benchmark,bucket,points,runs,between_run_sd,df\n";
    char cal_text[512];
    snprintf(cal_text, sizeof cal_text, "%s2,device,sim/even,7,3,3,-0.1,3\n", cal_head);
    CB_CHECK(cb_test_write_text(cal, cal_text));
    CB_CHECK(run_cli(good, good, "--calibration", cal, "--markdown", md, NULL) == 2);
    snprintf(cal_text, sizeof cal_text,
             "%s2,device,sim/even,7,3,3,0.01,3\n2,device,sim/even,7,3,3,0.01,3\n", cal_head);
    CB_CHECK(cb_test_write_text(cal, cal_text));
    CB_CHECK(run_cli(good, good, "--calibration", cal, "--markdown", md, NULL) == 2);
    /* a calibration of one A/A pair, as version 1 wrote it: refused, with
     * the advice to record it again */
    CB_CHECK(cb_test_write_text(cal,
                                "calibration_version,benchmark,bucket,points,between_run_sd,df\n"
                                "1,sim/even,7,3,0.01,3\n"));
    CB_CHECK(run_cli(good, good, "--calibration", cal, "--markdown", md, NULL) == 2);
    /* orphan samples (an interrupted run) are ignored, not an error */
    tmp_path(dir, sizeof dir, "orphan");
    CB_CHECK(sim_write_dir(dir, &m, "Test GPU", ""));
    char path[512];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *f = fopen(path, "a");
    if (f) {
        fputs("sim/late,i=0,0,1e-3,,1,0,0,,\n", f);
        fclose(f);
    }
    CB_CHECK(run_cli(good, dir, "--markdown", md, NULL) == 0);
}

/* Replace every `from` in the file at `path` with `to`. */
static void replace_in_file(const char *path, const char *from, const char *to)
{
    char *text = cb_test_read_all(path, NULL);
    CB_CHECK(text != NULL);
    if (!text) return;
    size_t lf = strlen(from), lt = strlen(to), n = 0;
    for (const char *p = text; (p = strstr(p, from)) != NULL; p += lf)
        n++;
    char *out = malloc(strlen(text) + n * (lt > lf ? lt - lf : 0) + 1), *o = out;
    for (const char *p = text;;) {
        const char *hit = strstr(p, from);
        size_t len = hit ? (size_t)(hit - p) : strlen(p);
        memcpy(o, p, len), o += len;
        if (!hit) break;
        memcpy(o, to, lt), o += lt;
        p = hit + lf;
    }
    *o = '\0';
    CB_CHECK(cb_test_write_text(path, out));
    free(out);
    free(text);
}

static int count_verdict(const char *csv, const char *verdict)
{
    cb_msg err;
    cb_csv *c = cb_csv_read_file(csv, &err);
    int n = 0;
    for (int r = 0; c && r < cb_csv_rows(c); r++)
        n += strcmp(cb_csv_get(c, r, cb_csv_col(c, "verdict")), verdict) == 0;
    cb_csv_free(c);
    return n;
}

/* The same run given several times on a side - the same path, a symlink, a
 * copy - is one run: three of them were taken for three processes with no
 * spread between them, and a 3.5% change that one run per side cannot
 * decide came out `slower` at every long point (exit 1). */
static void test_same_run_twice(void)
{
    char a[256], s[256], link_a[256], copy_a[256], md[256], csv[256], cal[256], cmd[1024];
    tmp_path(a, sizeof a, "twice_a"), tmp_path(s, sizeof s, "twice_s");
    tmp_path(link_a, sizeof link_a, "twice_a_link"),
        tmp_path(copy_a, sizeof copy_a, "twice_a_copy");
    tmp_path(md, sizeof md, "twice.md"), tmp_path(csv, sizeof csv, "twice.csv");
    tmp_path(cal, sizeof cal, "twice_cal.csv");
    sim_model m = sim_points(30);
    m.bimodal = false;
    sim_model slow = m;
    slow.slowdown = 1.035;
    CB_CHECK(sim_write_dir(a, &m, "Test GPU", "") && sim_write_dir(s, &slow, "Test GPU", ""));
    CB_CHECK(symlink(a, link_a) == 0);
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s'", a, copy_a);
    CB_CHECK(system(cmd) == 0);
    int one = run_cli(a, s, "--csv", csv, "--markdown", md, NULL);
    int one_slower = count_verdict(csv, "slower");
    CB_CHECK(one == 0 && one_slower == 0);
    CB_CHECK(run_cli("--base", a, "--base", link_a, "--base", copy_a, "--new", s, "--new", s,
                     "--csv", csv, "--markdown", md, NULL) == one);
    CB_CHECK(count_verdict(csv, "slower") == one_slower);
    CB_CHECK(strcmp(csv_cell(csv, 0, "base_runs"), "1") == 0);
    check_says(md, "twice_a_link` left out: the same directory of ",
               "twice_a_copy` left out: a copy: byte-identical samples of ", "- NEW: `", NULL);
    /* --calibrate of one run given three ways: not three processes */
    CB_CHECK(run_cli("--calibrate", a, a, "-o", cal, NULL) == 2);
    CB_CHECK(run_cli("--calibrate", a, link_a, copy_a, "-o", cal, NULL) == 2);
    CB_CHECK(access(cal, F_OK) != 0); /* and nothing written */
    /* --calibrate with --calibration FILE: refused, not FILE ignored */
    char old_cal[256];
    tmp_path(old_cal, sizeof old_cal, "twice_old_cal.csv");
    CB_CHECK(cb_test_write_text(old_cal,
                                "calibration_version,benchmark,bucket,points,between_run_sd,"
                                "df\n1,*,*,3,0.01,3\n"));
    CB_CHECK(run_cli("--calibrate", "--calibration", old_cal, a, s, "-o", cal, NULL) == 2);
    CB_CHECK(access(cal, F_OK) != 0);
}

/* A side whose runs ran on different devices is said to mix them, even
 * when the other side mixes them alike (no condition then differs). */
static void test_mixed_devices(void)
{
    char a[256], b[256], o1[256], o2[256], md[256], path[512];
    tmp_path(a, sizeof a, "mix_a"), tmp_path(b, sizeof b, "mix_b");
    tmp_path(o1, sizeof o1, "mix_o1"), tmp_path(o2, sizeof o2, "mix_o2");
    tmp_path(md, sizeof md, "mix.md");
    sim_model m = sim_points(10);
    CB_CHECK(write_sims(&m, "Test GPU", "", a, b, NULL));
    CB_CHECK(write_sims(&m, "Other GPU", "", o1, o2, NULL));
    const char *others[] = {o1, o2};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/results.csv", others[i]);
        replace_in_file(path, "GPU-sim", "GPU-other");
        snprintf(path, sizeof path, "%s/meta.json", others[i]);
        replace_in_file(path, "GPU-sim", "GPU-other");
    }
    CB_CHECK(run_cli("--base", a, "--base", o1, "--new", b, "--new", o2, "--markdown", md, NULL) ==
             0);
    check_says(md,
               "- **BASE mixes devices:** 1 run on GPU-sim, 1 on other devices (first: "
               "GPU-other)",
               "- **NEW mixes devices:**", NULL);
}

/* samples.csv kept as samples.csv.xz (as tests/data keeps them) is read
 * through xz; without xz, or a damaged file, the message says so. */
static void test_packed_samples(void)
{
    if (system("xz --version > /dev/null 2>&1") != 0) {
        printf("test_compare_cli: xz not found, packed samples not tested\n");
        return;
    }
    char a[256], p[256], bad[256], md[256], csv[256], cmd[1024], path[512];
    tmp_path(a, sizeof a, "xz_a"), tmp_path(p, sizeof p, "xz_packed");
    tmp_path(bad, sizeof bad, "xz_bad"), tmp_path(md, sizeof md, "xz.md");
    tmp_path(csv, sizeof csv, "xz.csv");
    sim_model m = sim_points(10);
    CB_CHECK(write_sims(&m, "Test GPU", "", a, p, bad, NULL));
    snprintf(cmd, sizeof cmd, "xz -z '%s/samples.csv'", p);
    CB_CHECK(system(cmd) == 0);
    CB_CHECK(run_cli(a, p, "--markdown", md, "--csv", csv, NULL) == 0);
    CB_CHECK(strcmp(csv_cell(csv, 0, "new_units"), "5") == 0);
    snprintf(path, sizeof path, "%s/samples.csv", bad);
    CB_CHECK(remove(path) == 0);
    snprintf(path, sizeof path, "%s/samples.csv.xz", bad);
    CB_CHECK(cb_test_write_text(path, "not xz at all\n"));
    CB_CHECK(run_cli(a, bad, "--markdown", md, NULL) == 2);
    const char *saved = getenv("PATH");
    char *keep = saved ? strdup(saved) : NULL;
    setenv("PATH", "/nonexistent", 1);
    CB_CHECK(run_cli(a, p, "--markdown", md, NULL) == 2); /* no xz: refused, with the reason */
    if (keep) setenv("PATH", keep, 1);
    free(keep);
}

/* A point whose kept samples ran throttled is `throttled`, never slower,
 * and exits 0 unless --fail-on-throttled. */
static void test_throttled_verdict(void)
{
    char a[256], t[256], md[256], csv[256], path[512];
    tmp_path(a, sizeof a, "thr_a"), tmp_path(t, sizeof t, "thr_t");
    tmp_path(md, sizeof md, "thr.md"), tmp_path(csv, sizeof csv, "thr.csv");
    sim_model m = sim_points(10);
    sim_model slow = m;
    slow.slowdown = 1.2;
    CB_CHECK(sim_write_dir(a, &m, "Test GPU", "") && sim_write_dir(t, &slow, "Test GPU", ""));
    snprintf(path, sizeof path, "%s/samples.csv", t);
    replace_in_file(path, ",1980,none\n", ",1395,sw_power_cap\n");
    CB_CHECK(run_cli(a, t, "--markdown", md, "--csv", csv, NULL) == 0);
    CB_CHECK(count_verdict(csv, "slower") == 0);
    CB_CHECK(count_verdict(csv, "throttled") == 10);
    CB_CHECK(strcmp(csv_cell(csv, 0, "tested_verdict"), "slower") == 0);
    check_says(md, "| throttled | sim/", "NEW 100 of 100 samples under sw_power_cap",
               "`--fail-on-throttled` makes those fail", NULL);
    CB_CHECK(run_cli(a, t, "--fail-on-throttled", "--markdown", md, NULL) == 1);
}

/* results.csv of `dir` given an SM clock median for every row. */
static void set_row_clock(const char *dir, const char *mhz)
{
    char path[512], cell[32];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    replace_in_file(path, "replicates,throttle\n", "replicates,throttle,sm_clock_median_mhz\n");
    snprintf(cell, sizeof cell, ",none,%s\n", mhz);
    replace_in_file(path, ",none\n", cell);
}

/* Both sides steady but at SM clocks more than 2% apart: the GPU's state
 * differed, so a difference is `throttled` with both clocks in the note;
 * 1% apart is an ordinary comparison. */
static void test_clocks_apart(void)
{
    char a[256], t[256], u[256], md[256], csv[256];
    tmp_path(a, sizeof a, "clk_a"), tmp_path(t, sizeof t, "clk_t"), tmp_path(u, sizeof u, "clk_u");
    tmp_path(md, sizeof md, "clk.md"), tmp_path(csv, sizeof csv, "clk.csv");
    sim_model m = sim_points(10);
    sim_model slow = m;
    slow.slowdown = 1.2;
    CB_CHECK(sim_write_dir(a, &m, "Test GPU", "") && write_sims(&slow, "Test GPU", "", t, u, NULL));
    set_row_clock(a, "1980");
    set_row_clock(t, "1860");
    set_row_clock(u, "1960");
    CB_CHECK(run_cli(a, t, "--markdown", md, "--csv", csv, NULL) == 0);
    CB_CHECK_EQ_INT(count_verdict(csv, "throttled"), 10);
    CB_CHECK_STR(csv_cell(csv, 0, "tested_verdict"), "slower");
    check_says(md, "SM clock medians apart: BASE 1980 MHz, NEW 1860 MHz", "steady SM clocks apart",
               NULL);
    CB_CHECK(run_cli(a, u, "--markdown", md, "--csv", csv, NULL) == 1);
    CB_CHECK_EQ_INT(count_verdict(csv, "slower"), 10);
}

/* A report that cannot be written stops with exit 2 and says why. */
static void test_write_errors(void)
{
    if (access("/dev/full", W_OK) != 0) return;
    char a[256], err_file[256];
    tmp_path(a, sizeof a, "werr_a"), tmp_path(err_file, sizeof err_file, "werr.err");
    sim_model m = sim_points(5);
    CB_CHECK(sim_write_dir(a, &m, "Test GPU", ""));
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *e = fopen(err_file, "w");
    if (e) dup2(fileno(e), STDERR_FILENO), fclose(e);
    int md = run_cli(a, a, "--markdown", "/dev/full", NULL);
    int csv = run_cli(a, a, "--csv", "/dev/full", "--markdown", "-", NULL);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    CB_CHECK(md == 2 && csv == 2);
    check_says(err_file, "compare: error writing /dev/full: No space left on device", NULL);
}

/* What one of a run's CSV files holds, for a size `n`. */
typedef void (*csv_body_fn)(FILE *f, int n);

/* A new run directory tmp_root/NAME whose results.csv and samples.csv
 * `results` and `samples` write for `n`; CPU seconds of comparing it with
 * itself (the writing not counted). */
static double time_self_compare(const char *name, csv_body_fn results, csv_body_fn samples, int n,
                                const char *md)
{
    char dir[256], path[512];
    tmp_path(dir, sizeof dir, name);
    CB_CHECK(mkdir(dir, 0700) == 0);
    const char *files[] = {"results.csv", "samples.csv"};
    csv_body_fn bodies[] = {results, samples};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        CB_CHECK(f != NULL);
        if (!f) continue;
        bodies[i](f, n);
        CB_CHECK(fclose(f) == 0);
    }
    double t0 = now_s();
    CB_CHECK(run_cli(dir, dir, "--markdown", md, NULL) == 0);
    return now_s() - t0;
}

/* One row with `cols` extra columns, of 6 samples. */
static void wide_results(FILE *f, int cols)
{
    fputs("schema_version,benchmark,axes,status", f);
    for (int i = 0; i < cols; i++)
        fprintf(f, ",c%d", i);
    fputs("\n2,b/x,n=1,ok", f);
    for (int i = 0; i < cols; i++)
        fputs(",", f);
    fputs("\n", f);
}

static void wide_samples(FILE *f, int cols)
{
    (void)cols;
    fputs("benchmark,axes,time_s\nb/x,n=1,1e-3\nb/x,n=1,1e-3\nb/x,n=1,1e-3\n"
          "b/x,n=1,1e-3\nb/x,n=1,1e-3\nb/x,n=1,1e-3\n",
          f);
}

/* `names` benchmarks of 6 samples each. */
static void many_results(FILE *f, int names)
{
    fputs("schema_version,benchmark,axes,status\n", f);
    for (int i = 0; i < names; i++)
        fprintf(f, "2,bench%d/x,n=1,ok\n", i);
}

static void many_samples(FILE *f, int names)
{
    fputs("benchmark,axes,time_s,replicate\n", f);
    for (int i = 0; i < names; i++)
        for (int k = 0; k < 6; k++)
            fprintf(f, "bench%d/x,n=1,%.6g,0\n", i, 1e-3 * (1.0 + 0.001 * k));
}

/* Hostile sizes must stay fast: every parser and grouping step is linear or
 * n log n (a 100 000-column header took 95 s, 50 000 benchmark names 18 s).
 * Judged by how the CPU time grows from n/8 to n, which a sanitizer build or
 * a loaded machine does not change: linear is x8, n log n ~x9, quadratic
 * x64; the bound is x24. The absolute bound (20 s at n) only catches what is
 * far slower than any build (0.02 s and 0.4 s in a release build). */
static void test_hostile_sizes(void)
{
    char md[256];
    tmp_path(md, sizeof md, "out.md");
    enum { COLS = 100000, NAMES = 50000, STEP = 8 };
    const double floor_s = 0.005; /* clock() resolution and start-up costs */
    double wide_small =
        time_self_compare("wide_small", wide_results, wide_samples, COLS / STEP, md);
    double wide = time_self_compare("wide", wide_results, wide_samples, COLS, md);
    double many_small =
        time_self_compare("many_small", many_results, many_samples, NAMES / STEP, md);
    double many = time_self_compare("many", many_results, many_samples, NAMES, md);
    printf(
        "hostile sizes: %d columns %.3f s (%d: %.3f s), %d benchmark names %.3f s (%d: %.3f s)\n",
        COLS, wide, COLS / STEP, wide_small, NAMES, many, NAMES / STEP, many_small);
    CB_CHECK(wide < 3 * STEP * (wide_small > floor_s ? wide_small : floor_s));
    CB_CHECK(many < 3 * STEP * (many_small > floor_s ? many_small : floor_s));
    CB_CHECK(wide < 20.0 && many < 20.0);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/cb_compare_XXXXXX");
    if (!cb_test_temp_dir(tmp_root)) return 1;
    test_schema2();
    test_schema1_and_sides();
    test_usage_errors();
    test_input_errors();
    test_same_run_twice();
    test_mixed_devices();
    test_packed_samples();
    test_throttled_verdict();
    test_clocks_apart();
    test_write_errors();
    test_hostile_sizes();
    CB_CHECK(cb_test_remove_tree(tmp_root));
    return cb_test_finish("test_compare_cli");
}
