/* cb_test_files.h - files for the C tests: a temporary directory, write a
 * text, read a file whole.
 *
 *   char root[] = "/tmp/cb_NAME_XXXXXX";
 *   if (!cb_test_temp_dir(root)) return 1;
 *   CB_CHECK(cb_test_write_text(path, "text"));
 *   char *text = cb_test_read_all(path, &len);   malloc'd: free it
 *   CB_CHECK(cb_test_remove_tree(root));
 */
#ifndef CB_TEST_FILES_H
#define CB_TEST_FILES_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Make the template `dir` (ending in XXXXXX, changed in place) a fresh
 * directory: tests write only there. False, with the reason on stderr,
 * when it cannot be made. */
static inline bool cb_test_temp_dir(char *dir)
{
    if (mkdtemp(dir)) return true;
    perror("mkdtemp");
    return false;
}

/* Remove a test's directory and everything in it; false when that failed. */
static inline bool cb_test_remove_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0;
}

/* Write `text` to `path` (replacing it); false when any step failed. */
static inline bool cb_test_write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

/* The whole file, NUL-terminated (malloc'd), its size in *len when len is
 * not NULL; NULL when it cannot be opened or memory runs out. */
static inline char *cb_test_read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1) break; /* end of file (or an error): what was read */
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) free(buf);
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    if (!buf) return NULL;
    buf[n] = '\0';
    if (len) *len = n;
    return buf;
}

#endif
