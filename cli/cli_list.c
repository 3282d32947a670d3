/* cli_list.c - `cubench list [GLOB]`: benchmarks, summaries, axes. */
#include "cli.h"
#include "registry.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void list_usage(FILE *f)
{
    fprintf(f, "usage: cubench list [GLOB] [--names]\n"
               "  Lists every benchmark (or those matching GLOB, e.g. 'vecadd*') with its\n"
               "  summary and axes (name, defaults, meaning).\n"
               "  --names   only the names, one per line\n");
}

int cb_cli_list(int argc, char **argv)
{
    static const struct option opts[] = {
        {"names", no_argument, NULL, 'n'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    bool names_only = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'n')
            names_only = true;
        else if (c == 'h') {
            list_usage(stdout);
            return CB_EXIT_OK;
        } else {
            list_usage(stderr);
            return CB_EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        fprintf(stderr, "cubench list: at most one GLOB\n");
        return CB_EXIT_USAGE;
    }
    const char *glob = optind < argc ? argv[optind] : NULL;
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
