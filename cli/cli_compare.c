/* cli_compare.c - `cubench compare`: the option table, then load, compare,
 * report. The statistics live in harness/compare (compare*.c), the report
 * in compare_report.c; docs/compare.md describes the method. */
#include "cli.h"

#include "cb_common.h"
#include "compare.h"
#include "compare_conditions.h"
#include "compare_report.h"
#include "history.h"
#include "options.h"
#include "out_file.h"
#include "report_options.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CB_COMPARE_MAX_DIRS 64

typedef struct cli_args {
    cb_compare_opts opts;
    const char *base_dirs[CB_COMPARE_MAX_DIRS], *new_dirs[CB_COMPARE_MAX_DIRS];
    int n_base, n_new;
    const char *markdown, *csv, *title, *calibration, *output;
    const char *history, *history_machine;
    int fail_on; /* index in "slower,none" */
    bool fail_on_throttled, calibrate;
} cli_args;

static bool add_dir(cli_args *a, bool base, const char *dir, cb_msg *why)
{
    int *count = base ? &a->n_base : &a->n_new;
    if (*count == CB_COMPARE_MAX_DIRS) {
        cb_msg_set(why, "at most %d directories per side", CB_COMPARE_MAX_DIRS);
        return false;
    }
    (base ? a->base_dirs : a->new_dirs)[(*count)++] = dir;
    return true;
}

static bool take_base(void *args, const char *value, cb_msg *why)
{
    return add_dir(args, true, value, why);
}

static bool take_new(void *args, const char *value, cb_msg *why)
{
    return add_dir(args, false, value, why);
}

#define OFF(field)  offsetof(cli_args, field)
#define OPTS(field) offsetof(cli_args, opts.field)

static const cb_option compare_options[] = {
    CB_OPTION_DOUBLE_ABOVE("delta", "X", OPTS(delta), 0, 1,
                           "smallest relative change that matters (0.03 = 3%)"),
    CB_CLI_OPT_ALPHA(OPTS(alpha), "1 - confidence level of the CIs, and the false discovery rate"),
    CB_OPTION_NUMBER(CB_OPT_DOUBLE, "power", "X", OPTS(power), 0.5, 0.9999,
                     "power of the reported minimum detectable effect (MDE)"),
    CB_OPTION_NUMBER(CB_OPT_COUNT, "min-samples", "N", OPTS(min_samples), 1, 1000000,
                     "fewer samples on a side is inconclusive"),
    CB_OPTION_NUMBER_DEFAULT_IN_HELP(
        CB_OPT_DOUBLE, "min-abs-delta", "S", OPTS(event_res_s), 0, 1,
        "event timer resolution per run in seconds; a change below it is\n"
        "inconclusive; 0: none (default: the grid the point's samples sit on, the\n"
        "larger side's, at most the 5e-07 CUDA documents for an event pair)"),
    CB_OPTION_NUMBER(CB_OPT_DOUBLE, "host-resolution", "S", OPTS(host_res_s), 0, 1,
                     "the host clock's resolution in seconds; 0: none"),
    CB_OPTION_NUMBER_DEFAULT_IN_HELP(
        CB_OPT_DOUBLE, "between-run", "X", OPTS(between_run_sd), 0, 1,
        "between-run spread per run (relative) for a side of fewer than 3 runs\n"
        "without a calibration, every kind alike; 0: none (rounds alone)\n"
        "(default: by kind of point, docs/compare.md)"),
    CB_CLI_OPT_FILE("calibration", OFF(calibration),
                    "between-run spread recorded by --calibrate on this machine"),
    CB_OPTION_STRING("history", "DB", OFF(history),
                     "a history database (docs/history.md): a point it knows from 3 or more\n"
                     "past runs on this machine is widened by the spread those runs showed\n"
                     "(after --calibration, before the defaults)"),
    CB_OPTION_STRING("history-machine", "NAME", OFF(history_machine),
                     "the machine of --history (default: BASE's \"<host>/<GPU name>\")"),
    CB_OPTION_FLAG("calibrate", OFF(calibrate),
                   "record it instead, from 3 or more runs of one build (every directory\n"
                   "given, either side); writes -o FILE"),
    CB_CLI_OPT_OUTPUT(OFF(output), "the calibration file --calibrate writes"),
    CB_OPTION_REPEATED("base", "DIR", take_base, "a run directory of BASE (repeatable)"),
    CB_OPTION_REPEATED("new", "DIR", take_new, "a run directory of NEW (repeatable)"),
    CB_CLI_OPT_FILE("markdown", OFF(markdown),
                    "write the markdown report to FILE (default: stdout)"),
    CB_CLI_OPT_FILE("csv", OFF(csv),
                    "write the per-point CSV to FILE ('-': stdout, and then no markdown on\n"
                    "stdout unless --markdown - is given)"),
    CB_CLI_OPT_TITLE(OFF(title)),
    CB_OPTION_CHOICE("fail-on", "slower|none", "slower,none", OFF(fail_on),
                     "slower: exit 1 when a point is slower; none: exit 0 whatever the verdicts"),
    CB_OPTION_FLAG("fail-on-throttled", OFF(fail_on_throttled),
                   "also exit 1 for a throttled point the test calls slower"),
};

static const cb_env_var compare_env[] = {CB_CLI_ENV_XZ};

static const cb_command compare_command = {
    .name = "compare",
    .synopsis = "[options] BASE_DIR NEW_DIR | BASE_DIR... -- NEW_DIR... |\n"
                "       --base DIR... --new DIR... | --calibrate DIR DIR DIR... -o FILE",
    .about = "\n"
             "Compare cubench runs point by point (benchmark + axes + device). Each side is one\n"
             "or more run directories (separate processes of one build; a directory given twice,\n"
             "or a copy of one, counts once); a point's unit is the median of one round of one\n"
             "run. Its test is Welch's t on the log medians against a minimum effect: slower\n"
             "means NEW is more than --delta slower with confidence 1 - alpha, after\n"
             "Benjamini-Hochberg across the points. With fewer than 3 runs per side the\n"
             "between-run spread the data cannot show comes from --calibration, else\n"
             "--history, else --between-run, else the default of the point's kind (measured\n"
             "on H200 A/A runs; multi-GPU points have none: inconclusive).\n"
             "A point that ran throttled on either side is `throttled`, never slower.\n"
             "The markdown report goes to stdout, every other line to stderr.",
    CB_COMMAND_OPTIONS(compare_options),
    CB_COMMAND_ENV(compare_env),
    .epilogue = "verdicts: slower, faster, throttled, same, inconclusive, missing (BASE only),\n"
                "new (NEW only), untimed (neither side timed it); docs/compare.md\n"
                "exit codes: 0 no slower point; 1 a slower point; 2 bad usage or input, or no\n"
                "point could be tested",
    .min_args = 0,
    .max_args = CB_COMPARE_MAX_DIRS * 2,
};

/* Positional directories: BASE NEW, or BASE... -- NEW...; for --calibrate
 * every directory is one set (kept as BASE). */
static bool take_positional(cli_args *a, const cb_parsed *p, cb_msg *why)
{
    int before = p->n_before_separator;
    bool split = before >= 0 || (p->n_args == 2 && !a->calibrate);
    int first_new = before >= 0 ? before : 1;
    for (int i = 0; i < p->n_args; i++) {
        bool base = a->calibrate || !split || i < first_new;
        if (!add_dir(a, base, p->args[i], why)) return false;
    }
    return true;
}

/* The sides: --base/--new, or the positional forms. */
static bool take_sides(cli_args *a, const cb_parsed *p, cb_msg *why)
{
    bool flags = a->n_base > 0 || a->n_new > 0;
    if (flags && (p->n_args > 0 || p->n_before_separator >= 0)) {
        cb_msg_set(why, "give the sides as --base/--new or as directories, not both");
        return false;
    }
    if (!flags && !take_positional(a, p, why)) return false;
    if (a->calibrate && a->n_base + a->n_new > 0) return true;
    if (a->n_base == 0 || a->n_new == 0) {
        cb_msg_set(why, "give BASE_DIR NEW_DIR, BASE_DIR... -- NEW_DIR..., or --base DIR... "
                        "--new DIR...; see 'cubench compare --help'");
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
    if (a->calibrate && a->history) return "--history widens a comparison; --calibrate makes none";
    if (a->history_machine && !a->history) return "--history-machine needs --history DB";
    if (!a->calibrate && a->output)
        return "-o is the file --calibrate writes (reports: --markdown, --csv)";
    bool md_stdout = a->markdown && strcmp(a->markdown, "-") == 0;
    if (md_stdout && a->csv && strcmp(a->csv, "-") == 0)
        return "--markdown - and --csv - cannot both use stdout";
    return NULL;
}

/* -1 to go on, else the exit code (help, a refusal). */
static int parse_args(int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    cb_compare_opts_default(&a->opts);
    cb_parsed parsed;
    int rc = cb_options_parse_defaulted(&compare_command, argc, argv, a, sizeof *a, &parsed);
    if (rc >= 0) return rc;
    cb_msg why = {{0}};
    if (!take_sides(a, &parsed, &why)) return cb_options_refuse(&compare_command, "%s", why.text);
    const char *bad = clash(a);
    if (bad) return cb_options_refuse(&compare_command, "%s", bad);
    if (!a->calibrate && !a->markdown && !(a->csv && strcmp(a->csv, "-") == 0)) a->markdown = "-";
    return -1;
}

/* Load dirs into run (which may hold runs already: the two halves of
 * --calibrate's list); warn of the duplicates this call found. */
static bool load_side(cb_cmp_run *run, const char *side, const char *const *dirs, int n)
{
    const int known_duplicates = run->n_duplicates;
    const long known_orphans = run->orphan_samples;
    for (int i = 0; i < n; i++) {
        cb_msg err = {{0}};
        if (!cb_cmp_run_load(run, dirs[i], &err)) {
            fprintf(stderr, "cubench compare: %s: %s\n", side, err.text);
            return false;
        }
    }
    for (int i = known_duplicates; i < run->n_duplicates; i++)
        fprintf(stderr, "cubench compare: warning: %s: %s left out: %s\n", side,
                run->duplicates[i].path, run->duplicates[i].why);
    if (run->orphan_samples > known_orphans)
        fprintf(stderr,
                "cubench compare: %s: ignored %ld samples of points missing from results.csv "
                "(an interrupted run?)\n",
                side, run->orphan_samples - known_orphans);
    return true;
}

static bool write_reports(const cli_args *a, const cb_report_input *in)
{
    if (a->markdown) {
        FILE *f = cb_cli_open_out("compare", a->markdown);
        if (!f) return false;
        bool ok = cb_compare_write_markdown(f, in);
        if (!cb_cli_close_out("compare", f, a->markdown, ok)) return false;
    }
    if (a->csv) {
        FILE *f = cb_cli_open_out("compare", a->csv);
        if (!f) return false;
        bool ok = cb_compare_write_csv(f, in->result, in->opts);
        if (!cb_cli_close_out("compare", f, a->csv, ok)) return false;
    }
    return true;
}

/* Runs of one set that name different builds are no A/A set. */
static void warn_builds(const cb_cmp_run *set)
{
    for (int d = 1; d < set->n_dirs; d++) {
        const char *a = set->dirs[0].meta.git_sha, *b = set->dirs[d].meta.git_sha;
        if (a[0] && b[0] && strcmp(a, b) != 0) {
            fprintf(
                stderr,
                "cubench compare: warning: --calibrate: %s is build %s, %s is %s: a calibration "
                "measures runs of one build\n",
                set->dirs[0].path, a, set->dirs[d].path, b);
            return;
        }
    }
}

static void calibration_summary(const cb_calibration *cal, int points, const char *path)
{
    fprintf(stderr, "cubench compare: calibration of %d points (%s) in %d groups written to %s",
            points, cal->basis, cal->n_rows, path);
    for (int k = 0; k < CB_CMP_KINDS; k++) {
        const cb_calib_row *all = cb_calibration_lookup(cal, (cb_cmp_kind)k, "*", NULL, 1.0);
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
        fprintf(stderr, "cubench compare: %s\n", err.text);
        return CB_EXIT_USAGE;
    }
    if (points == 0 || cal.n_rows == 0) {
        fprintf(
            stderr,
            "cubench compare: --calibrate: no point was timed in %d runs with %d samples each (a "
            "group needs %d such points)\n",
            CB_CALIB_MIN_RUNS, a->opts.min_samples, CB_CALIB_MIN_POINTS);
    } else {
        FILE *f = cb_cli_open_out("compare", a->output);
        if (f && cb_cli_close_out("compare", f, a->output, cb_calibration_write(f, &cal)))
            rc = CB_EXIT_OK;
        if (rc == CB_EXIT_OK) calibration_summary(&cal, points, a->output);
    }
    cb_calibration_free(&cal);
    return rc;
}

static void warn_mixed(const cb_cmp_conditions *c)
{
    if (c->base_mix[0])
        fprintf(stderr, "cubench compare: warning: BASE mixes devices: %s\n", c->base_mix);
    if (c->new_mix[0])
        fprintf(stderr, "cubench compare: warning: NEW mixes devices: %s\n", c->new_mix);
}

static int exit_code(const cli_args *a, const cb_compare_result *r)
{
    bool fail_on_slower = a->fail_on == 0;
    if (r->counts[CB_VERDICT_SLOWER] > 0 && fail_on_slower) return CB_EXIT_FAILURES;
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
        fprintf(stderr, "cubench compare: %s\n", err.text);
        goto done;
    }
    warn_mixed(&cond);
    cb_report_input in = {&r, &a->opts, base, cand, &cond, a->title};
    if (!write_reports(a, &in)) goto done;
    fprintf(stderr, "cubench compare: %d points:", r.n_rows);
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

/* --history DB: every point's spread on the machine, as a spread source. */
static bool use_history(const cli_args *a, const cb_cmp_run *base, cb_hist_spread_table *t,
                        cb_spread_source *src)
{
    char machine[160];
    if (a->history_machine)
        snprintf(machine, sizeof machine, "%s", a->history_machine);
    else if (base->n_dirs > 0)
        cb_history_machine_name(base->dirs[0].meta.hostname, base->dirs[0].meta.device, machine,
                                sizeof machine);
    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    cb_history *h = NULL;
    cb_msg err = {{0}};
    bool ok =
        cb_history_open(a->history, &o, &h, &err) && cb_history_spread_table(h, machine, t, &err);
    cb_history_close(h);
    if (!ok) {
        fprintf(stderr, "cubench compare: --history: %s\n", err.text);
        return false;
    }
    if (t->data.n_runs == 0)
        fprintf(stderr,
                "cubench compare: warning: --history holds no run of machine '%s' "
                "(--history-machine names another)\n",
                machine);
    *src = cb_history_spread_source(t, a->history);
    return true;
}

/* --calibration FILE as the first spread source. */
static bool use_calibration(cli_args *a, const cb_cmp_run *base, cb_calibration *cal,
                            cb_spread_source *src)
{
    cb_msg err = {{0}};
    if (!cb_calibration_read(a->calibration, cal, &err)) {
        fprintf(stderr, "cubench compare: --calibration: %s\n", err.text);
        return false;
    }
    if (cal->device[0] && base->device[0] && strcmp(cal->device, base->device) != 0)
        fprintf(stderr,
                "cubench compare: warning: the calibration was recorded on %s, BASE ran on %s\n",
                cal->device, base->device);
    *src = cb_calibration_source(cal);
    return true;
}

/* The spread sources asked, in order: --calibration, then --history. */
static bool use_sources(cli_args *a, const cb_cmp_run *base, cb_calibration *cal,
                        cb_hist_spread_table *hist, cb_spread_source *src)
{
    int n = 0;
    if (a->calibration && !use_calibration(a, base, cal, &src[n++])) return false;
    if (a->history && !use_history(a, base, hist, &src[n++])) return false;
    a->opts.sources = src;
    a->opts.n_sources = n;
    return true;
}

int cb_cli_compare(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0) return rc;

    cb_cmp_run base, cand;
    cb_cmp_run_init(&base);
    cb_cmp_run_init(&cand);
    cb_calibration cal = {0};
    cb_hist_spread_table hist = {0};
    cb_spread_source src[2];
    rc = CB_EXIT_USAGE;
    if (a.calibrate) { /* one set: every directory given */
        if (load_side(&base, "runs", a.base_dirs, a.n_base) &&
            load_side(&base, "runs", a.new_dirs, a.n_new))
            rc = run_calibrate(&a, &base);
    } else if (load_side(&base, "BASE", a.base_dirs, a.n_base) &&
               load_side(&cand, "NEW", a.new_dirs, a.n_new) &&
               use_sources(&a, &base, &cal, &hist, src)) {
        rc = run_compare(&a, &base, &cand);
    }
    cb_hist_spread_table_free(&hist);
    cb_calibration_free(&cal);
    cb_cmp_run_free(&base);
    cb_cmp_run_free(&cand);
    return rc;
}
