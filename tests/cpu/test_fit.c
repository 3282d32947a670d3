/* test_fit.c - the latency/bandwidth fit and the files cb_fits_write makes:
 * exact recovery from synthetic curves, robustness to noise, degenerate
 * inputs, fits.csv and overlap.csv contents, idempotence. */
/* test links: cubench_bench */
#include "fit.h"
#include "transfers.h"

#include <dirent.h>
#include <math.h>
#include "cb_test.h"
#include "cb_test_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 KiB .. 1 GiB in x4 steps (the transfers' first defaults). */
static int default_sizes(double *x)
{
    int n = 0;
    for (double b = 1024; b <= 1073741824.0; b *= 4)
        x[n++] = b;
    return n;
}

static void test_exact_recovery(void)
{
    double x[16], t[16];
    int n = default_sizes(x);
    const double alphas[] = {8e-6, 2.5e-6, 40e-6};
    const double betas[] = {55e9, 4.2e12, 9e9};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < n; i++)
            t[i] = alphas[k] + x[i] / betas[k];
        cb_fit f;
        CB_CHECK(cb_fit_latency_bandwidth(x, t, n, &f));
        CB_CHECK(f.points == n);
        CB_CHECK_REL(f.alpha_s, alphas[k], 1e-9);
        CB_CHECK_REL(f.beta_bps, betas[k], 1e-9);
        CB_CHECK(f.r2 > 1 - 1e-12);
        CB_CHECK(f.max_rel_err < 1e-9);
    }
}

static void test_noise(void)
{
    /* +-1% alternating error: both parameters within a few percent, and
     * the worst relative residual reports the noise. */
    double x[16], t[16];
    int n = default_sizes(x);
    for (int i = 0; i < n; i++)
        t[i] = (10e-6 + x[i] / 50e9) * (i % 2 ? 1.01 : 0.99);
    cb_fit f;
    CB_CHECK(cb_fit_latency_bandwidth(x, t, n, &f));
    CB_CHECK_REL(f.alpha_s, 10e-6, 0.05);
    CB_CHECK_REL(f.beta_bps, 50e9, 0.05);
    CB_CHECK(f.max_rel_err > 0.005 && f.max_rel_err < 0.05);
    CB_CHECK(f.r2 > 0.99 && f.r2 < 1);
}

static void test_weighting(void)
{
    /* Unweighted least squares would let the 1 GiB point's 2% error swamp
     * the microseconds of alpha; relative weights keep alpha within 5%. */
    double x[16], t[16];
    int n = default_sizes(x);
    for (int i = 0; i < n; i++)
        t[i] = 5e-6 + x[i] / 25e9;
    t[n - 1] *= 1.02;
    cb_fit f;
    CB_CHECK(cb_fit_latency_bandwidth(x, t, n, &f));
    CB_CHECK_REL(f.alpha_s, 5e-6, 0.05);
    CB_CHECK_REL(f.beta_bps, 25e9, 0.03);
}

static void test_degenerate(void)
{
    cb_fit f;
    double x[8] = {1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216};
    double t[8] = {1e-5, 1.1e-5, 1.2e-5, 1.5e-5, 2e-5, 4e-5, 1e-4, 3e-4};
    CB_CHECK(!cb_fit_latency_bandwidth(x, t, 0, &f));
    CB_CHECK(!cb_fit_latency_bandwidth(x, t, 2, &f));
    CB_CHECK(f.points == 0 && isnan(f.alpha_s) && isnan(f.beta_bps));
    double same_x[4] = {4096, 4096, 4096, 4096};
    CB_CHECK(!cb_fit_latency_bandwidth(same_x, t, 4, &f));
    double two_x[4] = {4096, 8192, 4096, 8192};
    CB_CHECK(!cb_fit_latency_bandwidth(two_x, t, 4, &f));
    /* Zero, negative and NaN times are dropped; three good points remain. */
    double bad_t[6] = {1e-5, 0, -1, NAN, 1.5e-5, 2e-5};
    double bad_x[6] = {1024, 2048, 4096, 8192, 65536, 262144};
    CB_CHECK(cb_fit_latency_bandwidth(bad_x, bad_t, 6, &f));
    CB_CHECK(f.points == 3);
    double bad_t2[6] = {1e-5, 0, -1, NAN, INFINITY, 2e-5};
    CB_CHECK(!cb_fit_latency_bandwidth(bad_x, bad_t2, 6, &f));
    /* Time falling with size: no bandwidth to report, but a result. */
    double fall_t[4] = {4e-5, 3e-5, 2e-5, 1e-5};
    CB_CHECK(cb_fit_latency_bandwidth(x, fall_t, 4, &f));
    CB_CHECK(isnan(f.beta_bps));
    /* A flat curve: slope 0, r2 undefined. */
    double flat_t[4] = {1e-5, 1e-5, 1e-5, 1e-5};
    CB_CHECK(cb_fit_latency_bandwidth(x, flat_t, 4, &f));
    CB_CHECK(isnan(f.beta_bps) && isnan(f.r2));
}

/* ---- files ---- */

static const cb_bench fake_async = {.name = "transfers/memcpy_async"};
static const cb_bench fake_d2d = {.name = "transfers/d2d"};
static const cb_bench fake_vecadd = {.name = "vecadd/grid_stride"};
/* What a run writes after its points: the engine's fits.csv and the
 * transfers family's overlap.csv (through its hook). */
static cb_status write_run_outputs(const char *dir, const cb_result *rows, int n)
{
    cb_status st = cb_fits_write(dir, rows, n, NULL);
    return st == CB_OK ? cb_xfer_write_overlap_csv(dir, rows, n, NULL) : st;
}

static const cb_bench fake_overlap = {.name = "transfers/overlap"};

static void add_row(cb_result *rows, int *n, const cb_bench *b, const char *axes, cb_status st,
                    double median, double bytes)
{
    cb_result *r = &rows[(*n)++];
    memset(r, 0, sizeof *r);
    r->bench = b;
    snprintf(r->axes, sizeof r->axes, "%s", axes);
    r->status = st;
    r->summary.n = st == CB_OK || st == CB_NOISY ? 10 : 0;
    r->summary.median = median;
    r->bytes = bytes;
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return cb_test_read_all(path, NULL);
}

/* Field `col` (0-based) of line `line` (0 = header) of CSV text without
 * quoted fields; "" when absent. */
static const char *field(const char *text, int line, int col)
{
    static char out[256];
    out[0] = '\0';
    const char *p = text;
    for (int l = 0; l < line && p; l++) {
        p = strchr(p, '\n');
        if (p) p++;
    }
    if (!p || !*p) return out;
    for (int c = 0; c < col && p; c++) {
        const char *comma = strchr(p, ','), *nl = strchr(p, '\n');
        if (!comma || (nl && comma > nl)) return out;
        p = comma + 1;
    }
    size_t len = strcspn(p, ",\n");
    if (len >= sizeof out) len = sizeof out - 1;
    memcpy(out, p, len);
    out[len] = '\0';
    return out;
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; text && *text; text++)
        n += *text == '\n';
    return n;
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    if (d) closedir(d);
    return n;
}

/* Write the run's outputs into `dir` and read back `name`, which must begin
 * with `header` and hold `lines` lines (header included); NULL, reported,
 * when the file is missing. */
static char *write_and_read(const char *dir, const cb_result *rows, int n, const char *name,
                            const char *header, int lines)
{
    CB_CHECK(write_run_outputs(dir, rows, n) == CB_OK);
    char *text = slurp(dir, name);
    CB_CHECK(text != NULL);
    if (!text) return NULL;
    CB_CHECK(strncmp(text, header, strlen(header)) == 0);
    CB_CHECK(count_lines(text) == lines);
    return text;
}

/* A fresh directory for a test's files; remove_dir removes and frees it. */
static char *temp_dir(void)
{
    char *dir = strdup("/tmp/cb_test_fit_XXXXXX");
    CB_CHECK(dir && mkdtemp(dir) != NULL);
    return dir;
}

static void remove_dir(char *dir)
{
    const char *names[] = {"fits.csv", "overlap.csv"};
    char path[512];
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
    rmdir(dir);
    free(dir);
}

static void test_fits_csv(void)
{
    char *dir = temp_dir();
    static cb_result rows[64];
    int n = 0;
    double sizes[16];
    int ns = default_sizes(sizes);
    char axes[CB_POINT_TEXT];
    /* Rows in run order: vecadd (no bytes axis), h2d curve with a skip and
     * a fail, d2h curve, d2d whose work model counts read + write, and a
     * two-point curve too short to fit. */
    add_row(rows, &n, &fake_vecadd, "n=1024;block=256", CB_OK, 1e-5, 12288);
    for (int i = 0; i < 5; i++) {
        snprintf(axes, sizeof axes, "direction=h2d;memory=pinned;bytes=%.0f", sizes[2 * i]);
        add_row(rows, &n, &fake_async, axes, CB_OK, 10e-6 + sizes[2 * i] / 50e9, sizes[2 * i]);
    }
    add_row(rows, &n, &fake_async, "direction=h2d;memory=pinned;bytes=3", CB_SKIP, 1.0, 3);
    add_row(rows, &n, &fake_async, "direction=h2d;memory=pinned;bytes=5", CB_FAIL, 1.0, 5);
    for (int i = 0; i < ns; i++) {
        snprintf(axes, sizeof axes, "direction=d2h;memory=pinned;bytes=%.0f", sizes[i]);
        add_row(rows, &n, &fake_async, axes, i == 3 ? CB_NOISY : CB_OK, 12e-6 + sizes[i] / 52e9,
                sizes[i]);
    }
    for (int i = 0; i < ns; i++) {
        snprintf(axes, sizeof axes, "bytes=%.0f", sizes[i]);
        add_row(rows, &n, &fake_d2d, axes, CB_OK, 3e-6 + 2 * sizes[i] / 4.2e12, 2 * sizes[i]);
    }
    add_row(rows, &n, &fake_async, "direction=h2d;memory=wc;bytes=1024", CB_OK, 1e-5, 1024);
    add_row(rows, &n, &fake_async, "direction=h2d;memory=wc;bytes=4096", CB_OK, 2e-5, 4096);

    /* header + h2d, d2h, d2d */
    char *text = write_and_read(dir, rows, n, "fits.csv",
                                "benchmark,curve,points,bytes_min,bytes_max,alpha_us,beta_gbps,"
                                "n_half_bytes,r2,max_rel_err\n",
                                4);
    if (!text) return;
    CB_CHECK(strcmp(field(text, 1, 0), "transfers/memcpy_async") == 0);
    CB_CHECK(strcmp(field(text, 1, 1), "direction=h2d;memory=pinned") == 0);
    CB_CHECK(strcmp(field(text, 1, 2), "5") == 0);
    CB_CHECK_REL(atof(field(text, 1, 3)), 1024, 1e-12);
    CB_CHECK_REL(atof(field(text, 1, 4)), 67108864, 1e-12);
    CB_CHECK_REL(atof(field(text, 1, 5)), 10, 1e-6);
    CB_CHECK_REL(atof(field(text, 1, 6)), 50, 1e-6);
    CB_CHECK_REL(atof(field(text, 1, 7)), 10e-6 * 50e9, 1e-6);
    CB_CHECK(strcmp(field(text, 2, 1), "direction=d2h;memory=pinned") == 0);
    CB_CHECK(strcmp(field(text, 2, 2), "11") == 0); /* the noisy row counts */
    CB_CHECK_REL(atof(field(text, 2, 6)), 52, 1e-6);
    CB_CHECK(strcmp(field(text, 3, 0), "transfers/d2d") == 0);
    CB_CHECK(strcmp(field(text, 3, 1), "") == 0);
    CB_CHECK_REL(atof(field(text, 3, 6)), 4200, 1e-6); /* read + write, as gbps */
    CB_CHECK_REL(atof(field(text, 3, 5)), 3, 1e-6);

    /* Idempotent, and no temporary file left behind; no overlap rows, so no
     * overlap.csv. */
    CB_CHECK(write_run_outputs(dir, rows, n) == CB_OK);
    char *again = slurp(dir, "fits.csv");
    CB_CHECK(again && strcmp(text, again) == 0);
    CB_CHECK(count_files(dir) == 1);
    free(text);
    free(again);

    /* Nothing fittable: nothing written. */
    char *dir2 = temp_dir();
    CB_CHECK(write_run_outputs(dir2, rows, 1) == CB_OK);
    CB_CHECK(write_run_outputs(dir2, rows, 0) == CB_OK);
    CB_CHECK(write_run_outputs(NULL, rows, n) == CB_OK);
    CB_CHECK(count_files(dir2) == 0);
    remove_dir(dir2);
    remove_dir(dir);
}

static void test_overlap_csv(void)
{
    char *dir = temp_dir();
    static cb_result rows[32];
    int n = 0;
    const char *stages[] = {"h2d", "kernel", "d2h", "pipeline"};
    /* streams=1: 1.0 + 0.8 + 1.0 serial, pipeline 2.8; streams=2: the same
     * stages, pipeline 1.5; streams=4 lacks its kernel stage. */
    const double t1[] = {1.0, 0.8, 1.0, 2.8}, t2[] = {1.0, 0.8, 1.0, 1.5};
    char axes[CB_POINT_TEXT];
    for (int streams = 1; streams <= 4; streams *= 2) {
        for (int s = 0; s < 4; s++) {
            if (streams == 4 && s == 1) continue;
            snprintf(axes, sizeof axes, "stage=%s;streams=%d;bytes=268435456;fma=2048", stages[s],
                     streams);
            double t = streams == 1 ? t1[s] : t2[s];
            add_row(rows, &n, &fake_overlap, axes, CB_OK, t, NAN);
        }
    }
    add_row(rows, &n, &fake_overlap, "stage=pipeline;streams=8;bytes=268435456;fma=2048", CB_FAIL,
            1.0, NAN);
    /* streams 1, 2, 4; the failed 8 is left out */
    char *text =
        write_and_read(dir, rows, n, "overlap.csv",
                       "benchmark,point,bytes,streams,h2d_s,kernel_s,d2h_s,pipeline_s,serial_s,"
                       "ideal_s,efficiency,hidden_fraction,speedup_vs_1_stream\n",
                       4);
    if (!text) return;
    CB_CHECK(strcmp(field(text, 1, 1), "streams=1;bytes=268435456;fma=2048") == 0);
    CB_CHECK(strcmp(field(text, 1, 2), "268435456") == 0);
    CB_CHECK(strcmp(field(text, 1, 3), "1") == 0);
    CB_CHECK_REL(atof(field(text, 1, 8)), 2.8, 1e-12);
    CB_CHECK_REL(atof(field(text, 1, 9)), 1.0, 1e-12);
    CB_CHECK_REL(atof(field(text, 1, 10)), 1.0 / 2.8, 1e-8); /* %.9g */
    CB_CHECK(fabs(atof(field(text, 1, 11))) < 1e-12);        /* serial: nothing hidden */
    CB_CHECK_REL(atof(field(text, 1, 12)), 1.0, 1e-12);
    CB_CHECK(strcmp(field(text, 2, 3), "2") == 0);
    CB_CHECK_REL(atof(field(text, 2, 10)), 1.0 / 1.5, 1e-8);                 /* %.9g */
    CB_CHECK_REL(atof(field(text, 2, 11)), (2.8 - 1.5) / (2.8 - 1.0), 1e-8); /* %.9g */
    CB_CHECK_REL(atof(field(text, 2, 12)), 2.8 / 1.5, 1e-8);                 /* %.9g */
    /* streams=4: no kernel time, so no serial/ideal/efficiency; the
     * speedup needs only the pipelines. */
    CB_CHECK(strcmp(field(text, 3, 3), "4") == 0);
    CB_CHECK(strcmp(field(text, 3, 5), "") == 0);
    CB_CHECK(strcmp(field(text, 3, 8), "") == 0);
    CB_CHECK(strcmp(field(text, 3, 10), "") == 0);
    CB_CHECK_REL(atof(field(text, 3, 12)), 2.8 / 1.5, 1e-8); /* %.9g */
    /* One size only: no fits.csv row for the overlap curves. */
    CB_CHECK(count_files(dir) == 1);
    free(text);
    remove_dir(dir);
}

int main(void)
{
    test_exact_recovery();
    test_noise();
    test_weighting();
    test_degenerate();
    test_fits_csv();
    test_overlap_csv();
    return cb_test_finish("test_fit");
}
