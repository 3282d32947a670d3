/* cli_list.c - `cubench list [GLOB]`: benchmarks, summaries, axes. */
#include "cli.h"
#include "options.h"
#include "registry.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

typedef struct list_args {
    bool names;
} list_args;

static const cb_option list_options[] = {
    CB_OPTION_FLAG("names", offsetof(list_args, names), "only the names, one per line"),
};

static const cb_command list_command = {
    .name = "list",
    .synopsis = "[GLOB] [--names]",
    .about = "Lists every benchmark (or those matching GLOB, e.g. 'vecadd*') with its\n"
             "summary and axes (name, defaults, meaning).",
    CB_COMMAND_OPTIONS(list_options),
    .epilogue = "exit codes: 0 listed; 2 bad usage or no benchmark matches",
    .min_args = 0,
    .max_args = 1,
};

int cb_cli_list(int argc, char **argv)
{
    list_args args = {0};
    cb_parsed parsed;
    int rc = cb_options_parse(&list_command, argc, argv, &args, NULL, &parsed);
    if (rc >= 0) return rc;
    const bool names_only = args.names;
    const char *glob = parsed.n_args ? parsed.args[0] : NULL;
    int shown = 0;
    for (int i = 0; i < cb_registry_count(); i++) {
        const cb_bench *b = cb_registry_get(i);
        if (glob && !cb_registry_matches(glob, b->name)) continue;
        shown++;
        if (names_only) {
            printf("%s\n", b->name);
            continue;
        }
        printf("%-28s [%s] %s\n", b->name, b->target == CB_TARGET_CUDA ? "gpu" : "cpu", b->summary);
        for (int a = 0; a < b->n_axes; a++)
            printf("    %-8s = %-22s %s\n", b->axes[a].name, b->axes[a].defaults, b->axes[a].help);
    }
    if (shown == 0) {
        fprintf(stderr, "cubench list: no benchmark matches '%s'\n", glob ? glob : "");
        return CB_EXIT_USAGE;
    }
    return CB_EXIT_OK;
}
