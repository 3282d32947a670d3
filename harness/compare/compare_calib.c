/* compare_calib.c - record, write, read and look up a calibration
 * (compare_calib.h states the method). */
#include "compare_calib.h"

#include "compare_units.h"
#include "csv_reader.h"
#include "csv_writer.h"
#include "parse_number.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number as strtod reads it: results.csv's axes hold resolved values
 * (1024, 0.5, 1e+06); words (pageable, h2d, auto) are not. */
static bool is_number(const char *s, size_t len)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf) return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    (void)strtod(buf, &end);
    return end && *end == '\0';
}

void cb_calib_path(const char *benchmark, const char *axes, char *out, size_t len)
{
    size_t o = (size_t)snprintf(out, len, "%s", benchmark);
    for (const char *a = axes ? axes : ""; *a && o < len;) {
        const char *end = strchr(a, ';');
        size_t n = end ? (size_t)(end - a) : strlen(a);
        const char *eq = memchr(a, '=', n);
        if (eq && !is_number(eq + 1, n - (size_t)(eq + 1 - a)))
            o += (size_t)snprintf(out + o, len - o, ";%.*s", (int)n, a);
        a += n + (end != NULL);
    }
}

int cb_calib_bucket(double median_s)
{
    double b = floor(log(median_s / 1e-9) / log(4.0));
    if (!(b > -100.0)) return -100;
    return b < 100.0 ? (int)b : 100;
}

void cb_calibration_free(cb_calibration *c)
{
    for (int i = 0; i < c->n_rows; i++)
        free(c->rows[i].benchmark);
    free(c->rows);
    memset(c, 0, sizeof *c);
}

static int cmp_key(cb_cmp_kind ka, const char *ba, int bucket_a, cb_cmp_kind kb, const char *bb,
                   int bucket_b)
{
    if (ka != kb) return ka < kb ? -1 : 1;
    int s = strcmp(ba, bb);
    if (s) return s;
    return (bucket_a > bucket_b) - (bucket_a < bucket_b);
}

static int cmp_row(const void *a, const void *b)
{
    const cb_calib_row *x = a, *y = b;
    return cmp_key(x->kind, x->benchmark, x->bucket, y->kind, y->benchmark, y->bucket);
}

/* ---- building ------------------------------------------------------------- */

/* One point of the set: its run values summarised. */
typedef struct point_sum {
    const cb_calib_obs *obs; /* its observations, consecutive */
    int k;                   /* runs that timed it            */
    double mean, s2, within; /* mean and variance of the run values, mean v */
    int bucket;
    char path[CB_CALIB_PATH_LEN]; /* cb_calib_path */
} point_sum;

static int cmp_sum(const void *a, const void *b)
{
    const point_sum *x = a, *y = b;
    return cmp_key(x->obs->point->kind, x->path, x->bucket, y->obs->point->kind, y->path,
                   y->bucket);
}

/* A group being summed: the points' excess and, per run, its summed offset
 * over the points it timed (a run's points may be a subset: the runs of
 * one part of a suite time that part). */
typedef struct accum {
    double excess, dof, within, spread;
    int points, runs, most; /* most: the largest K of a point */
    double *offset;         /* [runs]                          */
    int *count;             /* [runs] points each run timed     */
} accum;

static void accum_reset(accum *a)
{
    accum keep = {.runs = a->runs, .offset = a->offset, .count = a->count};
    *a = keep;
    for (int k = 0; k < a->runs; k++)
        a->offset[k] = 0.0, a->count[k] = 0;
}

static void accum_add(accum *a, const point_sum *p)
{
    a->excess += (p->k - 1) * (p->s2 - p->within);
    a->dof += p->k - 1;
    a->within += p->within;
    a->spread += p->s2;
    a->points++;
    if (p->k > a->most) a->most = p->k;
    for (int i = 0; i < p->k; i++) {
        a->offset[p->obs[i].run] += p->obs[i].value - p->mean;
        a->count[p->obs[i].run]++;
    }
}

static void accum_merge(accum *into, const accum *from)
{
    into->excess += from->excess, into->dof += from->dof, into->within += from->within;
    into->spread += from->spread, into->points += from->points;
    if (from->most > into->most) into->most = from->most;
    for (int k = 0; k < into->runs; k++)
        into->offset[k] += from->offset[k], into->count[k] += from->count[k];
}

/* The variance of the runs' mean offsets less what the points' own spread
 * puts into a mean of their points; *used: runs with points. */
static double run_wide_variance(const accum *a, int *used)
{
    double sum = 0.0, sum2 = 0.0, points = 0.0;
    *used = 0;
    for (int k = 0; k < a->runs; k++) {
        if (!a->count[k]) continue;
        double o = a->offset[k] / a->count[k];
        sum += o, sum2 += o * o, points += a->count[k];
        (*used)++;
    }
    if (*used < 2) return NAN;
    double var = (sum2 - sum * sum / *used) / (*used - 1);
    return var - (a->spread / a->points) / (points / *used);
}

/* sigma, its run-wide part and their dfs (compare_calib.h). */
static void accum_spread(const accum *a, cb_calib_row *r)
{
    double s2 = a->dof > 0 ? a->excess / a->dof : 0.0, floor_v = a->within / a->points;
    if (s2 < floor_v) s2 = floor_v;
    r->sd = sqrt(s2);
    r->df = a->dof > 0 ? a->dof : 1.0;
    r->run_sd = NAN;
    r->run_df = 0.0;
    int used;
    double r2 = run_wide_variance(a, &used);
    if (isnan(r2)) return;
    r2 = r2 < 0.0 ? 0.0 : r2 > s2 ? s2 : r2;
    double run_df = used - 1, rest_df = a->dof - run_df > 1.0 ? a->dof - run_df : 1.0;
    r->run_sd = sqrt(r2);
    r->run_df = run_df;
    double den = r2 * r2 / run_df + (s2 - r2) * (s2 - r2) / rest_df;
    r->df = den > 0.0 ? s2 * s2 / den : rest_df;
}

static bool emit(cb_calibration *c, cb_cmp_kind kind, const char *benchmark, int bucket,
                 const accum *a)
{
    if (a->points < CB_CALIB_MIN_POINTS) return true;
    cb_calib_row *r = &c->rows[c->n_rows];
    r->benchmark = strdup(benchmark);
    if (!r->benchmark) return false;
    r->kind = kind;
    r->bucket = bucket;
    r->points = a->points;
    r->runs = a->most;
    accum_spread(a, r);
    c->n_rows++;
    return true;
}

static point_sum summarise(const cb_calib_obs *obs, int k)
{
    point_sum p = {obs, k, 0.0, 0.0, 0.0, 0, ""};
    cb_calib_path(obs->point->benchmark, obs->point->axes, p.path, sizeof p.path);
    for (int i = 0; i < k; i++)
        p.mean += obs[i].value / k, p.within += obs[i].var / k;
    for (int i = 0; i < k; i++)
        p.s2 += (obs[i].value - p.mean) * (obs[i].value - p.mean) / (k - 1);
    p.bucket = cb_calib_bucket(obs[0].median_s);
    return p;
}

/* The points' summaries, sorted by (kind, path, bucket). */
static point_sum *summaries(const cb_calib_obs *obs, int n, int *count)
{
    point_sum *sums = malloc((size_t)(n > 0 ? n : 1) * sizeof *sums);
    if (!sums) return NULL;
    *count = 0;
    for (int i = 0; i < n;) {
        int k = 1;
        while (i + k < n && obs[i + k].point == obs[i].point)
            k++;
        if (k >= 2) sums[(*count)++] = summarise(&obs[i], k);
        i += k;
    }
    qsort(sums, (size_t)*count, sizeof *sums, cmp_sum);
    return sums;
}

static bool same_path(const point_sum *a, const point_sum *b)
{
    return a->obs->point->kind == b->obs->point->kind && strcmp(a->path, b->path) == 0;
}

/* The rows of one kind: per bucket, per path, pooled. */
static bool build_kind(cb_calibration *out, const point_sum *s, int n, accum acc[3])
{
    accum_reset(&acc[2]);
    for (int start = 0; start < n;) {
        accum_reset(&acc[1]);
        int end = start;
        while (end < n && same_path(&s[end], &s[start])) {
            accum_reset(&acc[0]);
            int b_end = end;
            for (; b_end < n && same_path(&s[b_end], &s[start]) && s[b_end].bucket == s[end].bucket;
                 b_end++)
                accum_add(&acc[0], &s[b_end]);
            const cb_cmp_point *p = s[end].obs->point;
            if (!emit(out, p->kind, s[end].path, s[end].bucket, &acc[0])) return false;
            accum_merge(&acc[1], &acc[0]);
            end = b_end;
        }
        const cb_cmp_point *p = s[start].obs->point;
        if (!emit(out, p->kind, s[start].path, CB_CALIB_ANY_BUCKET, &acc[1])) return false;
        accum_merge(&acc[2], &acc[1]);
        start = end;
    }
    return n == 0 || emit(out, s[0].obs->point->kind, "*", CB_CALIB_ANY_BUCKET, &acc[2]);
}

/* The three levels' accumulators (bucket, benchmark, kind) over one block of
 * per-run offsets and counts; false when out of memory. */
static bool accums(accum acc[3], int runs, double **offsets, int **counts)
{
    size_t m = (size_t)(3 * (runs > 0 ? runs : 1));
    *offsets = calloc(m, sizeof **offsets);
    *counts = calloc(m, sizeof **counts);
    for (int i = 0; i < 3; i++)
        acc[i] = (accum){.runs = runs,
                         .offset = *offsets ? *offsets + i * runs : NULL,
                         .count = *counts ? *counts + i * runs : NULL};
    return *offsets && *counts;
}

bool cb_calibration_build(const cb_calib_obs *obs, int n, int runs, const char *basis,
                          const char *device, cb_calibration *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->basis, sizeof out->basis, "%s", basis ? basis : "");
    snprintf(out->device, sizeof out->device, "%s", device ? device : "");
    int count = 0;
    point_sum *sums = summaries(obs, n, &count);
    /* at most a bucket row and a benchmark row per point, and one per kind */
    out->rows = malloc((size_t)(2 * count + CB_CMP_KINDS) * sizeof *out->rows);
    double *offsets = NULL;
    int *counts = NULL;
    accum acc[3];
    bool ok = accums(acc, runs, &offsets, &counts) && sums && out->rows;
    for (int start = 0; ok && start < count;) {
        int end = start;
        while (end < count && sums[end].obs->point->kind == sums[start].obs->point->kind)
            end++;
        ok = build_kind(out, &sums[start], end - start, acc);
        start = end;
    }
    free(sums);
    free(offsets), free(counts);
    if (!ok) {
        cb_calibration_free(out);
        cb_msg_set(err, "out of memory");
        return false;
    }
    qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, cmp_row);
    return true;
}

/* ---- recording ------------------------------------------------------------ */

/* Samples of the point in each directory, into count[0 .. n_dirs). */
static void samples_per_dir(const cb_cmp_point *p, int *count, int n_dirs)
{
    for (int d = 0; d < n_dirs; d++)
        count[d] = 0;
    for (int i = 0; i < p->n; i++)
        if (p->dir[i] >= 0 && p->dir[i] < n_dirs) count[p->dir[i]]++;
}

/* The observations of one point: one per run with enough samples. */
static bool observe(const cb_cmp_point *p, int n_dirs, int min_samples, cb_dir_value *dirs,
                    int *count, cb_calib_obs *obs, int *n_obs, int basis_seen[3], cb_msg *err)
{
    samples_per_dir(p, count, n_dirs);
    int enough = 0;
    for (int d = 0; d < n_dirs; d++)
        enough += count[d] >= min_samples;
    if (!p->timed || enough < CB_CALIB_MIN_RUNS) return true;
    const cb_cmp_point *one[1] = {p};
    cb_side_est est;
    if (!cb_side_estimate_dirs(p, cb_units_rho(one, 1), &est, dirs, n_dirs, err)) return false;
    for (int d = 0; d < n_dirs; d++) {
        if (count[d] < min_samples || dirs[d].units == 0 || isnan(dirs[d].var)) continue;
        obs[(*n_obs)++] = (cb_calib_obs){p, d, dirs[d].value, dirs[d].var, est.median_s};
        basis_seen[dirs[d].units >= 2 ? CB_BASIS_ROUNDS : CB_BASIS_SAMPLES]++;
    }
    return true;
}

bool cb_calibration_record(const cb_cmp_run *set, int min_samples, cb_calibration *out, int *points,
                           cb_msg *err)
{
    memset(out, 0, sizeof *out);
    *points = 0;
    if (set->n_dirs < CB_CALIB_MIN_RUNS) {
        cb_msg_set(err,
                   "--calibrate needs at least %d runs of one build (separate processes); "
                   "got %d distinct",
                   CB_CALIB_MIN_RUNS, set->n_dirs);
        return false;
    }
    size_t cap = (size_t)set->n_points * (size_t)set->n_dirs + 1;
    cb_calib_obs *obs = malloc(cap * sizeof *obs);
    cb_dir_value *dirs = malloc((size_t)set->n_dirs * sizeof *dirs);
    int *count = malloc((size_t)set->n_dirs * sizeof *count);
    int n_obs = 0, basis_seen[3] = {0};
    bool ok = obs && dirs && count;
    if (!ok) cb_msg_set(err, "out of memory");
    for (int i = 0; ok && i < set->n_points; i++) {
        int before = n_obs;
        ok = observe(&set->points[i], set->n_dirs, min_samples, dirs, count, obs, &n_obs,
                     basis_seen, err);
        *points += n_obs - before >= CB_CALIB_MIN_RUNS;
        if (n_obs - before < CB_CALIB_MIN_RUNS) n_obs = before; /* too few runs left */
    }
    const char *basis = basis_seen[CB_BASIS_ROUNDS] && basis_seen[CB_BASIS_SAMPLES] ? "mixed"
                        : basis_seen[CB_BASIS_ROUNDS]                               ? "rounds"
                                                                                    : "samples";
    if (ok) ok = cb_calibration_build(obs, n_obs, set->n_dirs, basis, set->device, out, err);
    free(obs), free(dirs), free(count);
    return ok;
}

/* ---- the file ------------------------------------------------------------- */

bool cb_calibration_write(FILE *f, const cb_calibration *c)
{
    fputs("calibration_version,kind,benchmark,bucket,time_lo_s,time_hi_s,points,runs,"
          "between_run_sd,df,run_sd,run_df,basis,device\n",
          f);
    for (int i = 0; i < c->n_rows; i++) {
        const cb_calib_row *r = &c->rows[i];
        bool any = r->bucket == CB_CALIB_ANY_BUCKET;
        cb_csv_row w;
        cb_csv_begin(&w, f);
        cb_csv_int(&w, CB_CALIB_VERSION);
        cb_csv_str(&w, cb_cmp_kind_name(r->kind));
        cb_csv_str(&w, r->benchmark);
        if (any)
            cb_csv_str(&w, "*");
        else
            cb_csv_int(&w, r->bucket);
        cb_csv_num(&w, any ? NAN : 1e-9 * pow(4.0, r->bucket));
        cb_csv_num(&w, any ? NAN : 1e-9 * pow(4.0, r->bucket + 1));
        cb_csv_int(&w, r->points);
        cb_csv_int(&w, r->runs);
        cb_csv_num(&w, r->sd);
        cb_csv_num(&w, r->df);
        cb_csv_num(&w, r->run_sd);
        cb_csv_num(&w, r->run_df);
        cb_csv_str(&w, c->basis);
        cb_csv_str(&w, c->device);
        cb_csv_end(&w);
    }
    return !ferror(f);
}

enum { COL_VERSION, COL_KIND, COL_BENCH, COL_BUCKET, COL_POINTS, COL_RUNS, COL_SD, COL_DF, N_COLS };

/* A number of row r in [lo, hi]; an empty optional cell is NAN. */
static bool cell_number(const cb_csv *csv, int r, int col, double lo, double hi, bool optional,
                        double *out, cb_msg *err)
{
    const char *text = col >= 0 ? cb_csv_get(csv, r, col) : "";
    cb_msg why;
    *out = NAN;
    if (optional && !*text) return true;
    if (cb_parse_double(text, lo, hi, out, &why)) return true;
    cb_msg_set(err, "%s:%ld: %s: %s", cb_csv_name(csv), cb_csv_line(csv, r),
               col >= 0 ? cb_csv_header(csv, col) : "column", why.text);
    return false;
}

static bool parse_bucket(const char *text, int *bucket)
{
    long long v;
    if (strcmp(text, "*") == 0) {
        *bucket = CB_CALIB_ANY_BUCKET;
        return true;
    }
    if (!cb_parse_int(text, -100, 100, &v, NULL)) return false;
    *bucket = (int)v;
    return true;
}

static bool parse_row(const cb_csv *csv, int r, const int *col, int run_sd_col, int run_df_col,
                      cb_calib_row *row, cb_msg *err)
{
    const char *path = cb_csv_name(csv), *bench = cb_csv_get(csv, r, col[COL_BENCH]);
    long line = cb_csv_line(csv, r);
    double points, runs;
    const char *version = cb_csv_get(csv, r, col[COL_VERSION]);
    if (strcmp(version, "2") != 0 && strcmp(version, "3") != 0) {
        cb_msg_set(err,
                   "%s:%ld: calibration_version '%.20s'; this cubench reads versions 2 and 3 "
                   "(version 1 came from one A/A pair, its df counting points: record it again "
                   "from >= 3 runs)",
                   path, line, cb_csv_get(csv, r, col[COL_VERSION]));
        return false;
    }
    if (!cb_cmp_kind_parse(cb_csv_get(csv, r, col[COL_KIND]), &row->kind) || !*bench ||
        !parse_bucket(cb_csv_get(csv, r, col[COL_BUCKET]), &row->bucket)) {
        cb_msg_set(err, "%s:%ld: kind, benchmark or bucket is not one cubench writes", path, line);
        return false;
    }
    /* a path's pageable copies, recorded before they had a kind of their own */
    row->kind = cb_cmp_kind_read_declared(row->kind, bench);
    if (!cell_number(csv, r, col[COL_POINTS], 1, 1e9, false, &points, err) ||
        !cell_number(csv, r, col[COL_RUNS], CB_CALIB_MIN_RUNS, 1e6, false, &runs, err) ||
        !cell_number(csv, r, col[COL_SD], 1e-12, 10, false, &row->sd, err) ||
        !cell_number(csv, r, col[COL_DF], 1e-6, 1e12, false, &row->df, err) ||
        !cell_number(csv, r, run_sd_col, 0, 10, true, &row->run_sd, err) ||
        !cell_number(csv, r, run_df_col, 0, 1e6, true, &row->run_df, err))
        return false;
    row->points = (int)points;
    row->runs = (int)runs;
    if (isnan(row->run_df)) row->run_df = 0.0;
    row->benchmark = strdup(bench);
    if (!row->benchmark) cb_msg_set(err, "out of memory");
    return row->benchmark != NULL;
}

static bool read_rows(const cb_csv *csv, cb_calibration *out, cb_msg *err)
{
    static const char *const need[N_COLS] = {
        "calibration_version", "kind", "benchmark", "bucket", "points", "runs",
        "between_run_sd",      "df"};
    int col[N_COLS];
    if (cb_csv_col(csv, "calibration_version") >= 0 && cb_csv_rows(csv) > 0 &&
        strcmp(cb_csv_get(csv, 0, cb_csv_col(csv, "calibration_version")), "1") == 0) {
        cb_msg_set(err,
                   "%s: a version-1 calibration (one A/A pair, its df counting points): record "
                   "it again from >= 3 runs: cubench compare --calibrate A B C -o FILE",
                   cb_csv_name(csv));
        return false;
    }
    if (!cb_csv_require(csv, need, N_COLS, col, err)) return false;
    int rows = cb_csv_rows(csv), basis = cb_csv_col(csv, "basis"),
        device = cb_csv_col(csv, "device");
    int run_sd = cb_csv_col(csv, "run_sd"), run_df = cb_csv_col(csv, "run_df");
    if (rows == 0) {
        cb_msg_set(err, "%s: no calibration rows", cb_csv_name(csv));
        return false;
    }
    if (!(out->rows = calloc((size_t)rows, sizeof *out->rows))) {
        cb_msg_set(err, "out of memory");
        return false;
    }
    for (int r = 0; r < rows; r++, out->n_rows++)
        if (!parse_row(csv, r, col, run_sd, run_df, &out->rows[r], err)) return false;
    if (basis >= 0) snprintf(out->basis, sizeof out->basis, "%s", cb_csv_get(csv, 0, basis));
    if (device >= 0) snprintf(out->device, sizeof out->device, "%s", cb_csv_get(csv, 0, device));
    return true;
}

bool cb_calibration_read(const char *path, cb_calibration *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    cb_csv *csv = cb_csv_read_file(path, err);
    bool ok = csv && read_rows(csv, out, err);
    if (ok) {
        qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, cmp_row);
        for (int i = 1; ok && i < out->n_rows; i++) {
            if (cmp_row(&out->rows[i - 1], &out->rows[i]) != 0) continue;
            cb_msg_set(err, "%s: group %.80s bucket %d is listed twice", path,
                       out->rows[i].benchmark, out->rows[i].bucket);
            ok = false;
        }
    }
    cb_csv_free(csv);
    if (!ok) cb_calibration_free(out);
    return ok;
}

/* ---- lookup --------------------------------------------------------------- */

/* The first row of (kind, benchmark) (rows are sorted), or n_rows. */
static int first_row(const cb_calibration *c, cb_cmp_kind kind, const char *benchmark)
{
    int lo = 0, hi = c->n_rows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        const cb_calib_row *r = &c->rows[mid];
        if (cmp_key(r->kind, r->benchmark, 0, kind, benchmark, 0) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool is_group(const cb_calib_row *r, cb_cmp_kind kind, const char *benchmark)
{
    return r->kind == kind && strcmp(r->benchmark, benchmark) == 0;
}

/* The row of group `name` (a path or a benchmark) nearest the bucket, else
 * its all-sizes row, else NULL. */
static const cb_calib_row *lookup_group(const cb_calibration *c, cb_cmp_kind kind,
                                        const char *benchmark, int bucket)
{
    int best_distance = 0;
    const cb_calib_row *best = NULL, *pooled = NULL;
    for (int i = first_row(c, kind, benchmark);
         i < c->n_rows && is_group(&c->rows[i], kind, benchmark); i++) {
        const cb_calib_row *r = &c->rows[i];
        int distance = abs(r->bucket - bucket);
        if (r->bucket == CB_CALIB_ANY_BUCKET)
            pooled = r;
        else if (!best || distance < best_distance ||
                 (distance == best_distance && r->sd > best->sd))
            best = r, best_distance = distance; /* nearest; between equals, the wider */
    }
    return best ? best : pooled;
}

const cb_calib_row *cb_calibration_lookup(const cb_calibration *c, cb_cmp_kind kind,
                                          const char *benchmark, const char *axes, double median_s)
{
    int bucket = cb_calib_bucket(median_s);
    char path[CB_CALIB_PATH_LEN];
    cb_calib_path(benchmark, axes, path, sizeof path);
    const cb_calib_row *r = lookup_group(c, kind, path, bucket);
    if (!r && strcmp(path, benchmark) != 0) r = lookup_group(c, kind, benchmark, bucket); /* v2 */
    if (r) return r;
    int g = first_row(c, kind, "*");
    return g < c->n_rows && is_group(&c->rows[g], kind, "*") ? &c->rows[g] : NULL;
}

static bool calibration_lookup(const void *ctx, const cb_spread_query *q, cb_spread *out)
{
    const cb_calibration *c = ctx;
    const cb_calib_row *r = cb_calibration_lookup(c, q->kind, q->benchmark, q->axes, q->median_s);
    if (!r) return false;
    *out = (cb_spread){r->sd, r->df, r->run_sd, r->run_df, ""};
    if (r->bucket == CB_CALIB_ANY_BUCKET)
        snprintf(out->what, sizeof out->what, "%s%s", strcmp(r->benchmark, "*") ? "" : "every ",
                 strcmp(r->benchmark, "*") ? r->benchmark : cb_cmp_kind_name(r->kind));
    else
        snprintf(out->what, sizeof out->what, "%.80s, bucket %d", r->benchmark, r->bucket);
    return true;
}

cb_spread_source cb_calibration_source(const cb_calibration *c)
{
    return (cb_spread_source){"calibration", c->path, c, calibration_lookup};
}
