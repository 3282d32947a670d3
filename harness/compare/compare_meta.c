/* compare_meta.c - meta.json through jansson: the conditions of a run. */
#include "compare_meta.h"

#include "run_files.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The conditions read from fixed places (docs/schema.md); the telemetry
 * block's readings are added after them. */
static const char *const fixed_keys[] = {
    "device.name",
    "device.uuid",
    "device.compute_capability",
    "device.sm_count",
    "device.sm_clock_khz",
    "device.memory_clock_khz",
    "device.memory_bus_width_bits",
    "device.l2_bytes",
    "device.pcie.generation",
    "device.pcie.width",
    "cuda.driver_api_version",
    "cuda.runtime_version",
    "cuda.cublas_version",
    "host.cpu",
    "host.cores",
    "build.type",
    "build.cuda_architectures",
    "settings.cache",
    "settings.timer",
    "settings.min_samples",
    "settings.target_ci_rel_half",
    "settings.max_time_per_point_s",
    "settings.hot_min_sample_s",
    "settings.replicates",
};

int cb_cmp_json_depth(const char *text, size_t len, int limit)
{
    int depth = 0, deepest = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '{' || c == '[') {
            if (++depth > deepest) deepest = depth;
            if (deepest > limit) break;
        } else if (c == '}' || c == ']') {
            depth--;
        }
    }
    return deepest;
}

/* A scalar as text; false for objects and arrays. */
static bool scalar_text(const json_t *v, char *buf, size_t len)
{
    switch (json_typeof(v)) {
    case JSON_STRING: {
        const char *s = json_string_value(v);
        size_t o = 0;
        for (; *s && o + 1 < len; s++) /* control characters would break a table */
            buf[o++] = (unsigned char)*s < 0x20 ? ' ' : *s;
        buf[o] = '\0';
        return true;
    }
    case JSON_INTEGER:
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
        return true;
    case JSON_REAL:
        snprintf(buf, len, "%.6g", json_real_value(v));
        return true;
    case JSON_TRUE:
        snprintf(buf, len, "true");
        return true;
    case JSON_FALSE:
        snprintf(buf, len, "false");
        return true;
    case JSON_NULL:
        snprintf(buf, len, "null");
        return true;
    default:
        return false;
    }
}

/* The value at a dotted path of objects, or NULL. */
static const json_t *at_path(const json_t *root, const char *path)
{
    char part[64];
    const json_t *v = root;
    while (v && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof part) return NULL;
        memcpy(part, path, n);
        part[n] = '\0';
        v = json_is_object(v) ? json_object_get(v, part) : NULL;
        path += n + (path[n] == '.');
    }
    return v;
}

static bool add_condition(cb_cmp_meta *m, const char *key, const char *value)
{
    cb_cmp_kv *kv = realloc(m->conditions, (size_t)(m->n_conditions + 1) * sizeof *kv);
    if (!kv) return false;
    m->conditions = kv;
    kv[m->n_conditions].key = strdup(key);
    kv[m->n_conditions].value = strdup(value);
    if (!kv[m->n_conditions].key || !kv[m->n_conditions].value) {
        free(kv[m->n_conditions].key);
        free(kv[m->n_conditions].value);
        return false;
    }
    m->n_conditions++;
    return true;
}

/* Keys of the telemetry block that are no condition of the run: counts of
 * readings and errors differ from run to run, the library path from machine
 * to machine (docs/telemetry.md). */
static bool telemetry_key_skipped(const char *key)
{
    static const char *const skipped[] = {"sampling", "errors",     "failed_calls",
                                          "library",  "nvml_index", "sampled"};
    for (int i = 0; i < CB_ARRAY_LEN(skipped); i++)
        if (strcmp(key, skipped[i]) == 0) return true;
    return false;
}

static bool add_telemetry(cb_cmp_meta *m, const json_t *obj, const char *prefix, int depth,
                          int *budget);

/* The `devices` array: the devices the run sampled (`"sampled": true`), as
 * telemetry.device (one) or telemetry.device<i> (several). */
static bool add_sampled_devices(cb_cmp_meta *m, const json_t *devices, const char *prefix,
                                int depth, int *budget)
{
    size_t n_sampled = 0, i;
    json_t *d;
    json_array_foreach(devices, i, d) n_sampled += json_is_true(json_object_get(d, "sampled"));
    int k = 0;
    json_array_foreach(devices, i, d)
    {
        if (!json_is_object(d) || !json_is_true(json_object_get(d, "sampled"))) continue;
        char path[240];
        if (n_sampled == 1)
            snprintf(path, sizeof path, "%.160s.device", prefix);
        else
            snprintf(path, sizeof path, "%.160s.device%d", prefix, k);
        k++;
        if (!add_telemetry(m, d, path, depth, budget)) return false;
    }
    return true;
}

/* The scalar readings of the telemetry block, objects followed to `depth`
 * levels; of the arrays only the sampled devices (per-sample series and
 * lists are not conditions). */
static bool add_telemetry(cb_cmp_meta *m, const json_t *obj, const char *prefix, int depth,
                          int *budget)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)obj, key, v)
    {
        if (*budget <= 0) return true;
        if (telemetry_key_skipped(key)) continue;
        char path[240], text[208];
        snprintf(path, sizeof path, "%.160s.%.60s", prefix, key);
        if (scalar_text(v, text, sizeof text)) {
            if (!add_condition(m, path, text)) return false;
            (*budget)--;
        } else if (json_is_object(v) && depth > 1) {
            if (!add_telemetry(m, v, path, depth - 1, budget)) return false;
        } else if (json_is_array(v) && strcmp(key, "devices") == 0 && depth > 1) {
            if (!add_sampled_devices(m, v, prefix, depth - 1, budget)) return false;
        }
    }
    return true;
}

/* An integer member of `obj`, or 0. */
static int int_at(const json_t *obj, const char *path)
{
    const json_t *v = at_path(obj, path);
    if (!json_is_number(v)) return 0;
    double d = json_number_value(v);
    return d >= 0 && d < 1e6 ? (int)d : 0;
}

/* The string at `path` into out (cut to len - 1 bytes, control
 * characters as spaces); out unchanged when there is none. */
static void string_at(const json_t *obj, const char *path, char *out, size_t len)
{
    const json_t *v = at_path(obj, path);
    if (json_is_string(v)) scalar_text(v, out, len);
}

static void device_of(const json_t *block, int index, cb_cmp_device *d)
{
    memset(d, 0, sizeof *d);
    const json_t *ord = json_object_get(block, "ordinal");
    d->ordinal = json_is_integer(ord) ? (int)json_integer_value(ord) : index;
    string_at(block, "name", d->name, sizeof d->name);
    string_at(block, "uuid", d->uuid, sizeof d->uuid);
    d->pcie_gen = int_at(block, "pcie.generation");
    d->pcie_width = int_at(block, "pcie.width");
    d->pcie_max_gen = int_at(block, "pcie.max_generation");
    d->pcie_max_width = int_at(block, "pcie.max_width");
}

/* `devices` (the objects in it), else the one `device` object. */
static bool collect_devices(cb_cmp_meta *m, const json_t *root)
{
    const json_t *list = json_object_get(root, "devices");
    const json_t *one = json_object_get(root, "device");
    m->device_null = json_is_null(one);
    size_t n = json_is_array(list) ? json_array_size(list) : json_is_object(one) ? 1 : 0;
    if (n == 0) return true;
    if (n > 1024) n = 1024; /* more than any machine: the rest are not ours */
    m->devices = calloc(n, sizeof *m->devices);
    if (!m->devices) return false;
    for (size_t i = 0; i < n; i++) {
        const json_t *b = json_is_array(list) ? json_array_get(list, i) : one;
        if (json_is_object(b)) device_of(b, (int)i, &m->devices[m->n_devices++]);
    }
    return true;
}

static uint64_t hash_text(uint64_t h, const char *s)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ 0x1fu) * 0x100000001b3ull;
}

/* hostname, started and the command line, hashed: 0 unless all are there. */
static uint64_t run_identity(const json_t *root)
{
    const json_t *host = at_path(root, "host.hostname");
    const json_t *started = json_object_get(root, "started");
    const json_t *cmd = json_object_get(root, "command_line");
    if (!json_is_string(host) || !json_is_string(started) || !json_is_array(cmd)) return 0;
    uint64_t h = hash_text(0xcbf29ce484222325ull, json_string_value(host));
    h = hash_text(h, json_string_value(started));
    size_t i;
    const json_t *arg;
    json_array_foreach(cmd, i, arg) if (json_is_string(arg)) h =
        hash_text(h, json_string_value(arg));
    return h ? h : 1;
}

static void collect_counted(cb_cmp_meta *m, const json_t *root)
{
    const json_t *list = at_path(root, "telemetry.throttle_counted");
    size_t i;
    const json_t *w;
    json_array_foreach(list, i, w)
    {
        if (m->n_counted == CB_META_MAX_COUNTED) break;
        if (json_is_string(w))
            snprintf(m->counted[m->n_counted++], sizeof m->counted[0], "%s", json_string_value(w));
    }
}

static bool collect(cb_cmp_meta *m, const json_t *root)
{
    const json_t *v = json_object_get(root, "schema_version");
    if (json_is_integer(v)) m->schema_version = (int)json_integer_value(v);
    string_at(root, "git_sha", m->git_sha, sizeof m->git_sha);
    string_at(root, "device.name", m->device, sizeof m->device);
    string_at(root, "host.hostname", m->hostname, sizeof m->hostname);
    string_at(root, "started", m->started, sizeof m->started);
    string_at(root, "host.cpu", m->cpu, sizeof m->cpu);
    v = json_object_get(root, "complete");
    m->complete = json_is_boolean(v) ? json_is_true(v) : -1;
    m->identity = run_identity(root);
    collect_counted(m, root);
    if (!collect_devices(m, root)) return false;
    char text[208];
    if (m->device_null && !add_condition(m, "device", "none")) return false;
    for (int i = 0; i < CB_ARRAY_LEN(fixed_keys); i++) {
        v = at_path(root, fixed_keys[i]);
        if (v && scalar_text(v, text, sizeof text) && !add_condition(m, fixed_keys[i], text))
            return false;
    }
    v = json_object_get(root, "telemetry");
    m->has_telemetry = json_is_object(v);
    int budget = CB_META_MAX_TELEMETRY;
    return !m->has_telemetry || add_telemetry(m, v, "telemetry", 3, &budget);
}

/* Parse `text` as a JSON object of bounded depth; NULL with `err` set. */
static json_t *parse_object(const char *path, const char *text, size_t len, cb_msg *err)
{
    if (cb_cmp_json_depth(text, len, CB_META_MAX_DEPTH) > CB_META_MAX_DEPTH) {
        cb_msg_set(err, "%s: nested deeper than %d levels: not a cubench file", path,
                   CB_META_MAX_DEPTH);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        cb_msg_set(err, "%s:%d:%d: invalid JSON: %.120s", path, jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        cb_msg_set(err, "%s: the top level is not a JSON object", path);
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The JSON object in `path`; NULL with *missing for no file, NULL with `err`
 * set for anything else that is wrong. */
static json_t *load_object(const char *path, bool *missing, cb_msg *err)
{
    size_t len = 0;
    char *text = cb_run_file_text(path, CB_META_MAX_BYTES, &len, missing, err);
    if (!text) return NULL;
    json_t *root = parse_object(path, text, len, err);
    free(text);
    return root;
}

bool cb_cmp_meta_read(const char *path, cb_cmp_meta *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    out->complete = -1;
    bool missing;
    json_t *root = load_object(path, &missing, err);
    if (!root) return missing;
    out->present = true;
    bool ok = collect(out, root);
    if (!ok) cb_msg_set(err, "out of memory reading %s", path);
    json_decref(root);
    if (!ok) cb_cmp_meta_free(out);
    return ok;
}

const cb_cmp_device *cb_cmp_meta_device(const cb_cmp_meta *m, int ordinal)
{
    for (int i = 0; i < m->n_devices; i++)
        if (m->devices[i].ordinal == ordinal) return &m->devices[i];
    return m->n_devices ? &m->devices[0] : NULL;
}

bool cb_cmp_python_frameworks(const char *dir, char *out, size_t len, cb_msg *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/python.json", dir);
    snprintf(out, len, "%s", "");
    bool missing;
    json_t *root = load_object(path, &missing, err);
    if (!root) return missing;
    const char *key;
    json_t *v;
    size_t used = 0;
    json_object_foreach(json_object_get(root, "frameworks"), key, v)
    {
        int n = snprintf(out + used, len - used, "%s%s,", used ? "" : ",", key);
        if (n < 0 || (size_t)n >= len - used) break; /* the rest do not fit: left out */
        used += (size_t)n;
    }
    json_decref(root);
    return true;
}

const char *cb_cmp_meta_get(const cb_cmp_meta *m, const char *key)
{
    for (int i = 0; i < m->n_conditions; i++)
        if (strcmp(m->conditions[i].key, key) == 0) return m->conditions[i].value;
    return NULL;
}

void cb_cmp_meta_free(cb_cmp_meta *m)
{
    free(m->devices);
    for (int i = 0; i < m->n_conditions; i++) {
        free(m->conditions[i].key);
        free(m->conditions[i].value);
    }
    free(m->conditions);
    memset(m, 0, sizeof *m);
}
