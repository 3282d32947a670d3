/* out_file.c - open and close a report file; out_file.h. */
#include "out_file.h"

#include <errno.h>
#include <string.h>

FILE *cb_cli_open_out(const char *cmd, const char *path)
{
    if (strcmp(path, "-") == 0) return stdout;
    FILE *f = fopen(path, "w");
    if (!f) fprintf(stderr, "cubench %s: cannot write %s: %s\n", cmd, path, strerror(errno));
    return f;
}

/* The errno of the failure is kept before the close can overwrite it: a
 * full disk, a closed pipe, a file-size limit. */
bool cb_cli_close_out(const char *cmd, FILE *f, const char *path, bool written)
{
    int saved = 0;
    bool ok = written && !ferror(f);
    if (!ok) saved = errno;
    if (f == stdout ? fflush(f) != 0 : fclose(f) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        fprintf(stderr, "cubench %s: error writing %s: %s\n", cmd, path,
                saved ? strerror(saved) : "write failed");
    return ok;
}
