/* compare_cli.c - parse `cubench compare` options, load, compare, report.
 * Parsing only: the statistics live in compare*.c, the output in
 * compare_report.c. */
#include "compare_cli.h"

#include "cb_common.h"
#include "compare.h"
#include "compare_conditions.h"
#include "compare_report.h"
#include "parse_number.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_COMPARE_MAX_DIRS 64

static void usage(FILE *f)
{
    fputs("usage: cubench compare [OPTIONS] BASE_DIR NEW_DIR\n"
          "       cubench compare [OPTIONS] BASE_DIR... -- NEW_DIR...\n"
          "       cubench compare [OPTIONS] --base DIR [--base DIR]... --new DIR [--new DIR]...\n"
          "       cubench compare --calibrate [OPTIONS] DIR DIR DIR... -o FILE\n"
          "\n"
          "Compare cubench runs point by point (benchmark + axes). Each side is one or more\n"
          "run directories (separate processes of one revision; a directory given twice, or\n"
          "a copy of one, counts once); a point's unit is the median of one replicate\n"
          "(round) of one run. Its test is Welch's t on the log medians against a minimum\n"
          "effect: slower means NEW is more than --delta slower with confidence 1 - alpha,\n"
          "after Benjamini-Hochberg across the points. With fewer than 3 runs per side the\n"
          "between-run spread the data cannot show comes from --calibration, else\n"
          "--between-run, else the default of the point's kind (measured on H200 A/A runs;\n"
          "host copies, Python frameworks and multi-GPU points have none: inconclusive).\n"
          "A point that ran throttled on either side is `throttled`, never slower.\n"
          "\n"
          "options:\n"
          "  --delta X            smallest change that matters (default 0.03 = 3%)\n"
          "  --alpha X            1 - confidence level of the CIs, and the FDR level (0.01)\n"
          "  --power X            power of the reported minimum detectable effect (0.99)\n"
          "  --min-samples N      fewer samples on a side is inconclusive (default 5)\n"
          "  --min-abs-delta S    event timer resolution per run in seconds (0.5e-6, as CUDA\n"
          "                       documents); a change below it is inconclusive; 0: none\n"
          "  --host-resolution S  the host clock's resolution (default 1e-7); 0: none\n"
          "  --between-run X      between-run spread per run for a side of fewer than 3 runs\n"
          "                       without a calibration, every kind alike (default: by kind\n"
          "                       of point, docs/compare.md); 0: none (rounds alone)\n"
          "  --calibration FILE   between-run spread recorded by --calibrate on this machine\n"
          "  --calibrate          record it instead, from 3 or more runs of one build (all\n"
          "                       directories given, either side); writes -o FILE\n"
          "  -o, --output FILE    the calibration file --calibrate writes\n"
          "  --markdown FILE      write the markdown report to FILE (default: stdout)\n"
          "  --csv FILE           write the per-point CSV to FILE ('-': stdout, and then no\n"
          "                       markdown on stdout unless --markdown - is given)\n"
          "  --title TEXT         heading of the markdown report\n"
          "  --fail-on WHAT       slower (default): exit 1 when a point is slower; none: 0\n"
          "  --fail-on-throttled  also exit 1 for a throttled point the test calls slower\n"
          "  -h, --help           this text\n"
          "\n"
          "verdicts: slower, faster, throttled, same, inconclusive, missing (BASE only),\n"
          "new (NEW only), untimed (neither side timed it); docs/compare.md\n"
          "environment: none read\n"
          "exit: 0 no slower point, 1 a slower point, 2 bad usage or input, or no point\n"
          "could be tested\n",
          f);
}

/* A number of option --opt in [lo, hi]; above lo unless `closed_lo`. */
static bool parse_number(const char *opt, const char *text, double lo, double hi, bool closed_lo,
                         double *out)
{
    cb_msg why;
    if (!cb_parse_double(text, lo, hi, out, &why)) {
        fprintf(stderr, "compare: --%s: %s\n", opt, why.text);
        return false;
    }
    if (!closed_lo && !(*out > lo)) {
        fprintf(stderr, "compare: --%s '%s': must be above %g\n", opt, text, lo);
        return false;
    }
    return true;
}

/* A writable stream for FILE, '-' meaning stdout. */
static FILE *open_out(const char *path)
{
    if (strcmp(path, "-") == 0) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "compare: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

/* Close (or flush stdout) and say why a write failed: a full disk, a
 * closed pipe, a file-size limit. */
static bool close_out(FILE *f, const char *path)
{
    int saved = 0;
    bool ok = !ferror(f);
    if (!ok) saved = errno;
    if (f == stdout ? fflush(f) != 0 : fclose(f) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        fprintf(stderr, "compare: error writing %s: %s\n", path,
                saved ? strerror(saved) : "write failed");
    return ok;
}

typedef struct cli_args {
    cb_compare_opts opts;
    const char *base_dirs[CB_COMPARE_MAX_DIRS], *new_dirs[CB_COMPARE_MAX_DIRS];
    int n_base, n_new;
    const char *markdown, *csv, *title, *calibration, *output;
    bool fail_on_slower, fail_on_throttled, calibrate;
} cli_args;

/* parse_args returns this to go on, else the exit code (help, usage error). */
#define CLI_CONTINUE (-1)

static bool add_dir(cli_args *a, bool base, const char *dir)
{
    int *count = base ? &a->n_base : &a->n_new;
    if (*count == CB_COMPARE_MAX_DIRS) {
        fprintf(stderr, "compare: at most %d directories per side\n", CB_COMPARE_MAX_DIRS);
        return false;
    }
    (base ? a->base_dirs : a->new_dirs)[(*count)++] = dir;
    return true;
}

enum {
    OPT_DELTA = 256,
    OPT_ALPHA,
    OPT_POWER,
    OPT_MIN,
    OPT_MIN_ABS,
    OPT_HOST_RES,
    OPT_BETWEEN,
    OPT_CALIBRATION,
    OPT_CALIBRATE,
    OPT_MD,
    OPT_CSV,
    OPT_TITLE,
    OPT_FAIL,
    OPT_FAIL_THROTTLED,
    OPT_BASE,
    OPT_NEW
};

/* The options that take a number: which, its range, where it goes. */
static const struct number_option {
    int id;
    const char *name;
    double lo, hi;
    bool closed_lo;
    size_t offset; /* a double of cb_compare_opts */
} number_options[] = {
    {OPT_DELTA, "delta", 0.0, 1.0, false, offsetof(cb_compare_opts, delta)},
    {OPT_ALPHA, "alpha", 0.0, 0.5, false, offsetof(cb_compare_opts, alpha)},
    {OPT_POWER, "power", 0.5, 0.9999, true, offsetof(cb_compare_opts, power)},
    {OPT_MIN_ABS, "min-abs-delta", 0.0, 1.0, true, offsetof(cb_compare_opts, event_res_s)},
    {OPT_HOST_RES, "host-resolution", 0.0, 1.0, true, offsetof(cb_compare_opts, host_res_s)},
    {OPT_BETWEEN, "between-run", 0.0, 1.0, true, offsetof(cb_compare_opts, between_run_sd)},
};

/* The options that take a text: which, and where it goes. */
static const struct text_option {
    int id;
    size_t offset; /* a const char * of cli_args */
} text_options[] = {
    {OPT_CALIBRATION, offsetof(cli_args, calibration)},
    {'o', offsetof(cli_args, output)},
    {OPT_MD, offsetof(cli_args, markdown)},
    {OPT_CSV, offsetof(cli_args, csv)},
    {OPT_TITLE, offsetof(cli_args, title)},
};

/* A number or text option into its place; -1 when `c` is neither. */
static int take_value(int c, cli_args *a)
{
    for (int i = 0; i < CB_ARRAY_LEN(number_options); i++) {
        const struct number_option *n = &number_options[i];
        if (n->id == c)
            return parse_number(n->name, optarg, n->lo, n->hi, n->closed_lo,
                                (double *)((char *)&a->opts + n->offset));
    }
    for (int i = 0; i < CB_ARRAY_LEN(text_options); i++)
        if (text_options[i].id == c) {
            *(const char **)((char *)a + text_options[i].offset) = optarg;
            return true;
        }
    return -1;
}

/* One option; false on a bad value (the message is printed). */
static bool take_option(int c, cli_args *a)
{
    long long count;
    cb_msg why;
    int taken = take_value(c, a);
    if (taken >= 0) return taken;
    switch (c) {
    case OPT_MIN:
        if (!cb_parse_int(optarg, 1, 1000000, &count, &why)) {
            fprintf(stderr, "compare: --min-samples: %s\n", why.text);
            return false;
        }
        a->opts.min_samples = (int)count;
        return true;
    case OPT_CALIBRATE:
        a->calibrate = true;
        return true;
    case OPT_FAIL:
        if (strcmp(optarg, "slower") == 0 || strcmp(optarg, "none") == 0) {
            a->fail_on_slower = strcmp(optarg, "slower") == 0;
            return true;
        }
        fprintf(stderr, "compare: --fail-on '%s': expected slower or none\n", optarg);
        return false;
    case OPT_FAIL_THROTTLED:
        a->fail_on_throttled = true;
        return true;
    case OPT_BASE:
    case OPT_NEW:
        return add_dir(a, c == OPT_BASE, optarg);
    }
    fputs("compare: see 'cubench compare --help'\n", stderr); /* getopt said what */
    return false;
}

/* Positional directories: BASE NEW, or BASE... -- NEW...; for
 * --calibrate every directory is one set (kept as BASE). */
static bool take_positional(cli_args *a, int n_pos, char **pos, int n_after, char **after,
                            bool had_separator)
{
    bool split = had_separator || (n_pos == 2 && !a->calibrate);
    for (int i = 0; i < n_pos; i++)
        if (!add_dir(a, !split || i == 0 || had_separator, pos[i])) return false;
    for (int i = 0; i < n_after; i++)
        if (!add_dir(a, a->calibrate, after[i])) return false;
    return true;
}

/* The sides: --base/--new, or the positional forms. */
static bool take_sides(cli_args *a, int n_pos, char **pos, int n_after, char **after,
                       bool had_separator)
{
    bool flags = a->n_base > 0 || a->n_new > 0;
    if (flags && (n_pos > 0 || had_separator)) {
        fputs("compare: give the sides as --base/--new or as directories, not both\n", stderr);
        return false;
    }
    if (!flags && !take_positional(a, n_pos, pos, n_after, after, had_separator)) return false;
    if (a->calibrate && a->n_base + a->n_new > 0) return true;
    if (a->n_base == 0 || a->n_new == 0) {
        fputs("compare: give BASE_DIR NEW_DIR, BASE_DIR... -- NEW_DIR..., or --base DIR... --new "
              "DIR...; see 'cubench compare --help'\n",
              stderr);
        return false;
    }
    return true;
}

/* Why the options cannot go together, or NULL. */
static const char *clash(const cli_args *a)
{
    if (a->calibrate && a->calibration)
        return "--calibrate records a calibration from A/A runs; --calibration uses one in a "
               "comparison: give one of them";
    if (a->calibrate && !a->output) return "--calibrate needs -o FILE";
    if (!a->calibrate && a->output)
        return "-o is the file --calibrate writes (reports: --markdown, --csv)";
    bool md_stdout = a->markdown && strcmp(a->markdown, "-") == 0;
    if (md_stdout && a->csv && strcmp(a->csv, "-") == 0)
        return "--markdown - and --csv - cannot both use stdout";
    return NULL;
}

/* The combinations of options that cannot go together; false (said). */
static bool check_args(cli_args *a)
{
    const char *why = clash(a);
    if (why) {
        fprintf(stderr, "compare: %s\n", why);
        return false;
    }
    if (!a->calibrate && !a->markdown && !(a->csv && strcmp(a->csv, "-") == 0)) a->markdown = "-";
    return true;
}

static int parse_args(int argc, char **argv, cli_args *a)
{
    static const struct option longopts[] = {
        {"delta", required_argument, NULL, OPT_DELTA},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"power", required_argument, NULL, OPT_POWER},
        {"min-samples", required_argument, NULL, OPT_MIN},
        {"min-abs-delta", required_argument, NULL, OPT_MIN_ABS},
        {"host-resolution", required_argument, NULL, OPT_HOST_RES},
        {"between-run", required_argument, NULL, OPT_BETWEEN},
        {"calibration", required_argument, NULL, OPT_CALIBRATION},
        {"calibrate", no_argument, NULL, OPT_CALIBRATE},
        {"output", required_argument, NULL, 'o'},
        {"markdown", required_argument, NULL, OPT_MD},
        {"csv", required_argument, NULL, OPT_CSV},
        {"title", required_argument, NULL, OPT_TITLE},
        {"fail-on", required_argument, NULL, OPT_FAIL},
        {"fail-on-throttled", no_argument, NULL, OPT_FAIL_THROTTLED},
        {"base", required_argument, NULL, OPT_BASE},
        {"new", required_argument, NULL, OPT_NEW},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    cb_compare_opts_default(&a->opts);
    a->fail_on_slower = true;
    /* Everything after the first bare "--" is NEW's directories; getopt
     * would move it among the other operands, so it never sees that part. */
    int split = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            split = i;
            break;
        }
    optind = 0; /* glibc: full re-initialisation, so the command can run twice */
    int c;
    while ((c = getopt_long(split, argv, "ho:", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CB_EXIT_OK;
        }
        if (!take_option(c, a)) return CB_EXIT_USAGE;
    }
    bool separator = split < argc;
    if (!take_sides(a, split - optind, argv + optind, separator ? argc - split - 1 : 0,
                    argv + split + 1, separator) ||
        !check_args(a))
        return CB_EXIT_USAGE;
    return CLI_CONTINUE;
}

static bool load_side(cb_cmp_run *run, const char *side, const char *const *dirs, int n)
{
    for (int i = 0; i < n; i++) {
        cb_msg err = {{0}};
        if (!cb_cmp_run_load(run, dirs[i], &err)) {
            fprintf(stderr, "compare: %s: %s\n", side, err.text);
            return false;
        }
    }
    for (int i = 0; i < run->n_duplicates; i++)
        fprintf(stderr, "compare: warning: %s: %s left out: %s\n", side, run->duplicates[i].path,
                run->duplicates[i].why);
    if (run->orphan_samples > 0)
        fprintf(stderr,
                "compare: %s: ignored %ld samples of points missing from results.csv "
                "(an interrupted run?)\n",
                side, run->orphan_samples);
    return true;
}

static bool write_reports(const cli_args *a, const cb_report_input *in)
{
    if (a->markdown) {
        FILE *f = open_out(a->markdown);
        if (!f) return false;
        bool ok = cb_compare_write_markdown(f, in);
        if (!close_out(f, a->markdown) || !ok) return false;
    }
    if (a->csv) {
        FILE *f = open_out(a->csv);
        if (!f) return false;
        bool ok = cb_compare_write_csv(f, in->result, in->opts);
        if (!close_out(f, a->csv) || !ok) return false;
    }
    return true;
}

/* Runs of one set that name different builds are no A/A set. */
static void warn_builds(const cb_cmp_run *set)
{
    for (int d = 1; d < set->n_dirs; d++) {
        const char *a = set->dirs[0].meta.git_sha, *b = set->dirs[d].meta.git_sha;
        if (a[0] && b[0] && strcmp(a, b) != 0) {
            fprintf(stderr,
                    "compare: warning: --calibrate: %s is build %s, %s is %s: a calibration "
                    "measures runs of one build\n",
                    set->dirs[0].path, a, set->dirs[d].path, b);
            return;
        }
    }
}

static void calibration_summary(const cb_calibration *cal, int points, const char *path)
{
    fprintf(stderr, "compare: calibration of %d points (%s) in %d groups written to %s", points,
            cal->basis, cal->n_rows, path);
    for (int k = 0; k < CB_CMP_KINDS; k++) {
        const cb_calib_row *all = cb_calibration_lookup(cal, (cb_cmp_kind)k, "*", 1.0);
        if (all && strcmp(all->benchmark, "*") == 0)
            fprintf(stderr, "; %s points %.2f%% per run (df %.0f)",
                    cb_cmp_kind_name((cb_cmp_kind)k), 100.0 * all->sd, all->df);
    }
    fputs("\n", stderr);
}

/* --calibrate: the between-run spread of the runs into a->output. */
static int run_calibrate(const cli_args *a, const cb_cmp_run *set)
{
    cb_calibration cal;
    cb_msg err = {{0}};
    int points = 0, rc = CB_EXIT_USAGE;
    warn_builds(set);
    if (!cb_calibration_record(set, a->opts.min_samples, &cal, &points, &err)) {
        fprintf(stderr, "compare: %s\n", err.text);
        return CB_EXIT_USAGE;
    }
    if (points == 0 || cal.n_rows == 0) {
        fprintf(stderr,
                "compare: --calibrate: no point was timed in %d runs with %d samples each (a "
                "group needs %d such points)\n",
                CB_CALIB_MIN_RUNS, a->opts.min_samples, CB_CALIB_MIN_POINTS);
    } else {
        FILE *f = open_out(a->output);
        if (f) {
            bool ok = cb_calibration_write(f, &cal);
            if (close_out(f, a->output) && ok) rc = CB_EXIT_OK;
        }
        if (rc == CB_EXIT_OK) calibration_summary(&cal, points, a->output);
    }
    cb_calibration_free(&cal);
    return rc;
}

static void warn_mixed(const cb_cmp_conditions *c)
{
    if (c->base_mix[0]) fprintf(stderr, "compare: warning: BASE mixes devices: %s\n", c->base_mix);
    if (c->new_mix[0]) fprintf(stderr, "compare: warning: NEW mixes devices: %s\n", c->new_mix);
}

static int exit_code(const cli_args *a, const cb_compare_result *r)
{
    if (r->counts[CB_VERDICT_SLOWER] > 0 && a->fail_on_slower) return CB_EXIT_FAILURES;
    if (r->throttled_slower > 0 && a->fail_on_throttled) return CB_EXIT_FAILURES;
    return CB_EXIT_OK;
}

static int run_compare(const cli_args *a, const cb_cmp_run *base, const cb_cmp_run *cand)
{
    cb_compare_result r = {0};
    cb_cmp_conditions cond = {0};
    cb_msg err = {{0}};
    int rc = CB_EXIT_USAGE;
    if (!cb_compare_runs(base, cand, &a->opts, &r, &err) ||
        !cb_cmp_conditions_diff(base, cand, &cond, &err)) {
        fprintf(stderr, "compare: %s\n", err.text);
        goto done;
    }
    warn_mixed(&cond);
    cb_report_input in = {&r, &a->opts, base, cand, &cond, a->title};
    if (!write_reports(a, &in)) goto done;
    fprintf(stderr, "compare: %d points:", r.n_rows);
    for (int v = 0; v < CB_VERDICT_COUNT; v++)
        if (r.counts[v]) fprintf(stderr, " %d %s", r.counts[v], cb_verdict_name((cb_verdict)v));
    if (r.tested == 0) {
        fputs("; no point could be tested (none timed on both sides with enough samples and a "
              "known between-run spread): exit 2\n",
              stderr);
        goto done;
    }
    rc = exit_code(a, &r);
    fprintf(stderr, "; exit %d\n", rc);
done:
    cb_cmp_conditions_free(&cond);
    cb_compare_result_free(&r);
    return rc;
}

/* --calibration FILE as the first spread source. */
static bool use_calibration(cli_args *a, const cb_cmp_run *base, cb_calibration *cal,
                            cb_spread_source *src)
{
    cb_msg err = {{0}};
    if (!cb_calibration_read(a->calibration, cal, &err)) {
        fprintf(stderr, "compare: --calibration: %s\n", err.text);
        return false;
    }
    if (cal->device[0] && base->device[0] && strcmp(cal->device, base->device) != 0)
        fprintf(stderr, "compare: warning: the calibration was recorded on %s, BASE ran on %s\n",
                cal->device, base->device);
    *src = cb_calibration_source(cal);
    a->opts.sources = src;
    a->opts.n_sources = 1;
    return true;
}

int cb_compare_main(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE) return rc;

    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    cb_calibration cal = {0};
    cb_spread_source src;
    rc = CB_EXIT_USAGE;
    if (a.calibrate) { /* one set: every directory given */
        if (load_side(&base, "runs", a.base_dirs, a.n_base) &&
            load_side(&base, "runs", a.new_dirs, a.n_new))
            rc = run_calibrate(&a, &base);
    } else if (load_side(&base, "BASE", a.base_dirs, a.n_base) &&
               load_side(&cand, "NEW", a.new_dirs, a.n_new) &&
               (!a.calibration || use_calibration(&a, &base, &cal, &src))) {
        rc = run_compare(&a, &base, &cand);
    }
    cb_calibration_free(&cal);
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
    return rc;
}
