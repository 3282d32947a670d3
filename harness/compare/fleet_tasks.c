/* fleet_tasks.c - the task records of a Slurm array in DIR/_fleet/
 * (fleet_load.h). Only the records are kept (sorted by id) and the expected
 * tasks without one as ranges: a stray record of task 3,999,999 costs one
 * record, not a report line for every id below it. */
#include "fleet_load.h"
#include "fleet_util.h"

#include "csv_reader.h"
#include "open_file.h"
#include "parse_number.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* More array tasks than any Slurm allows (MaxArraySize is at most 4000001). */
#define TASKS_MAX 4000000
/* A task record is one header and one short row. */
#define TASK_FILE_MAX 65536

/* The id of a record's file name "task-ID.csv" (ID as Slurm writes it: no
 * sign, no leading zero), or -1 when the name is not a record's. */
static int name_id(const char *name)
{
    static const char prefix[] = "task-", suffix[] = ".csv";
    size_t len = strlen(name), pre = sizeof prefix - 1, suf = sizeof suffix - 1;
    if (len <= pre + suf || strncmp(name, prefix, pre) != 0 || strcmp(name + len - suf, suffix))
        return -1;
    char digits[16];
    size_t n = len - pre - suf;
    if (n >= sizeof digits || (n > 1 && name[pre] == '0')) return -1;
    memcpy(digits, name + pre, n);
    digits[n] = '\0';
    long long id;
    return strspn(digits, "0123456789") == n && cb_parse_int(digits, 0, TASKS_MAX, &id, NULL)
               ? (int)id
               : -1;
}

static bool read_expected(cb_fleet *f, const char *fleet_dir, cb_msg *err)
{
    char path[PATH_MAX];
    if (!cb_fleet_join(path, sizeof path, fleet_dir, "expected", err)) return false;
    bool not_regular;
    const int fd = cb_open_regular(path, &not_regular);
    FILE *fp = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!fp) {
        if (fd >= 0) close(fd);
        if (!not_regular && errno == ENOENT) return true;
        cb_msg_set(err, "%s: %s", path, not_regular ? CB_NOT_REGULAR_TEXT : strerror(errno));
        return false;
    }
    char text[64] = "";
    bool got = fgets(text, sizeof text, fp) != NULL;
    fclose(fp);
    text[strcspn(text, "\r\n ")] = '\0';
    long long v;
    if (!got || !cb_parse_int(text, 0, TASKS_MAX, &v, NULL)) {
        cb_msg_set(err, "%s: expected a task count (0 to %d)", path, TASKS_MAX);
        return false;
    }
    f->expected = (int)v;
    return true;
}

static void copy_field(const cb_csv *csv, const char *col, char *out, size_t len)
{
    int c = cb_csv_col(csv, col);
    snprintf(out, len, "%s", c >= 0 ? cb_csv_get(csv, 0, c) : "");
}

/* Fill a record from its parsed file; false (err set) when it is not one. */
static bool take_record(cb_fleet_task *t, const cb_csv *csv, int file_id, cb_msg *err)
{
    static const char *const need[] = {"task", "state"};
    int col[2];
    long long id;
    if (!cb_csv_require(csv, need, 2, col, err)) return false;
    if (cb_csv_rows(csv) != 1) {
        cb_msg_set(err, "%s: expected one task row, found %d", cb_csv_name(csv), cb_csv_rows(csv));
        return false;
    }
    if (!cb_parse_int(cb_csv_get(csv, 0, col[0]), 0, TASKS_MAX, &id, NULL) || id != file_id) {
        cb_msg_set(err,
                   "%s: task '%.40s' is not this record's task id (%d): two records of one "
                   "task, or not a record",
                   cb_csv_name(csv), cb_csv_get(csv, 0, col[0]), file_id);
        return false;
    }
    t->id = (int)id;
    copy_field(csv, "state", t->state, sizeof t->state);
    if (!t->state[0]) snprintf(t->state, sizeof t->state, "?");
    copy_field(csv, "exit_code", t->exit_code, sizeof t->exit_code);
    copy_field(csv, "node", t->node, sizeof t->node);
    copy_field(csv, "job", t->job, sizeof t->job);
    copy_field(csv, "reason", t->reason, sizeof t->reason);
    int rd = cb_csv_col(csv, "run_dir");
    t->run_dir = strdup(rd >= 0 ? cb_csv_get(csv, 0, rd) : "");
    return t->run_dir != NULL || cb_fleet_oom(err);
}

static bool read_record(cb_fleet *f, const char *fleet_dir, const char *name, int id, int *cap,
                        cb_msg *err)
{
    char path[PATH_MAX];
    struct stat st;
    if (!cb_fleet_join(path, sizeof path, fleet_dir, name, err)) return false;
    if (stat(path, &st) == 0 && st.st_size > TASK_FILE_MAX) {
        cb_msg_set(err, "%s: %lld bytes: not a task record", path, (long long)st.st_size);
        return false;
    }
    cb_fleet_task *grown = cb_grow_array(f->tasks, f->n_tasks, cap, 16, sizeof *grown);
    if (!grown) return cb_fleet_oom(err);
    f->tasks = grown;
    cb_fleet_task *t = &f->tasks[f->n_tasks];
    memset(t, 0, sizeof *t);
    cb_csv *csv = cb_csv_read_file(path, err);
    bool ok = csv && take_record(t, csv, id, err);
    cb_csv_free(csv);
    if (ok)
        f->n_tasks++;
    else
        free(t->run_dir);
    return ok;
}

static int cmp_task(const void *a, const void *b)
{
    const cb_fleet_task *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* The expected ids without a record, as ranges (records are sorted). */
static bool find_gaps(cb_fleet *f, cb_msg *err)
{
    if (f->expected <= 0) return true;
    f->gaps = malloc(((size_t)f->n_tasks + 1) * sizeof *f->gaps);
    if (!f->gaps) return cb_fleet_oom(err);
    int next = 0;
    for (int t = 0; t <= f->n_tasks; t++) {
        int id = t < f->n_tasks ? f->tasks[t].id : f->expected;
        if (id > f->expected) id = f->expected;
        if (id > next) f->gaps[f->n_gaps++] = (cb_fleet_gap){next, id - 1};
        if (id + 1 > next) next = id + 1;
    }
    return true;
}

bool cb_fleet_read_tasks(cb_fleet *f, const char *dir, cb_msg *err)
{
    char fleet_dir[PATH_MAX];
    struct stat st;
    if (!cb_fleet_join(fleet_dir, sizeof fleet_dir, dir, "_fleet", err)) return false;
    if (stat(fleet_dir, &st) != 0 || !S_ISDIR(st.st_mode)) return true;
    if (!read_expected(f, fleet_dir, err)) return false;
    DIR *d = opendir(fleet_dir);
    if (!d) {
        cb_msg_set(err, "%s: %s", fleet_dir, strerror(errno));
        return false;
    }
    bool ok = true;
    int cap = 0;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        int id = name_id(e->d_name);
        if (id >= 0) ok = read_record(f, fleet_dir, e->d_name, id, &cap, err);
    }
    closedir(d);
    if (ok) qsort(f->tasks, (size_t)f->n_tasks, sizeof *f->tasks, cmp_task);
    return ok && find_gaps(f, err);
}
