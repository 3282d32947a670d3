/* open_file.h - opening a file to read that must be a regular file. An
 * input named on the command line or found in a run directory may be a
 * FIFO (whose open and read wait for a writer that never comes), a device
 * (/dev/zero: endless) or a directory; each is refused at once instead. */
#ifndef CB_OPEN_FILE_H
#define CB_OPEN_FILE_H

#include <stdbool.h>

/* A read-only descriptor of `path`, or -1 with errno set (ENOENT, EACCES,
 * ...) when it cannot be opened, or -1 with *not_regular set when it is
 * something other than a regular file. The descriptor blocks as usual. */
int cb_open_regular(const char *path, bool *not_regular);

/* What a caller says when cb_open_regular refused a file. */
#define CB_NOT_REGULAR_TEXT "not a regular file (a directory, FIFO or device)"

#endif
