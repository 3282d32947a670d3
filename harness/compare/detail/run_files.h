/* run_files.h - the bytes of a run directory's CSV files, plain or packed.
 *
 * A run's `samples.csv` may be kept as `samples.csv.xz` (the recorded runs
 * in tests/data are, and the reports read both). The judge reads the packed
 * file through the `xz` program (`xz -dc`, spawned without a shell) rather
 * than liblzma: the GPU machines the suite is built on often have no
 * network to fetch another -dev package (jansson already has to be
 * carried), while `xz` is on every Debian/Ubuntu install and is what the
 * README tells users to pack and unpack runs with. Without it the message
 * says so and how to unpack the file by hand.
 *
 * The bytes are also hashed (FNV-1a, 64 bits): two directories whose
 * samples hash alike are copies of one run, never two processes. */
#ifndef CB_RUN_FILES_H
#define CB_RUN_FILES_H

#include "cb_common.h"
#include "csv_reader.h"

#include <stdint.h>

/* A packed file that unpacks to more than this is not a run's CSV. */
#define CB_RUN_FILE_MAX_BYTES ((size_t)4 << 30)

/* DIR/NAME, or else DIR/NAME.xz, parsed. *hash receives the FNV-1a hash of
 * the (unpacked) bytes when `hash` is not NULL. When neither file exists:
 * NULL with *missing true (err says which). NULL with err set on any other
 * failure: unreadable, not CSV, xz missing or failing, too large. */
cb_csv *cb_run_csv_read(const char *dir, const char *name, uint64_t *hash, bool *missing,
                        cb_msg *err);

/* The whole file at `path` (at most `max` bytes), NUL-terminated; NULL with
 * *missing true when it does not exist, NULL with err set when unreadable or
 * larger than `max`. */
char *cb_run_file_text(const char *path, size_t max, size_t *len, bool *missing, cb_msg *err);

#endif
