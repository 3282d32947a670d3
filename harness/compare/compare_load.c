/* compare_load.c - a run directory into a side: the duplicate check, then
 * results.csv's rows, then samples.csv's (compare_load.h). Every step is
 * linear in the input: a hostile header of 100 000 columns must not take
 * minutes. */
#include "compare_load.h"

#include "parse_number.h"
#include "run_files.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The largest replicate index accepted (a run of more rounds is absurd). */
#define CB_CMP_MAX_REPLICATE 1000000
/* More devices than any machine has: a run claiming more is not ours. */
#define CB_CMP_MAX_DEVICES 64

/* The numeric results.csv columns a point keeps (cb_cmp_facts). */
static const struct fact_column {
    const char *name;
    size_t offset;
} fact_columns[] = {
    {"bytes", offsetof(cb_cmp_facts, bytes)},
    {"flops", offsetof(cb_cmp_facts, flops)},
    {"sm_clock_min_mhz", offsetof(cb_cmp_facts, sm_clock_min_mhz)},
    {"sm_clock_median_mhz", offsetof(cb_cmp_facts, sm_clock_median_mhz)},
    {"sm_clock_max_mhz", offsetof(cb_cmp_facts, sm_clock_max_mhz)},
    {"mem_clock_median_mhz", offsetof(cb_cmp_facts, mem_clock_median_mhz)},
    {"power_mean_w", offsetof(cb_cmp_facts, power_mean_w)},
    {"temp_max_c", offsetof(cb_cmp_facts, temp_max_c)},
    {"setup_s", offsetof(cb_cmp_facts, setup_s)},
    {"verify_s", offsetof(cb_cmp_facts, verify_s)},
    {"warmup_s", offsetof(cb_cmp_facts, warmup_s)},
    {"sampling_s", offsetof(cb_cmp_facts, sampling_s)},
    {"teardown_s", offsetof(cb_cmp_facts, teardown_s)},
    {"throttled_samples", offsetof(cb_cmp_facts, throttled_samples)},
    {"throttle_wait_s", offsetof(cb_cmp_facts, throttle_wait_s)},
    {"median_s", offsetof(cb_cmp_facts, median_s)},
    {"ci_lo_s", offsetof(cb_cmp_facts, ci_lo_s)},
    {"ci_hi_s", offsetof(cb_cmp_facts, ci_hi_s)},
};
#define N_FACTS ((int)CB_ARRAY_LEN(fact_columns))

/* The columns of one results.csv (-1: absent). */
typedef struct results_cols {
    int need[4]; /* schema_version, benchmark, axes, status */
    int reason, timer, batch, throttle, family, device, uuid, kind, key_figure, key_rule;
    int facts[N_FACTS];
} results_cols;

/* What loading one directory reads before anything is added to the run. */
typedef struct dir_input {
    const char *path;
    char *real_path;
    cb_cmp_meta meta;
    cb_csv *results, *samples;
    uint64_t samples_hash;
    char frameworks[512]; /* ",torch,cupy," from python.json */
} dir_input;

bool cb_cmp_throttling_word(const cb_cmp_dir *d, const char *word, size_t len)
{
    static const char *const benign[] = {"none", "gpu_idle", "applications_clocks_setting",
                                         "display_clock_setting"};
    if (len == 0) return false;
    if (d->meta.n_counted > 0) {
        for (int i = 0; i < d->meta.n_counted; i++)
            if (strlen(d->meta.counted[i]) == len && strncmp(d->meta.counted[i], word, len) == 0)
                return true;
        return false;
    }
    for (int i = 0; i < CB_ARRAY_LEN(benign); i++)
        if (strlen(benign[i]) == len && strncmp(word, benign[i], len) == 0) return false;
    return true;
}

/* The words of a `throttle` cell that count as throttling, joined by '+'
 * into `out` (empty when none do). */
static void throttling_words(const cb_cmp_dir *d, const char *cell, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *w = cell; *w;) {
        size_t n = strcspn(w, "+");
        if (cb_cmp_throttling_word(d, w, n) && used + n + 2 < len)
            used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? "+" : "", (int)n, w);
        w += n + (w[n] == '+');
    }
}

static bool any_throttling_word(const cb_cmp_dir *d, const char *cell)
{
    for (const char *w = cell; *w;) {
        size_t n = strcspn(w, "+");
        if (cb_cmp_throttling_word(d, w, n)) return true;
        w += n + (w[n] == '+');
    }
    return false;
}

/* The throttling words of a cell become the point's (when it has none). */
static bool note_words(const cb_cmp_dir *d, cb_cmp_point *p, const char *cell, cb_msg *err)
{
    char words[256];
    throttling_words(d, cell, words, sizeof words);
    if (!words[0] || (p->throttle = strdup(words)) != NULL) return true;
    cb_msg_set(err, "out of memory");
    return false;
}

/* An optional column's text in row r, "" when the column is absent. */
static const char *optional(const cb_csv *csv, int r, int col)
{
    return col >= 0 ? cb_csv_get(csv, r, col) : "";
}

/* ---- results.csv ---------------------------------------------------------- */

static bool find_results_cols(const cb_csv *csv, results_cols *c, cb_msg *err)
{
    static const char *const need[] = {"schema_version", "benchmark", "axes", "status"};
    if (!cb_csv_require(csv, need, 4, c->need, err)) return false;
    c->reason = cb_csv_col(csv, "reason");
    c->timer = cb_csv_col(csv, "timer");
    c->batch = cb_csv_col(csv, "batch");
    c->throttle = cb_csv_col(csv, "throttle");
    c->family = cb_csv_col(csv, "family");
    c->device = cb_csv_col(csv, "device");
    c->uuid = cb_csv_col(csv, "device_uuid");
    c->kind = cb_csv_col(csv, "kind");
    c->key_figure = cb_csv_col(csv, "key_figure");
    c->key_rule = cb_csv_col(csv, "key_rule");
    for (int i = 0; i < N_FACTS; i++)
        c->facts[i] = cb_csv_col(csv, fact_columns[i].name);
    return true;
}

/* The distinct `device` values of the rows, in order of first appearance
 * (the first few kept in the directory with their UUIDs). */
static bool scan_devices(const cb_csv *csv, const results_cols *c, cb_cmp_dir *d, cb_msg *err)
{
    char seen[CB_CMP_MAX_DEVICES][CB_CMP_DEVICE_LEN];
    d->n_devices = 0;
    for (int r = 0; c->device >= 0 && r < cb_csv_rows(csv); r++) {
        const char *v = cb_csv_get(csv, r, c->device);
        bool known = !*v;
        for (int i = 0; !known && i < d->n_devices; i++)
            known = strcmp(seen[i], v) == 0;
        if (known) continue;
        if (d->n_devices == CB_CMP_MAX_DEVICES || strlen(v) >= CB_CMP_DEVICE_LEN) {
            cb_msg_set(err, "%s:%ld: device '%.20s': more than %d devices, or not an ordinal",
                       cb_csv_name(csv), cb_csv_line(csv, r), v, CB_CMP_MAX_DEVICES);
            return false;
        }
        snprintf(seen[d->n_devices], sizeof seen[0], "%s", v);
        if (d->n_devices < 4) {
            snprintf(d->devices[d->n_devices], sizeof d->devices[0], "%s", v);
            snprintf(d->uuids[d->n_devices], sizeof d->uuids[0], "%s", optional(csv, r, c->uuid));
        }
        d->n_devices++;
    }
    return true;
}

static bool check_row(const cb_csv *csv, int r, const results_cols *c, cb_cmp_dir *d, cb_msg *err)
{
    const char *version = cb_csv_get(csv, r, c->need[0]);
    long long v;
    if (!cb_parse_int(version, 1, CB_CMP_SCHEMA_MAX, &v, NULL)) {
        cb_msg_set(err, "%s:%ld: schema_version is '%.20s'; this cubench reads versions 1 to %d",
                   cb_csv_name(csv), cb_csv_line(csv, r), version, CB_CMP_SCHEMA_MAX);
        return false;
    }
    if (r == 0 || v < d->schema) d->schema = (int)v;
    if (!*cb_csv_get(csv, r, c->need[1])) {
        cb_msg_set(err, "%s:%ld: empty benchmark name", cb_csv_name(csv), cb_csv_line(csv, r));
        return false;
    }
    return true;
}

/* The kind of row r: declared (v3), else by the rules of compare_kind.h. */
static bool row_kind(const cb_csv *csv, int r, const results_cols *c, const dir_input *in,
                     cb_cmp_point *p, cb_msg *err)
{
    const char *declared = optional(csv, r, c->kind);
    if (*declared) {
        p->kind_declared = true;
        if (cb_cmp_kind_parse(declared, &p->kind)) {
            p->kind = cb_cmp_kind_read_declared(p->kind, p->axes);
            return true;
        }
        cb_msg_set(err, "%s:%ld: kind '%.20s': expected %s", cb_csv_name(csv), cb_csv_line(csv, r),
                   declared, cb_cmp_kind_list);
        return false;
    }
    char family[128];
    const char *fam = optional(csv, r, c->family);
    if (!*fam) fam = p->benchmark;
    snprintf(family, sizeof family, ",%.*s,", (int)strcspn(fam, "/"), fam);
    cb_cmp_kind_facts f = {.family = family,
                           .axes = p->axes,
                           .timer = optional(csv, r, c->timer),
                           .has_device_col = c->device >= 0,
                           .device = optional(csv, r, c->device),
                           .python_family = strstr(in->frameworks, family) != NULL};
    p->kind = cb_cmp_kind_infer(&f);
    return true;
}

static bool row_key_figure(const cb_csv *csv, int r, const results_cols *c, cb_cmp_point *p,
                           cb_msg *err)
{
    const char *name = optional(csv, r, c->key_figure), *rule = optional(csv, r, c->key_rule);
    if (!*name) return true;
    if (strcmp(rule, "best") == 0 || !*rule) {
        p->key_rule = CB_CMP_KEY_BEST;
    } else if (strcmp(rule, "largest") == 0) {
        p->key_rule = CB_CMP_KEY_LARGEST;
    } else {
        cb_msg_set(err, "%s:%ld: key_rule '%.20s': expected best or largest", cb_csv_name(csv),
                   cb_csv_line(csv, r), rule);
        return false;
    }
    p->key_figure = strdup(name);
    if (!p->key_figure) cb_msg_set(err, "out of memory");
    return p->key_figure != NULL;
}

/* Every fact is a count, a size, a clock, a power, a temperature or a
 * time: finite and not negative; the median and its interval, times of a
 * run, above 0 (a history stores them as the point's figures). */
static bool row_facts(const cb_csv *csv, int r, const results_cols *c, cb_cmp_facts *f, cb_msg *err)
{
    for (int i = 0; i < N_FACTS; i++) {
        double *dst = (double *)((char *)f + fact_columns[i].offset);
        *dst = NAN;
        if (c->facts[i] < 0 || !*cb_csv_get(csv, r, c->facts[i])) continue;
        if (!cb_csv_get_double(csv, r, c->facts[i], dst, err)) return false;
        const bool is_time = fact_columns[i].offset == offsetof(cb_cmp_facts, median_s) ||
                             fact_columns[i].offset == offsetof(cb_cmp_facts, ci_lo_s) ||
                             fact_columns[i].offset == offsetof(cb_cmp_facts, ci_hi_s);
        if (isfinite(*dst) && (is_time ? *dst > 0.0 : *dst >= 0.0)) continue;
        cb_msg_set(err, "%s:%ld: %s '%.40s' is not a%s finite number", cb_csv_name(csv),
                   cb_csv_line(csv, r), fact_columns[i].name, cb_csv_get(csv, r, c->facts[i]),
                   is_time ? " positive" : " non-negative");
        return false;
    }
    return true;
}

/* Timer, batch and throttle words of a timed row (the first directory
 * that timed the point gives the timer, key figure and the numbers; the
 * batch is the smallest). */
static bool describe(const cb_csv *csv, int r, const results_cols *c, cb_cmp_dir *d,
                     cb_cmp_point *p, cb_msg *err)
{
    const char *batch = optional(csv, r, c->batch);
    long long b;
    if (*batch && cb_parse_int(batch, 1, (1LL << 30) - 1, &b, NULL) &&
        (p->batch == 0 || b < p->batch))
        p->batch = (int)b;
    if (!p->throttle && !note_words(d, p, optional(csv, r, c->throttle), err)) return false;
    if (p->described) return true;
    p->described = true;
    snprintf(p->timer, sizeof p->timer, "%s", optional(csv, r, c->timer));
    return row_key_figure(csv, r, c, p, err) && row_facts(csv, r, c, &p->facts, err);
}

static bool load_row(cb_cmp_run *run, const cb_csv *csv, int r, const results_cols *c,
                     const dir_input *in, cb_msg *err)
{
    cb_cmp_dir *d = &run->dirs[run->n_dirs - 1];
    if (!check_row(csv, r, c, d, err)) return false;
    const char *bench = cb_csv_get(csv, r, c->need[1]), *axes = cb_csv_get(csv, r, c->need[2]);
    const char *device = d->n_devices > 1 ? optional(csv, r, c->device) : "";
    long line = cb_csv_line(csv, r);
    cb_cmp_point *p = cb_cmp_run_find(run, bench, axes, device);
    if (p && p->last_dir == run->n_dirs - 1) {
        cb_msg_set(err, "%s:%ld: point %.60s [%.80s]%s%s is listed twice", cb_csv_name(csv), line,
                   bench, axes, *device ? " of device " : "", device);
        return false;
    }
    bool fresh = p == NULL;
    cb_msg why;
    p = cb_cmp_run_add_device_point(run, bench, axes, device, cb_csv_get(csv, r, c->need[3]),
                                    optional(csv, r, c->reason), &why);
    if (!p) {
        cb_msg_set(err, "%s:%ld: %s", cb_csv_name(csv), line, why.text);
        return false;
    }
    if (fresh && !row_kind(csv, r, c, in, p, err)) return false;
    return !p->last_timed || describe(csv, r, c, d, p, err);
}

static bool load_results(cb_cmp_run *run, const dir_input *in, cb_msg *err)
{
    results_cols c;
    cb_cmp_dir *d = &run->dirs[run->n_dirs - 1];
    if (!find_results_cols(in->results, &c, err) || !scan_devices(in->results, &c, d, err))
        return false;
    d->has_throttle = c.throttle >= 0;
    d->has_kind = c.kind >= 0;
    d->has_key_figures = c.key_figure >= 0;
    for (int r = 0; r < cb_csv_rows(in->results); r++)
        if (!load_row(run, in->results, r, &c, in, err)) return false;
    return true;
}

/* ---- samples.csv ---------------------------------------------------------- */

/* The replicate of row r: "" is round 0 (a v1 row), else a whole number. */
static bool parse_replicate(const cb_csv *csv, int r, int col, int *out, cb_msg *err)
{
    *out = 0;
    const char *text = optional(csv, r, col);
    long long v;
    if (!*text) return true;
    if (!cb_parse_int(text, 0, CB_CMP_MAX_REPLICATE, &v, NULL)) {
        cb_msg_set(err, "%s:%ld: replicate '%.40s' is not a whole number in [0, %d]",
                   cb_csv_name(csv), cb_csv_line(csv, r), text, CB_CMP_MAX_REPLICATE);
        return false;
    }
    *out = (int)v;
    return true;
}

static bool parse_time(const cb_csv *csv, int r, int col, double *t, cb_msg *err)
{
    if (!cb_csv_get_double(csv, r, col, t, err)) return false;
    if (*t > 0.0 && isfinite(*t)) return true;
    cb_msg_set(err, "%s:%ld: time_s '%.40s' is not a positive finite number", cb_csv_name(csv),
               cb_csv_line(csv, r), cb_csv_get(csv, r, col));
    return false;
}

typedef struct samples_cols {
    int need[3]; /* benchmark, axes, time_s */
    int sample, replicate, device, throttle, clock;
} samples_cols;

/* A point's samples in one directory come round by round, each round's in
 * sample order (the runner writes them so): a (round, sample) pair that
 * does not follow the one before is a row listed twice or moved, and
 * counting it would narrow the point's interval. */
static bool check_sequence(const cb_csv *csv, int r, const samples_cols *c, int dir, int rep,
                           cb_cmp_point *p, cb_msg *err)
{
    long long sample = -1;
    const char *text = optional(csv, r, c->sample);
    if (*text && !cb_parse_int(text, 0, LLONG_MAX, &sample, NULL)) {
        cb_msg_set(err, "%s:%ld: sample '%.40s' is not a whole number", cb_csv_name(csv),
                   cb_csv_line(csv, r), text);
        return false;
    }
    if (p->seq_dir == dir &&
        (rep < p->seq_rep || (rep == p->seq_rep && sample >= 0 && sample <= p->seq_sample))) {
        cb_msg_set(err,
                   "%s:%ld: sample %lld of round %d of point %.60s [%.80s] comes after sample "
                   "%lld of round %d: listed twice or out of order",
                   cb_csv_name(csv), cb_csv_line(csv, r), sample, rep, p->benchmark, p->axes,
                   p->seq_sample, p->seq_rep);
        return false;
    }
    p->seq_dir = dir;
    p->seq_rep = rep;
    p->seq_sample = sample;
    return true;
}

/* The kept sample's own SM clock widens the point's range. */
static bool note_clock(cb_cmp_point *p, const cb_csv *csv, int r, int col, cb_msg *err)
{
    double mhz;
    if (col < 0 || !*cb_csv_get(csv, r, col)) return true;
    if (!cb_csv_get_double(csv, r, col, &mhz, err)) return false;
    if (isnan(p->clock_lo) || mhz < p->clock_lo) p->clock_lo = mhz;
    if (isnan(p->clock_hi) || mhz > p->clock_hi) p->clock_hi = mhz;
    return true;
}

/* The point of sample row r: the last one's when the row continues it
 * (a point's samples are written back to back), else by the hash. */
static cb_cmp_point *sample_point(cb_cmp_run *run, const cb_csv *csv, int r, const samples_cols *c,
                                  cb_cmp_point *last)
{
    const cb_cmp_dir *d = &run->dirs[run->n_dirs - 1];
    const char *bench = cb_csv_get(csv, r, c->need[0]), *axes = cb_csv_get(csv, r, c->need[1]);
    const char *device = d->n_devices > 1 ? optional(csv, r, c->device) : "";
    if (last && strcmp(last->benchmark, bench) == 0 && strcmp(last->axes, axes) == 0 &&
        strcmp(last->device, device) == 0)
        return last;
    return cb_cmp_run_find(run, bench, axes, device);
}

/* A kept sample's own throttle words and clock. */
static bool note_sample_state(const cb_cmp_dir *d, cb_cmp_point *p, const cb_csv *csv, int r,
                              const samples_cols *c, cb_msg *err)
{
    const char *words = optional(csv, r, c->throttle);
    if (any_throttling_word(d, words)) {
        p->throttled_n++;
        if (!p->throttle && !note_words(d, p, words, err)) return false;
    }
    return note_clock(p, csv, r, c->clock, err);
}

static bool load_sample(cb_cmp_run *run, const cb_csv *csv, int r, const samples_cols *c,
                        cb_cmp_point **last, cb_msg *err)
{
    cb_cmp_dir *d = &run->dirs[run->n_dirs - 1];
    double t;
    int rep;
    if (!parse_time(csv, r, c->need[2], &t, err) ||
        !parse_replicate(csv, r, c->replicate, &rep, err))
        return false;
    cb_cmp_point *p = sample_point(run, csv, r, c, *last);
    /* Samples of a point this directory's results.csv does not list (a run
     * stopped between the two writes) are counted, not used. */
    if (!p || p->last_dir != run->n_dirs - 1) {
        run->orphan_samples++;
        return true;
    }
    *last = p;
    if (!p->last_timed) return true;
    if (!check_sequence(csv, r, c, run->n_dirs - 1, rep, p, err)) return false;
    if (rep + 1 > d->rounds) d->rounds = rep + 1;
    return note_sample_state(d, p, csv, r, c, err) && cb_cmp_point_add_time(p, t, rep, err);
}

static bool load_samples(cb_cmp_run *run, const cb_csv *csv, cb_msg *err)
{
    static const char *const need[] = {"benchmark", "axes", "time_s"};
    samples_cols c;
    if (!cb_csv_require(csv, need, 3, c.need, err)) return false;
    c.sample = cb_csv_col(csv, "sample");
    c.replicate = cb_csv_col(csv, "replicate");
    c.device = cb_csv_col(csv, "device");
    c.throttle = cb_csv_col(csv, "throttle");
    c.clock = cb_csv_col(csv, "sm_clock_mhz");
    cb_cmp_dir *d = &run->dirs[run->n_dirs - 1];
    d->has_replicates = c.replicate >= 0;
    d->has_sample_throttle = c.throttle >= 0;
    cb_cmp_point *last = NULL;
    for (int r = 0; r < cb_csv_rows(csv); r++)
        if (!load_sample(run, csv, r, &c, &last, err)) return false;
    return true;
}

/* ---- the directory -------------------------------------------------------- */

static void free_input(dir_input *in)
{
    free(in->real_path);
    cb_cmp_meta_free(&in->meta);
    cb_csv_free(in->results);
    cb_csv_free(in->samples);
}

static bool read_input(const char *dir, bool samples_optional, dir_input *in, cb_msg *err)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        cb_msg_set(err, "%s: %s", dir, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        cb_msg_set(err, "%s: not a directory (expected a cubench run directory)", dir);
        return false;
    }
    in->path = dir;
    in->real_path = realpath(dir, NULL);
    char path[4096];
    bool missing;
    snprintf(path, sizeof path, "%s/meta.json", dir);
    if (!cb_cmp_meta_read(path, &in->meta, err)) return false;
    in->results = cb_run_csv_read(dir, "results.csv", NULL, &missing, err);
    if (!in->results) return false;
    in->samples = cb_run_csv_read(dir, "samples.csv", &in->samples_hash, &missing, err);
    if (!in->samples && !(missing && samples_optional)) return false;
    return cb_cmp_python_frameworks(dir, in->frameworks, sizeof in->frameworks, err);
}

/* Why directory `in` is a run `run` already holds, or NULL. */
static const char *same_run(const cb_cmp_run *run, const dir_input *in, const char **other)
{
    for (int i = 0; i < run->n_dirs; i++) {
        const cb_cmp_dir *d = &run->dirs[i];
        *other = d->path;
        if (in->real_path && strcmp(in->real_path, d->real_path) == 0) return "the same directory";
        if (in->meta.identity && in->meta.identity == d->meta.identity)
            return "a copy: the same host, start time and command line in meta.json";
        if (in->samples && in->samples_hash == d->samples_hash && cb_csv_rows(in->samples) > 0)
            return "a copy: byte-identical samples";
    }
    return NULL;
}

static bool note_duplicate(cb_cmp_run *run, const char *path, const char *why, const char *other,
                           cb_msg *err)
{
    cb_cmp_duplicate *dup = realloc(run->duplicates, (size_t)(run->n_duplicates + 1) * sizeof *dup);
    if (!dup) goto oom;
    run->duplicates = dup;
    dup = &dup[run->n_duplicates];
    if (!(dup->path = strdup(path))) goto oom;
    snprintf(dup->why, sizeof dup->why, "%s of %.100s", why, other);
    run->n_duplicates++;
    return true;
oom:
    cb_msg_set(err, "out of memory");
    return false;
}

bool cb_cmp_run_load(cb_cmp_run *run, const char *dir, cb_msg *err)
{
    dir_input in = {0};
    bool ok = read_input(dir, run->samples_optional, &in, err);
    const char *other = NULL, *why = ok ? same_run(run, &in, &other) : NULL;
    if (why) {
        ok = note_duplicate(run, dir, why, other, err);
    } else if (ok && (ok = cb_cmp_run_begin_dir(run, dir, err))) {
        cb_cmp_dir *d = &run->dirs[run->n_dirs - 1];
        if (in.real_path) free(d->real_path), d->real_path = in.real_path, in.real_path = NULL;
        d->meta = in.meta;
        memset(&in.meta, 0, sizeof in.meta);
        d->samples_hash = in.samples_hash;
        ok = load_results(run, &in, err) && (!in.samples || load_samples(run, in.samples, err));
        if (!run->git_sha[0]) snprintf(run->git_sha, sizeof run->git_sha, "%s", d->meta.git_sha);
        if (!run->device[0]) snprintf(run->device, sizeof run->device, "%s", d->meta.device);
    }
    free_input(&in);
    return ok;
}
