/* sink.c - results.csv / samples.csv writing (columns in docs/schema.md). */
#include "sink.h"

#include "csv_writer.h"

#include <errno.h>
#include <math.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const cb_results_columns[] = {
    "schema_version", "benchmark",   "family",         "axes",         "status",    "reason",
    "timer",          "cache",       "batch",          "samples",      "median_s",  "min_s",
    "max_s",          "q1_s",        "q3_s",           "mean_s",       "stddev_s",  "ci_lo_s",
    "ci_hi_s",        "ci_rel_half", "cupti_median_s", "overhead_s",   "kernels",   "bytes",
    "flops",          "gbps",        "tflops",         "peak",         "peak_unit", "pct_peak",
    "ref_benchmark",  "pct_ref",     "occupancy",      "verify_error", "note",      NULL};

const char *const cb_samples_columns[] = {"benchmark", "axes",  "sample", "time_s",
                                          "cupti_s",   "batch", NULL};

static void write_header(FILE *f, const char *const *cols)
{
    cb_csv_row r;
    cb_csv_begin(&r, f);
    for (int i = 0; cols[i]; i++)
        cb_csv_str(&r, cols[i]);
    cb_csv_end(&r);
}

/* mkdir -p */
static bool make_dirs(const char *path, cb_msg *err)
{
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        cb_msg_set(err, "output path too long: %s", path);
        return false;
    }
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            cb_msg_set(err, "cannot create directory '%s': %s", tmp, strerror(errno));
            return false;
        }
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
        cb_msg_set(err, "cannot create directory '%s': %s", tmp, strerror(errno));
        return false;
    }
    return true;
}

static bool dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return false;
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
            if (!dir_is_empty(dir)) {
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
    if (!make_dirs(s->dir, err)) return false;

    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/results.csv", s->dir);
    s->results = fopen(path, "w");
    if (!s->results) {
        cb_msg_set(err, "cannot write '%s': %s", path, strerror(errno));
        return false;
    }
    snprintf(path, sizeof path, "%s/samples.csv", s->dir);
    s->samples = fopen(path, "w");
    if (!s->samples) {
        cb_msg_set(err, "cannot write '%s': %s", path, strerror(errno));
        fclose(s->results);
        s->results = NULL;
        return false;
    }
    write_header(s->results, cb_results_columns);
    write_header(s->samples, cb_samples_columns);
    fflush(s->results);
    fflush(s->samples);
    return true;
}

/* Make the rows durable before the next point starts: a crash in a later
 * point (or the machine going away) keeps everything written so far. */
static void commit(FILE *f)
{
    fflush(f);
    fsync(fileno(f));
}

void cb_sink_write_samples(cb_sink *s, const cb_result *r, const double *time_s,
                           const double *cupti_s, int n)
{
    for (int i = 0; i < n; i++) {
        cb_csv_row row;
        cb_csv_begin(&row, s->samples);
        cb_csv_str(&row, r->bench->name);
        cb_csv_str(&row, r->axes);
        cb_csv_int(&row, i);
        cb_csv_num(&row, time_s[i]);
        cb_csv_num(&row, cupti_s ? cupti_s[i] : NAN);
        cb_csv_int(&row, r->batch);
        cb_csv_end(&row);
    }
    commit(s->samples);
}

void cb_sink_write_result(cb_sink *s, const cb_result *r)
{
    const cb_summary *m = &r->summary;
    bool timed = m->n > 0;
    char family[64];
    const char *slash = strchr(r->bench->name, '/');
    size_t flen = slash ? (size_t)(slash - r->bench->name) : strlen(r->bench->name);
    if (flen >= sizeof family) flen = sizeof family - 1;
    memcpy(family, r->bench->name, flen);
    family[flen] = '\0';

    cb_csv_row row;
    cb_csv_begin(&row, s->results);
    cb_csv_int(&row, CB_SCHEMA_VERSION);
    cb_csv_str(&row, r->bench->name);
    cb_csv_str(&row, family);
    cb_csv_str(&row, r->axes);
    cb_csv_str(&row, cb_status_name(r->status));
    cb_csv_str(&row, r->reason);
    cb_csv_str(&row, r->timer);
    cb_csv_str(&row, r->cache);
    if (timed)
        cb_csv_int(&row, r->batch);
    else
        cb_csv_str(&row, NULL);
    cb_csv_int(&row, m->n);
    double nan = NAN;
    cb_csv_num(&row, timed ? m->median : nan);
    cb_csv_num(&row, timed ? m->min : nan);
    cb_csv_num(&row, timed ? m->max : nan);
    cb_csv_num(&row, timed ? m->q1 : nan);
    cb_csv_num(&row, timed ? m->q3 : nan);
    cb_csv_num(&row, timed ? m->mean : nan);
    cb_csv_num(&row, timed ? m->stddev : nan);
    cb_csv_num(&row, timed ? m->ci_lo : nan);
    cb_csv_num(&row, timed ? m->ci_hi : nan);
    cb_csv_num(&row, timed ? m->ci_rel_half : nan);
    cb_csv_num(&row, r->cupti_median_s);
    cb_csv_num(&row, timed ? m->median - r->cupti_median_s : nan);
    cb_csv_str(&row, r->kernels);
    cb_csv_num(&row, r->bytes);
    cb_csv_num(&row, r->flops);
    cb_csv_num(&row, r->gbps);
    cb_csv_num(&row, r->tflops);
    cb_csv_num(&row, r->peak);
    cb_csv_str(&row, r->peak_unit);
    cb_csv_num(&row, r->pct_peak);
    cb_csv_str(&row, r->ref_benchmark);
    cb_csv_num(&row, r->pct_ref);
    cb_csv_num(&row, r->occupancy);
    cb_csv_num(&row, r->verify_error);
    cb_csv_str(&row, r->note);
    cb_csv_end(&row);
    commit(s->results);
}

void cb_sink_close(cb_sink *s)
{
    if (s->results) fclose(s->results);
    if (s->samples) fclose(s->samples);
    s->results = s->samples = NULL;
}
