/* test_compare_cli.c - `cubench compare` end to end through cb_compare_main:
 * run directories written to a temporary directory, exit codes 0/1/2, the
 * markdown and CSV it writes, pooling, and the input errors. */
#include "compare_cli.h"

#include "csv_reader.h"

#include "test_compare_check.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_root[64];
static char created[128][512]; /* files and directories, removed in reverse */
static int n_created;

static const char *remember(const char *path)
{
    if (n_created < CB_ARRAY_LEN(created))
        snprintf(created[n_created++], sizeof created[0], "%s", path);
    return path;
}

static void cleanup(void)
{
    while (n_created > 0)
        remove(created[--n_created]);
}

static uint64_t rng_state = 11;

static double rng_uniform(void)
{
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return ((double)(z >> 11) + 0.5) * 0x1.0p-53;
}

typedef struct spec_point {
    const char *bench, *axes, *status, *reason;
    int n;
    double median; /* times are median * (1 + 0.01 * (u - 0.5)) */
} spec_point;

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(remember(path), "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* A run directory tmp_root/name with the given points. Extra columns and a
 * quoted reason check that the reader goes by the header. */
static const char *write_run(const char *name, const spec_point *pts, int n_pts, const char *sha,
                             const char *device)
{
    static char dir[256];
    snprintf(dir, sizeof dir, "%s/%s", tmp_root, name);
    CHECK(mkdir(dir, 0700) == 0);
    remember(dir);
    char path[512];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *r = fopen(remember(path), "w");
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *s = fopen(remember(path), "w");
    CHECK(r && s);
    if (!r || !s) return dir;
    fputs("schema_version,benchmark,family,axes,status,reason,samples,median_s\n", r);
    fputs("benchmark,axes,sample,time_s,cupti_s,batch\n", s);
    for (int i = 0; i < n_pts; i++) {
        const spec_point *p = &pts[i];
        fprintf(r, "1,%s,fam,%s,%s,\"", p->bench, p->axes, p->status);
        for (const char *c = p->reason ? p->reason : ""; *c; c++) {
            if (*c == '"') fputc('"', r); /* RFC 4180: a quote inside is doubled */
            fputc(*c, r);
        }
        fprintf(r, "\",%d,%.9g\n", p->n, p->median);
        for (int k = 0; k < p->n; k++)
            fprintf(s, "%s,%s,%d,%.9g,,1\n", p->bench, p->axes, k,
                    p->median * (1.0 + 0.01 * (rng_uniform() - 0.5)));
    }
    fclose(r);
    fclose(s);
    if (sha) {
        snprintf(path, sizeof path, "%s/meta.json", dir);
        char meta[256];
        snprintf(meta, sizeof meta,
                 "{\n  \"schema_version\": 1,\n  \"git_sha\": \"%s\",\n  \"device\": {\"name\": "
                 "\"%s\", \"cc\": \"9.0\"},\n  \"settings\": {\"device\": 0}\n}\n",
                 sha, device);
        write_file(path, meta);
    }
    return dir;
}

/* Call cb_compare_main with "compare" and the NULL-terminated arguments. */
static int run_cli(const char *first, ...)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = (char *)"compare";
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 31; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return cb_compare_main(argc, argv);
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 20);
    size_t got = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    (void)got; /* a short read leaves a shorter, still terminated text */
    fclose(f);
    return buf;
}

static void test_end_to_end(void)
{
    const spec_point base_pts[] = {
        {"vecadd/grid_stride", "n=1024;block=256", "ok", NULL, 30, 10e-6},
        {"vecadd/grid_stride", "n=4096;block=256", "ok", NULL, 30, 30e-6},
        {"matmul/naive", "n=512", "ok", NULL, 20, 2e-3},
        {"transfers/h2d", "bytes=1048576;mem=pinned", "ok", NULL, 20, 50e-6},
    };
    spec_point same_pts[4], slow_pts[4], skip_pts[4];
    memcpy(same_pts, base_pts, sizeof base_pts);
    memcpy(slow_pts, base_pts, sizeof base_pts);
    memcpy(skip_pts, base_pts, sizeof base_pts);
    slow_pts[2].median *= 1.10; /* matmul 10% slower */
    skip_pts[3].status = "skip";
    skip_pts[3].reason = "no pinned memory, \"really\"";
    skip_pts[3].n = 0;

    char base[256], same[256], slow[256], skip[256], slow2[256], md[256], csv[256];
    snprintf(base, sizeof base, "%s", write_run("base", base_pts, 4, "abc123", "Test GPU"));
    snprintf(same, sizeof same, "%s", write_run("same", same_pts, 4, "def456", "Test GPU"));
    snprintf(slow, sizeof slow, "%s", write_run("slow", slow_pts, 4, "0badc0de", "Other GPU"));
    snprintf(slow2, sizeof slow2, "%s", write_run("slow2", slow_pts, 4, NULL, NULL));
    snprintf(skip, sizeof skip, "%s", write_run("skip", skip_pts, 4, NULL, NULL));
    snprintf(md, sizeof md, "%s/out.md", tmp_root);
    snprintf(csv, sizeof csv, "%s/out.csv", tmp_root);
    remember(md);
    remember(csv);

    /* A/A: exit 0, every point same */
    CHECK(run_cli(base, same, "--markdown", md, "--csv", csv, NULL) == 0);
    char *text = read_all(md);
    CHECK_CONTAINS(text, "4 same");
    CHECK_CONTAINS(text, "git abc123, Test GPU");
    CHECK_CONTAINS(text, "<details><summary>4 unchanged points (same)</summary>");
    CHECK(text && !strstr(text, "| **slower**"));
    free(text);

    /* a 10% slowdown: exit 1, the row first in markdown and CSV */
    CHECK(run_cli(base, slow, "--markdown", md, "--csv", csv, "--title", "PR 7", NULL) == 1);
    text = read_all(md);
    CHECK_CONTAINS(text, "### PR 7: **1 slower**, 3 same");
    CHECK_CONTAINS(text, "| **slower** | matmul/naive | n=512 | 1.0");
    CHECK_CONTAINS(text, "| 99% CI |");
    CHECK_CONTAINS(text, "(git 0badc0de, Other GPU)");
    CHECK_CONTAINS(text, "**Warning:** BASE and NEW ran on different devices");
    free(text);
    cb_msg err;
    cb_csv *c = cb_csv_read_file(csv, &err);
    CHECK_MSG(c != NULL, "%s", err.text);
    if (c) {
        static const char *const cols[] = {"benchmark",     "axes",         "verdict", "ratio",
                                           "ci_lo",         "ci_hi",        "p",       "q",
                                           "base_median_s", "new_median_s", "base_n",  "new_n",
                                           "base_rel_iqr",  "new_rel_iqr"};
        int idx[14];
        CHECK(cb_csv_require(c, cols, 14, idx, &err));
        CHECK(cb_csv_rows(c) == 4);
        CHECK(strcmp(cb_csv_get(c, 0, idx[2]), "slower") == 0);
        CHECK(strcmp(cb_csv_get(c, 0, idx[0]), "matmul/naive") == 0);
        CHECK(strcmp(cb_csv_get(c, 0, idx[10]), "20") == 0);
        double ratio = 0;
        CHECK(cb_csv_get_double(c, 0, idx[3], &ratio, &err));
        CHECK_NEAR(ratio, 1.10, 0.01);
        CHECK(strcmp(cb_csv_get(c, 1, idx[2]), "same") == 0);
    }
    cb_csv_free(c);

    /* --fail-on none reports but passes */
    CHECK(run_cli("--fail-on", "none", base, slow, "--markdown", md, NULL) == 0);

    /* pooling two runs per side: twice the samples, still slower */
    CHECK(run_cli("--base", base, "--base", same, "--new", slow, "--new", slow2, "--csv", csv,
                  "--markdown", md, NULL) == 1);
    text = read_all(md);
    CHECK_CONTAINS(text, "/base` + 1 more run (git abc123, Test GPU) → NEW `");
    free(text);
    c = cb_csv_read_file(csv, &err);
    if (c) {
        int nb = cb_csv_col(c, "base_n"), nn = cb_csv_col(c, "new_n");
        CHECK(nb >= 0 && strcmp(cb_csv_get(c, 0, nb), "40") == 0);
        CHECK(nn >= 0 && strcmp(cb_csv_get(c, 0, nn), "40") == 0);
    }
    cb_csv_free(c);

    /* a point NEW skipped: missing, with its reason; does not fail */
    CHECK(run_cli(base, skip, "--markdown", md, NULL) == 0);
    text = read_all(md);
    CHECK_CONTAINS(text, "1 missing");
    CHECK_CONTAINS(text, "| missing | transfers/h2d | bytes=1048576;mem=pinned |");
    CHECK_CONTAINS(text, "NEW: skip: no pinned memory, \"really\"");
    free(text);
    /* ... and in the other direction it is new */
    CHECK(run_cli(skip, base, "--markdown", md, NULL) == 0);
    text = read_all(md);
    CHECK_CONTAINS(text, "1 new");
    free(text);
}

static void test_usage_errors(void)
{
    char md[256];
    snprintf(md, sizeof md, "%s/out.md", tmp_root);
    CHECK(run_cli("--help", NULL) == 0);
    CHECK(run_cli(NULL) == 2);
    CHECK(run_cli("only_one_dir", NULL) == 2);
    CHECK(run_cli("a", "b", "c", NULL) == 2);
    CHECK(run_cli("--bogus", "a", "b", NULL) == 2);
    CHECK(run_cli("--delta", "abc", "a", "b", NULL) == 2);
    CHECK(run_cli("--delta", "0", "a", "b", NULL) == 2);
    CHECK(run_cli("--alpha", "0.7", "a", "b", NULL) == 2);
    CHECK(run_cli("--min-samples", "2.5", "a", "b", NULL) == 2);
    CHECK(run_cli("--fail-on", "faster", "a", "b", NULL) == 2);
    CHECK(run_cli("--base", "a", "b", "c", NULL) == 2); /* mixed forms */
    CHECK(run_cli("--markdown", "-", "--csv", "-", "a", "b", NULL) == 2);
    CHECK(run_cli("/nonexistent/base", "/nonexistent/new", "--markdown", md, NULL) == 2);
}

static void test_input_errors(void)
{
    char md[256], dir[256], path[512];
    snprintf(md, sizeof md, "%s/out.md", tmp_root);
    const spec_point pts[] = {{"vecadd/x", "n=1", "ok", NULL, 10, 1e-3}};
    char good[256];
    snprintf(good, sizeof good, "%s", write_run("good", pts, 1, NULL, NULL));

    /* schema_version 2 */
    snprintf(dir, sizeof dir, "%s", write_run("v2", pts, 1, NULL, NULL));
    snprintf(path, sizeof path, "%s/results.csv", dir);
    write_file(path, "schema_version,benchmark,axes,status\n2,vecadd/x,n=1,ok\n");
    CHECK(run_cli(good, dir, "--markdown", md, NULL) == 2);

    /* a results.csv without the status column */
    snprintf(dir, sizeof dir, "%s", write_run("nostatus", pts, 1, NULL, NULL));
    snprintf(path, sizeof path, "%s/results.csv", dir);
    write_file(path, "schema_version,benchmark,axes\n1,vecadd/x,n=1\n");
    CHECK(run_cli(good, dir, "--markdown", md, NULL) == 2);

    /* a truncated samples.csv: last line cut mid-record */
    snprintf(dir, sizeof dir, "%s", write_run("trunc", pts, 1, NULL, NULL));
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    write_file(
        path,
        "benchmark,axes,sample,time_s,cupti_s,batch\nvecadd/x,n=1,0,1e-3,,1\nvecadd/x,n=1,1,1e");
    CHECK(run_cli(good, dir, "--markdown", md, NULL) == 2);

    /* an empty samples.csv */
    snprintf(dir, sizeof dir, "%s", write_run("empty", pts, 1, NULL, NULL));
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    write_file(path, "");
    CHECK(run_cli(good, dir, "--markdown", md, NULL) == 2);

    /* a non-positive time */
    snprintf(dir, sizeof dir, "%s", write_run("zero", pts, 1, NULL, NULL));
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    write_file(path, "benchmark,axes,time_s\nvecadd/x,n=1,0\n");
    CHECK(run_cli(good, dir, "--markdown", md, NULL) == 2);

    /* a point listed twice */
    snprintf(dir, sizeof dir, "%s", write_run("twice", pts, 1, NULL, NULL));
    snprintf(path, sizeof path, "%s/results.csv", dir);
    write_file(path,
               "schema_version,benchmark,axes,status\n1,vecadd/x,n=1,ok\n1,vecadd/x,n=1,ok\n");
    CHECK(run_cli(good, dir, "--markdown", md, NULL) == 2);

    /* orphan samples (an interrupted run) are ignored, not an error */
    snprintf(dir, sizeof dir, "%s", write_run("orphan", pts, 1, NULL, NULL));
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *f = fopen(path, "a");
    if (f) {
        fputs("vecadd/late,n=1,0,1e-3,,1\n", f);
        fclose(f);
    }
    CHECK(run_cli(good, dir, "--markdown", md, NULL) == 0);
}

int main(void)
{
    snprintf(tmp_root, sizeof tmp_root, "/tmp/cb_compare_XXXXXX");
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    remember(tmp_root);
    test_end_to_end();
    test_usage_errors();
    test_input_errors();
    cleanup();
    return cb_t_finish("test_compare_cli");
}
