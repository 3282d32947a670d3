/* cli_history.c - `cubench history add|show|check|export|migrate`: one
 * option table per subcommand (options.h), then the history library
 * (harness/compare/history.h) does the work and this file prints. */
#include "cli.h"

#include "history.h"
#include "options.h"
#include "out_file.h"
#include "report_options.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CB_HIST_MAX_AXES 32

typedef struct hist_args {
    const char *db, *machine, *markdown, *json;
    const char *axes[CB_HIST_MAX_AXES];
    int n_axes;
    double lock_timeout_s;
    bool samples;
    cb_hist_check_opts check; /* check's settings, the library's defaults first */
    int method;               /* index into "cubench,hunter" */
    char **operands;
    int n_operands;
} hist_args;

#define OFF(field)  offsetof(hist_args, field)
#define OPTS(field) offsetof(hist_args, check.field)

static bool take_axis(void *args, const char *value, cb_msg *why)
{
    hist_args *a = args;
    if (!strchr(value, '=') || value[0] == '=') {
        cb_msg_set(why, "--axis '%s': expected NAME=VALUE (as results.csv writes the axes)", value);
        return false;
    }
    if (a->n_axes == CB_HIST_MAX_AXES) {
        cb_msg_set(why, "at most %d --axis filters", CB_HIST_MAX_AXES);
        return false;
    }
    a->axes[a->n_axes++] = value;
    return true;
}

/* The options several subcommands share. */
#define OPT_DB                                                                                     \
    CB_OPTION_STRING("db", "URL", OFF(db),                                                         \
                     "a SQLite file, sqlite:PATH or postgresql://...\n(default: $" CB_HIST_ENV     \
                     ", else " CB_HIST_DEFAULT_PATH ")")
#define OPT_LOCK                                                                                   \
    CB_OPTION_NUMBER(CB_OPT_DOUBLE, "lock-timeout", "S", OFF(lock_timeout_s), 0, 86400,            \
                     "wait at most S seconds for another writer")
#define OPT_MACHINE(text) CB_OPTION_STRING("machine", "NAME", OFF(machine), text)

static const cb_option add_options[] = {
    OPT_DB,
    OPT_LOCK,
    OPT_MACHINE("the machine to file the runs under (default \"<host>/<GPU name>\"; a CI\n"
                "runner's label keeps one name across GPU swaps)"),
    CB_OPTION_FLAG("samples", OFF(samples), "store every sample's time too"),
};

static const cb_option show_options[] = {
    OPT_DB,
    OPT_MACHINE("only this machine"),
    CB_OPTION_REPEATED("axis", "NAME=VALUE", take_axis,
                       "only points whose axes hold NAME=VALUE (repeatable)"),
};

static const cb_option check_options[] = {
    OPT_DB,
    OPT_MACHINE("only this machine"),
    CB_OPTION_NUMBER(CB_OPT_DOUBLE, "delta", "X", OPTS(delta), 0, 10,
                     "an open slowdown whose whole CI lies above 1 + X is a regression"),
    CB_CLI_OPT_ALPHA(OPTS(alpha), "CIs at 1 - X"),
    CB_OPTION_NUMBER(CB_OPT_COUNT, "recent", "N", OPTS(recent), 1, 1000000,
                     "a regression sets the exit code when its first bad run is among the\n"
                     "point's newest N runs"),
    CB_OPTION_NUMBER(CB_OPT_COUNT, "min-runs", "N", OPTS(min_runs), 1, 1000,
                     "runs on each side of a change point"),
    CB_OPTION_CHOICE("method", "M", "cubench,hunter", OFF(method),
                     "cubench, or hunter's detector (Student's t, for comparison)"),
    CB_CLI_OPT_FILE("markdown", OFF(markdown), "the report to FILE (default: stdout)"),
    CB_CLI_OPT_FILE("json", OFF(json),
                    "also the JSON document the dashboard reads ('-': stdout, and then no\n"
                    "markdown there)"),
};

static const cb_option export_options[] = {
    OPT_DB,
    OPT_MACHINE("only this machine"),
    CB_CLI_OPT_OUTPUT(OFF(json), "write the JSON to FILE (default: stdout)"),
};

static const cb_option migrate_options[] = {OPT_DB, OPT_LOCK};

static const cb_env_var hist_env[] = {
    {CB_HIST_ENV, "the database when --db is not given"},
};

#define HIST_EPILOGUE                                                                              \
    "exit codes: 0 done; 2 bad usage, an invalid run directory, a database that\n"                 \
    "cannot be used (missing, locked, unreachable, not a history, newer schema):\n"                \
    "nothing stored changes"

static const cb_command add_command = {
    .name = "history add",
    .synopsis = "[options] RUN_DIR...",
    .about = "\nStore runs in the history, all the directories given in one transaction:\n"
             "every one or none. A run already stored (the same identity: git SHA, build,\n"
             "start time, host, GPU) adds nothing. docs/history.md.",
    CB_COMMAND_OPTIONS(add_options),
    CB_COMMAND_ENV(hist_env),
    .epilogue = HIST_EPILOGUE,
    .min_args = 1,
    .max_args = -1,
};

static const cb_command show_command = {
    .name = "history show",
    .synopsis = "[options] BENCHMARK",
    .about = "\nA point's series: one table per matching point and machine (run, start,\n"
             "commit, status, median, CI, change from the first run, SM clock, throttle).\n"
             "BENCHMARK is a shell glob.",
    CB_COMMAND_OPTIONS(show_options),
    CB_COMMAND_ENV(hist_env),
    .epilogue = "exit codes: 0 shown; 2 bad usage, no point matches, a database that cannot\n"
                "be read",
    .min_args = 1,
    .max_args = 1,
};

static const cb_command check_command = {
    .name = "history check",
    .synopsis = "[options]",
    .about = "\nChange points of every series (a point on a machine): E-divisive means with\n"
             "a two-sample test, throttled and outlier runs set aside, the series cut where\n"
             "the GPU, driver or CUDA runtime changed. Each with its size, CI, last good and\n"
             "first bad run and their commits, the throttled runs near it, and its cause.",
    CB_COMMAND_OPTIONS(check_options),
    CB_COMMAND_ENV(hist_env),
    .epilogue = "exit codes: 0 no open regression larger than delta; 1 one; 2 bad usage, a\n"
                "database that cannot be read, an unknown --machine",
};

static const cb_command export_command = {
    .name = "history export",
    .synopsis = "[options]",
    .about = "\nThe runs, series, spreads and change points as one JSON document, for\n"
             "`python3 -m reports --history`.",
    CB_COMMAND_OPTIONS(export_options),
    CB_COMMAND_ENV(hist_env),
    .epilogue = "exit codes: 0 written; 2 bad usage, a database that cannot be read",
};

static const cb_command migrate_command = {
    .name = "history migrate",
    .synopsis = "[options]",
    .about = "\nBring a history written by an older cubench to this one's schema.",
    CB_COMMAND_OPTIONS(migrate_options),
    CB_COMMAND_ENV(hist_env),
    .epilogue = HIST_EPILOGUE,
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cubench history SUBCOMMAND [options]\n"
            "\n"
            "The performance history: every run in one database, each point's series per\n"
            "machine, its change points and the between-run spread it shows\n"
            "(docs/history.md). PostgreSQL databases: %s.\n"
            "\n"
            "  add RUN_DIR...   store runs (idempotent)\n"
            "  show BENCHMARK   a point's series\n"
            "  check            change points; exit 1 on a fresh regression larger than delta\n"
            "  export           the JSON the dashboard reads\n"
            "  migrate          bring an older history to this schema (%d)\n"
            "\n"
            "`cubench history SUBCOMMAND --help` for each.\n",
            cb_history_has_postgresql() ? "built in" : "not built (no libpq at build time)",
            CB_HIST_SCHEMA);
}

/* -1 to go on, else the exit code (help, a refusal). */
static int parse(const cb_command *cmd, int argc, char **argv, hist_args *a)
{
    memset(a, 0, sizeof *a);
    a->lock_timeout_s = 30.0;
    cb_hist_check_opts_default(&a->check);
    cb_parsed parsed;
    int rc = cb_options_parse_defaulted(cmd, argc, argv, a, sizeof *a, &parsed);
    if (rc >= 0) return rc;
    a->operands = parsed.args;
    a->n_operands = parsed.n_args;
    if (!a->db) a->db = cb_history_default_url();
    return -1;
}

static cb_history *open_db(const char *cmd, const hist_args *a, bool write)
{
    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    o.write = write;
    o.lock_timeout_s = a->lock_timeout_s;
    cb_history *h = NULL;
    cb_msg err = {{0}};
    if (!cb_history_open(a->db, &o, &h, &err)) {
        fprintf(stderr, "cubench %s: %s\n", cmd, err.text);
        return NULL;
    }
    return h;
}

/* The parent directory of a default SQLite file is made on first use. */
static void make_default_dir(const hist_args *a)
{
    if (strcmp(a->db, CB_HIST_DEFAULT_PATH) != 0) return;
    char dir[64];
    snprintf(dir, sizeof dir, "%s", CB_HIST_DEFAULT_PATH);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        fprintf(stderr, "cubench history: cannot create %s: %s\n", dir, strerror(errno));
}

static int cmd_add(int argc, char **argv)
{
    hist_args a;
    int rc = parse(&add_command, argc, argv, &a);
    if (rc >= 0) return rc;
    make_default_dir(&a);
    cb_history *h = open_db(add_command.name, &a, true);
    if (!h) return CB_EXIT_USAGE;
    cb_hist_added *out = calloc((size_t)a.n_operands, sizeof *out);
    cb_hist_add_opts o = {a.machine, a.samples};
    cb_msg err = {{0}};
    rc = CB_EXIT_USAGE;
    if (!out)
        fputs("cubench history add: out of memory\n", stderr);
    else if (!cb_history_add_many(h, (const char *const *)a.operands, a.n_operands, &o, out, &err))
        fprintf(stderr, "cubench history add: %s (nothing stored)\n", err.text);
    else
        rc = CB_EXIT_OK;
    for (int i = 0; rc == CB_EXIT_OK && i < a.n_operands; i++)
        printf("%s %s: run %lld, %d points, machine %s\n",
               out[i].already ? "already stored" : "added", a.operands[i], out[i].run_id,
               out[i].points, out[i].machine);
    free(out);
    cb_history_close(h);
    return rc;
}

static int cmd_show(int argc, char **argv)
{
    hist_args a;
    int rc = parse(&show_command, argc, argv, &a);
    if (rc >= 0) return rc;
    cb_history *h = open_db(show_command.name, &a, false);
    if (!h) return CB_EXIT_USAGE;
    cb_hist_filter f = {a.machine, a.operands[0], a.axes, a.n_axes, NULL, NULL, NULL};
    cb_hist_data d;
    cb_msg err = {{0}};
    rc = CB_EXIT_USAGE;
    if (!cb_history_load(h, &f, &d, &err)) {
        fprintf(stderr, "cubench history show: %s\n", err.text);
    } else if (d.n_series == 0) {
        fprintf(stderr, "cubench history show: no stored point matches %s%s%s\n", a.operands[0],
                a.machine ? " on " : "", a.machine ? a.machine : "");
        cb_hist_data_free(&d);
    } else {
        rc = cb_cli_close_out("history show", stdout, "-", cb_history_write_series(stdout, &d))
                 ? CB_EXIT_OK
                 : CB_EXIT_USAGE;
        cb_hist_data_free(&d);
    }
    cb_history_close(h);
    return rc;
}

/* The reports of a check: markdown to `md`, JSON to `js` (NULL: none). */
static bool write_reports(const char *md, const char *js, const cb_hist_data *d,
                          const cb_hist_check *c, const cb_hist_check_opts *o)
{
    if (md) {
        FILE *f = cb_cli_open_out("history", md);
        if (!f) return false;
        bool ok = cb_history_write_check(f, d, c, o);
        if (!cb_cli_close_out("history", f, md, ok)) return false;
    }
    if (js) {
        FILE *f = cb_cli_open_out("history", js);
        if (!f) return false;
        bool ok = cb_history_write_json(f, d, c, o);
        if (!cb_cli_close_out("history", f, js, ok)) return false;
    }
    return true;
}

/* Load the machine's series (all machines without --machine) and check
 * them; then write. Returns the exit code, `check` deciding 0 or 1. */
static int load_and_check(const char *cmd, const hist_args *a, const cb_hist_check_opts *o,
                          const char *md, const char *js, bool check)
{
    cb_history *h = open_db(cmd, a, false);
    if (!h) return CB_EXIT_USAGE;
    cb_hist_filter f = {a->machine, NULL, NULL, 0, NULL, NULL, NULL};
    cb_hist_data d;
    cb_hist_check c = {0};
    cb_msg err = {{0}};
    int rc = CB_EXIT_USAGE;
    if (!cb_history_load(h, &f, &d, &err) || !cb_history_check(&d, o, &c, &err)) {
        fprintf(stderr, "cubench %s: %s\n", cmd, err.text);
        cb_history_close(h);
        return CB_EXIT_USAGE;
    }
    if (a->machine && d.n_runs == 0)
        fprintf(stderr, "cubench %s: no run of machine '%s' is stored\n", cmd, a->machine);
    else if (write_reports(md, js, &d, &c, o))
        rc = check && c.regressions > 0 ? CB_EXIT_FAILURES : CB_EXIT_OK;
    if (rc != CB_EXIT_USAGE && check)
        fprintf(stderr,
                "cubench history check: %d runs, %d series, %d change points, %d "
                "regressions: exit %d\n",
                d.n_runs, c.series, c.n_changes, c.regressions, rc);
    cb_hist_check_free(&c);
    cb_hist_data_free(&d);
    cb_history_close(h);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    hist_args a;
    int rc = parse(&check_command, argc, argv, &a);
    if (rc >= 0) return rc;
    cb_hist_check_opts o = a.check;
    o.method = a.method == 1 ? CB_HIST_METHOD_HUNTER : CB_HIST_METHOD_CUBENCH;
    bool js_stdout = a.json && strcmp(a.json, "-") == 0;
    const char *md = a.markdown ? a.markdown : js_stdout ? NULL : "-";
    if (md && js_stdout && strcmp(md, "-") == 0)
        return cb_options_refuse(&check_command, "--markdown - and --json - both use stdout");
    return load_and_check(check_command.name, &a, &o, md, a.json, true);
}

static int cmd_export(int argc, char **argv)
{
    hist_args a;
    int rc = parse(&export_command, argc, argv, &a);
    if (rc >= 0) return rc;
    cb_hist_check_opts o;
    cb_hist_check_opts_default(&o);
    return load_and_check(export_command.name, &a, &o, NULL, a.json ? a.json : "-", false);
}

static int cmd_migrate(int argc, char **argv)
{
    hist_args a;
    int rc = parse(&migrate_command, argc, argv, &a);
    if (rc >= 0) return rc;
    cb_history *h = open_db(migrate_command.name, &a, true);
    if (!h) return CB_EXIT_USAGE;
    int found = cb_history_schema_found(h);
    if (found == CB_HIST_SCHEMA)
        printf("%s: schema %d already\n", a.db, found);
    else
        printf("%s: schema %d -> %d\n", a.db, found, CB_HIST_SCHEMA);
    cb_history_close(h);
    return CB_EXIT_OK;
}

int cb_cli_history(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(int argc, char **argv);
    } subcommands[] = {{"add", cmd_add},
                       {"show", cmd_show},
                       {"check", cmd_check},
                       {"export", cmd_export},
                       {"migrate", cmd_migrate}};
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CB_EXIT_USAGE : CB_EXIT_OK;
    }
    for (int i = 0; i < CB_ARRAY_LEN(subcommands); i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "cubench history: %s '%s'; see 'cubench history --help'\n",
            argv[1][0] == '-' ? "give the subcommand first (add, show, check, export, migrate), "
                                "not"
                              : "unknown subcommand",
            argv[1]);
    return CB_EXIT_USAGE;
}
