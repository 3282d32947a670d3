/* sink.c - results.csv / samples.csv writing (columns in docs/schema.md).
 *
 * A point's rows are formatted in memory first and then written with one
 * checked write per file, fsync'd. When the disk is full (or any write,
 * flush or fsync fails) the file is cut back to its length before the point,
 * so what is on disk stays valid CSV holding every earlier point, and the
 * caller stops the run with the message. */
#include "sink.h"

#include "csv_writer.h"
#include "metrics_csv.h"
#include "results_columns.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <math.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const cb_samples_columns[] = {"benchmark",    "axes",     "sample", "time_s",
                                          "cupti_s",      "batch",    "device", "replicate",
                                          "sm_clock_mhz", "throttle", NULL};

/* Append `len` bytes to `fd` and fsync; on any failure cut the file back to
 * `keep` bytes so it ends on a whole row. */
static bool append_durably(int fd, off_t keep, const char *buf, size_t len, const char *path,
                           cb_msg *err)
{
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t w = write(fd, buf + done, len - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            e = w < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)w;
    }
    if (!e && fsync(fd) != 0 && errno != EINVAL) e = errno; /* EINVAL: a pipe or /dev/null */
    if (!e) return true;
    if (ftruncate(fd, keep) != 0) { /* nothing more can be done: say both */
        cb_msg_set(err, "cannot write %s: %s (and cannot cut it back to its last row: %s)", path,
                   strerror(e), strerror(errno));
        return false;
    }
    cb_msg_set(err, "cannot write %s: %s; the file keeps every earlier row", path, strerror(e));
    return false;
}

/* Format rows into memory, then append them in one checked write. */
typedef void (*row_formatter)(FILE *mem, const void *ctx);
static bool write_rows(cb_sink_file *out, row_formatter format, const void *ctx, cb_msg *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        cb_msg_set(err, "out of memory formatting %s", out->path);
        return false;
    }
    format(mem, ctx);
    bool ok = fclose(mem) == 0 && buf;
    if (!ok) {
        free(buf);
        cb_msg_set(err, "out of memory formatting %s", out->path);
        return false;
    }
    ok = append_durably(out->fd, out->length, buf, len, out->path, err);
    if (ok) out->length += (off_t)len;
    free(buf);
    return ok;
}

static void format_results_header(FILE *f, const void *ctx)
{
    (void)ctx;
    cb_csv_row r;
    cb_csv_begin(&r, f);
    for (int i = 0; i < cb_results_column_count; i++)
        cb_csv_str(&r, cb_results_table[i].name);
    cb_csv_end(&r);
}

static void format_result(FILE *f, const void *ctx)
{
    const cb_result *r = ctx;
    cb_csv_row row;
    cb_csv_begin(&row, f);
    for (int i = 0; i < cb_results_column_count; i++)
        cb_results_table[i].write(&row, r);
    cb_csv_end(&row);
}

static void format_samples_header(FILE *f, const void *ctx)
{
    (void)ctx;
    cb_csv_header_line(f, cb_samples_columns);
}

/* Create dir/name, which must not exist yet, and write its header line:
 * false with err set when the path is too long or a step fails. */
static bool create_file(cb_sink_file *f, const char *dir, const char *name, row_formatter header,
                        cb_msg *err)
{
    if (snprintf(f->path, sizeof f->path, "%s/%s", dir, name) >= (int)sizeof f->path) {
        cb_msg_set(err, "output path too long: %s", dir);
        return false;
    }
    f->fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (f->fd < 0) {
        cb_msg_set(err, "cannot write '%s': %s", f->path, strerror(errno));
        return false;
    }
    f->length = 0;
    return write_rows(f, header, NULL, err);
}

/* mkdir -p */
/* mkdir -p; *top_len: the length of the topmost directory of `path` it
 * made (0: it made none), so that a discarded run takes them all back. */
static bool make_dirs(const char *path, size_t *top_len, cb_msg *err)
{
    char tmp[PATH_MAX];
    *top_len = 0;
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        cb_msg_set(err, "output path too long: %s", path);
        return false;
    }
    for (char *p = tmp + 1;; p++) {
        const bool last = *p == '\0';
        if (!last && *p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0777) == 0) {
            if (*top_len == 0) *top_len = strlen(tmp);
        } else if (errno != EEXIST) {
            cb_msg_set(err, "cannot create directory '%s': %s", tmp, strerror(errno));
            return false;
        }
        if (last) return true;
        *p = '/';
    }
}

/* Whether `path` holds nothing; false with *unreadable set (errno kept)
 * when it cannot be listed. */
static bool dir_is_empty(const char *path, bool *unreadable)
{
    *unreadable = false;
    DIR *d = opendir(path);
    if (!d) {
        *unreadable = true;
        return false;
    }
    struct dirent *e;
    bool empty = true;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) empty = false;
    closedir(d);
    return empty;
}

static bool pick_default_dir(char *out, size_t len, cb_msg *err)
{
    char host[64] = "host";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    for (char *c = host; *c; c++)
        if (*c == '/' || *c == ' ') *c = '_';
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    for (int i = 1; i < 1000; i++) {
        if (i == 1)
            snprintf(out, len, "results/%s-%s", stamp, host);
        else
            snprintf(out, len, "results/%s-%s-%d", stamp, host, i);
        struct stat st;
        if (stat(out, &st) != 0) return true;
    }
    cb_msg_set(err, "cannot find a free directory name under results/");
    return false;
}

bool cb_sink_open(cb_sink *s, const char *dir, cb_msg *err)
{
    memset(s, 0, sizeof *s);
    s->results.fd = s->samples.fd = s->metrics.fd = -1;
    if (dir) {
        if (snprintf(s->dir, sizeof s->dir, "%s", dir) >= (int)sizeof s->dir) {
            cb_msg_set(err, "output path too long");
            return false;
        }
        struct stat st;
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                cb_msg_set(err, "--out '%s' exists and is not a directory", dir);
                return false;
            }
            bool unreadable;
            const bool empty = dir_is_empty(dir, &unreadable);
            if (unreadable) {
                cb_msg_set(err, "--out '%s': cannot list it: %s", dir, strerror(errno));
                return false;
            }
            if (!empty) {
                cb_msg_set(err,
                           "--out '%s' already holds files; cubench never overwrites a run "
                           "(choose a new directory)",
                           dir);
                return false;
            }
        }
    } else if (!pick_default_dir(s->dir, sizeof s->dir, err)) {
        return false;
    }
    if (!make_dirs(s->dir, &s->created_top_len, err)) return false;

    cb_sink_file *files[2] = {&s->results, &s->samples};
    const char *names[2] = {"results.csv", "samples.csv"};
    row_formatter headers[2] = {format_results_header, format_samples_header};
    for (int i = 0; i < 2; i++) {
        cb_sink_file *f = files[i];
        f->fd = -1;
        if (!create_file(f, s->dir, names[i], headers[i], err)) {
            cb_sink_discard(s);
            return false;
        }
    }
    return true;
}

typedef struct samples_rows {
    const cb_result *r;
    const double *time_s, *cupti_s;
    int n;
    const cb_sample_extras *x;
} samples_rows;

static void format_samples(FILE *f, const void *ctx)
{
    const samples_rows *sr = ctx;
    const cb_result *r = sr->r;
    const cb_sample_extras *x = sr->x;
    for (int i = 0; i < sr->n; i++) {
        cb_csv_row row;
        cb_csv_begin(&row, f);
        cb_csv_str(&row, r->bench->name);
        cb_csv_str(&row, r->axes);
        cb_csv_int(&row, i);
        cb_csv_num(&row, sr->time_s[i]);
        cb_csv_num(&row, sr->cupti_s ? sr->cupti_s[i] : NAN);
        cb_csv_int(&row, r->batch);
        if (r->device >= 0)
            cb_csv_int(&row, r->device);
        else
            cb_csv_str(&row, NULL);
        if (x && x->replicate)
            cb_csv_int(&row, x->replicate[i]);
        else
            cb_csv_int(&row, 0);
        cb_csv_num(&row, x && x->sm_clock_mhz ? x->sm_clock_mhz[i] : NAN);
        cb_csv_str(&row, x && x->throttle ? x->throttle[i] : NULL);
        cb_csv_end(&row);
    }
}

static void format_metrics_header(FILE *f, const void *ctx)
{
    (void)ctx;
    cb_metrics_csv_header(f);
}

static void format_metrics(FILE *f, const void *ctx)
{
    cb_metrics_csv_rows(f, ctx);
}

/* metrics.csv appears with the first point whose counters were collected. */
static bool write_metrics(cb_sink *s, const cb_result *r, cb_msg *err)
{
    if (!cb_metrics_csv_has_rows(r)) return true;
    cb_sink_file *f = &s->metrics;
    if (f->fd < 0 && !create_file(f, s->dir, "metrics.csv", format_metrics_header, err))
        return false;
    return write_rows(f, format_metrics, r, err);
}

bool cb_sink_write_point(cb_sink *s, const cb_result *r, const double *time_s,
                         const double *cupti_s, int n, const cb_sample_extras *extras, cb_msg *err)
{
    if (s->failed) {
        cb_msg_set(err, "the run's files could not be written earlier");
        return false;
    }
    samples_rows sr = {r, time_s, cupti_s, n, extras};
    /* Samples and metrics first: a results row never names rows that are
     * not on disk. */
    bool ok = (n <= 0 || write_rows(&s->samples, format_samples, &sr, err)) &&
              write_metrics(s, r, err) && write_rows(&s->results, format_result, r, err);
    if (!ok) s->failed = true;
    return ok;
}

typedef struct results_rows {
    const cb_result *rows;
    int n;
} results_rows;

static void format_results(FILE *f, const void *ctx)
{
    const results_rows *rr = ctx;
    format_results_header(f, NULL);
    for (int i = 0; i < rr->n; i++)
        format_result(f, &rr->rows[i]);
}

bool cb_sink_rewrite_results(cb_sink *s, const cb_result *rows, int n, cb_msg *err)
{
    if (s->failed || s->results.fd < 0) {
        cb_msg_set(err, "results.csv could not be written earlier");
        return false;
    }
    cb_sink_file next = {.fd = -1, .length = 0};
    if (snprintf(next.path, sizeof next.path, "%s/.results.csv.tmp", s->dir) >=
        (int)sizeof next.path) {
        cb_msg_set(err, "output path too long: %s", s->dir);
        return false;
    }
    next.fd = open(next.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (next.fd < 0) {
        cb_msg_set(err, "cannot write '%s': %s", next.path, strerror(errno));
        return false;
    }
    const results_rows rr = {rows, n};
    if (!write_rows(&next, format_results, &rr, err)) {
        close(next.fd);
        unlink(next.path);
        return false;
    }
    if (rename(next.path, s->results.path) != 0) {
        cb_msg_set(err, "cannot replace '%s': %s", s->results.path, strerror(errno));
        close(next.fd);
        unlink(next.path);
        return false;
    }
    /* The new file is results.csv from here on (a later row appends to it). */
    close(s->results.fd);
    snprintf(next.path, sizeof next.path, "%s", s->results.path);
    s->results = next;
    int dir = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        (void)fsync(dir); /* the rename itself durable; a failure here loses nothing */
        close(dir);
    }
    return true;
}

void cb_sink_close(cb_sink *s)
{
    cb_sink_file *files[3] = {&s->results, &s->samples, &s->metrics};
    for (int i = 0; i < 3; i++) {
        if (files[i]->fd >= 0) close(files[i]->fd);
        files[i]->fd = -1;
    }
}

void cb_sink_discard(cb_sink *s)
{
    cb_sink_close(s);
    cb_sink_file *files[3] = {&s->results, &s->samples, &s->metrics};
    for (int i = 0; i < 3; i++)
        if (files[i]->path[0]) unlink(files[i]->path);
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s/.meta.json.tmp", s->dir);
    unlink(tmp);
    snprintf(tmp, sizeof tmp, "%s/meta.json", s->dir);
    unlink(tmp);
    /* the directories this run made, deepest first; rmdir takes only the
     * empty ones */
    if (s->created_top_len == 0) return;
    snprintf(tmp, sizeof tmp, "%s", s->dir);
    while (strlen(tmp) >= s->created_top_len && rmdir(tmp) == 0) {
        char *slash = strrchr(tmp, '/');
        if (!slash || slash == tmp) break;
        *slash = '\0';
    }
}
