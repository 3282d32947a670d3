/* test_fleet.c - `cubench fleet` end to end through cb_fleet_main: fleet
 * directories written to a temporary directory (GPU and CPU-only runs,
 * schema 2 telemetry columns, task records of failed, killed, never-started
 * and duplicate tasks, an incomplete run), the verdicts in the CSV, the
 * evidence in the markdown, exit codes 0/1/2 and the input errors; the key
 * figures declared by schema-3 rows, and for older runs by the map beside
 * the families (bench/legacy_key_figures.csv), checked against the recorded
 * H200 runs and a fleet made of them; the hostile task records. */
/* test links: cubench_cli */
#include "cli.h"

#include "cb_test.h"
#include "cb_test_files.h"
#include "compare_load.h"
#include "csv_reader.h"
#include "fleet_figures.h"
#include "fleet_load.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char root[64];

static uint64_t rng = 3;

/* One point of a synthetic run. */
typedef struct spec {
    const char *bench, *axes, *status;
    double bytes, flops, median_s;
    int n;
    const char *telemetry; /* "min,median,max,mem,power,temp,throttle" or NULL */
} spec;

/* A test's fleet: the directory root/NAME, made here, and where its
 * markdown (root/NAME.md) and CSV (root/NAME.csv; csv NULL: none) go. */
static void new_fleet(const char *name, char fleet[128], char out[160], char csv[160])
{
    snprintf(fleet, 128, "%s/%s", root, name);
    snprintf(out, 160, "%s/%s.md", root, name);
    if (csv) snprintf(csv, 160, "%s/%s.csv", root, name);
    CB_CHECK(mkdir(fleet, 0700) == 0);
}

/* How a run's meta.json looks. */
typedef struct run_meta {
    const char *gpu;      /* device name, NULL: CPU-only ("device": null) */
    const char *complete; /* "true", "false" or NULL (no meta.json)    */
    int pcie_gen, pcie_max_gen, failed_points;
} run_meta;

/* Make the run directory fleet/NAME (its path in `dir`) and open its
 * results.csv and samples.csv; false when either cannot be opened. */
static bool open_run_files(const char *fleet, const char *name, char *dir, size_t len, FILE **r,
                           FILE **s)
{
    char path[600];
    snprintf(dir, len, "%s/%s", fleet, name);
    CB_CHECK(mkdir(dir, 0700) == 0);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    *r = fopen(path, "w");
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    *s = fopen(path, "w");
    CB_CHECK(*r && *s);
    if (*r && *s) return true;
    if (*r) fclose(*r);
    if (*s) fclose(*s);
    return false;
}

/* The bytes and flops cells of a point: empty where it declares none. */
static void write_work(FILE *r, const spec *p)
{
    if (p->bytes > 0) fprintf(r, "%.0f", p->bytes);
    fputc(',', r);
    if (p->flops > 0) fprintf(r, "%.0f", p->flops);
}

static void write_run(const char *fleet, const char *name, const run_meta *meta, const spec *pts,
                      int n_pts)
{
    char dir[512], path[600];
    FILE *r, *s;
    if (!open_run_files(fleet, name, dir, sizeof dir, &r, &s)) return;
    fputs("schema_version,benchmark,family,axes,status,reason,samples,median_s,bytes,flops,"
          "sm_clock_min_mhz,sm_clock_median_mhz,sm_clock_max_mhz,mem_clock_median_mhz,"
          "power_mean_w,temp_max_c,throttle\n",
          r);
    fputs("benchmark,axes,sample,time_s,cupti_s,batch\n", s);
    for (int i = 0; i < n_pts; i++) {
        const spec *p = &pts[i];
        bool timed = strcmp(p->status, "ok") == 0 || strcmp(p->status, "noisy") == 0;
        fprintf(r, "1,%s,x,%s,%s,\"%s\",%d,%.9g,", p->bench, p->axes, p->status,
                timed ? "" : "no device, \"\"test\"\"", timed ? p->n : 0, p->median_s);
        write_work(r, p);
        fprintf(r, ",%s\n", p->telemetry ? p->telemetry : ",,,,,,");
        for (int k = 0; timed && k < p->n; k++)
            fprintf(s, "%s,%s,%d,%.9g,,1\n", p->bench, p->axes, k,
                    p->median_s * (1.0 + 0.01 * (cb_test_uniform(&rng) - 0.5)));
    }
    fclose(r);
    fclose(s);
    if (!meta->complete) return;
    char device[400];
    if (meta->gpu)
        snprintf(device, sizeof device,
                 "{\"ordinal\": 0, \"name\": \"%s\", \"uuid\": \"GPU-%s\", \"pcie\": "
                 "{\"generation\": %d, \"width\": 16, \"max_generation\": %d, \"max_width\": 16}}",
                 meta->gpu, name, meta->pcie_gen, meta->pcie_max_gen);
    else
        snprintf(device, sizeof device, "null, \"no_device_reason\": \"none\"");
    char text[1200];
    snprintf(text, sizeof text,
             "{\n \"schema_version\": 1,\n \"build\": {\"name\": \"not this\"},\n"
             " \"complete\": %s,\n \"totals\": {\"ok\": %d, \"fail\": %d},\n"
             " \"host\": {\"hostname\": \"host-%s\", \"cpu\": \"Test CPU 9000\"},\n"
             " \"device\": %s\n}\n",
             meta->complete, n_pts, meta->failed_points, name, device);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    CB_CHECK(cb_test_write_text(path, text));
}

static void write_task(const char *fleet, int id, const char *state, int exit_code,
                       const char *run_dir, const char *reason)
{
    char dir[512], path[600], text[1024];
    snprintf(dir, sizeof dir, "%s/_fleet", fleet);
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/task-%d.csv", dir, id);
    snprintf(text, sizeof text,
             "task,job,node,host,run_dir,state,exit_code,started,finished,reason\n"
             "%d,77_%d,node%02d,node%02d,%s,%s,%d,2026-01-01T00:00:00Z,,%s\n",
             id, id, id, id, run_dir, state, exit_code, reason);
    CB_CHECK(cb_test_write_text(path, text));
}

/* The map of the figures the families stood for before schema 3. */
#define LEGACY_MAP CB_SOURCE_DIR "/bench/legacy_key_figures.csv"

/* Where run_fleet puts stderr when capture_err is set. */
static char err_path[200];
static bool capture_err;

/* cb_fleet_main with "fleet", --key-figures LEGACY_MAP (the runs written
 * here are schema 1 and 2, as the runs this test was written for) and the
 * NULL-terminated arguments; the markdown it prints on stdout goes to `out`
 * (a file path) instead. */
static int run_fleet(const char *out, const char *first, ...)
{
    char *argv[40];
    int argc = 0;
    argv[argc++] = (char *)"fleet";
    argv[argc++] = (char *)"--key-figures";
    argv[argc++] = (char *)LEGACY_MAP;
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    fflush(stdout), fflush(stderr);
    int saved = dup(STDOUT_FILENO), saved_err = dup(STDERR_FILENO);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    if (capture_err) {
        fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, STDERR_FILENO);
        close(fd);
    }
    int rc = cb_cli_fleet(argc, argv);
    fflush(stdout), fflush(stderr);
    dup2(saved, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved), close(saved_err);
    return rc;
}

/* The CSV's `column` for (run, figure), or NULL when there is no such row. */
static const char *csv_field(const cb_csv *c, const char *run, const char *figure,
                             const char *column)
{
    int rc = cb_csv_col(c, "run"), fc = cb_csv_col(c, "figure"), col = cb_csv_col(c, column);
    for (int r = 0; r < cb_csv_rows(c); r++)
        if (strcmp(cb_csv_get(c, r, rc), run) == 0 && strcmp(cb_csv_get(c, r, fc), figure) == 0)
            return cb_csv_get(c, r, col);
    return NULL;
}

static const char *csv_verdict(const cb_csv *c, const char *run, const char *figure)
{
    return csv_field(c, run, figure, "verdict");
}

/* The fleet's CSV, read; NULL, reported, when it cannot be. */
static cb_csv *read_fleet_csv(const char *csv)
{
    cb_msg err;
    cb_csv *c = cb_csv_read_file(csv, &err);
    CB_CHECK(c != NULL);
    if (!c) fprintf(stderr, "%s\n", err.text);
    return c;
}

/* The fleet report of `fleet` with its CSV, which must exit `want`; the CSV
 * read back. */
static cb_csv *run_fleet_csv(const char *out, const char *fleet, const char *csv, int want)
{
    CB_CHECK_EQ_INT(run_fleet(out, fleet, "--csv", csv, NULL), want);
    return read_fleet_csv(csv);
}

#define GB  1e9
#define TF  1e12
#define N24 16777216.0

/* A point of a synthetic run by its work and the rate it runs at: its
 * median is bytes / rate (flops / rate when it moves no bytes). */
typedef struct work_point {
    const char *bench, *axes;
    double bytes, flops, rate; /* rate: bytes/s, or flop/s */
    int n;
    unsigned flags; /* SLOWED, CUBLAS */
} work_point;

enum {
    SLOWED = 1, /* scaled by the run's `slow`, with its telemetry */
    CUBLAS = 2  /* a skip in a run without cuBLAS */
};

static const work_point gpu_work[] = {
    {"vecadd/grid_stride", "n=16777216;block=256", 12 * N24, 0, 4000 * GB, 40, SLOWED},
    {"vecadd/grid_stride", "n=1048576;block=256", 12 * 1048576.0, 0, 2000 * GB, 40, 0},
    {"vecadd/host", "n=16777216;threads=all", 12 * N24, 0, 20 * GB, 10, 0},
    {"transfers/memcpy_async", "direction=h2d;memory=pinned;bytes=268435456", 268435456.0, 0,
     55 * GB, 20, 0},
    {"transfers/memcpy_async", "direction=d2h;memory=pinned;bytes=268435456", 268435456.0, 0,
     52 * GB, 20, 0},
    {"transfers/memcpy_async", "direction=h2d;memory=pageable;bytes=268435456", 268435456.0, 0,
     90 * GB, 20, 0},
    {"matmul/cublas_fp32", "m=4096;n=m;k=m", 0, 2 * 4096.0 * 4096 * 4096, 50 * TF, 20, CUBLAS},
    {"matmul/pipelined", "m=4096;n=m;k=m", 0, 2 * 4096.0 * 4096 * 4096, 30 * TF, 20, 0},
    {"matmul/naive_coalesced", "m=4096;n=m;k=m", 0, 2 * 4096.0 * 4096 * 4096, 5 * TF, 20, 0},
};

/* Host baselines: the largest point is the reference even when a smaller one
 * is faster (it fits in cache). */
static const work_point cpu_work[] = {
    {"vecadd/host", "n=16384;threads=all", 12 * 16384.0, 0, 150 * GB, 30, 0},
    {"vecadd/host", "n=16777216;threads=all", 12 * N24, 0, 20 * GB, 10, SLOWED},
    {"matmul/host_blocked", "m=512;n=m;k=m", 0, 2 * 512.0 * 512 * 512, 0.02 * TF, 10, SLOWED},
    {"matmul/host_blocked", "m=256;n=m;k=m", 0, 2 * 256.0 * 256 * 256, 0.03 * TF, 10, 0},
};

/* The points of a run from a table; `slow` scales the slowed ones, which
 * carry `telemetry`. */
static int points_of(const work_point *w, int n, spec *p, double slow, const char *telemetry,
                     bool skip_cublas)
{
    for (int i = 0; i < n; i++) {
        double median = (w[i].bytes ? w[i].bytes : w[i].flops) / w[i].rate;
        p[i] = (spec){w[i].bench,
                      w[i].axes,
                      (w[i].flags & CUBLAS) && skip_cublas ? "skip" : "ok",
                      w[i].bytes,
                      w[i].flops,
                      (w[i].flags & SLOWED) ? median * slow : median,
                      w[i].n,
                      (w[i].flags & SLOWED) ? telemetry : NULL};
    }
    return n;
}

/* The GPU points of one run; `slow` scales the vecadd time. */
static int gpu_points(spec *p, double slow, const char *telemetry, bool skip_cublas)
{
    return points_of(gpu_work, CB_ARRAY_LEN(gpu_work), p, slow, telemetry, skip_cublas);
}

static int cpu_points(spec *p, double slow)
{
    return points_of(cpu_work, CB_ARRAY_LEN(cpu_work), p, slow, NULL, false);
}

/* The mixed fleet: five GPU runs (g3 slow at a low clock on a narrow link,
 * g4 without cuBLAS), three CPU runs (c2 with failed points), an incomplete
 * run, and tasks 0-8 of which 5-8 are problems. */
static void write_mixed_fleet(const char *fleet)
{
    CB_CHECK(mkdir(fleet, 0700) == 0);
    spec p[16];
    run_meta gpu = {"Test GPU", "true", 5, 5, 0};
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", i);
        run_meta m = gpu;
        const char *tel = "1950,1980,1980,2619,600,61,none";
        if (i == 3) { /* 25% slower vecadd, at a low clock, on a narrow link */
            tel = "1200,1410,1500,2619,700,88,sw_power_cap+hw_slowdown";
            m.pcie_gen = 4;
        }
        int n = gpu_points(p, i == 3 ? 1.25 : 1.0, tel, i == 4);
        write_run(fleet, name, &m, p, n);
    }
    run_meta cpu = {NULL, "true", 0, 0, 0};
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        run_meta m = cpu;
        int n = cpu_points(p, 1.0);
        if (i == 2) { /* two points that failed verification: a problem */
            m.failed_points = 2;
            p[n++] = (spec){"vecadd/host", "n=1024;threads=all", "fail", 0, 0, 0, 0, NULL};
            p[n++] = (spec){"matmul/host_blocked", "m=64;n=m;k=m", "fail", 0, 0, 0, 0, NULL};
        }
        write_run(fleet, name, &m, p, n);
    }
    run_meta inc = {"Test GPU", "false", 5, 5, 0};
    write_run(fleet, "inc", &inc, p, gpu_points(p, 1.0, NULL, false));
    /* Tasks: 0-4 ran g0-g4; 5 failed; 6 left no end record; 7 never
     * started; 8 landed on g0's node and device. */
    for (int i = 0; i < 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "g%d", i);
        write_task(fleet, i, "done", 0, name, "");
    }
    write_task(fleet, 5, "failed", 2, "", "no CUDA device 0 here");
    write_task(fleet, 6, "running", -1, "g9", "");
    write_task(fleet, 8, "reused", 0, "g0", "");
    char path[200];
    snprintf(path, sizeof path, "%s/_fleet/expected", fleet);
    CB_CHECK(cb_test_write_text(path, "9\n"));
}

/* The mixed fleet's CSV: g3's ratio and the problem rows. */
static void check_mixed_csv_values(const cb_csv *c)
{
    double v = 0, ratio = 0, lo = 0, hi = 0;
    CB_CHECK(sscanf(csv_field(c, "g0", "vecadd", "value"), "%lf", &v) == 1);
    CB_CHECK_REL(v, 4000, 0.01);
    CB_CHECK(sscanf(csv_field(c, "g3", "vecadd", "ratio"), "%lf", &ratio) == 1);
    CB_CHECK(sscanf(csv_field(c, "g3", "vecadd", "ci_lo"), "%lf", &lo) == 1);
    CB_CHECK(sscanf(csv_field(c, "g3", "vecadd", "ci_hi"), "%lf", &hi) == 1);
    CB_CHECK_REL(ratio, 0.8, 0.01);
    CB_CHECK(lo <= ratio && ratio <= hi && hi < 1 / 1.05);
    /* problems: tasks 5, 6, 7, 8, the incomplete run, c2's failed points */
    int problems = 0, vc = cb_csv_col(c, "verdict"), tc = cb_csv_col(c, "task");
    char tasks[64] = "";
    for (int r = 0; r < cb_csv_rows(c); r++)
        if (strcmp(cb_csv_get(c, r, vc), "problem") == 0) {
            problems++;
            strncat(tasks, *cb_csv_get(c, r, tc) ? cb_csv_get(c, r, tc) : "-",
                    sizeof tasks - strlen(tasks) - 2);
            strcat(tasks, " ");
        }
    CB_CHECK_EQ_INT(problems, 6);
    CB_CHECK_STR(tasks, "5 6 7 8 - - ");
    CB_CHECK_STR(csv_field(c, "inc", "", "verdict"), "problem");
}

/* The mixed fleet's CSV: verdicts and the reference points. */
static void check_mixed_csv(const char *csv)
{
    cb_csv *c = read_fleet_csv(csv);
    if (!c) return;
    CB_CHECK_EQ_INT(cb_csv_cols(c), 26);
    CB_CHECK_STR(csv_verdict(c, "g3", "vecadd"), "slow");
    CB_CHECK_STR(csv_verdict(c, "g4", "cuBLAS FP32"), "missing");
    const char *figs[] = {"vecadd", "pinned H2D", "pinned D2H", "cuBLAS FP32", "ladder best"};
    for (int i = 0; i < 5; i++)
        for (int f = 0; f < 5; f++) {
            char name[16];
            snprintf(name, sizeof name, "g%d", i);
            if ((i == 3 && f == 0) || (i == 4 && f == 3)) continue;
            CB_CHECK_STR(csv_verdict(c, name, figs[f]), "ok");
        }
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "c%d", i);
        CB_CHECK_STR(csv_verdict(c, name, "vecadd/host"), "ok");
        CB_CHECK_STR(csv_verdict(c, name, "matmul/host_blocked"), "ok");
        CB_CHECK(csv_verdict(c, name, "vecadd") == NULL); /* not a CPU figure */
    }
    CB_CHECK(csv_verdict(c, "g0", "vecadd/host") == NULL); /* not a GPU figure */
    /* reference points: best for the GPU, largest for the host baselines */
    CB_CHECK_STR(csv_field(c, "g0", "vecadd", "axes"), "n=16777216;block=256");
    CB_CHECK_STR(csv_field(c, "g0", "pinned H2D", "axes"),
                 "direction=h2d;memory=pinned;bytes=268435456");
    CB_CHECK_STR(csv_field(c, "g0", "ladder best", "benchmark"), "matmul/pipelined");
    CB_CHECK_STR(csv_field(c, "c0", "vecadd/host", "axes"), "n=16777216;threads=all");
    CB_CHECK_STR(csv_field(c, "c0", "matmul/host_blocked", "axes"), "m=512;n=m;k=m");
    CB_CHECK_STR(csv_field(c, "g0", "vecadd", "runs_timed"), "5");
    CB_CHECK_STR(csv_field(c, "g0", "cuBLAS FP32", "runs_timed"), "4");
    CB_CHECK_STR(csv_field(c, "g3", "vecadd", "throttle"), "sw_power_cap+hw_slowdown");
    CB_CHECK_STR(csv_field(c, "g3", "vecadd", "pcie"), "gen 4 x16 (max gen 5 x16)");
    CB_CHECK_STR(csv_field(c, "g3", "vecadd", "model"), "Test GPU");
    CB_CHECK_STR(csv_field(c, "c0", "vecadd/host", "model"), "CPU: Test CPU 9000");
    CB_CHECK_STR(csv_field(c, "g3", "vecadd", "task"), "3");
    check_mixed_csv_values(c);
    cb_csv_free(c);
}

/* The mixed fleet's markdown report, the same on stdout. */
static void check_mixed_md(const char *md, const char *out)
{
    char *text = cb_test_read_all(md, NULL);
    if (getenv("FLEET_TEST_SHOW")) fputs(text, stderr);
    CB_CHECK_CONTAINS(text, "# Fleet X");
    CB_CHECK_CONTAINS(text, "**2 runs flagged, 6 problems.** 9 runs (8 complete) in 2 models");
    CB_CHECK_CONTAINS(text, "9 array tasks expected");
    CB_CHECK_CONTAINS(text, "## Flagged runs (2)");
    /* values carry the samples' +-0.5% spread: compare the leading digits */
    CB_CHECK_CONTAINS(text, "| g3 | 3 | Test GPU | vecadd GB/s | `vecadd/grid_stride "
                            "n=16777216;block=256` | 3");
    CB_CHECK_CONTAINS(text, " | 0.80");
    CB_CHECK_CONTAINS(text, "SM clock 1410 MHz (1200-1500), fleet 1980 MHz; mem clock 2619 MHz; "
                            "power 700 W; max 88 C; throttle sw_power_cap+hw_slowdown; PCIe gen 4 "
                            "x16 (max gen 5 x16); 40 samples");
    CB_CHECK_CONTAINS(text, "| g4 | 4 | Test GPU | cuBLAS FP32 TFLOP/s | `matmul/cublas_fp32 "
                            "m=4096;n=m;k=m` | - | ");
    CB_CHECK_CONTAINS(text, " | - | **missing** | status skip: no device, \"test\" |");
    CB_CHECK_CONTAINS(text,
                      "| 5 | node05 | - | failed on node05: exit 2: no CUDA device 0 here (job "
                      "77_5) |");
    CB_CHECK_CONTAINS(text, "| 6 | node06 | g9 | started on node06 but left no end record");
    CB_CHECK_CONTAINS(text, "| 7 | - | - | no record: the task never started");
    CB_CHECK_CONTAINS(text, "| 8 | node08 | g0 | ran on node08 into the run of task 0");
    CB_CHECK_CONTAINS(text, "| - | host-inc | inc | meta.json says complete: false");
    CB_CHECK_CONTAINS(text, "| - | host-c2 | c2 | 2 point(s) failed");
    CB_CHECK_CONTAINS(text, "## CPU: Test CPU 9000 — 3 runs");
    CB_CHECK_CONTAINS(text, "- vecadd/host: `vecadd/host n=16777216;threads=all`, fleet median ");
    CB_CHECK_CONTAINS(text, " GB/s over 3 runs");
    CB_CHECK_CONTAINS(text, "## Test GPU — 5 runs");
    CB_CHECK_CONTAINS(text, "| g3 | 3 | **3");
    CB_CHECK_CONTAINS(text, "(0.80");
    char *printed = cb_test_read_all(out, NULL);
    CB_CHECK(text && printed && strcmp(text, printed) == 0); /* stdout = --markdown */
    free(text);
    free(printed);
}

static void test_mixed_fleet(void)
{
    char fleet[128], md[160], csv[160], out[160];
    snprintf(fleet, sizeof fleet, "%s/mixed", root);
    snprintf(md, sizeof md, "%s/mixed.md", root);
    snprintf(csv, sizeof csv, "%s/mixed.csv", root);
    snprintf(out, sizeof out, "%s/stdout.md", root);
    write_mixed_fleet(fleet);
    CB_CHECK_EQ_INT(
        run_fleet(out, fleet, "--markdown", md, "--csv", csv, "--title", "Fleet X", NULL), 1);
    check_mixed_csv(csv);
    check_mixed_md(md, out);
}

/* A schema 2 run of two devices (`--device all`): rows with `device`, host
 * rows without; `slow` scales device 1's vecadd time. */
static void write_two_device_run(const char *fleet, const char *name, double slow, bool twice)
{
    char dir[512], path[600];
    FILE *r, *s;
    if (!open_run_files(fleet, name, dir, sizeof dir, &r, &s)) return;
    fputs("schema_version,benchmark,family,axes,status,reason,bytes,flops,device,device_uuid,"
          "replicates,throttle\n",
          r);
    fputs("benchmark,axes,sample,time_s,cupti_s,batch,device,replicate,sm_clock_mhz,throttle\n", s);
    spec p[16];
    int n = gpu_points(p, 1.0, NULL, false);
    for (int dev = 0; dev < 2; dev++)
        for (int i = 0; i < n; i++) {
            if (strcmp(p[i].bench, "vecadd/host") == 0) continue; /* the host row, below */
            double median = p[i].median_s * (dev == 1 && i == 0 ? slow : 1.0);
            fprintf(r, "2,%s,x,%s,ok,,", p[i].bench, p[i].axes);
            write_work(r, &p[i]);
            fprintf(r, ",%d,GPU-%s-%d,1,%s\n", dev, name, dev, dev == 1 ? "hw_slowdown" : "none");
            for (int k = 0; k < p[i].n; k++)
                fprintf(s, "%s,%s,%d,%.9g,,1,%d,0,,\n", p[i].bench, p[i].axes, k,
                        median * (1.0 + 0.01 * (cb_test_uniform(&rng) - 0.5)), dev);
        }
    if (twice) fputs("2,matmul/pipelined,x,m=4096;n=m;k=m,ok,,,1,1,GPU-x,1,\n", r);
    fprintf(r, "2,vecadd/host,x,n=16777216;threads=all,ok,,%.0f,,,,1,\n", 12 * N24);
    for (int k = 0; k < 5; k++)
        fprintf(s, "vecadd/host,n=16777216;threads=all,%d,0.01,,1,,0,,\n", k);
    fclose(r);
    fclose(s);
    char meta[1200];
    snprintf(
        meta, sizeof meta,
        "{\"schema_version\": 2, \"complete\": true, \"host\": {\"hostname\": \"%s\", "
        "\"cpu\": \"Test CPU 9000\"},\n \"device\": {\"ordinal\": 0, \"name\": \"Test GPU\"},\n"
        " \"devices\": [{\"ordinal\": 0, \"name\": \"Test GPU\", \"uuid\": \"GPU-%s-0\", "
        "\"pcie\": {\"generation\": 5, \"width\": 16, \"max_generation\": 5, \"max_width\": "
        "16}},\n  {\"ordinal\": 1, \"name\": \"Test GPU\", \"uuid\": \"GPU-%s-1\", \"pcie\": "
        "{\"generation\": 5, \"width\": 8, \"max_generation\": 5, \"max_width\": 16}}]}\n",
        name, name, name);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    CB_CHECK(cb_test_write_text(path, meta));
}

/* Two multi-device runs and one single-device run of one model: four
 * members, device 1 of the first run slow; a point twice for one device is
 * bad input. */
static void test_multi_device(void)
{
    char fleet[128], out[160], csv[160];
    new_fleet("multi", fleet, out, csv);
    write_two_device_run(fleet, "nodeA_all-gpus", 1.5, false);
    write_two_device_run(fleet, "nodeB_all-gpus", 1.0, false);
    spec p[16];
    run_meta gpu = {"Test GPU", "true", 5, 5, 0};
    write_run(fleet, "nodeC_GPU-c", &gpu, p, gpu_points(p, 1.0, NULL, false));
    cb_csv *c = run_fleet_csv(out, fleet, csv, 1);
    if (c) {
        CB_CHECK_STR(csv_verdict(c, "nodeA_all-gpus/gpu1", "vecadd"), "slow");
        CB_CHECK_STR(csv_verdict(c, "nodeA_all-gpus/gpu0", "vecadd"), "ok");
        CB_CHECK_STR(csv_verdict(c, "nodeB_all-gpus/gpu1", "vecadd"), "ok");
        CB_CHECK_STR(csv_verdict(c, "nodeC_GPU-c", "vecadd"), "ok");
        CB_CHECK_STR(csv_field(c, "nodeA_all-gpus/gpu1", "vecadd", "device_uuid"),
                     "GPU-nodeA_all-gpus-1");
        CB_CHECK_STR(csv_field(c, "nodeA_all-gpus/gpu1", "vecadd", "throttle"), "hw_slowdown");
        CB_CHECK_STR(csv_field(c, "nodeA_all-gpus/gpu1", "vecadd", "pcie"),
                     "gen 5 x8 (max gen 5 x16)");
        CB_CHECK_STR(csv_field(c, "nodeA_all-gpus/gpu0", "vecadd", "pcie"), "gen 5 x16");
        CB_CHECK_STR(csv_field(c, "nodeA_all-gpus/gpu0", "vecadd", "runs_timed"), "5");
        CB_CHECK(csv_verdict(c, "nodeA_all-gpus", "vecadd/host") == NULL); /* host rows: none */
        cb_csv_free(c);
    }
    char *text = cb_test_read_all(out, NULL);
    CB_CHECK_CONTAINS(text, "**1 run flagged, 0 problems.** 5 runs (5 complete) in 1 model");
    CB_CHECK_CONTAINS(text, "## Test GPU — 5 runs");
    free(text);
    char bad[160];
    snprintf(bad, sizeof bad, "%s/multi-bad", root);
    CB_CHECK(mkdir(bad, 0700) == 0);
    write_two_device_run(bad, "nodeD_all-gpus", 1.0, true);
    CB_CHECK_EQ_INT(run_fleet(out, bad, NULL), 2);
}

/* A uniform fleet exits 0; two runs of a model cannot be judged. */
static void test_clean_and_small(void)
{
    char fleet[128], out[160], csv[160];
    new_fleet("clean", fleet, out, csv);
    spec p[16];
    run_meta cpu = {NULL, "true", 0, 0, 0};
    run_meta gpu = {"Lone GPU", "true", 5, 5, 0};
    write_run(fleet, "a", &cpu, p, cpu_points(p, 1.0));
    write_run(fleet, "b", &cpu, p, cpu_points(p, 1.0));
    write_run(fleet, "c", &cpu, p, cpu_points(p, 1.0));
    write_run(fleet, "x", &gpu, p, gpu_points(p, 1.0, NULL, false));
    write_run(fleet, "y", &gpu, p, gpu_points(p, 2.0, NULL, false));
    cb_csv *c = run_fleet_csv(out, fleet, csv, 0);
    if (c) {
        CB_CHECK_STR(csv_verdict(c, "y", "vecadd"), "unjudged"); /* 2x slower, 2 runs */
        CB_CHECK_STR(csv_verdict(c, "x", "vecadd"), "unjudged");
        CB_CHECK_STR(csv_verdict(c, "a", "vecadd/host"), "ok");
        double ratio = 0;
        CB_CHECK(sscanf(csv_field(c, "x", "vecadd", "ratio"), "%lf", &ratio) == 1);
        CB_CHECK_REL(ratio, 2.0, 0.02);
        CB_CHECK_STR(csv_field(c, "x", "pinned H2D", "ci_lo"), "");
        cb_csv_free(c);
    }
    char *text = cb_test_read_all(out, NULL);
    if (getenv("FLEET_TEST_SHOW")) fputs(text, stderr);
    CB_CHECK_CONTAINS(text, "**No run outside the fleet's spread, no problem.**");
    CB_CHECK_CONTAINS(text, "## Lone GPU — 2 runs");
    CB_CHECK_CONTAINS(text, "| 55.0"); /* pinned H2D: no CI with one other run */
    CB_CHECK_CONTAINS(text, "| verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n| x | - |");
    free(text);
    /* two runs have no spread to judge by: --min-runs cannot go below 3 */
    CB_CHECK_EQ_INT(run_fleet(out, fleet, "--min-runs", "2", NULL), 2);
    /* a 2x tolerance, a 20% one: the uniform runs stay ok */
    CB_CHECK_EQ_INT(run_fleet(out, fleet, "--tolerance", "0.2", "--alpha", "0.01", NULL), 0);
}

static void test_errors(void)
{
    char out[160], dir[160], path[200];
    snprintf(out, sizeof out, "%s/err.md", root);
    CB_CHECK_EQ_INT(run_fleet(out, "--help", NULL), 0);
    snprintf(dir, sizeof dir, "%s/none", root);
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 2); /* missing */
    CB_CHECK(mkdir(dir, 0700) == 0);
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 2); /* empty */
    snprintf(path, sizeof path, "%s/results.csv", dir);
    CB_CHECK(cb_test_write_text(path, "schema_version,benchmark,axes,status\n"));
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 2);  /* a run, not a fleet */
    CB_CHECK_EQ_INT(run_fleet(out, path, NULL), 2); /* a file */
    remove(path);
    CB_CHECK_EQ_INT(run_fleet(out, NULL), 2);
    CB_CHECK_EQ_INT(run_fleet(out, dir, dir, NULL), 2);
    CB_CHECK_EQ_INT(run_fleet(out, "--tolerance", "0", dir, NULL), 2);
    CB_CHECK_EQ_INT(run_fleet(out, "--alpha", "0.7", dir, NULL), 2);
    CB_CHECK_EQ_INT(run_fleet(out, "--min-runs", "1", dir, NULL), 2);
    CB_CHECK_EQ_INT(run_fleet(out, "--min-runs", "3.5", dir, NULL), 2);
    CB_CHECK_EQ_INT(run_fleet(out, "--bogus", dir, NULL), 2);

    /* a complete run with a malformed results.csv */
    spec p[16];
    run_meta cpu = {NULL, "true", 0, 0, 0};
    write_run(dir, "a", &cpu, p, cpu_points(p, 1.0));
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 0);
    snprintf(path, sizeof path, "%s/a/results.csv", dir);
    FILE *f = fopen(path, "a");
    if (f) fputs("1,vecadd/host,x,\"unterminated\n", f), fclose(f);
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 2);
    /* ... while an incomplete one is not read: a problem, exit 1 */
    snprintf(path, sizeof path, "%s/a/meta.json", dir);
    CB_CHECK(cb_test_write_text(path, "{\"complete\": false, \"device\": null}"));
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 1);
    /* task records that are not ours */
    snprintf(path, sizeof path, "%s/_fleet", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/_fleet/task-1.csv", dir);
    CB_CHECK(cb_test_write_text(path, "task,state\nnot-a-number,done\n"));
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 2);
    CB_CHECK(cb_test_write_text(path, "task,state\n1,done\n2,done\n"));
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 2);
    CB_CHECK(cb_test_write_text(path, "task,state\n1,done\n"));
    snprintf(path, sizeof path, "%s/_fleet/expected", dir);
    CB_CHECK(cb_test_write_text(path, "-3\n"));
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 2);
    CB_CHECK(cb_test_write_text(path, "2\n"));
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 1); /* task 0 never started, task 1's run? */
    /* only task records, no run at all: still a report */
    snprintf(path, sizeof path, "%s/a", dir);
    (void)cb_test_remove_tree(path);
    CB_CHECK_EQ_INT(run_fleet(out, dir, NULL), 1);
    char *text = cb_test_read_all(out, NULL);
    CB_CHECK_CONTAINS(text, "| 0 | - | - | no record: the task never started");
    CB_CHECK_CONTAINS(text, "| 1 | - | - | recorded done, but its run '' is missing");
    free(text);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

#ifndef UNDER_ASAN
/* Run the fleet in a child whose address space is held 48 MB above what
 * it uses; its exit status, stderr in err_path. */
static int fleet_in_little_memory(const char *fleet, const char *out)
{
    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        long pages = 0;
        FILE *statm = fopen("/proc/self/statm", "r");
        if (!statm || fscanf(statm, "%ld", &pages) != 1) _exit(3);
        fclose(statm);
        rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (48u << 20);
        struct rlimit lim = {cap, cap};
        if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
        capture_err = true;
        _exit(run_fleet(out, fleet, NULL));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
#endif

/* Out of memory, the message says so once: never "fleet: fleet: out of
 * memory" (a stray task id of 3,999,999 used to need 2.4 GB for the task
 * table and ended so under a memory limit; it needs a record now). Not
 * under AddressSanitizer, whose shadow memory needs terabytes of address
 * space. */
static void test_out_of_memory(void)
{
#ifdef UNDER_ASAN
    printf("test_fleet: memory limits not tested under AddressSanitizer\n");
#else
    char fleet[128], out[160], path[600];
    new_fleet("oom", fleet, out, NULL);
    snprintf(err_path, sizeof err_path, "%s/oom.err", root);
    spec p[16];
    run_meta cpu = {NULL, "true", 0, 0, 0};
    write_run(fleet, "a", &cpu, p, cpu_points(p, 1.0));
    write_task(fleet, 0, "done", 0, "a", "");
    write_task(fleet, 3999999, "done", 0, "a", "");
    CB_CHECK_EQ_INT(fleet_in_little_memory(fleet, out), 1);
    char *text = cb_test_read_all(err_path, NULL);
    CB_CHECK(text && !strstr(text, "fleet: fleet:"));
    free(text);
    /* a run too large for the limit: refused, the reason said once */
    snprintf(path, sizeof path, "%s/a/samples.csv", fleet);
    FILE *f = fopen(path, "a");
    for (int k = 0; f && k < 1500000; k++) /* about 60 MB of samples */
        fprintf(f, "vecadd/host,n=16777216;threads=all,%d,0.01,,1\n", k + 100);
    if (f) fclose(f);
    CB_CHECK_EQ_INT(fleet_in_little_memory(fleet, out), 2);
    text = cb_test_read_all(err_path, NULL);
    CB_CHECK(text && (strstr(text, "out of memory") || strstr(text, "Cannot allocate memory")));
    CB_CHECK(text && !strstr(text, "fleet: fleet:"));
    free(text);
#endif
}

/* Hostile task records and outputs, each of which misled or hurt the
 * report before: a stray task id made a problem row of every id below it
 * (id 3,999,999: 2.9 GB resident, a 519 MB CSV); a run_dir over 160 bytes
 * lost its basename (the run was "missing"); an exit code of nan or 1e300
 * was cast to int (undefined behaviour); two records of one task replaced
 * each other silently; write errors said no reason. */
static void test_hostile_tasks(void)
{
    char fleet[128], out[160], csv[160], path[600], dir[256];
    new_fleet("hostile", fleet, out, csv);
    spec p[16];
    run_meta cpu = {NULL, "true", 0, 0, 0};
    const char *names[] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++) {
        write_run(fleet, names[i], &cpu, p, cpu_points(p, 1.0));
        write_task(fleet, i, "done", 0, names[i], "");
    }
    /* a stray record far beyond the array, no `expected`: one record */
    write_task(fleet, 3999999, "done", 0, "a", "");
    cb_csv *c = run_fleet_csv(out, fleet, csv, 1);
    CB_CHECK(c != NULL && cb_csv_rows(c) < 20);
    cb_csv_free(c);
    char *text = cb_test_read_all(out, NULL);
    CB_CHECK(text && strlen(text) < 20000);
    CB_CHECK_CONTAINS(text,
                      "| 3999999 | node3999999 | a | ran on node3999999 into the run of task 0");
    free(text);
    /* ... and with `expected`: the missing tasks are one range, one row */
    snprintf(path, sizeof path, "%s/_fleet/expected", fleet);
    CB_CHECK(cb_test_write_text(path, "4000000\n"));
    CB_CHECK_EQ_INT(run_fleet(out, fleet, "--csv", csv, NULL), 1);
    text = cb_test_read_all(out, NULL);
    CB_CHECK_CONTAINS(text, "| 3-3999998 | - | - | no record: 3999996 tasks never started");
    CB_CHECK(text && strlen(text) < 20000);
    free(text);
    CB_CHECK(remove(path) == 0);
    snprintf(path, sizeof path, "%s/_fleet/task-3999999.csv", fleet);
    CB_CHECK(remove(path) == 0);

    /* a run_dir of 300 bytes still names its run */
    char long_dir[400];
    snprintf(long_dir, sizeof long_dir, "/scratch/%0280d/b", 0);
    write_task(fleet, 1, "done", 0, long_dir, "");
    CB_CHECK_EQ_INT(run_fleet(out, fleet, "--csv", csv, NULL), 0);

    /* exit codes that are no whole number are shown, never cast */
    write_task(fleet, 3, "failed", 0, "", "broken");
    snprintf(path, sizeof path, "%s/_fleet/task-3.csv", fleet);
    CB_CHECK(cb_test_write_text(path, "task,node,run_dir,state,exit_code,reason\n"
                                      "3,node03,,failed,nan,broken\n"));
    snprintf(dir, sizeof dir, "%s/_fleet/task-4.csv", fleet);
    CB_CHECK(cb_test_write_text(dir, "task,node,run_dir,state,exit_code,reason\n"
                                     "4,node04,,failed,1e300,broken\n"));
    CB_CHECK_EQ_INT(run_fleet(out, fleet, NULL), 1);
    text = cb_test_read_all(out, NULL);
    CB_CHECK_CONTAINS(text, "failed on node03: exit 'nan': broken");
    CB_CHECK_CONTAINS(text, "failed on node04: exit '1e300': broken");
    free(text);
    CB_CHECK(remove(path) == 0 && remove(dir) == 0);

    /* two records of one task: refused, naming the file */
    snprintf(path, sizeof path, "%s/_fleet/task-5.csv", fleet);
    CB_CHECK(cb_test_write_text(path, "task,state,run_dir\n2,done,c\n"));
    capture_err = true;
    snprintf(err_path, sizeof err_path, "%s/hostile.err", root);
    CB_CHECK_EQ_INT(run_fleet(out, fleet, NULL), 2);
    text = cb_test_read_all(err_path, NULL);
    CB_CHECK_CONTAINS(text, "task-5.csv: task '2' is not this record's task id (5)");
    CB_CHECK(text && !strstr(text, "fleet: fleet:"));
    free(text);
    CB_CHECK(remove(path) == 0);

    /* a write that fails says why */
    if (access("/dev/full", W_OK) == 0) {
        CB_CHECK_EQ_INT(run_fleet(out, fleet, "--csv", "/dev/full", NULL), 2);
        text = cb_test_read_all(err_path, NULL);
        CB_CHECK_CONTAINS(text, "fleet: error writing /dev/full: No space left on device");
        free(text);
    }
    capture_err = false;
}

/* Every figure of the legacy map finds its points in the recorded H200 runs
 * (so a renamed benchmark fails here), and a fleet of the recorded A/A runs
 * plus CPU runs - two models - is judged without a flag. */
static void test_recorded(void)
{
    static const char *const dirs[] = {"h200-vecadd-defaults", "h200-transfers-defaults",
                                       "h200-matmul-defaults"};
    static const char *const figures[] = {
        "vecadd",      "pinned H2D",  "pinned D2H",         "cuBLAS FP32",
        "ladder best", "vecadd/host", "matmul/host_blocked"};
    char fleet[128], out[160], csv[160];
    snprintf(fleet, sizeof fleet, "%s/recorded-figures", root);
    CB_CHECK(mkdir(fleet, 0700) == 0);
    for (int d = 0; d < CB_ARRAY_LEN(dirs); d++) {
        char target[512], link[256];
        snprintf(target, sizeof target, "%s/%s", CB_TEST_DATA_DIR, dirs[d]);
        snprintf(link, sizeof link, "%s/%s", fleet, dirs[d]);
        CB_CHECK(symlink(target, link) == 0);
    }
    cb_fleet f;
    cb_fleet_init(&f);
    cb_msg err;
    CB_CHECK(cb_fleet_load(&f, fleet, &err) && cb_fleet_apply_map(&f, LEGACY_MAP, &err) &&
             cb_fleet_collect_figures(&f, &err));
    for (int i = 0; i < CB_ARRAY_LEN(figures); i++) {
        bool found = false;
        for (int k = 0; k < f.n_figures; k++)
            found = found || strcmp(f.figures[k].name, figures[i]) == 0;
        if (!found) fprintf(stderr, "no recorded point for figure %s\n", figures[i]);
        CB_CHECK(found);
    }
    CB_CHECK_EQ_INT(f.n_figures, CB_ARRAY_LEN(figures));
    cb_fleet_free(&f);

    new_fleet("recorded", fleet, out, csv);
    static const char *const aa[] = {"aa1-A", "aa1-B", "aa2-A", "aa2-B", "aa3-A", "aa3-B"};
    for (int i = 0; i < CB_ARRAY_LEN(aa); i++) {
        char target[512], link[256];
        snprintf(target, sizeof target, "%s/h200-%s", CB_TEST_DATA_DIR, aa[i]);
        snprintf(link, sizeof link, "%s/h200-%s", fleet, aa[i]);
        CB_CHECK(symlink(target, link) == 0);
    }
    spec p[16];
    run_meta cpu = {NULL, "true", 0, 0, 0};
    write_run(fleet, "cpu-a", &cpu, p, cpu_points(p, 1.0));
    write_run(fleet, "cpu-b", &cpu, p, cpu_points(p, 1.0));
    write_run(fleet, "cpu-c", &cpu, p, cpu_points(p, 1.0));
    CB_CHECK_EQ_INT(run_fleet(out, fleet, "--csv", csv, NULL), 0);
    char *text = cb_test_read_all(out, NULL);
    CB_CHECK_CONTAINS(text, "9 runs (9 complete) in 2 models");
    CB_CHECK_CONTAINS(text, "## NVIDIA H200 — 6 runs");
    CB_CHECK_CONTAINS(text, "- pinned H2D: no run of this model timed a matching point");
    free(text);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/cb_fleet_test_XXXXXX");
    if (!cb_test_temp_dir(root)) return 1;
    test_mixed_fleet();
    test_clean_and_small();
    test_multi_device();
    test_errors();
    test_hostile_tasks();
    test_out_of_memory();
    test_recorded();
    (void)cb_test_remove_tree(root);
    return cb_test_finish("test_fleet");
}
