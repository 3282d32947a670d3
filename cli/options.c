/* options.c - parse a command line by its table, print help from the same
 * table (options.h). */
#include "options.h"

#include "parse_number.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cb_options_refuse(const cb_command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cubench %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return CB_EXIT_USAGE;
}

/* The table entry named by `name` (name_len bytes), or -1. */
static int find_option(const cb_command *cmd, const char *name, size_t name_len)
{
    for (int i = 0; i < cmd->n_options; i++) {
        const char *o = cmd->options[i].name;
        if (strlen(o) == name_len && strncmp(o, name, name_len) == 0) return i;
    }
    return -1;
}

/* The index of `word` in the comma-separated `choices`, or -1. */
static int choice_index(const char *choices, const char *word)
{
    size_t len = strlen(word);
    int index = 0;
    for (const char *p = choices; *p; index++) {
        size_t item = strcspn(p, ",");
        if (item == len && strncmp(p, word, len) == 0) return index;
        p += item + (p[item] == ',');
    }
    return -1;
}

/* "a,b,c" -> "a, b or c". */
static void choice_words(const char *choices, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = choices; *p && used < len;) {
        size_t item = strcspn(p, ",");
        const char *next = p + item + (p[item] == ',');
        const char *sep = used == 0 ? "" : (*next ? ", " : " or ");
        int w = snprintf(buf + used, len - used, "%s%.*s", sep, (int)item, p);
        if (w < 0) break;
        used += (size_t)w;
        p = next;
    }
}

/* Store `value` as option `o` says; false with a message. */
static bool store_value(const cb_option *o, const char *value, void *args, cb_msg *why)
{
    char *at = (char *)args + o->offset;
    long long iv;
    double dv;
    int index;
    switch (o->kind) {
    case CB_OPT_FLAG:
        *(bool *)at = true;
        return true;
    case CB_OPT_INT:
    case CB_OPT_COUNT: /* a count's range in the table lies within int's */
        if (!cb_parse_int(value, (long long)o->lo, (long long)o->hi, &iv, why)) return false;
        if (o->kind == CB_OPT_COUNT)
            *(int *)at = (int)iv;
        else
            *(long long *)at = iv;
        return true;
    case CB_OPT_DOUBLE:
        if (!cb_parse_double(value, o->lo, o->hi, &dv, why)) return false;
        if (o->open_lo && !(dv > o->lo)) {
            cb_msg_set(why, "'%.60s' must be above %g", value, o->lo);
            return false;
        }
        *(double *)at = dv * (o->scale != 0 ? o->scale : 1.0);
        return true;
    case CB_OPT_STRING:
        *(const char **)at = value;
        return true;
    case CB_OPT_CHOICE:
        index = choice_index(o->choices, value);
        if (index < 0) {
            char words[160];
            choice_words(o->choices, words, sizeof words);
            cb_msg_set(why, "'%.60s' is not %s", value, words);
            return false;
        }
        *(int *)at = index;
        return true;
    case CB_OPT_HANDLER:
        return o->handle(args, value, why);
    }
    return false;
}

/* The table entry whose one-letter alias is `letter`, or -1. */
static int find_short(const cb_command *cmd, char letter)
{
    for (int i = 0; i < cmd->n_options; i++)
        if (cmd->options[i].short_name && cmd->options[i].short_name == letter) return i;
    return -1;
}

/* Option k given at argv[*i] ("--name[=value]", or "-x" when `eq` is NULL
 * and the value follows); advances *i past a separate value. */
static int take_value(const cb_command *cmd, int k, const char *eq, int argc, char **argv, int *i,
                      void *args, cb_parsed *out)
{
    const cb_option *o = &cmd->options[k];
    if (out->seen[k] && !o->repeats && o->kind != CB_OPT_FLAG)
        return cb_options_refuse(cmd, "--%s is given twice", o->name);
    out->seen[k] = true;
    const char *value = NULL;
    if (o->kind == CB_OPT_FLAG) {
        if (eq) return cb_options_refuse(cmd, "--%s takes no value", o->name);
    } else if (eq) {
        value = eq + 1;
    } else if (*i + 1 < argc) {
        value = argv[++*i];
    } else {
        return cb_options_refuse(cmd, "--%s needs a value (%s)", o->name, o->metavar);
    }
    cb_msg why = {{0}};
    if (!store_value(o, value, args, &why))
        return cb_options_refuse(cmd, "--%s: %s", o->name, why.text);
    return -1;
}

/* One "--name[=value]" at argv[*i]. */
static int take_long(const cb_command *cmd, int argc, char **argv, int *i, void *args,
                     cb_parsed *out)
{
    const char *word = argv[*i] + 2;
    const char *eq = strchr(word, '=');
    size_t name_len = eq ? (size_t)(eq - word) : strlen(word);
    int k = find_option(cmd, word, name_len);
    if (k < 0)
        return cb_options_refuse(cmd,
                                 "unknown option '--%.*s'; usage: cubench %s %s (--help for more)",
                                 (int)name_len, word, cmd->name, cmd->synopsis);
    return take_value(cmd, k, eq, argc, argv, i, args, out);
}

/* One "-x" at argv[*i]: a one-letter alias, alone. */
static int take_short(const cb_command *cmd, int argc, char **argv, int *i, void *args,
                      cb_parsed *out)
{
    const char *a = argv[*i];
    int k = a[2] ? -1 : find_short(cmd, a[1]);
    if (k < 0)
        return cb_options_refuse(cmd, "unknown option '%s'; usage: cubench %s %s (--help for more)",
                                 a, cmd->name, cmd->synopsis);
    return take_value(cmd, k, NULL, argc, argv, i, args, out);
}

/* What a word of the command line is. After "--" every word is an
 * argument, and "-" alone is one (it often names stdin). */
typedef enum word_kind {
    WORD_END_OF_OPTIONS,
    WORD_HELP,
    WORD_LONG_OPTION,
    WORD_SHORT_OPTION,
    WORD_ARGUMENT
} word_kind;

static word_kind classify_word(const char *a, bool options_over)
{
    if (options_over) return WORD_ARGUMENT;
    if (strcmp(a, "--") == 0) return WORD_END_OF_OPTIONS;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) return WORD_HELP;
    if (a[0] == '-' && a[1] == '-' && a[2]) return WORD_LONG_OPTION;
    if (a[0] == '-' && a[1]) return WORD_SHORT_OPTION;
    return WORD_ARGUMENT;
}

/* The number of arguments must be within the command's bounds. */
static int check_arg_count(const cb_command *cmd, const cb_parsed *out)
{
    if (out->n_args < cmd->min_args)
        return cb_options_refuse(cmd, "needs %d argument%s (usage: cubench %s %s)", cmd->min_args,
                                 cmd->min_args == 1 ? "" : "s", cmd->name, cmd->synopsis);
    if (cmd->max_args >= 0 && out->n_args > cmd->max_args)
        return cb_options_refuse(cmd, "unexpected argument '%s' (usage: cubench %s %s)",
                                 out->args[cmd->max_args], cmd->name, cmd->synopsis);
    return -1;
}

int cb_options_parse(const cb_command *cmd, int argc, char **argv, void *args, const void *defaults,
                     cb_parsed *out)
{
    memset(out, 0, sizeof *out);
    out->n_before_separator = -1;
    out->args = argc > 1 ? argv + 1 : argv;
    bool options_over = false;
    /* Positionals are gathered in order at the front of a private list. */
    static char *positional[4096];
    for (int i = 1; i < argc; i++) {
        int rc = -1;
        switch (classify_word(argv[i], options_over)) {
        case WORD_END_OF_OPTIONS:
            options_over = true;
            out->n_before_separator = out->n_args;
            break;
        case WORD_HELP:
            cb_options_help(cmd, defaults, stdout);
            return CB_EXIT_OK;
        case WORD_LONG_OPTION:
            rc = take_long(cmd, argc, argv, &i, args, out);
            break;
        case WORD_SHORT_OPTION:
            rc = take_short(cmd, argc, argv, &i, args, out);
            break;
        case WORD_ARGUMENT:
            if (out->n_args == (int)(sizeof positional / sizeof positional[0]))
                return cb_options_refuse(cmd, "too many arguments");
            positional[out->n_args++] = argv[i];
            break;
        }
        if (rc >= 0) return rc;
    }
    out->args = positional;
    return check_arg_count(cmd, out);
}

bool cb_options_seen(const cb_command *cmd, const cb_parsed *p, const char *name)
{
    int k = find_option(cmd, name, strlen(name));
    return k >= 0 && p->seen[k];
}

/* The default of option `o` as text, from the defaults struct; "" if none. */
static void default_text(const cb_option *o, const void *defaults, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!o->show_default || !defaults) return;
    const char *at = (const char *)defaults + o->offset;
    switch (o->kind) {
    case CB_OPT_INT:
        snprintf(buf, len, "%lld", *(const long long *)at);
        break;
    case CB_OPT_COUNT:
        snprintf(buf, len, "%d", *(const int *)at);
        break;
    case CB_OPT_DOUBLE:
        snprintf(buf, len, "%g", *(const double *)at / (o->scale != 0 ? o->scale : 1.0));
        break;
    case CB_OPT_STRING:
        if (*(const char *const *)at) snprintf(buf, len, "%s", *(const char *const *)at);
        break;
    case CB_OPT_CHOICE: {
        int index = *(const int *)at;
        const char *p = o->choices;
        for (int k = 0; k < index && p; k++)
            p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL;
        if (p) snprintf(buf, len, "%.*s", (int)strcspn(p, ","), p);
        break;
    }
    case CB_OPT_FLAG:
    case CB_OPT_HANDLER:
        break;
    }
}

/* `text` with every line after the first indented to `indent` columns. */
static void print_indented(FILE *f, const char *text, int indent)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "%.*s\n", (int)n, p);
        p += n;
        if (*p == '\n' && *++p) fprintf(f, "%*s", indent, "");
    }
}

/* Help text starts at this column. */
enum { HELP_COL = 26 };

/* The name column of one help entry: padded to HELP_COL, or on a line of
 * its own when it is too wide. */
static void print_help_head(FILE *f, const char *head)
{
    if (strlen(head) + 4 > HELP_COL)
        fprintf(f, "  %s\n%*s", head, HELP_COL, "");
    else
        fprintf(f, "  %-*s", HELP_COL - 2, head);
}

/* One option's entry: its names and value, its help and its default. */
static void print_option_help(FILE *f, const cb_option *o, const void *defaults)
{
    char head[64], def[64], text[1024];
    char alias[8] = "";
    if (o->short_name) snprintf(alias, sizeof alias, "-%c, ", o->short_name);
    snprintf(head, sizeof head, "%s--%s%s%s", alias, o->name, o->metavar ? " " : "",
             o->metavar ? o->metavar : "");
    default_text(o, defaults, def, sizeof def);
    /* The default goes on the help's last line when it fits in 100
     * columns, else on a line of its own. */
    const char *last = strrchr(o->help, '\n');
    size_t last_len = strlen(last ? last + 1 : o->help);
    bool own_line = HELP_COL + last_len + strlen(def) + 11 > 100;
    snprintf(text, sizeof text, "%s%s%s%s", o->help,
             def[0] ? (own_line ? "\n(default " : " (default ") : "", def, def[0] ? ")" : "");
    print_help_head(f, head);
    print_indented(f, text, HELP_COL);
}

void cb_options_help(const cb_command *cmd, const void *defaults, FILE *f)
{
    fprintf(f, "usage: cubench %s %s\n", cmd->name, cmd->synopsis);
    if (cmd->about) print_indented(f, cmd->about, 0);
    if (cmd->n_options) fprintf(f, "\noptions:\n");
    for (int i = 0; i < cmd->n_options; i++)
        print_option_help(f, &cmd->options[i], defaults);
    fprintf(f, "  %-*s%s\n", HELP_COL - 2, "-h, --help", "this text");
    if (cmd->n_env) fprintf(f, "\nenvironment:\n");
    for (int i = 0; i < cmd->n_env; i++) {
        print_help_head(f, cmd->env[i].name);
        print_indented(f, cmd->env[i].help, HELP_COL);
    }
    if (cmd->epilogue) {
        fprintf(f, "\n");
        print_indented(f, cmd->epilogue, 0);
    }
}

int cb_options_parse_defaulted(const cb_command *cmd, int argc, char **argv, void *args,
                               size_t size, cb_parsed *out)
{
    /* Without memory for the copy, --help shows no defaults; parsing is
     * the same. */
    void *defaults = malloc(size);
    if (defaults) memcpy(defaults, args, size);
    int rc = cb_options_parse(cmd, argc, argv, args, defaults, out);
    free(defaults);
    return rc;
}
