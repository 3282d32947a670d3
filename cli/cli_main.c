/* cli_main.c - `cubench <command>`: parse the command name and dispatch.
 * No CUDA call happens before a subcommand has parsed its options. The
 * front end (main.c, or the shared library behind the Python package) has
 * registered the families before it calls cb_cli_main. */
#include "build_info.h"
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "cubench %s - CUDA benchmarking and profiling suite\n"
            "\n"
            "usage: cubench <command> [options]\n"
            "\n"
            "commands:\n"
            "  run [GLOB...]      run benchmarks (default: the whole suite) and write\n"
            "                     results.csv, samples.csv and meta.json to a new directory\n"
            "  list [GLOB]        list benchmarks with their axes and defaults\n"
            "  env                the environment doctor: driver, runtime, devices, CUPTI\n"
            "  compare BASE NEW   decide regressions between two run directories\n"
            "  fleet DIR          judge one run per GPU or node (scripts/slurm/): outliers\n"
            "                     per GPU model, failed and missing tasks\n"
            "  history ...        the performance history database: add runs, show a point's\n"
            "                     series, check for change points, export for the dashboard\n"
            "  help               this text; `cubench <command> --help` for each command\n"
            "\n"
            "exit codes: 0 success; 1 a point failed (run), a slowdown (compare) or a\n"
            "            run flagged or a task failed (fleet), an open regression\n"
            "            (history check);\n"
            "            2 bad usage or input; 3 no CUDA device (env); 130 interrupted\n",
            CB_VERSION);
}

/* A command's exit code, made a failure when what it printed did not reach
 * stdout (a full disk, a closed pipe): `cubench list --names > names.txt`
 * must not leave an empty file and success. */
static int stdout_checked(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout)) return rc;
    fprintf(stderr, "cubench: error writing standard output: %s\n",
            errno ? strerror(errno) : "write failed");
    return rc == CB_EXIT_OK ? CB_EXIT_FAILURES : rc;
}

static int dispatch(int argc, char **argv)
{
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0) return cb_cli_run(argc - 1, argv + 1, argc, argv);
    if (strcmp(cmd, "list") == 0) return cb_cli_list(argc - 1, argv + 1);
    if (strcmp(cmd, "env") == 0) return cb_cli_env(argv[0], argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0) return cb_cli_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "fleet") == 0) return cb_cli_fleet(argc - 1, argv + 1);
    if (strcmp(cmd, "history") == 0) return cb_cli_history(argc - 1, argv + 1);
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        if (argc == 2) {
            usage(stdout);
            return CB_EXIT_OK;
        }
        /* `cubench help run`: the command's own help */
        static const char *const commands[] = {"run", "list", "env", "compare", "fleet", "history"};
        for (size_t i = 0; argc == 3 && i < sizeof commands / sizeof *commands; i++)
            if (strcmp(argv[2], commands[i]) == 0) {
                char *sub[] = {argv[0], argv[2], (char *)"--help", NULL};
                return dispatch(3, sub);
            }
        fprintf(stderr,
                "cubench help: '%.60s' is not a command (run, list, env, compare, fleet, "
                "history)\n",
                argv[2]);
        return CB_EXIT_USAGE;
    }
    if (strcmp(cmd, "--version") == 0) {
        if (argc > 2) {
            fprintf(stderr, "cubench --version: unexpected argument '%.60s'\n", argv[2]);
            return CB_EXIT_USAGE;
        }
        printf("cubench %s (%s)\n", CB_VERSION, CB_GIT_SHA);
        return CB_EXIT_OK;
    }
    fprintf(stderr, "cubench: unknown command '%.60s'\n\n", cmd);
    usage(stderr);
    return CB_EXIT_USAGE;
}

int cb_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CB_EXIT_USAGE;
    }
    return stdout_checked(dispatch(argc, argv));
}
