/* fleet_cli.c - parse `cubench fleet` options, load, judge, report.
 * Parsing only: the method lives in fleet_judge.c, the output in
 * fleet_report.c. */
#include "fleet_cli.h"

#include "cb_common.h"
#include "fleet.h"
#include "fleet_report.h"

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
          "Runs are grouped by GPU model (CPU model without a GPU); each key figure\n"
          "(vecadd, pinned H2D/D2H, cuBLAS FP32, the ladder's best; vecadd/host and\n"
          "matmul/host_blocked on CPU-only runs) is measured at the model's best point\n"
          "and set against the model's other runs: the ratio of the run's center (compare's\n"
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
          "  -h, --help       this text\n"
          "\n"
          "exit: 0 nothing flagged, 1 a run flagged or a problem, 2 bad usage or input\n",
          f);
}

static bool parse_number(const char *opt, const char *text, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (!*text || *end || errno || !(v > lo && v <= hi)) {
        fprintf(stderr, "fleet: --%s '%s': expected a number in (%g, %g]\n", opt, text, lo, hi);
        return false;
    }
    *out = v;
    return true;
}

static bool parse_count(const char *opt, const char *text, int lo, int hi, int *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (!*text || *end || errno || !(v >= lo && v <= hi) || v != floor(v)) {
        fprintf(stderr, "fleet: --%s '%s': expected a whole number from %d to %d\n", opt, text, lo,
                hi);
        return false;
    }
    *out = (int)v;
    return true;
}

typedef struct cli_args {
    cb_fleet_opts opts;
    const char *dir, *markdown, *csv, *title;
} cli_args;

#define CLI_CONTINUE (-1)

static int parse_args(int argc, char **argv, cli_args *a)
{
    enum { OPT_TOL = 256, OPT_ALPHA, OPT_MIN_RUNS, OPT_MD, OPT_CSV, OPT_TITLE };
    static const struct option longopts[] = {
        {"tolerance", required_argument, NULL, OPT_TOL},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"min-runs", required_argument, NULL, OPT_MIN_RUNS},
        {"markdown", required_argument, NULL, OPT_MD},
        {"csv", required_argument, NULL, OPT_CSV},
        {"title", required_argument, NULL, OPT_TITLE},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    cb_fleet_opts_default(&a->opts);
    optind = 0; /* glibc: full re-initialisation, so the command can run twice */
    int c;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'h':
            usage(stdout);
            return CB_EXIT_OK;
        case OPT_TOL:
            if (!parse_number("tolerance", optarg, 0.0, 100.0, &a->opts.tolerance))
                return CB_EXIT_USAGE;
            break;
        case OPT_ALPHA:
            if (!parse_number("alpha", optarg, 0.0, 0.5, &a->opts.alpha)) return CB_EXIT_USAGE;
            break;
        case OPT_MIN_RUNS:
            if (!parse_count("min-runs", optarg, 3, 1000000, &a->opts.min_runs))
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
        default: /* getopt_long has printed what was wrong */
            fputs("fleet: see 'cubench fleet --help'\n", stderr);
            return CB_EXIT_USAGE;
        }
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

/* Write with `fn` to `path` ('-': stdout). False, with a message, on error. */
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
    ok = (to_stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
    if (!ok) fprintf(stderr, "fleet: error writing %s\n", path);
    return ok;
}

int cb_fleet_main(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE) return rc;
    cb_fleet fl;
    cb_fleet_init(&fl);
    cb_msg err = {{0}};
    rc = CB_EXIT_USAGE;
    if (!cb_fleet_load(&fl, a.dir, &err) || !cb_fleet_judge(&fl, &a.opts, &err)) {
        fprintf(stderr, "fleet: %s\n", err.text);
        goto done;
    }
    bool csv_stdout = a.csv && strcmp(a.csv, "-") == 0;
    if ((!csv_stdout && !write_to("-", &fl, &a.opts, a.title, false)) ||
        (a.markdown && !write_to(a.markdown, &fl, &a.opts, a.title, false)) ||
        (a.csv && !write_to(a.csv, &fl, &a.opts, a.title, true)))
        goto done;
    rc = fl.n_flagged || fl.n_problems ? CB_EXIT_FAILURES : CB_EXIT_OK;
    fprintf(stderr, "fleet: %d run%s in %d model%s: %d flagged, %d problem%s; exit %d\n",
            fl.n_members, fl.n_members == 1 ? "" : "s", fl.n_groups, fl.n_groups == 1 ? "" : "s",
            fl.n_flagged, fl.n_problems, fl.n_problems == 1 ? "" : "s", rc);
done:
    cb_fleet_free(&fl);
    return rc;
}
