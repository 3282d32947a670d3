/* test_compare_gate.c - scripts/perf_gate.sh end to end, without a GPU.
 *
 * The test binary doubles as a fake `cubench`: symlinked as BASE/cubench and
 * CAND/cubench, it answers `run` by writing a one-point run directory with
 * synthetic times (the candidate slowed down for the benchmark named in
 * $CB_FAKE_SLOW, or only during screening for $CB_FAKE_FLAKY), and `compare`
 * by the real cb_compare_main. Each call of `run` is logged to $CB_FAKE_LOG
 * so the test can check the A B B A order. Needs bash.
 */
/* test links: cubench_cli */
#include "cb_common.h"
#include "cb_test_files.h"
#include "cli.h"

#include "cb_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CB_SOURCE_DIR
#define CB_SOURCE_DIR "."
#endif

static char tmp_root[64];

static bool takes_value(const char *opt)
{
    static const char *const with_value[] = {"--device",  "--min-samples", "--max-time-per-point",
                                             "--cache",   "--target-ci",   "--seed",
                                             "--threads", "--timer",       "--out",
                                             "--axis"};
    for (int i = 0; i < CB_ARRAY_LEN(with_value); i++)
        if (strcmp(opt, with_value[i]) == 0) return true;
    return false;
}

static bool env_is(const char *name, const char *value)
{
    const char *v = getenv(name);
    return v && strcmp(v, value) == 0;
}

/* `cubench run BENCH [--axis A=V]... --out DIR ...` as the fake sees it. */
typedef struct {
    const char *out, *bench;
    char axes[256];
} fake_args;

static void parse_fake(int argc, char **argv, fake_args *a)
{
    *a = (fake_args){0};
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            a->out = argv[++i];
        } else if (strcmp(argv[i], "--axis") == 0 && i + 1 < argc) {
            size_t used = strlen(a->axes);
            snprintf(a->axes + used, sizeof a->axes - used, "%s%s", used ? ";" : "", argv[++i]);
        } else if (argv[i][0] == '-') {
            if (takes_value(argv[i])) i++;
        } else if (!a->bench) {
            a->bench = argv[i];
        }
    }
}

/* The candidate's slowdown for this call. */
static double fake_factor(bool cand, const fake_args *a)
{
    if (cand && env_is("CB_FAKE_SLOW", a->bench)) return 1.10;
    if (cand && env_is("CB_FAKE_FLAKY", a->bench) && strstr(a->out, "/screen/")) return 1.10;
    return 1.0;
}

static void log_call(bool cand, const fake_args *a)
{
    const char *log_path = getenv("CB_FAKE_LOG");
    FILE *log = log_path ? fopen(log_path, "a") : NULL;
    if (!log) return;
    fprintf(log, "%s %s %s\n", cand ? "cand" : "base", a->bench, strrchr(a->out, '/') + 1);
    fclose(log);
}

/* 40 samples of 1 ms x factor, +-0.5%, seeded by the directory. */
static void fake_samples(FILE *s, const fake_args *a, double factor)
{
    fputs("benchmark,axes,sample,time_s\n", s);
    uint64_t h = 1469598103934665603ull; /* seed from the directory: reproducible */
    for (const char *c = a->out; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    for (int k = 0; k < 40; k++) {
        h = h * 6364136223846793005ull + 1442695040888963407ull;
        double u = (double)(h >> 11) * 0x1.0p-53;
        fprintf(s, "%s,%s,%d,%.9g\n", a->bench, a->axes, k,
                1e-3 * factor * (1.0 + 0.01 * (u - 0.5)));
    }
}

static int fake_run(int argc, char **argv)
{
    fake_args a;
    parse_fake(argc, argv, &a);
    if (!a.out || !a.bench || mkdir(a.out, 0700) != 0) return 2;
    bool cand = strstr(argv[0], "/cand/") != NULL;
    bool skip = env_is("CB_FAKE_SKIP", "1");
    log_call(cand, &a);
    char path[512];
    snprintf(path, sizeof path, "%s/results.csv", a.out);
    FILE *r = fopen(path, "w");
    snprintf(path, sizeof path, "%s/samples.csv", a.out);
    FILE *s = fopen(path, "w");
    if (!r || !s) return 2;
    fprintf(r, "schema_version,benchmark,axes,status,reason\n1,%s,%s,%s,%s\n", a.bench, a.axes,
            skip ? "skip" : "ok", skip ? "no CUDA device" : "");
    if (skip)
        fputs("benchmark,axes,sample,time_s\n", s);
    else
        fake_samples(s, &a, fake_factor(cand, &a));
    fclose(r);
    fclose(s);
    return 0;
}

/* Run the gate into tmp_root/OUT; returns its exit status. */
static int gate(const char *out_name)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "bash '%s/scripts/perf_gate.sh' '%s/base' '%s/cand' '%s/%s' > '%s/%s.log' 2>&1",
             CB_SOURCE_DIR, tmp_root, tmp_root, tmp_root, out_name, tmp_root, out_name);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *out_file(const char *out_name, const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", tmp_root, out_name, file);
    return cb_test_read_all(path, NULL);
}

/* The gate run into tmp_root/OUT with the fake's `var` set to `value` for
 * that run only; returns its exit status. */
static int gate_with(const char *var, const char *value, const char *out_name)
{
    setenv(var, value, 1);
    int code = gate(out_name);
    unsetenv(var);
    return code;
}

/* The summary.md of the gate run into tmp_root/OUT says both things. */
static void check_summary(const char *out_name, const char *first, const char *second)
{
    char *text = out_file(out_name, "summary.md");
    CB_CHECK_CONTAINS(text, first);
    CB_CHECK_CONTAINS(text, second);
    free(text);
}

/* tmp_root/FILE (a run's log) says `want`. */
static void check_log(const char *file, const char *want)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmp_root, file);
    char *text = cb_test_read_all(path, NULL);
    CB_CHECK_CONTAINS(text, want);
    free(text);
}

static void test_gate(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/points.txt", tmp_root);
    CB_CHECK(cb_test_write_text(path, "# two points\n"
                                      "fam/alpha --axis n=1 --axis k=x   # trailing comment\n"
                                      "\n"
                                      "fam/beta --axis n=2\n"));
    setenv("CUBENCH_GATE_POINTS", path, 1);
    snprintf(path, sizeof path, "%s/fake.log", tmp_root);
    setenv("CB_FAKE_LOG", path, 1);
    char summary[512];
    snprintf(summary, sizeof summary, "%s/step_summary.md", tmp_root);
    setenv("GITHUB_STEP_SUMMARY", summary, 1);
    /* 3 rounds (3 runs per side: the runs are the unit, as with the default
     * 6) keep the test short: every run is a process of this binary, and
     * under AddressSanitizer one costs half a second. */
    setenv("CUBENCH_GATE_ROUNDS", "3", 1);
    setenv("CUBENCH_GATE_CONFIRM_ROUNDS", "3", 1);

    /* A/A: pass; runs in A B B A order, two processes per line and round */
    CB_CHECK(gate("aa") == 0);
    check_summary("aa", "## cubench perf gate: pass\n", "### perf gate: screening: 2 same");
    char *text = cb_test_read_all(path, NULL);
    CB_CHECK_CONTAINS(text, "base fam/alpha r1-l1\ncand fam/alpha r1-l1\nbase fam/beta r1-l2\n"
                            "cand fam/beta r1-l2\ncand fam/alpha r2-l1\nbase fam/alpha r2-l1\n"
                            "cand fam/beta r2-l2\nbase fam/beta r2-l2\n");
    free(text);
    text = cb_test_read_all(summary, NULL);
    CB_CHECK_CONTAINS(text, "## cubench perf gate: pass");
    free(text);

    /* a real slowdown: screened, re-run alone, confirmed: exit 1 */
    CB_CHECK(gate_with("CB_FAKE_SLOW", "fam/alpha", "slow") == 1);
    text = out_file("slow", "confirm_points.txt");
    CB_CHECK(text && strcmp(text, "fam/alpha --axis n=1 --axis k=x\n") == 0);
    free(text);
    check_summary("slow", "## cubench perf gate: FAIL, 1 confirmed slowdown(s)",
                  "### perf gate: confirmation of the slower points: **1 slower**");

    /* slower in screening only: not confirmed, exit 0 */
    CB_CHECK(gate_with("CB_FAKE_FLAKY", "fam/beta", "flaky") == 0);
    check_summary("flaky", "pass (slowdowns in screening were not confirmed)",
                  "### perf gate: confirmation of the slower points: 1 same");

    /* nothing timed (every point skipped, as without a GPU): exit 2 */
    CB_CHECK(gate_with("CB_FAKE_SKIP", "1", "skipped") == 2);
    check_log("skipped.log", "no point was timed by both builds");

    /* the defaults the script documents: 6 screening, 4 confirmation rounds */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "bash '%s/scripts/perf_gate.sh' --help > '%s/help.txt' 2>&1",
             CB_SOURCE_DIR, tmp_root);
    CB_CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/help.txt", tmp_root);
    text = cb_test_read_all(path, NULL);
    CB_CHECK_CONTAINS(
        text, "CUBENCH_GATE_ROUNDS          screening rounds, each one A and one B run (default 6");
    CB_CHECK_CONTAINS(text, "CUBENCH_GATE_CONFIRM_ROUNDS  confirmation rounds (default 4)");
    free(text);

    /* an existing, non-empty output directory: exit 2 */
    CB_CHECK(gate("aa") == 2);

    /* a run option in the point list: exit 2 with the reason */
    snprintf(path, sizeof path, "%s/bad_points.txt", tmp_root);
    CB_CHECK(cb_test_write_text(path, "fam/alpha --cache hot\n"));
    setenv("CUBENCH_GATE_POINTS", path, 1);
    CB_CHECK(gate("badlist") == 2);
    check_log("badlist.log", "'--cache': only --axis belongs in a point list");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "run") == 0) return fake_run(argc, argv);
    if (argc > 1 && strcmp(argv[1], "compare") == 0) return cb_cli_compare(argc - 1, argv + 1);

    if (system("bash -c true") != 0) {
        printf("test_compare_gate: bash not found, skipped\n");
        return 0;
    }
    snprintf(tmp_root, sizeof tmp_root, "/tmp/cb_gate_XXXXXX");
    if (!cb_test_temp_dir(tmp_root)) return 1;
    char self[512], link[512];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CB_CHECK(len > 0);
    if (len <= 0) return cb_test_finish("test_compare_gate");
    self[len] = '\0';
    const char *sides[] = {"base", "cand"};
    for (int i = 0; i < 2; i++) {
        snprintf(link, sizeof link, "%s/%s", tmp_root, sides[i]);
        CB_CHECK(mkdir(link, 0700) == 0);
        snprintf(link, sizeof link, "%s/%s/cubench", tmp_root, sides[i]);
        CB_CHECK(symlink(self, link) == 0);
    }
    test_gate();
    if (cb_test_failed == 0) {
        CB_CHECK(cb_test_remove_tree(tmp_root));
    } else {
        fprintf(stderr, "test_compare_gate: outputs kept in %s\n", tmp_root);
    }
    return cb_test_finish("test_compare_gate");
}
