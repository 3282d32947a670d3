/* compare_cli.c - parse `cubench compare` options, load, compare, report.
 * Parsing only: the statistics live in compare*.c, the output in
 * compare_report.c. */
#include "compare_cli.h"

#include "cb_common.h"
#include "compare.h"
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
          "       cubench compare [OPTIONS] --base DIR [--base DIR]... --new DIR [--new DIR]...\n"
          "\n"
          "Compare two cubench run directories point by point (benchmark + axes) from\n"
          "their raw samples: Hodges-Lehmann ratio NEW/BASE with its confidence interval,\n"
          "Mann-Whitney test, Benjamini-Hochberg correction across points. Repeated\n"
          "--base/--new pool the samples of several runs of one revision.\n"
          "\n"
          "options:\n"
          "  --delta X         smallest relative change that counts (default 0.03)\n"
          "  --alpha X         1 - confidence level of the CIs, and the FDR level (default 0.01)\n"
          "  --noise-limit X   largest relative IQR of a side before it is noisy (default 0.10)\n"
          "  --min-samples N   fewer samples on a side is inconclusive (default 5)\n"
          "  --min-abs-delta S medians closer than S seconds are the same: the event\n"
          "                    timer resolves about 0.5 us (default 0.5e-6)\n"
          "  --markdown FILE   write the markdown report to FILE (default: stdout)\n"
          "  --csv FILE        write the per-point CSV to FILE ('-': stdout, and then no\n"
          "                    markdown on stdout unless --markdown - is given)\n"
          "  --title TEXT      heading of the markdown report\n"
          "  --fail-on WHAT    slower (default): exit 1 when a point is slower; none: exit 0\n"
          "  -h, --help        this text\n"
          "\n"
          "verdicts: slower, faster, same, noisy, inconclusive, missing, new (docs/compare.md)\n"
          "exit: 0 no slower point, 1 a slower point, 2 bad usage or input\n",
          f);
}

static bool parse_number(const char *opt, const char *text, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (!*text || *end || errno || !(v > lo && v <= hi)) {
        fprintf(stderr, "compare: --%s '%s': expected a number in (%g, %g]\n", opt, text, lo, hi);
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
    const char *markdown, *csv, *title;
    bool fail_on_slower;
} cli_args;

/* parse_args returns this to go on, else the exit code (help, usage error). */
#define CLI_CONTINUE (-1)

static int parse_args(int argc, char **argv, cli_args *a)
{
    enum {
        OPT_DELTA = 256,
        OPT_ALPHA,
        OPT_NOISE,
        OPT_MIN,
        OPT_MIN_ABS,
        OPT_MD,
        OPT_CSV,
        OPT_TITLE,
        OPT_FAIL,
        OPT_BASE,
        OPT_NEW
    };
    static const struct option longopts[] = {
        {"delta", required_argument, NULL, OPT_DELTA},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"noise-limit", required_argument, NULL, OPT_NOISE},
        {"min-samples", required_argument, NULL, OPT_MIN},
        {"min-abs-delta", required_argument, NULL, OPT_MIN_ABS},
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
    optind = 0; /* glibc: full re-initialisation, so the command can run twice */
    int c;
    double v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return CB_EXIT_OK;
        case OPT_DELTA:
            if (!parse_number("delta", optarg, 0.0, 1.0, &a->opts.delta)) return CB_EXIT_USAGE;
            break;
        case OPT_ALPHA:
            if (!parse_number("alpha", optarg, 0.0, 0.5, &a->opts.alpha)) return CB_EXIT_USAGE;
            break;
        case OPT_NOISE:
            if (!parse_number("noise-limit", optarg, 0.0, 100.0, &a->opts.noise_limit))
                return CB_EXIT_USAGE;
            break;
        case OPT_MIN:
            if (!parse_number("min-samples", optarg, 0.0, 1e6, &v)) return CB_EXIT_USAGE;
            if (v != floor(v)) {
                fprintf(stderr, "compare: --min-samples '%s': expected a whole number\n", optarg);
                return CB_EXIT_USAGE;
            }
            a->opts.min_samples = (int)v;
            break;
        case OPT_MIN_ABS:
            if (!parse_number("min-abs-delta", optarg, 0.0, 1.0, &a->opts.min_abs_delta))
                return CB_EXIT_USAGE;
            break;
        case OPT_MD:
            a->markdown = optarg;
            break;
        case OPT_CSV:
            a->csv = optarg;
            break;
        case OPT_TITLE:
            a->title = optarg;
            break;
        case OPT_FAIL:
            if (strcmp(optarg, "slower") == 0) {
                a->fail_on_slower = true;
            } else if (strcmp(optarg, "none") == 0) {
                a->fail_on_slower = false;
            } else {
                fprintf(stderr, "compare: --fail-on '%s': expected slower or none\n", optarg);
                return CB_EXIT_USAGE;
            }
            break;
        case OPT_BASE:
        case OPT_NEW: {
            int *count = c == OPT_BASE ? &a->n_base : &a->n_new;
            if (*count == CB_COMPARE_MAX_DIRS) {
                fprintf(stderr, "compare: at most %d directories per side\n", CB_COMPARE_MAX_DIRS);
                return CB_EXIT_USAGE;
            }
            (c == OPT_BASE ? a->base_dirs : a->new_dirs)[(*count)++] = optarg;
            break;
        }
        default: /* getopt_long has printed what was wrong */
            fputs("compare: see 'cubench compare --help'\n", stderr);
            return CB_EXIT_USAGE;
        }
    }
    int positional = argc - optind;
    if (a->n_base == 0 && a->n_new == 0 && positional == 2) {
        a->base_dirs[a->n_base++] = argv[optind];
        a->new_dirs[a->n_new++] = argv[optind + 1];
    } else if (positional != 0 || a->n_base == 0 || a->n_new == 0) {
        fputs("compare: give BASE_DIR NEW_DIR, or --base DIR... --new DIR...; see 'cubench "
              "compare --help'\n",
              stderr);
        return CB_EXIT_USAGE;
    }
    if (a->markdown && a->csv && strcmp(a->markdown, "-") == 0 && strcmp(a->csv, "-") == 0) {
        fputs("compare: --markdown - and --csv - cannot both use stdout\n", stderr);
        return CB_EXIT_USAGE;
    }
    if (!a->markdown && !(a->csv && strcmp(a->csv, "-") == 0)) a->markdown = "-";
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

static bool write_reports(const cli_args *a, const cb_compare_result *r, const cb_cmp_run *base,
                          const cb_cmp_run *cand)
{
    if (a->markdown) {
        FILE *f = open_out(a->markdown);
        if (!f) return false;
        bool ok = cb_compare_write_markdown(f, r, &a->opts, base, cand, a->title);
        if (!close_out(f, a->markdown) || !ok) return false;
    }
    if (a->csv) {
        FILE *f = open_out(a->csv);
        if (!f) return false;
        bool ok = cb_compare_write_csv(f, r);
        if (!close_out(f, a->csv) || !ok) return false;
    }
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
    cb_compare_result r = {0};
    rc = CB_EXIT_USAGE;
    if (!load_side(&base, "BASE", a.base_dirs, a.n_base) ||
        !load_side(&cand, "NEW", a.new_dirs, a.n_new))
        goto done;
    cb_msg err = {{0}};
    if (!cb_compare_runs(&base, &cand, &a.opts, &r, &err)) {
        fprintf(stderr, "compare: %s\n", err.text);
        goto done;
    }
    if (!write_reports(&a, &r, &base, &cand)) goto done;

    int slower = r.counts[CB_VERDICT_SLOWER];
    rc = slower > 0 && a.fail_on_slower ? CB_EXIT_FAILURES : CB_EXIT_OK;
    fprintf(stderr, "compare: %d points:", r.n_rows);
    for (int v = 0; v < CB_VERDICT_COUNT; v++)
        if (r.counts[v]) fprintf(stderr, " %d %s", r.counts[v], cb_verdict_name((cb_verdict)v));
    fprintf(stderr, "; exit %d\n", rc);
done:
    cb_compare_result_free(&r);
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
    return rc;
}
