/* compare_cli.c - parse `cubench compare` options, load, compare, report.
 * Parsing only: the statistics live in compare*.c, the output in
 * compare_report.c. */
#include "compare_cli.h"

#include "cb_common.h"
#include "compare.h"
#include "compare_conditions.h"
#include "compare_report.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_COMPARE_MAX_DIRS 64

static void usage(FILE *f)
{
    fputs("usage: cubench compare [OPTIONS] BASE_DIR NEW_DIR\n"
          "       cubench compare [OPTIONS] BASE_DIR... -- NEW_DIR...\n"
          "       cubench compare [OPTIONS] --base DIR [--base DIR]... --new DIR [--new DIR]...\n"
          "       cubench compare --calibrate [OPTIONS] A_DIR... [--] B_DIR... -o FILE\n"
          "\n"
          "Compare cubench runs point by point (benchmark + axes). Each side is one or more\n"
          "run directories (separate processes of one revision); a point's unit is the\n"
          "median of one replicate (round) of one run. Its test is Welch's t on the log\n"
          "medians against a minimum effect: slower means NEW is more than --delta slower\n"
          "with confidence 1 - alpha, after Benjamini-Hochberg across the points. With\n"
          "fewer than 3 runs per side the between-run spread the data cannot show comes\n"
          "from --calibration, else from --between-run (rounds or samples alike).\n"
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
          "                       without a calibration (default: built in by the median,\n"
          "                       1.75% below 16 us, 1% to 65 us, 0.25% above; measured on\n"
          "                       H200 A/A pairs); 0: none (rounds alone)\n"
          "  --calibration FILE   between-run spread recorded by --calibrate on this machine\n"
          "  --calibrate          record it instead: A and B are an A/A pair (same build);\n"
          "                       writes -o FILE\n"
          "  -o, --output FILE    the calibration file --calibrate writes\n"
          "  --markdown FILE      write the markdown report to FILE (default: stdout)\n"
          "  --csv FILE           write the per-point CSV to FILE ('-': stdout, and then no\n"
          "                       markdown on stdout unless --markdown - is given)\n"
          "  --title TEXT         heading of the markdown report\n"
          "  --fail-on WHAT       slower (default): exit 1 when a point is slower; none: 0\n"
          "  -h, --help           this text\n"
          "\n"
          "verdicts: slower, faster, same, inconclusive, missing (BASE only), new (NEW only),\n"
          "untimed (neither side timed it); docs/compare.md\n"
          "exit: 0 no slower point, 1 a slower point, 2 bad usage or input, or no point\n"
          "could be tested\n",
          f);
}

/* A number in [lo, hi] (or (lo, hi] when !closed_lo). */
static bool parse_number(const char *opt, const char *text, double lo, double hi, bool closed_lo,
                         double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    bool in = closed_lo ? v >= lo : v > lo;
    if (!*text || *end || errno || !(in && v <= hi)) {
        fprintf(stderr, "compare: --%s '%s': expected a number in %c%g, %g]\n", opt, text,
                closed_lo ? '[' : '(', lo, hi);
        return false;
    }
    *out = v;
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

static bool close_out(FILE *f, const char *path)
{
    bool ok = !ferror(f);
    if (f == stdout)
        ok = fflush(f) == 0 && ok;
    else
        ok = fclose(f) == 0 && ok;
    if (!ok) fprintf(stderr, "compare: error writing %s\n", path);
    return ok;
}

typedef struct cli_args {
    cb_compare_opts opts;
    const char *base_dirs[CB_COMPARE_MAX_DIRS], *new_dirs[CB_COMPARE_MAX_DIRS];
    int n_base, n_new;
    const char *markdown, *csv, *title, *calibration, *output;
    bool fail_on_slower, calibrate;
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
    OPT_BASE,
    OPT_NEW
};

/* One option; false on a bad value (the message is printed). */
static bool take_option(int c, cli_args *a)
{
    double v;
    switch (c) {
    case OPT_DELTA:
        return parse_number("delta", optarg, 0.0, 1.0, false, &a->opts.delta);
    case OPT_ALPHA:
        return parse_number("alpha", optarg, 0.0, 0.5, false, &a->opts.alpha);
    case OPT_POWER:
        return parse_number("power", optarg, 0.5, 0.9999, true, &a->opts.power);
    case OPT_MIN:
        if (!parse_number("min-samples", optarg, 1.0, 1e6, true, &v)) return false;
        if (v != floor(v)) {
            fprintf(stderr, "compare: --min-samples '%s': expected a whole number\n", optarg);
            return false;
        }
        a->opts.min_samples = (int)v;
        return true;
    case OPT_MIN_ABS:
        return parse_number("min-abs-delta", optarg, 0.0, 1.0, true, &a->opts.event_res_s);
    case OPT_HOST_RES:
        return parse_number("host-resolution", optarg, 0.0, 1.0, true, &a->opts.host_res_s);
    case OPT_BETWEEN:
        return parse_number("between-run", optarg, 0.0, 1.0, true, &a->opts.between_run_sd);
    case OPT_CALIBRATION:
        a->calibration = optarg;
        return true;
    case OPT_CALIBRATE:
        a->calibrate = true;
        return true;
    case 'o':
        a->output = optarg;
        return true;
    case OPT_MD:
        a->markdown = optarg;
        return true;
    case OPT_CSV:
        a->csv = optarg;
        return true;
    case OPT_TITLE:
        a->title = optarg;
        return true;
    case OPT_FAIL:
        if (strcmp(optarg, "slower") == 0 || strcmp(optarg, "none") == 0) {
            a->fail_on_slower = strcmp(optarg, "slower") == 0;
            return true;
        }
        fprintf(stderr, "compare: --fail-on '%s': expected slower or none\n", optarg);
        return false;
    case OPT_BASE:
    case OPT_NEW:
        return add_dir(a, c == OPT_BASE, optarg);
    }
    fputs("compare: see 'cubench compare --help'\n", stderr); /* getopt said what */
    return false;
}

/* The sides: --base/--new, or BASE NEW, or BASE... -- NEW... */
static bool take_sides(cli_args *a, int n_pos, char **pos, int n_after, char **after,
                       bool had_separator)
{
    bool flags = a->n_base > 0 || a->n_new > 0;
    if (flags && (n_pos > 0 || had_separator)) {
        fputs("compare: give the sides as --base/--new or as directories, not both\n", stderr);
        return false;
    }
    if (!flags && had_separator) {
        for (int i = 0; i < n_pos; i++)
            if (!add_dir(a, true, pos[i])) return false;
        for (int i = 0; i < n_after; i++)
            if (!add_dir(a, false, after[i])) return false;
    } else if (!flags && n_pos == 2) {
        add_dir(a, true, pos[0]);
        add_dir(a, false, pos[1]);
    }
    if (a->n_base == 0 || a->n_new == 0) {
        fputs("compare: give BASE_DIR NEW_DIR, BASE_DIR... -- NEW_DIR..., or --base DIR... --new "
              "DIR...; see 'cubench compare --help'\n",
              stderr);
        return false;
    }
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
                    argv + split + 1, separator))
        return CB_EXIT_USAGE;
    if (a->calibrate && !a->output) {
        fputs("compare: --calibrate needs -o FILE\n", stderr);
        return CB_EXIT_USAGE;
    }
    if (!a->calibrate && a->output) {
        fputs("compare: -o is the file --calibrate writes (reports: --markdown, --csv)\n", stderr);
        return CB_EXIT_USAGE;
    }
    if (a->markdown && a->csv && strcmp(a->markdown, "-") == 0 && strcmp(a->csv, "-") == 0) {
        fputs("compare: --markdown - and --csv - cannot both use stdout\n", stderr);
        return CB_EXIT_USAGE;
    }
    if (!a->calibrate && !a->markdown && !(a->csv && strcmp(a->csv, "-") == 0)) a->markdown = "-";
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
        bool ok = cb_compare_write_csv(f, in->result);
        if (!close_out(f, a->csv) || !ok) return false;
    }
    return true;
}

/* --calibrate: the A/A pair's between-run spread into a->output. */
static int run_calibrate(const cli_args *a, const cb_cmp_run *base, const cb_cmp_run *cand)
{
    cb_calibration cal;
    cb_msg err = {{0}};
    int points = 0;
    if (!cb_compare_calibrate(base, cand, &a->opts, &cal, &points, &err)) {
        fprintf(stderr, "compare: %s\n", err.text);
        return CB_EXIT_USAGE;
    }
    int rc = CB_EXIT_USAGE;
    if (points == 0) {
        fputs("compare: --calibrate: no point was timed on both sides with enough samples\n",
              stderr);
    } else {
        FILE *f = open_out(a->output);
        if (f) {
            bool ok = cb_calibration_write(f, &cal);
            if (close_out(f, a->output) && ok) rc = CB_EXIT_OK;
        }
        const cb_calib_row *all = cb_calibration_lookup(&cal, "*", 1.0);
        if (rc == CB_EXIT_OK && all)
            fprintf(stderr,
                    "compare: calibration of %d points (%s) in %d groups written to %s; "
                    "between-run spread over every point %.2f%% per run\n",
                    points, cal.basis, cal.n_rows, a->output, 100.0 * all->sd);
    }
    cb_calibration_free(&cal);
    return rc;
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
    cb_report_input in = {&r, &a->opts, base, cand, &cond, a->title};
    if (!write_reports(a, &in)) goto done;
    fprintf(stderr, "compare: %d points:", r.n_rows);
    for (int v = 0; v < CB_VERDICT_COUNT; v++)
        if (r.counts[v]) fprintf(stderr, " %d %s", r.counts[v], cb_verdict_name((cb_verdict)v));
    if (r.tested == 0) {
        fputs("; no point could be tested (none timed on both sides with enough samples): "
              "exit 2\n",
              stderr);
        goto done;
    }
    rc = r.counts[CB_VERDICT_SLOWER] > 0 && a->fail_on_slower ? CB_EXIT_FAILURES : CB_EXIT_OK;
    fprintf(stderr, "; exit %d\n", rc);
done:
    cb_cmp_conditions_free(&cond);
    cb_compare_result_free(&r);
    return rc;
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
    rc = CB_EXIT_USAGE;
    const char *side_a = a.calibrate ? "A" : "BASE", *side_b = a.calibrate ? "B" : "NEW";
    if (!load_side(&base, side_a, a.base_dirs, a.n_base) ||
        !load_side(&cand, side_b, a.new_dirs, a.n_new))
        goto done;
    if (a.calibration) {
        cb_msg err = {{0}};
        if (!cb_calibration_read(a.calibration, &cal, &err)) {
            fprintf(stderr, "compare: --calibration: %s\n", err.text);
            goto done;
        }
        if (cal.device[0] && base.device[0] && strcmp(cal.device, base.device) != 0)
            fprintf(stderr,
                    "compare: warning: the calibration was recorded on %s, BASE ran on %s\n",
                    cal.device, base.device);
        a.opts.calibration = &cal;
    }
    rc = a.calibrate ? run_calibrate(&a, &base, &cand) : run_compare(&a, &base, &cand);
done:
    cb_calibration_free(&cal);
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
    return rc;
}
