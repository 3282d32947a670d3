/* fleet_cli.c - parse `cubench fleet` options, load, judge, report.
 * Parsing only: the method lives in fleet_judge.c, the output in
 * fleet_report.c. */
#include "fleet_cli.h"

#include "cb_common.h"
#include "fleet_figures.h"
#include "fleet_judge.h"
#include "fleet_load.h"
#include "fleet_report.h"
#include "parse_number.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *f)
{
    fputs("usage: cubench fleet [OPTIONS] DIR\n"
          "\n"
          "Judge many runs of one selection, one per GPU (or CPU-only node), as\n"
          "scripts/slurm/fleet_submit.sh writes them: every directory under DIR is a run.\n"
          "Runs are grouped by GPU model (CPU model without a GPU); each key figure the runs'\n"
          "rows declare (results.csv key_figure; CPU figures on CPU-only runs) is measured\n"
          "at the model's reference point (its best, or its largest for CPU figures) and\n"
          "set against the model's other runs: the ratio of the run's center (compare's\n"
          "estimate) to the others' mean, with its leave-one-out t CI. Failed, killed and\n"
          "never-started array tasks (DIR/_fleet/) are listed as problems.\n"
          "\n"
          "options:\n"
          "  --tolerance X    a figure is slow/fast when its whole CI lies more than X\n"
          "                   (relative) from the fleet (default 0.05)\n"
          "  --alpha X        CIs at 1 - X (default 0.05)\n"
          "  --min-runs N     runs of a model that must time a point to judge it (default 3,\n"
          "                   the fewest with a spread to judge by)\n"
          "  --markdown FILE  also write the markdown report to FILE\n"
          "  --csv FILE       write one row per run and figure, and per problem, to FILE\n"
          "                   ('-': stdout, and then no markdown on stdout)\n"
          "  --title TEXT     heading of the markdown report\n"
          "  --key-figures FILE  the figures of runs that declare none (schema 1 and 2):\n"
          "                   bench/legacy_key_figures.csv holds the families' figures then\n"
          "  -h, --help       this text\n"
          "\n"
          "environment: none read\n"
          "exit: 0 nothing flagged, 1 a run flagged or a problem, 2 bad usage or input, or\n"
          "complete runs without a figure to judge\n",
          f);
}

/* A number of option --opt in (lo, hi]. */
static bool parse_number(const char *opt, const char *text, double lo, double hi, double *out)
{
    cb_msg why;
    if (!cb_parse_double(text, lo, hi, out, &why)) {
        fprintf(stderr, "fleet: --%s: %s\n", opt, why.text);
        return false;
    }
    if (*out > lo) return true;
    fprintf(stderr, "fleet: --%s '%s': must be above %g\n", opt, text, lo);
    return false;
}

static bool parse_count(const char *opt, const char *text, int lo, int hi, int *out)
{
    cb_msg why;
    long long v;
    if (!cb_parse_int(text, lo, hi, &v, &why)) {
        fprintf(stderr, "fleet: --%s: %s\n", opt, why.text);
        return false;
    }
    *out = (int)v;
    return true;
}

typedef struct cli_args {
    cb_fleet_opts opts;
    const char *dir, *markdown, *csv, *title, *key_figures;
} cli_args;

#define CLI_CONTINUE (-1)

enum { OPT_TOL = 256, OPT_ALPHA, OPT_MIN_RUNS, OPT_MD, OPT_CSV, OPT_TITLE, OPT_KEYS };

/* One option; false on a bad value (the message is printed). */
static bool take_option(int c, cli_args *a)
{
    switch (c) {
    case OPT_TOL:
        return parse_number("tolerance", optarg, 0.0, 100.0, &a->opts.tolerance);
    case OPT_ALPHA:
        return parse_number("alpha", optarg, 0.0, 0.5, &a->opts.alpha);
    case OPT_MIN_RUNS:
        return parse_count("min-runs", optarg, 3, 1000000, &a->opts.min_runs);
    case OPT_MD:
        a->markdown = optarg;
        return true;
    case OPT_CSV:
        a->csv = optarg;
        return true;
    case OPT_TITLE:
        a->title = optarg;
        return true;
    case OPT_KEYS:
        a->key_figures = optarg;
        return true;
    }
    fputs("fleet: see 'cubench fleet --help'\n", stderr); /* getopt said what */
    return false;
}

static int parse_args(int argc, char **argv, cli_args *a)
{
    static const struct option longopts[] = {
        {"tolerance", required_argument, NULL, OPT_TOL},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"min-runs", required_argument, NULL, OPT_MIN_RUNS},
        {"markdown", required_argument, NULL, OPT_MD},
        {"csv", required_argument, NULL, OPT_CSV},
        {"title", required_argument, NULL, OPT_TITLE},
        {"key-figures", required_argument, NULL, OPT_KEYS},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    cb_fleet_opts_default(&a->opts);
    optind = 0; /* glibc: full re-initialisation, so the command can run twice */
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CB_EXIT_OK;
        }
        if (!take_option(c, a)) return CB_EXIT_USAGE;
    }
    if (argc - optind != 1) {
        fputs("fleet: give one DIR (the directory that holds the runs); see 'cubench fleet "
              "--help'\n",
              stderr);
        return CB_EXIT_USAGE;
    }
    a->dir = argv[optind];
    if (a->markdown && strcmp(a->markdown, "-") == 0) a->markdown = NULL; /* stdout anyway */
    return CLI_CONTINUE;
}

/* Write a report to `path` ('-': stdout). False, with the reason, on error. */
static bool write_to(const char *path, const cb_fleet *fl, const cb_fleet_opts *o,
                     const char *title, bool csv)
{
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        fprintf(stderr, "fleet: cannot write %s: %s\n", path, strerror(errno));
        return false;
    }
    bool ok = csv ? cb_fleet_write_csv(f, fl) : cb_fleet_write_markdown(f, fl, o, title);
    int saved = ok ? 0 : errno;
    if (to_stdout ? fflush(f) != 0 : fclose(f) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        fprintf(stderr, "fleet: error writing %s: %s\n", path,
                saved ? strerror(saved) : "write failed");
    return ok;
}

/* Load, take the figures, judge. False with the message printed. */
static bool judge(cb_fleet *fl, const cli_args *a)
{
    cb_msg err = {{0}};
    bool ok = cb_fleet_load(fl, a->dir, &err) &&
              (!a->key_figures || cb_fleet_apply_map(fl, a->key_figures, &err)) &&
              cb_fleet_collect_figures(fl, &err) && cb_fleet_judge(fl, &a->opts, &err);
    if (!ok) fprintf(stderr, "fleet: %s\n", err.text);
    return ok;
}

static bool report(const cb_fleet *fl, const cli_args *a)
{
    bool csv_stdout = a->csv && strcmp(a->csv, "-") == 0;
    return (csv_stdout || write_to("-", fl, &a->opts, a->title, false)) &&
           (!a->markdown || write_to(a->markdown, fl, &a->opts, a->title, false)) &&
           (!a->csv || write_to(a->csv, fl, &a->opts, a->title, true));
}

static int complete_runs(const cb_fleet *fl)
{
    int n = 0;
    for (int i = 0; i < fl->n_members; i++)
        n += fl->members[i].complete;
    return n;
}

int cb_fleet_main(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE) return rc;
    cb_fleet fl;
    cb_fleet_init(&fl);
    rc = CB_EXIT_USAGE;
    if (judge(&fl, &a) && report(&fl, &a)) {
        rc = fl.n_flagged || fl.n_problems ? CB_EXIT_FAILURES : CB_EXIT_OK;
        if (fl.n_figures == 0 && complete_runs(&fl) > 0) {
            fprintf(stderr, "fleet: no run declares a key figure%s: nothing was judged\n",
                    fl.undeclared ? " (older runs: give --key-figures bench/legacy_key_figures.csv)"
                                  : "");
            rc = CB_EXIT_USAGE;
        }
        fprintf(stderr, "fleet: %d run%s in %d model%s: %d flagged, %d problem%s; exit %d\n",
                fl.n_members, fl.n_members == 1 ? "" : "s", fl.n_groups,
                fl.n_groups == 1 ? "" : "s", fl.n_flagged, fl.n_problems,
                fl.n_problems == 1 ? "" : "s", rc);
    }
    cb_fleet_free(&fl);
    return rc;
}
