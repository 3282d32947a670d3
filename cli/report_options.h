/* report_options.h - the options that compare, fleet and history check
 * share, spelled once so the three commands keep one meaning for them:
 * a report file, the -o output, its heading, the CI level, and the PATH that finds xz for
 * runs that keep samples.csv.xz. */
#ifndef CB_CLI_REPORT_OPTIONS_H
#define CB_CLI_REPORT_OPTIONS_H

#include "options.h"

/* --NAME FILE: a file to write (or read), its pointer stored at OFFSET. */
#define CB_CLI_OPT_FILE(NAME, OFFSET, HELP)                                                        \
    {                                                                                              \
        .name = NAME, .kind = CB_OPT_STRING, .metavar = "FILE", .offset = (OFFSET), .help = HELP   \
    }

/* -o FILE, --output FILE: the one file the command writes. */
#define CB_CLI_OPT_OUTPUT(OFFSET, HELP)                                                            \
    {                                                                                              \
        .name = "output", .kind = CB_OPT_STRING, .short_name = 'o', .metavar = "FILE",             \
        .offset = (OFFSET), .help = HELP                                                           \
    }

/* --title TEXT: the heading of the markdown report. */
#define CB_CLI_OPT_TITLE(OFFSET)                                                                   \
    {                                                                                              \
        .name = "title", .kind = CB_OPT_STRING, .metavar = "TEXT", .offset = (OFFSET),             \
        .help = "heading of the markdown report"                                                   \
    }

/* --alpha X: the CIs are at 1 - X (HELP says what else X sets). */
#define CB_CLI_OPT_ALPHA(OFFSET, HELP) CB_OPTION_DOUBLE_ABOVE("alpha", "X", OFFSET, 0, 0.5, HELP)

/* The commands that read run directories unpack samples.csv.xz with xz. */
#define CB_CLI_ENV_XZ                                                                              \
    {                                                                                              \
        "PATH", "where `xz` is found, for runs that keep samples.csv.xz"                           \
    }

#endif
