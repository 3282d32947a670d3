/* options.h - the one option layer of every cubench command.
 *
 * A command is a table: its options (name, kind, range, help, where the
 * value goes), the environment variables it reads and its positional
 * arguments. cb_options_parse reads argv by that table and cb_options_help
 * prints `--help` from the same table, so the parser and the help cannot
 * drift apart. Rules every command shares:
 *   --name VALUE and --name=VALUE; a flag takes no value; an option with a
 *   one-letter alias also takes -x VALUE (no bundling of letters);
 *   names match exactly (no abbreviations: --rep is refused, not --replicates);
 *   an option given twice is refused unless it repeats by nature (--axis);
 *   `--` ends the options; -h and --help print the help to stdout, exit 0;
 *   numbers through parse_number.h (the whole text, within the stated range);
 *   every refusal is one line "cubench CMD: ..." on stderr and exit code 2.
 */
#ifndef CB_OPTIONS_H
#define CB_OPTIONS_H

#include "cb_common.h"

#include <stddef.h>
#include <stdio.h>

typedef enum cb_opt_kind {
    CB_OPT_FLAG,    /* no value; stores true in a bool                        */
    CB_OPT_INT,     /* whole number in [lo, hi]; stores long long              */
    CB_OPT_COUNT,   /* whole number in [lo, hi] within int's range; stores int:
                     * a count the library keeps as an int (opts.min_runs)  */
    CB_OPT_DOUBLE,  /* number in [lo, hi]; stores value * scale in a double    */
    CB_OPT_STRING,  /* any text; stores the argv pointer in a const char *     */
    CB_OPT_CHOICE,  /* one word of `choices`; stores its index in an int       */
    CB_OPT_HANDLER, /* `handle` takes the value (custom syntax, repeats)        */
} cb_opt_kind;

typedef struct cb_option {
    const char *name;    /* without the dashes: "max-time-per-point"          */
    cb_opt_kind kind;    /*                                                    */
    const char *metavar; /* "S", "N", "DIR"; NULL for flags                    */
    const char *help;    /* the text of --help; lines separated by '\n'        */
    size_t offset;       /* where the value goes in the command's args struct  */
    char short_name;     /* one-letter alias ('o' for -o), 0 for none          */
    double lo, hi;       /* INT and DOUBLE: the accepted range (user units)    */
    bool open_lo;        /* DOUBLE: the value must lie above lo, not at it     */
    double scale;        /* DOUBLE: stored = typed x scale (0 means 1)         */
    const char *choices; /* CHOICE: "cold,hot"                                 */
    bool repeats;        /* may be given more than once (HANDLER)              */
    bool show_default;   /* help ends with the default read from `defaults`    */
    /* HANDLER: take `value` into `args`; false with a message to refuse. */
    bool (*handle)(void *args, const char *value, cb_msg *why);
} cb_option;

/* An environment variable the command reads, named in its --help. */
typedef struct cb_env_var {
    const char *name;
    const char *help;
} cb_env_var;

/* The NVML library the telemetry loads: read by `env` and `run` alike. */
#define CB_ENV_VAR_NVML_LIBRARY                                                                    \
    {                                                                                              \
        "CUBENCH_NVML_LIBRARY", "the NVML library to load (default libnvidia-ml.so.1)"             \
    }

typedef struct cb_command {
    const char *name;     /* "run"                                            */
    const char *synopsis; /* after "usage: cubench run ": "[GLOB...] [options]" */
    const char *about;    /* what it does, a paragraph                        */
    const cb_option *options;
    int n_options;
    const cb_env_var *env; /* may be NULL */
    int n_env;
    const char *epilogue; /* exit codes etc., printed last                   */
    /* Positional arguments; max -1: no limit. Left out (0, 0): none. */
    int min_args, max_args;
} cb_command;

#define CB_MAX_OPTIONS 48

/* A command's tables, each with its length. */
#define CB_COMMAND_OPTIONS(table) .options = (table), .n_options = CB_ARRAY_LEN(table)
#define CB_COMMAND_ENV(table)     .env = (table), .n_env = CB_ARRAY_LEN(table)

/* The kinds of option the tables hold, one entry each, so that an option
 * reads as what it is (a number above a bound, one in another unit, a
 * repeatable list) rather than as a list of fields; only an option unlike
 * the others (a one-off handler) is written out field by field. */
#define CB_OPTION_FLAG(NAME, OFFSET, HELP)                                                         \
    {                                                                                              \
        .name = NAME, .kind = CB_OPT_FLAG, .offset = (OFFSET), .help = HELP                        \
    }
#define CB_OPTION_STRING(NAME, METAVAR, OFFSET, HELP)                                              \
    {                                                                                              \
        .name = NAME, .kind = CB_OPT_STRING, .metavar = METAVAR, .offset = (OFFSET), .help = HELP  \
    }
/* KIND CB_OPT_INT, CB_OPT_COUNT or CB_OPT_DOUBLE in [LO, HI], its default
 * shown. */
#define CB_OPTION_NUMBER(KIND, NAME, METAVAR, OFFSET, LO, HI, HELP)                                \
    {                                                                                              \
        .name = NAME, .kind = KIND, .metavar = METAVAR, .offset = (OFFSET), .lo = LO, .hi = HI,    \
        .show_default = true, .help = HELP                                                         \
    }
/* KIND CB_OPT_INT, CB_OPT_COUNT or CB_OPT_DOUBLE in [LO, HI] whose default is not a
 * number to show ("all cores", "off", "by kind of point"): HELP says it. */
#define CB_OPTION_NUMBER_DEFAULT_IN_HELP(KIND, NAME, METAVAR, OFFSET, LO, HI, HELP)                \
    {                                                                                              \
        .name = NAME, .kind = KIND, .metavar = METAVAR, .offset = (OFFSET), .lo = LO, .hi = HI,    \
        .help = HELP                                                                               \
    }
/* A CB_OPT_DOUBLE in (LO, HI]: above LO, not at it (a tolerance, a level
 * that 0 would make meaningless), its default shown. */
#define CB_OPTION_DOUBLE_ABOVE(NAME, METAVAR, OFFSET, LO, HI, HELP)                                \
    {                                                                                              \
        .name = NAME, .kind = CB_OPT_DOUBLE, .metavar = METAVAR, .offset = (OFFSET), .lo = LO,     \
        .hi = HI, .open_lo = true, .show_default = true, .help = HELP                              \
    }
/* A CB_OPT_DOUBLE typed in the user's unit in [LO, HI] and stored times
 * SCALE (percent -> fraction: 0.01; ms -> s: 1e-3), its default shown in
 * the user's unit. */
#define CB_OPTION_DOUBLE_SCALED(NAME, METAVAR, OFFSET, LO, HI, SCALE, HELP)                        \
    {                                                                                              \
        .name = NAME, .kind = CB_OPT_DOUBLE, .metavar = METAVAR, .offset = (OFFSET), .lo = LO,     \
        .hi = HI, .scale = SCALE, .show_default = true, .help = HELP                               \
    }
/* An option that may be given many times, each value taken by HANDLE
 * (a list of run directories, of axis filters). */
#define CB_OPTION_REPEATED(NAME, METAVAR, HANDLE, HELP)                                            \
    {                                                                                              \
        .name = NAME, .kind = CB_OPT_HANDLER, .metavar = METAVAR, .handle = HANDLE,                \
        .repeats = true, .help = HELP                                                              \
    }
/* One word of CHOICES ("cold,hot"), its default shown. */
#define CB_OPTION_CHOICE(NAME, METAVAR, CHOICES, OFFSET, HELP)                                     \
    {                                                                                              \
        .name = NAME, .kind = CB_OPT_CHOICE, .metavar = METAVAR, .choices = CHOICES,               \
        .offset = (OFFSET), .show_default = true, .help = HELP                                     \
    }

/* What a parse found besides the values it stored. */
typedef struct cb_parsed {
    char **args; /* positional arguments, in order (pointers into argv) */
    int n_args;
    int n_before_separator;    /* positional arguments before a bare `--`; -1: none */
    bool seen[CB_MAX_OPTIONS]; /* option i of the table was given */
} cb_parsed;

/* Parse argv (argv[0] is the command's name) into `args`, which holds the
 * defaults already. Returns -1 to go on; otherwise the exit code to return
 * at once: 0 after printing --help (stdout, with `defaults` for the
 * defaults shown), 2 after a one-line refusal on stderr. argv is not
 * changed. */
int cb_options_parse(const cb_command *cmd, int argc, char **argv, void *args, const void *defaults,
                     cb_parsed *out);
/* The same, with the `size` bytes `args` holds on entry as the defaults
 * --help shows (a copy taken before parsing changes them). */
int cb_options_parse_defaulted(const cb_command *cmd, int argc, char **argv, void *args,
                               size_t size, cb_parsed *out);

/* --help of the command, generated from its table. */
void cb_options_help(const cb_command *cmd, const void *defaults, FILE *f);

/* Was the option named `name` given? */
bool cb_options_seen(const cb_command *cmd, const cb_parsed *p, const char *name);

/* "cubench CMD: TEXT" on stderr and CB_EXIT_USAGE: the shared refusal. */
int cb_options_refuse(const cb_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
