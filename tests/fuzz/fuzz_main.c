/* fuzz_main.c - run a fuzz target over files, without libFuzzer.
 *
 * Each argument is a file or a directory whose files (not subdirectories)
 * are inputs; each input goes once through LLVMFuzzerTestOneInput. CI links
 * every target with this main and runs it over its checked-in corpus
 * (tests/CMakeLists.txt), so the targets' properties are regression tests
 * on any compiler. A property violation aborts; an argument that cannot be
 * read, or no input at all, exits 2; otherwise 0.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int n_inputs;

/* Feed one file; 0 when it cannot be read, else 1. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 0;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
        len += got;
        if (len == cap) {
            uint8_t *bigger = realloc(buf, cap * 2);
            if (!bigger) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = bigger;
            cap *= 2;
        }
    }
    int ok = buf != NULL && !ferror(f);
    fclose(f);
    if (!ok) {
        fprintf(stderr, "%s: cannot read\n", path);
        free(buf);
        return 0;
    }
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    n_inputs++;
    return 1;
}

static int run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 0;
    }
    int ok = 1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) ok &= run_file(path);
    }
    closedir(d);
    return ok;
}

int main(int argc, char **argv)
{
    int ok = 1;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            ok = 0;
        } else {
            ok &= S_ISDIR(st.st_mode) ? run_dir(argv[i]) : run_file(argv[i]);
        }
    }
    printf("%s: %d inputs\n", argv[0], n_inputs);
    return ok && n_inputs > 0 ? 0 : 2;
}
