/* cli.h - the subcommands of the cubench binary. Each takes the argv that
 * starts at its own name and returns the process exit code (cb_common.h). */
#ifndef CB_CLI_H
#define CB_CLI_H

#include "cb_common.h"

/* `cubench ARGS...`: argv[0] is the program, argv[1] the command. */
int cb_cli_main(int argc, char **argv);

int cb_cli_run(int argc, char **argv, int full_argc, char **full_argv);
int cb_cli_list(int argc, char **argv);
int cb_cli_env(int argc, char **argv);
/* `cubench history SUBCOMMAND ...` (cli_history.c). */
int cb_cli_history(int argc, char **argv);

/* Strict number parsing for option values: the whole text must be a number
 * within [lo, hi]. On failure print "cubench <cmd>: --opt: ..." and return false. */
bool cb_cli_parse_double(const char *cmd, const char *opt, const char *text, double lo, double hi,
                         double *out);
bool cb_cli_parse_int(const char *cmd, const char *opt, const char *text, long long lo,
                      long long hi, long long *out);

#endif
