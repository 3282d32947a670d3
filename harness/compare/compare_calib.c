/* compare_calib.c - build, write, read and look up a calibration. */
#include "compare_calib.h"

#include "csv_reader.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static int cmp_row(const void *a, const void *b)
{
    const cb_calib_row *x = a, *y = b;
    int s = strcmp(x->benchmark, y->benchmark);
    if (s) return s;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

typedef struct obs_ref {
    const cb_calib_obs *o;
    int bucket;
} obs_ref;

static int cmp_obs(const void *a, const void *b)
{
    const obs_ref *x = a, *y = b;
    int s = strcmp(x->o->benchmark, y->o->benchmark);
    if (s) return s;
    return (x->bucket > y->bucket) - (x->bucket < y->bucket);
}

typedef struct accum {
    double excess, share;
    int points;
} accum;

static bool emit(cb_calibration *c, const char *benchmark, int bucket, const accum *a)
{
    cb_calib_row *r = &c->rows[c->n_rows];
    r->benchmark = strdup(benchmark);
    if (!r->benchmark) return false;
    r->bucket = bucket;
    r->points = a->points;
    double var = a->share > 0.0 ? a->excess / a->share : 0.0;
    r->sd = var > 0.0 ? sqrt(var) : 0.0;
    r->df = a->points;
    c->n_rows++;
    return true;
}

bool cb_calibration_build(const cb_calib_obs *obs, int n, const char *basis, const char *device,
                          cb_calibration *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->basis, sizeof out->basis, "%s", basis ? basis : "");
    snprintf(out->device, sizeof out->device, "%s", device ? device : "");
    obs_ref *refs = malloc((size_t)(n > 0 ? n : 1) * sizeof *refs);
    /* at most a bucket row and a benchmark row per point, and the global one */
    out->rows = malloc((size_t)(2 * n + 1) * sizeof *out->rows);
    if (!refs || !out->rows) goto oom;
    for (int i = 0; i < n; i++)
        refs[i] = (obs_ref){&obs[i], cb_calib_bucket(obs[i].median_s)};
    qsort(refs, (size_t)n, sizeof *refs, cmp_obs);
    accum all = {0};
    for (int start = 0; start < n;) {
        accum bench = {0};
        int end = start;
        while (end < n && strcmp(refs[end].o->benchmark, refs[start].o->benchmark) == 0) {
            accum bucket = {0};
            int b_end = end;
            for (; b_end < n && refs[b_end].bucket == refs[end].bucket &&
                   strcmp(refs[b_end].o->benchmark, refs[start].o->benchmark) == 0;
                 b_end++) {
                bucket.excess += refs[b_end].o->excess;
                bucket.share += refs[b_end].o->run_share;
                bucket.points++;
            }
            if (bucket.points >= CB_CALIB_MIN_POINTS &&
                !emit(out, refs[start].o->benchmark, refs[end].bucket, &bucket))
                goto oom;
            bench.excess += bucket.excess, bench.share += bucket.share;
            bench.points += bucket.points;
            end = b_end;
        }
        if (bench.points >= CB_CALIB_MIN_POINTS &&
            !emit(out, refs[start].o->benchmark, CB_CALIB_ANY_BUCKET, &bench))
            goto oom;
        all.excess += bench.excess, all.share += bench.share, all.points += bench.points;
        start = end;
    }
    if (all.points > 0 && !emit(out, "*", CB_CALIB_ANY_BUCKET, &all)) goto oom;
    qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, cmp_row);
    free(refs);
    return true;
oom:
    free(refs);
    cb_calibration_free(out);
    cb_msg_set(err, "compare: out of memory");
    return false;
}

/* A CSV field that needs no quoting (names never hold , " or newlines in
 * cubench output; anything else is quoted). */
static void csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

bool cb_calibration_write(FILE *f, const cb_calibration *c)
{
    fputs("calibration_version,benchmark,bucket,time_lo_s,time_hi_s,points,between_run_sd,df,"
          "basis,device\n",
          f);
    for (int i = 0; i < c->n_rows; i++) {
        const cb_calib_row *r = &c->rows[i];
        fprintf(f, "%d,", CB_CALIB_VERSION);
        csv_field(f, r->benchmark);
        if (r->bucket == CB_CALIB_ANY_BUCKET)
            fputs(",*,,", f);
        else
            fprintf(f, ",%d,%.6g,%.6g", r->bucket, 1e-9 * pow(4.0, r->bucket),
                    1e-9 * pow(4.0, r->bucket + 1));
        fprintf(f, ",%d,%.6g,%.6g,", r->points, r->sd, r->df);
        csv_field(f, c->basis);
        fputc(',', f);
        csv_field(f, c->device);
        fputc('\n', f);
    }
    return !ferror(f);
}

static bool parse_int(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool parse_row(const cb_csv *csv, int r, const int *col, cb_calib_row *row, cb_msg *err)
{
    const char *path = cb_csv_name(csv);
    long line = cb_csv_line(csv, r), v;
    if (strcmp(cb_csv_get(csv, r, col[0]), "1") != 0) {
        cb_msg_set(err, "%s:%ld: calibration_version '%.20s'; this cubench reads version 1", path,
                   line, cb_csv_get(csv, r, col[0]));
        return false;
    }
    const char *bench = cb_csv_get(csv, r, col[1]), *bucket = cb_csv_get(csv, r, col[2]);
    if (!*bench) {
        cb_msg_set(err, "%s:%ld: empty benchmark", path, line);
        return false;
    }
    if (strcmp(bucket, "*") == 0) {
        row->bucket = CB_CALIB_ANY_BUCKET;
    } else if (parse_int(bucket, -100, 100, &v)) {
        row->bucket = (int)v;
    } else {
        cb_msg_set(err, "%s:%ld: bucket '%.20s' is not * or a whole number in [-100, 100]", path,
                   line, bucket);
        return false;
    }
    if (!parse_int(cb_csv_get(csv, r, col[3]), 1, 1L << 30, &v)) {
        cb_msg_set(err, "%s:%ld: points must be a whole number >= 1", path, line);
        return false;
    }
    row->points = (int)v;
    if (!cb_csv_get_double(csv, r, col[4], &row->sd, err) ||
        !cb_csv_get_double(csv, r, col[5], &row->df, err))
        return false;
    if (!(row->sd >= 0.0 && row->sd < 10.0) || !(row->df > 0.0) || isinf(row->df)) {
        cb_msg_set(err, "%s:%ld: between_run_sd must be in [0, 10) and df a positive number", path,
                   line);
        return false;
    }
    row->benchmark = strdup(bench);
    if (!row->benchmark) {
        cb_msg_set(err, "compare: out of memory");
        return false;
    }
    return true;
}

bool cb_calibration_read(const char *path, cb_calibration *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"calibration_version", "benchmark", "bucket", "points",
                                       "between_run_sd",      "df"};
    int col[6];
    bool ok = cb_csv_require(csv, need, 6, col, err);
    int basis_col = cb_csv_col(csv, "basis"), device_col = cb_csv_col(csv, "device");
    int rows = cb_csv_rows(csv);
    if (ok && rows == 0) {
        cb_msg_set(err, "%s: no calibration rows", path);
        ok = false;
    }
    if (ok) {
        out->rows = calloc((size_t)rows, sizeof *out->rows);
        if (!out->rows) {
            cb_msg_set(err, "compare: out of memory");
            ok = false;
        }
    }
    for (int r = 0; ok && r < rows; r++) {
        ok = parse_row(csv, r, col, &out->rows[r], err);
        if (ok) out->n_rows++;
        if (ok && r == 0) {
            if (basis_col >= 0)
                snprintf(out->basis, sizeof out->basis, "%s", cb_csv_get(csv, r, basis_col));
            if (device_col >= 0)
                snprintf(out->device, sizeof out->device, "%s", cb_csv_get(csv, r, device_col));
        }
    }
    if (ok) {
        qsort(out->rows, (size_t)out->n_rows, sizeof *out->rows, cmp_row);
        for (int i = 1; ok && i < out->n_rows; i++) {
            if (cmp_row(&out->rows[i - 1], &out->rows[i]) == 0) {
                cb_msg_set(err, "%s: group %.80s bucket %d is listed twice", path,
                           out->rows[i].benchmark, out->rows[i].bucket);
                ok = false;
            }
        }
    }
    cb_csv_free(csv);
    if (!ok) cb_calibration_free(out);
    return ok;
}

/* The first row of `benchmark` (rows are sorted), or n_rows. */
static int first_row(const cb_calibration *c, const char *benchmark)
{
    int lo = 0, hi = c->n_rows;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(c->rows[mid].benchmark, benchmark) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const cb_calib_row *cb_calibration_lookup(const cb_calibration *c, const char *benchmark,
                                          double median_s)
{
    int bucket = cb_calib_bucket(median_s);
    const cb_calib_row *best = NULL, *pooled = NULL;
    int best_distance = 0;
    for (int i = first_row(c, benchmark);
         i < c->n_rows && strcmp(c->rows[i].benchmark, benchmark) == 0; i++) {
        const cb_calib_row *r = &c->rows[i];
        if (r->bucket == CB_CALIB_ANY_BUCKET) {
            pooled = r;
            continue;
        }
        int distance = abs(r->bucket - bucket);
        /* nearest bucket; between two equally near, the wider spread */
        if (!best || distance < best_distance || (distance == best_distance && r->sd > best->sd)) {
            best = r;
            best_distance = distance;
        }
    }
    if (best) return best;
    if (pooled) return pooled;
    int g = first_row(c, "*");
    if (g < c->n_rows && strcmp(c->rows[g].benchmark, "*") == 0) return &c->rows[g];
    return NULL;
}
