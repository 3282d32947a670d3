/* cli.h - the subcommands of the cubench binary. Each takes the argv that
 * starts at its own name and returns the process exit code (cb_common.h).
 * Every command parses through the option layer (options.h). */
#ifndef CB_CLI_H
#define CB_CLI_H

#include "cb_common.h"
#include "session.h"

/* `cubench ARGS...`: argv[0] is the program, argv[1] the command. */
int cb_cli_main(int argc, char **argv);

int cb_cli_run(int argc, char **argv, int full_argc, char **full_argv);
int cb_cli_list(int argc, char **argv);
/* `program` is how the user called cubench (argv[0] of cb_cli_main: the
 * binary's path, or "python -m cubench"), for the hints env prints. */
int cb_cli_env(const char *program, int argc, char **argv);
/* compare: 0 no slower point (or --fail-on none); 1 a slower point; 2 bad
 * usage or input, or no point could be tested. fleet: 0 nothing flagged; 1
 * a run flagged or a problem; 2 bad usage or input. */
int cb_cli_compare(int argc, char **argv);
int cb_cli_fleet(int argc, char **argv);
/* history add|show|check|export|migrate: 0 done (check: no open regression
 * larger than delta); 1 check found one; 2 bad usage, input or database. */
int cb_cli_history(int argc, char **argv);

/* What a front end other than the binary adds to `cubench run`. */
typedef struct cb_cli_run_hooks {
    /* its own meta file (session.h: write_meta); ctx is handed back */
    cb_status (*write_meta)(void *ctx, const char *dir, bool final, cb_msg *why);
    void *ctx;
    bool chain_signals; /* session.h: the first Ctrl-C reaches the host's handler too */
} cb_cli_run_hooks;

/* `cubench run` with hooks (NULL: none); the run directory and totals in
 * *result. Returns the exit code. */
int cb_cli_run_with(int argc, char **argv, int full_argc, char **full_argv,
                    const cb_cli_run_hooks *hooks, cb_session_result *result);

#endif
