/* out_file.h - the report files of the commands that write reports
 * (compare, fleet, history): '-' is stdout, and a failed write is said on
 * stderr as "cubench CMD: ..." with its reason, so a full disk or a closed
 * pipe never passes for a report written. */
#ifndef CB_CLI_OUT_FILE_H
#define CB_CLI_OUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

/* A writable stream for `path` ('-': stdout); NULL, said on stderr, when
 * it cannot be opened. `cmd` names the command in the message ("compare"). */
FILE *cb_cli_open_out(const char *cmd, const char *path);

/* Close `f` (flush it when it is stdout). `written` is the writer's own
 * verdict. False, said on stderr with the reason, when the writer or any
 * write to `f` or the close failed. */
bool cb_cli_close_out(const char *cmd, FILE *f, const char *path, bool written);

#endif
