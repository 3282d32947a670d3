/* run_files.c - a run's CSV files, plain or through `xz -dc` (why not
 * liblzma: run_files.h). */
#include "run_files.h"

#include "open_file.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* Read all of `fd` (at most `max` bytes) into a NUL-terminated buffer.
 * False with *too_big, or errno set, on failure. */
static char *read_fd(int fd, size_t max, size_t *len, bool *too_big)
{
    size_t cap = 1 << 16, used = 0;
    char *buf = malloc(cap + 1);
    *too_big = false;
    while (buf) {
        if (used == cap) {
            if (cap >= max) {
                *too_big = true;
                break;
            }
            size_t next = cap * 2 > max ? max : cap * 2;
            char *grown = realloc(buf, next + 1);
            if (!grown) break;
            buf = grown;
            cap = next;
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        if (got == 0) {
            buf[used] = '\0';
            *len = used;
            return buf;
        }
        used += (size_t)got;
    }
    free(buf);
    return NULL;
}

char *cb_run_file_text(const char *path, size_t max, size_t *len, bool *missing, cb_msg *err)
{
    *missing = false;
    bool not_regular;
    int fd = cb_open_regular(path, &not_regular);
    if (fd < 0) {
        *missing = !not_regular && errno == ENOENT;
        cb_msg_set(err, "%s: %s", path, not_regular ? CB_NOT_REGULAR_TEXT : strerror(errno));
        return NULL;
    }
    bool too_big;
    char *text = read_fd(fd, max, len, &too_big);
    int saved = errno;
    close(fd);
    if (!text)
        cb_msg_set(err, "%s: %s", path,
                   too_big ? "larger than any run's file: not a cubench run" : strerror(saved));
    return text;
}

/* The output of `xz -dc` over the file `in` (opened by the caller, so that
 * a file that cannot be read says why, not that xz failed). */
static char *unpack_xz(const char *path, int in, size_t *len, cb_msg *err)
{
    int pipe_fd[2];
    if (pipe(pipe_fd) != 0) {
        cb_msg_set(err, "%s: pipe: %s", path, strerror(errno));
        close(in);
        return NULL;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&fa, pipe_fd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, pipe_fd[0]);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)"xz", (char *)"-dc", NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "xz", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipe_fd[1]);
    close(in);
    if (rc != 0) {
        close(pipe_fd[0]);
        cb_msg_set(err,
                   "%s: reading a .xz file needs the xz program (%s; Debian/Ubuntu: xz-utils), "
                   "or unpack it first: xz -dk %s",
                   path, strerror(rc), path);
        return NULL;
    }
    bool too_big;
    char *text = read_fd(pipe_fd[0], CB_RUN_FILE_MAX_BYTES, len, &too_big);
    int saved = errno;
    close(pipe_fd[0]); /* a child cut short by this gets SIGPIPE, which is fine */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (text && exited_ok) return text;
    if (too_big)
        cb_msg_set(err, "%s: unpacks to more than %zu GiB: not a cubench run", path,
                   CB_RUN_FILE_MAX_BYTES >> 30);
    else if (!text)
        cb_msg_set(err, "%s: reading xz's output: %s", path, strerror(saved));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        cb_msg_set(err, "%s: reading a .xz file needs the xz program (Debian/Ubuntu: xz-utils)",
                   path);
    else
        cb_msg_set(err, "%s: xz -dc failed (%s %d): a damaged or incomplete .xz file", path,
                   WIFEXITED(status) ? "exit" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    free(text);
    return NULL;
}

cb_csv *cb_run_csv_read(const char *dir, const char *name, uint64_t *hash, bool *missing,
                        cb_msg *err)
{
    char path[4096];
    size_t len = 0;
    int n = snprintf(path, sizeof path, "%s/%s", dir, name);
    if (n < 0 || (size_t)n + 4 >= sizeof path) {
        cb_msg_set(err, "%.200s/%s: path too long", dir, name);
        *missing = false;
        return NULL;
    }
    char *text = cb_run_file_text(path, CB_RUN_FILE_MAX_BYTES, &len, missing, err);
    if (!text && *missing) {
        strcat(path, ".xz"); /* room kept above */
        bool not_regular;
        const int in = cb_open_regular(path, &not_regular);
        if (in >= 0) {
            *missing = false;
            text = unpack_xz(path, in, &len, err);
        } else if (not_regular || errno != ENOENT) {
            *missing = false;
            cb_msg_set(err, "%s: %s", path, not_regular ? CB_NOT_REGULAR_TEXT : strerror(errno));
        } else {
            path[n] = '\0';
            cb_msg_set(err, "%s: no such file (nor %s.xz)", path, name);
        }
    }
    if (!text) return NULL;
    if (hash) *hash = fnv1a(text, len);
    cb_csv *csv = cb_csv_parse(text, len, path, err);
    free(text);
    return csv;
}
