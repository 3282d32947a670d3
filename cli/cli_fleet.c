/* cli_fleet.c - `cubench fleet`: the option table, then load, judge,
 * report. The method lives in harness/compare/fleet_judge.c, the report in
 * fleet_report.c; docs/fleet.md describes both. */
#include "cli.h"

#include "cb_common.h"
#include "fleet_figures.h"
#include "fleet_judge.h"
#include "fleet_load.h"
#include "fleet_report.h"
#include "options.h"
#include "out_file.h"
#include "report_options.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli_args {
    cb_fleet_opts opts;
    const char *dir, *markdown, *csv, *title, *key_figures;
} cli_args;

#define OFF(field)  offsetof(cli_args, field)
#define OPTS(field) offsetof(cli_args, opts.field)

static const cb_option fleet_options[] = {
    CB_OPTION_DOUBLE_ABOVE(
        "tolerance", "X", OPTS(tolerance), 0, 100,
        "a figure is slow/fast when its whole CI lies more than X (relative) from\n"
        "the fleet"),
    CB_CLI_OPT_ALPHA(OPTS(alpha), "CIs at 1 - X"),
    CB_OPTION_NUMBER(CB_OPT_COUNT, "min-runs", "N", OPTS(min_runs), 3, 1000000,
                     "runs of a model that must time a point to judge it (3: the fewest with a\n"
                     "spread to judge by)"),
    CB_CLI_OPT_FILE("markdown", OFF(markdown), "also write the markdown report to FILE"),
    CB_CLI_OPT_FILE("csv", OFF(csv),
                    "write one row per run and figure, and per problem, to FILE ('-': stdout,\n"
                    "and then no markdown on stdout)"),
    CB_CLI_OPT_TITLE(OFF(title)),
    CB_CLI_OPT_FILE("key-figures", OFF(key_figures),
                    "the figures of runs that declare none (schema 1 and 2):\n"
                    "bench/legacy_key_figures.csv holds the families' figures then"),
};

static const cb_env_var fleet_env[] = {CB_CLI_ENV_XZ};

static const cb_command fleet_command = {
    .name = "fleet",
    .synopsis = "[options] DIR",
    .about = "\n"
             "Judge many runs of one selection, one per GPU (or CPU-only node), as\n"
             "scripts/slurm/fleet_submit.sh writes them: every directory under DIR is a run.\n"
             "Runs are grouped by GPU model (CPU model without a GPU); each key figure the\n"
             "runs' rows declare (results.csv key_figure; CPU figures on CPU-only runs) is\n"
             "measured at the model's reference point (its best, or its largest for CPU\n"
             "figures) and set against the model's other runs: the ratio of the run's center\n"
             "(compare's estimate) to the others' mean, with its leave-one-out t CI. Failed,\n"
             "killed and never-started array tasks (DIR/_fleet/) are listed as problems.\n"
             "The markdown report goes to stdout, every other line to stderr.",
    CB_COMMAND_OPTIONS(fleet_options),
    CB_COMMAND_ENV(fleet_env),
    .epilogue = "exit codes: 0 nothing flagged; 1 a run flagged or a problem; 2 bad usage or\n"
                "input, or complete runs without a figure to judge",
    .min_args = 1,
    .max_args = 1,
};

/* -1 to go on, else the exit code (help, a refusal). */
static int parse_args(int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    cb_fleet_opts_default(&a->opts);
    cb_parsed parsed;
    int rc = cb_options_parse_defaulted(&fleet_command, argc, argv, a, sizeof *a, &parsed);
    if (rc >= 0) return rc;
    a->dir = parsed.args[0];
    if (a->markdown && strcmp(a->markdown, "-") == 0) a->markdown = NULL; /* stdout anyway */
    return -1;
}

/* Write a report to `path` ('-': stdout). False, with the reason, on error. */
static bool write_to(const char *path, const cb_fleet *fl, const cb_fleet_opts *o,
                     const char *title, bool csv)
{
    FILE *f = cb_cli_open_out("fleet", path);
    if (!f) return false;
    bool ok = csv ? cb_fleet_write_csv(f, fl) : cb_fleet_write_markdown(f, fl, o, title);
    return cb_cli_close_out("fleet", f, path, ok);
}

/* Load, take the figures, judge. False with the message printed. */
static bool judge(cb_fleet *fl, const cli_args *a)
{
    cb_msg err = {{0}};
    bool ok = cb_fleet_load(fl, a->dir, &err) &&
              (!a->key_figures || cb_fleet_apply_map(fl, a->key_figures, &err)) &&
              cb_fleet_collect_figures(fl, &err) && cb_fleet_judge(fl, &a->opts, &err);
    if (!ok) fprintf(stderr, "cubench fleet: %s\n", err.text);
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

int cb_cli_fleet(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;
    cb_fleet fl;
    cb_fleet_init(&fl);
    rc = CB_EXIT_USAGE;
    if (judge(&fl, &a) && report(&fl, &a)) {
        rc = fl.n_flagged || fl.n_problems ? CB_EXIT_FAILURES : CB_EXIT_OK;
        if (fl.n_figures == 0 && complete_runs(&fl) > 0) {
            fprintf(stderr, "cubench fleet: no run declares a key figure%s: nothing was judged\n",
                    fl.undeclared ? " (older runs: give --key-figures bench/legacy_key_figures.csv)"
                                  : "");
            rc = CB_EXIT_USAGE;
        }
        fprintf(
            stderr, "cubench fleet: %d run%s in %d model%s: %d flagged, %d problem%s; exit %d\n",
            fl.n_members, fl.n_members == 1 ? "" : "s", fl.n_groups, fl.n_groups == 1 ? "" : "s",
            fl.n_flagged, fl.n_problems, fl.n_problems == 1 ? "" : "s", rc);
    }
    cb_fleet_free(&fl);
    return rc;
}
