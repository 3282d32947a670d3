/* cli_history.c - `cubench history add|show|check|export|migrate`: parse,
 * call the history library (harness/compare/history.h), print. */
#include "cli.h"
#include "history.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CB_HIST_MAX_AXES 32

static void usage(FILE *f)
{
    fprintf(f,
            "usage: cubench history add [OPTIONS] RUN_DIR...\n"
            "       cubench history show [OPTIONS] BENCHMARK [--axis NAME=VALUE]...\n"
            "       cubench history check [OPTIONS]\n"
            "       cubench history export [OPTIONS] [-o FILE]\n"
            "       cubench history migrate [OPTIONS]\n"
            "\n"
            "A performance history: every run in one database, each point's series per\n"
            "machine, its change points and the between-run spread it shows (docs/history.md).\n"
            "\n"
            "  add       store runs (idempotent: a run already stored adds nothing); all the\n"
            "            directories given in one transaction\n"
            "  show      a point's series: run, commit, status, median, CI, clocks, throttle\n"
            "            (BENCHMARK is a shell glob)\n"
            "  check     change points of every series (per machine), each with its size, CI,\n"
            "            last good and first bad run and their commits, the throttled runs\n"
            "            near it, and its cause (code, or a change of GPU, driver, runtime)\n"
            "  export    the series and change points as JSON for `python3 -m reports --history`\n"
            "  migrate   bring a history written by an older cubench to this schema (%d)\n"
            "\n"
            "options:\n"
            "  --db URL            a SQLite file, sqlite:PATH, or postgresql://... (default: $%s,\n"
            "                      else %s); PostgreSQL support: %s\n"
            "  --lock-timeout S    wait at most S seconds for another writer (default 30)\n"
            "  --machine NAME      add: the machine to file the runs under (default\n"
            "                      \"<host>/<GPU name>\"); show, check, export: only this one\n"
            "  --samples           add: store every sample's time too\n"
            "  --axis NAME=VALUE   show: only points whose axes hold it (repeatable)\n"
            "  --delta X           check: an open slowdown whose CI lies above 1 + X fails (0.03)\n"
            "  --alpha X           check: CIs at 1 - X (0.01)\n"
            "  --recent N          check: regressions whose first bad run is among the point's\n"
            "                      newest N runs set the exit code (5)\n"
            "  --min-runs N        check: runs on each side of a change point (2)\n"
            "  --method M          check: cubench (default) or hunter (Student's t, for\n"
            "                      comparison)\n"
            "  --markdown FILE     check: the report to FILE (default: stdout)\n"
            "  --json FILE, -o FILE check, export: the JSON document to FILE ('-': stdout)\n"
            "  -h, --help          this text\n"
            "\n"
            "exit: 0 done (check: no open regression larger than delta); 1 check found one;\n"
            "2 bad usage, an invalid run directory, a database that cannot be used (locked,\n"
            "unreachable, newer schema, not a history): nothing stored is changed\n",
            CB_HIST_SCHEMA, CB_HIST_ENV, CB_HIST_DEFAULT_PATH,
            cb_history_has_postgresql() ? "built in" : "not built (no libpq at build time)");
}

typedef struct hist_args {
    const char *cmd;
    const char *db, *machine, *markdown, *json;
    const char *axes[CB_HIST_MAX_AXES];
    int n_axes;
    double lock_timeout_s;
    bool samples;
    cb_hist_check_opts check;
    char **operands;
    int n_operands;
} hist_args;

enum {
    OPT_DB = 256,
    OPT_LOCK,
    OPT_MACHINE,
    OPT_SAMPLES,
    OPT_AXIS,
    OPT_DELTA,
    OPT_ALPHA,
    OPT_RECENT,
    OPT_MIN_RUNS,
    OPT_METHOD,
    OPT_MD,
};

static bool take_int(const char *opt, long long lo, long long hi, int *out)
{
    long long v;
    if (!cb_cli_parse_int("history", opt, optarg, lo, hi, &v)) return false;
    *out = (int)v;
    return true;
}

static bool take_axis(hist_args *a)
{
    if (!strchr(optarg, '=') || optarg[0] == '=') {
        fprintf(stderr, "cubench history: --axis '%s': expected NAME=VALUE\n", optarg);
        return false;
    }
    if (a->n_axes == CB_HIST_MAX_AXES) {
        fprintf(stderr, "cubench history: at most %d --axis filters\n", CB_HIST_MAX_AXES);
        return false;
    }
    a->axes[a->n_axes++] = optarg;
    return true;
}

static bool take_method(hist_args *a)
{
    if (strcmp(optarg, "cubench") == 0 || strcmp(optarg, "hunter") == 0) {
        a->check.method = optarg[0] == 'h' ? CB_HIST_METHOD_HUNTER : CB_HIST_METHOD_CUBENCH;
        return true;
    }
    fprintf(stderr, "cubench history: --method '%s': expected cubench or hunter\n", optarg);
    return false;
}

/* One option; false on a bad value (the message is printed). */
static bool take_option(int c, hist_args *a)
{
    switch (c) {
    case OPT_DB:
        a->db = optarg;
        return true;
    case OPT_LOCK:
        return cb_cli_parse_double("history", "--lock-timeout", optarg, 0.0, 86400.0,
                                   &a->lock_timeout_s);
    case OPT_MACHINE:
        a->machine = optarg;
        return true;
    case OPT_SAMPLES:
        a->samples = true;
        return true;
    case OPT_AXIS:
        return take_axis(a);
    case OPT_DELTA:
        return cb_cli_parse_double("history", "--delta", optarg, 0.0, 10.0, &a->check.delta);
    case OPT_ALPHA:
        return cb_cli_parse_double("history", "--alpha", optarg, 1e-9, 0.5, &a->check.alpha);
    case OPT_RECENT:
        return take_int("--recent", 1, 1000000, &a->check.recent);
    case OPT_MIN_RUNS:
        return take_int("--min-runs", 1, 1000, &a->check.min_runs);
    case OPT_METHOD:
        return take_method(a);
    case OPT_MD:
        a->markdown = optarg;
        return true;
    case 'o':
        a->json = optarg;
        return true;
    }
    fputs("cubench history: see 'cubench history --help'\n", stderr); /* getopt said what */
    return false;
}

/* Options that the subcommand does not take are refused, not ignored. */
static bool options_fit(const hist_args *a)
{
    const char *c = a->cmd;
    bool add = strcmp(c, "add") == 0, show = strcmp(c, "show") == 0;
    bool check = strcmp(c, "check") == 0, export = strcmp(c, "export") == 0;
    const char *bad = NULL;
    if (a->samples && !add) bad = "--samples";
    if (a->n_axes && !show) bad = "--axis";
    if (a->markdown && !check) bad = "--markdown";
    if (a->json && !check && !export) bad = "--json/-o";
    if (a->machine && strcmp(c, "migrate") == 0) bad = "--machine";
    if (bad) fprintf(stderr, "cubench history %s: %s does not apply here\n", c, bad);
    return !bad;
}

#define CLI_CONTINUE (-1)

static int parse_args(int argc, char **argv, hist_args *a)
{
    static const struct option longopts[] = {
        {"db", required_argument, NULL, OPT_DB},
        {"lock-timeout", required_argument, NULL, OPT_LOCK},
        {"machine", required_argument, NULL, OPT_MACHINE},
        {"samples", no_argument, NULL, OPT_SAMPLES},
        {"axis", required_argument, NULL, OPT_AXIS},
        {"delta", required_argument, NULL, OPT_DELTA},
        {"alpha", required_argument, NULL, OPT_ALPHA},
        {"recent", required_argument, NULL, OPT_RECENT},
        {"min-runs", required_argument, NULL, OPT_MIN_RUNS},
        {"method", required_argument, NULL, OPT_METHOD},
        {"markdown", required_argument, NULL, OPT_MD},
        {"json", required_argument, NULL, 'o'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    memset(a, 0, sizeof *a);
    a->lock_timeout_s = 30.0;
    cb_hist_check_opts_default(&a->check);
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CB_EXIT_USAGE : CB_EXIT_OK;
    }
    a->cmd = argv[1];
    if (a->cmd[0] == '-') {
        fprintf(stderr,
                "cubench history: give the subcommand first (add, show, check, export, "
                "migrate), then '%s'\n",
                a->cmd);
        return CB_EXIT_USAGE;
    }
    optind = 0; /* glibc: full re-initialisation */
    int c;
    while ((c = getopt_long(argc - 1, argv + 1, "ho:", longopts, NULL)) != -1) {
        if (c == 'h') {
            usage(stdout);
            return CB_EXIT_OK;
        }
        if (!take_option(c, a)) return CB_EXIT_USAGE;
    }
    a->operands = argv + 1 + optind;
    a->n_operands = argc - 1 - optind;
    if (!a->db) a->db = cb_history_default_url();
    return options_fit(a) ? CLI_CONTINUE : CB_EXIT_USAGE;
}

static cb_history *open_db(const hist_args *a, bool write)
{
    cb_hist_open_opts o;
    cb_hist_open_opts_default(&o);
    o.write = write;
    o.lock_timeout_s = a->lock_timeout_s;
    cb_history *h = NULL;
    cb_msg err = {{0}};
    if (!cb_history_open(a->db, &o, &h, &err)) {
        fprintf(stderr, "cubench history %s: %s\n", a->cmd, err.text);
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

static int cmd_add(const hist_args *a)
{
    if (a->n_operands < 1) {
        fputs("cubench history add: give one or more run directories\n", stderr);
        return CB_EXIT_USAGE;
    }
    make_default_dir(a);
    cb_history *h = open_db(a, true);
    if (!h) return CB_EXIT_USAGE;
    cb_hist_added *out = calloc((size_t)a->n_operands, sizeof *out);
    cb_hist_add_opts o = {a->machine, a->samples};
    cb_msg err = {{0}};
    int rc = CB_EXIT_USAGE;
    if (!out)
        fputs("cubench history add: out of memory\n", stderr);
    else if (!cb_history_add_many(h, (const char *const *)a->operands, a->n_operands, &o, out,
                                  &err))
        fprintf(stderr, "cubench history add: %s (nothing stored)\n", err.text);
    else
        rc = CB_EXIT_OK;
    for (int i = 0; rc == CB_EXIT_OK && i < a->n_operands; i++)
        printf("%s %s: run %lld, %d points, machine %s\n",
               out[i].already ? "already stored" : "added", a->operands[i], out[i].run_id,
               out[i].points, out[i].machine);
    free(out);
    cb_history_close(h);
    return rc;
}

static int cmd_show(const hist_args *a)
{
    if (a->n_operands != 1) {
        fputs("cubench history show: give one BENCHMARK (a shell glob)\n", stderr);
        return CB_EXIT_USAGE;
    }
    cb_history *h = open_db(a, false);
    if (!h) return CB_EXIT_USAGE;
    cb_hist_filter f = {a->machine, a->operands[0], a->axes, a->n_axes, NULL, NULL};
    cb_hist_data d;
    cb_msg err = {{0}};
    int rc = CB_EXIT_USAGE;
    if (!cb_history_load(h, &f, &d, &err)) {
        fprintf(stderr, "cubench history show: %s\n", err.text);
    } else if (d.n_series == 0) {
        fprintf(stderr, "cubench history show: no stored point matches %s%s%s\n", a->operands[0],
                a->machine ? " on " : "", a->machine ? a->machine : "");
        cb_hist_data_free(&d);
    } else {
        rc =
            cb_history_write_series(stdout, &d) && fflush(stdout) == 0 ? CB_EXIT_OK : CB_EXIT_USAGE;
        cb_hist_data_free(&d);
    }
    cb_history_close(h);
    return rc;
}

static FILE *open_out(const char *path)
{
    if (strcmp(path, "-") == 0) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "cubench history: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static bool close_out(FILE *f, const char *path)
{
    bool ok = !ferror(f);
    ok = (f == stdout ? fflush(f) == 0 : fclose(f) == 0) && ok;
    if (!ok) fprintf(stderr, "cubench history: error writing %s\n", path);
    return ok;
}

/* Where the reports go: markdown (check: stdout unless the JSON goes
 * there) and JSON (export: stdout by default); NULL for none. */
static bool report_targets(const hist_args *a, const char **md, const char **js)
{
    bool export = strcmp(a->cmd, "export") == 0;
    bool js_stdout = a->json && strcmp(a->json, "-") == 0;
    *js = a->json ? a->json : export ? "-" : NULL;
    *md = export ? NULL : a->markdown ? a->markdown : js_stdout ? NULL : "-";
    if (*md && *js && strcmp(*md, "-") == 0 && strcmp(*js, "-") == 0) {
        fputs("cubench history check: --markdown - and --json - cannot both use stdout\n", stderr);
        return false;
    }
    return true;
}

/* The report(s) of a check. */
static bool write_check(const hist_args *a, const cb_hist_data *d, const cb_hist_check *c)
{
    const char *md, *js;
    if (!report_targets(a, &md, &js)) return false;
    if (md) {
        FILE *f = open_out(md);
        if (!f) return false;
        bool ok = cb_history_write_check(f, d, c, &a->check);
        if (!close_out(f, md) || !ok) return false;
    }
    if (js) {
        FILE *f = open_out(js);
        if (!f) return false;
        bool ok = cb_history_write_json(f, d, c, &a->check);
        if (!close_out(f, js) || !ok) return false;
    }
    return true;
}

static int cmd_check(const hist_args *a)
{
    if (a->n_operands != 0) {
        fprintf(stderr, "cubench history %s: unexpected argument '%s'\n", a->cmd, a->operands[0]);
        return CB_EXIT_USAGE;
    }
    cb_history *h = open_db(a, false);
    if (!h) return CB_EXIT_USAGE;
    cb_hist_filter f = {a->machine, NULL, NULL, 0, NULL, NULL};
    cb_hist_data d;
    cb_hist_check c = {0};
    cb_msg err = {{0}};
    int rc = CB_EXIT_USAGE;
    if (!cb_history_load(h, &f, &d, &err) || !cb_history_check(&d, &a->check, &c, &err)) {
        fprintf(stderr, "cubench history %s: %s\n", a->cmd, err.text);
        cb_history_close(h);
        return CB_EXIT_USAGE;
    }
    if (a->machine && d.n_runs == 0)
        fprintf(stderr, "cubench history %s: no run of machine '%s' is stored\n", a->cmd,
                a->machine);
    else if (write_check(a, &d, &c))
        rc = strcmp(a->cmd, "check") == 0 && c.regressions > 0 ? CB_EXIT_FAILURES : CB_EXIT_OK;
    if (rc != CB_EXIT_USAGE && strcmp(a->cmd, "check") == 0)
        fprintf(stderr,
                "cubench history check: %d runs, %d series, %d change points, %d "
                "regressions: exit %d\n",
                d.n_runs, c.series, c.n_changes, c.regressions, rc);
    cb_hist_check_free(&c);
    cb_hist_data_free(&d);
    cb_history_close(h);
    return rc;
}

static int cmd_migrate(const hist_args *a)
{
    cb_history *h = open_db(a, true);
    if (!h) return CB_EXIT_USAGE;
    int found = cb_history_schema_found(h);
    if (found == CB_HIST_SCHEMA)
        printf("%s: schema %d already\n", a->db, found);
    else
        printf("%s: schema %d -> %d\n", a->db, found, CB_HIST_SCHEMA);
    cb_history_close(h);
    return CB_EXIT_OK;
}

int cb_cli_history(int argc, char **argv)
{
    hist_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_CONTINUE) return rc;
    if (strcmp(a.cmd, "add") == 0) return cmd_add(&a);
    if (strcmp(a.cmd, "show") == 0) return cmd_show(&a);
    if (strcmp(a.cmd, "check") == 0 || strcmp(a.cmd, "export") == 0) return cmd_check(&a);
    if (strcmp(a.cmd, "migrate") == 0) return cmd_migrate(&a);
    fprintf(stderr, "cubench history: unknown subcommand '%s'; see 'cubench history --help'\n",
            a.cmd);
    return CB_EXIT_USAGE;
}
