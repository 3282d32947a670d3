/* fleet_read.c - one complete run directory into fleet members, one per
 * device.
 *
 * The points and samples go into compare's run structure (compare_load.h:
 * cb_cmp_run_add_point, cb_cmp_point_add_time), so identities, statuses and
 * the hash index are compare's. The files are read here rather than by
 * cb_cmp_run_load because a fleet needs what that loader has no place for:
 * the rows of several devices in one directory (schema 2, `cubench run
 * --device all`: the same point once per `device`), and the results.csv
 * columns beside the samples (bytes, flops, telemetry). Checks follow
 * compare's: schema_version 1 or 2, a known status, a point once per device,
 * positive finite sample times, whole replicates in [0, 1e6]; samples of a
 * point results.csv does not list are counted and left out. Each member is
 * one directory of its run structure, each sample keeps its replicate (the
 * units of compare_units.h).
 */
#include "fleet.h"

#include "csv_reader.h"
#include "fleet_json.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* More than any machine has; a run claiming more is not ours. */
#define MAX_DEVICES 64

static bool oom(cb_msg *err)
{
    cb_msg_set(err, "fleet: out of memory");
    return false;
}

static int find_device(const char devices[][16], int n_devices, const char *device)
{
    for (int d = 0; d < n_devices; d++)
        if (strcmp(devices[d], device) == 0) return d;
    return -1;
}

/* The member of a row's `device` value: the one member of a run without
 * device rows, else that device's, or -1 for a row that belongs to none (a
 * host row of a run that has device rows). */
static int member_of(const char devices[][16], int n_devices, int first, const char *device)
{
    if (n_devices == 0) return first;
    int d = *device ? find_device(devices, n_devices, device) : -1;
    return d < 0 ? -1 : first + d;
}

/* Name, model, UUID and PCIe link of a member from meta.json: the block of
 * `devices` with its ordinal, else `device` (the first device, and the only
 * one in schema 1); no block: a CPU-only run. */
static void identity(cb_fleet_member *m, const char *meta, const char *uuid)
{
    const char *block = NULL;
    if (m->device[0]) {
        double want = atof(m->device), ordinal;
        const char *item;
        for (int i = 0; !block && (item = cb_fleet_json_item(meta, "devices", i)) != NULL; i++)
            if (cb_fleet_json_number(item, "ordinal", &ordinal) && ordinal == want) block = item;
    }
    if (!block) {
        const char *d = cb_fleet_json_find(meta, "device");
        if (d && *d == '{') block = d;
    }
    cb_fleet_json_string(meta, "host.hostname", m->host, sizeof m->host);
    m->cpu_only = block == NULL;
    if (m->cpu_only) {
        char cpu[128];
        if (!cb_fleet_json_string(meta, "host.cpu", cpu, sizeof cpu) || !cpu[0])
            snprintf(cpu, sizeof cpu, "unknown CPU");
        snprintf(m->model, sizeof m->model, "CPU: %s", cpu);
        return;
    }
    if (!cb_fleet_json_string(block, "name", m->model, sizeof m->model) || !m->model[0])
        snprintf(m->model, sizeof m->model, "unknown GPU");
    if (uuid && *uuid)
        snprintf(m->uuid, sizeof m->uuid, "%s", uuid);
    else
        cb_fleet_json_string(block, "uuid", m->uuid, sizeof m->uuid);
    double v;
    int *dst[4] = {&m->pcie_gen, &m->pcie_width, &m->pcie_max_gen, &m->pcie_max_width};
    static const char *const keys[4] = {"pcie.generation", "pcie.width", "pcie.max_generation",
                                        "pcie.max_width"};
    for (int k = 0; k < 4; k++)
        *dst[k] = cb_fleet_json_number(block, keys[k], &v) && v >= 0 && v < 1e6 ? (int)v : 0;
}

static bool optional_number(const cb_csv *csv, int row, int col, double *out, cb_msg *err)
{
    *out = NAN;
    if (col < 0 || !*cb_csv_get(csv, row, col)) return true;
    return cb_csv_get_double(csv, row, col, out, err);
}

/* The telemetry and work columns of one results.csv row. */
static bool row_info(const cb_csv *csv, int r, const int *num_cols, int throttle_col,
                     cb_fleet_point_info *in, cb_msg *err)
{
    double *dst[8] = {&in->bytes,
                      &in->flops,
                      &in->sm_clock_min_mhz,
                      &in->sm_clock_median_mhz,
                      &in->sm_clock_max_mhz,
                      &in->mem_clock_median_mhz,
                      &in->power_mean_w,
                      &in->temp_max_c};
    for (int c = 0; c < 8; c++)
        if (!optional_number(csv, r, num_cols[c], dst[c], err)) return false;
    in->throttle = NULL;
    if (throttle_col >= 0 && *cb_csv_get(csv, r, throttle_col)) {
        in->throttle = strdup(cb_csv_get(csv, r, throttle_col));
        if (!in->throttle) return oom(err);
    }
    return true;
}

static bool read_results(cb_fleet *f, int dir, const char *path, const char *meta, cb_msg *err)
{
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"schema_version", "benchmark", "axes", "status"};
    int col[4];
    bool ok = cb_csv_require(csv, need, 4, col, err);
    int reason_col = cb_csv_col(csv, "reason"), device_col = cb_csv_col(csv, "device");
    int uuid_col = cb_csv_col(csv, "device_uuid"), throttle_col = cb_csv_col(csv, "throttle");
    static const char *const num_names[8] = {"bytes",
                                             "flops",
                                             "sm_clock_min_mhz",
                                             "sm_clock_median_mhz",
                                             "sm_clock_max_mhz",
                                             "mem_clock_median_mhz",
                                             "power_mean_w",
                                             "temp_max_c"};
    int num_cols[8];
    for (int c = 0; c < 8; c++)
        num_cols[c] = cb_csv_col(csv, num_names[c]);

    /* The devices, in order of first appearance. */
    char devices[MAX_DEVICES][16];
    int uuid_row[MAX_DEVICES];
    int n_devices = 0;
    for (int r = 0; ok && device_col >= 0 && r < cb_csv_rows(csv); r++) {
        const char *d = cb_csv_get(csv, r, device_col);
        if (!*d || find_device(devices, n_devices, d) >= 0) continue;
        if (n_devices == MAX_DEVICES || strlen(d) >= sizeof devices[0]) {
            cb_msg_set(err, "%s:%ld: device '%.20s': more than %d devices, or not an ordinal", path,
                       cb_csv_line(csv, r), d, MAX_DEVICES);
            ok = false;
            break;
        }
        snprintf(devices[n_devices], sizeof devices[0], "%s", d);
        uuid_row[n_devices++] = r;
    }
    int first = f->n_members;
    for (int d = 0; ok && d < (n_devices ? n_devices : 1); d++) {
        cb_fleet_member *m = cb_fleet_add_member(f, dir, err);
        if (!m) {
            ok = false;
            break;
        }
        const char *dir_name = f->dirs[dir].name;
        char name[PATH_MAX];
        if (n_devices > 1)
            snprintf(name, sizeof name, "%s/gpu%s", dir_name, devices[d]);
        else
            snprintf(name, sizeof name, "%s", dir_name);
        m->name = strdup(name);
        if (!m->name) ok = oom(err);
        if (ok) ok = cb_cmp_run_begin_dir(&m->run, path, err);
        if (n_devices) memcpy(m->device, devices[d], sizeof m->device); /* both 16, with NUL */
        identity(m, meta,
                 n_devices && uuid_col >= 0 ? cb_csv_get(csv, uuid_row[d], uuid_col) : NULL);
    }
    int *info_cap = ok ? calloc((size_t)(n_devices ? n_devices : 1), sizeof *info_cap) : NULL;
    if (ok && !info_cap) ok = oom(err);

    for (int r = 0; ok && r < cb_csv_rows(csv); r++) {
        long line = cb_csv_line(csv, r);
        const char *version = cb_csv_get(csv, r, col[0]);
        const char *bench = cb_csv_get(csv, r, col[1]);
        const char *axes = cb_csv_get(csv, r, col[2]);
        const char *status = cb_csv_get(csv, r, col[3]);
        if (strcmp(version, "1") != 0 && strcmp(version, "2") != 0 && strcmp(version, "3") != 0) {
            cb_msg_set(err, "%s:%ld: schema_version is '%.20s'; this cubench reads 1 to 3", path,
                       line, version);
            ok = false;
            break;
        }
        if (!*bench) {
            cb_msg_set(err, "%s:%ld: empty benchmark name", path, line);
            ok = false;
            break;
        }
        int mi = member_of(devices, n_devices, first,
                           device_col >= 0 ? cb_csv_get(csv, r, device_col) : "");
        if (mi < 0) continue; /* a host row of a run with device rows */
        cb_fleet_member *m = &f->members[mi];
        int *cap = &info_cap[mi - first];
        if (m->run.n_points + 1 > *cap) { /* room first: every point has its info */
            int grown = *cap ? 2 * *cap : 64;
            cb_fleet_point_info *in = realloc(m->info, (size_t)grown * sizeof *in);
            if (!in) {
                ok = oom(err);
                break;
            }
            m->info = in;
            *cap = grown;
        }
        if (cb_cmp_run_find(&m->run, bench, axes)) {
            cb_msg_set(err, "%s:%ld: point %.60s [%.80s] is listed twice%s%s", path, line, bench,
                       axes, m->device[0] ? " for device " : "", m->device);
            ok = false;
            break;
        }
        cb_msg why;
        const char *reason = reason_col >= 0 ? cb_csv_get(csv, r, reason_col) : "";
        if (!cb_cmp_run_add_point(&m->run, bench, axes, status, reason, &why)) {
            cb_msg_set(err, "%s:%ld: %s", path, line, why.text);
            ok = false;
            break;
        }
        if (strcmp(status, "fail") == 0) m->failed_points++;
        cb_fleet_point_info *in = &m->info[m->run.n_points - 1];
        if (!row_info(csv, r, num_cols, throttle_col, in, err)) {
            in->throttle = NULL;
            ok = false;
        }
    }
    free(info_cap);
    cb_csv_free(csv);
    return ok;
}

static bool read_samples(cb_fleet *f, int first, int count, const char *path, cb_msg *err)
{
    cb_csv *csv = cb_csv_read_file(path, err);
    if (!csv) return false;
    static const char *const need[] = {"benchmark", "axes", "time_s"};
    int col[3];
    bool ok = cb_csv_require(csv, need, 3, col, err);
    int device_col = cb_csv_col(csv, "device"), replicate_col = cb_csv_col(csv, "replicate");
    char devices[MAX_DEVICES][16];
    int n_devices = 0;
    for (int i = 0; i < count; i++)
        if (f->members[first + i].device[0])
            snprintf(devices[n_devices++], sizeof devices[0], "%s", f->members[first + i].device);
    cb_cmp_point *last = NULL;
    int last_member = -1;
    for (int r = 0; ok && r < cb_csv_rows(csv); r++) {
        const char *bench = cb_csv_get(csv, r, col[0]);
        const char *axes = cb_csv_get(csv, r, col[1]);
        int mi = member_of(devices, n_devices, first,
                           device_col >= 0 ? cb_csv_get(csv, r, device_col) : "");
        double t;
        int replicate;
        if (!cb_cmp_sample_row(csv, r, col[2], replicate_col, path, &t, &replicate, err)) {
            ok = false;
            break;
        }
        if (mi < 0) continue;
        cb_fleet_member *m = &f->members[mi];
        cb_cmp_point *p = last;
        if (mi != last_member || !p || strcmp(p->benchmark, bench) != 0 ||
            strcmp(p->axes, axes) != 0)
            p = cb_cmp_run_find(&m->run, bench, axes);
        if (!p) { /* a run stopped between the two writes */
            m->run.orphan_samples++;
            continue;
        }
        last = p;
        last_member = mi;
        if (p->timed) ok = cb_cmp_point_add_time(p, t, replicate, err);
    }
    cb_csv_free(csv);
    return ok;
}

bool cb_fleet_read_run(cb_fleet *f, int dir, const char *path, const char *meta, cb_msg *err)
{
    char file[PATH_MAX];
    int first = f->n_members;
    int n = snprintf(file, sizeof file, "%s/results.csv", path);
    if (n < 0 || (size_t)n >= sizeof file) {
        cb_msg_set(err, "%.100s: path too long", path);
        return false;
    }
    if (!read_results(f, dir, file, meta, err)) return false;
    snprintf(file, sizeof file, "%s/samples.csv", path);
    if (!read_samples(f, first, f->n_members - first, file, err)) return false;
    for (int i = first; i < f->n_members; i++)
        f->members[i].complete = true;
    return true;
}
