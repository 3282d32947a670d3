/* compare_meta.c - meta.json through jansson: the conditions of a run. */
#include "compare_meta.h"

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

static bool read_file(const char *path, char **text, size_t *len, bool *missing, cb_msg *err)
{
    *text = NULL;
    *missing = false;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) {
            *missing = true;
            return true;
        }
        cb_msg_set(err, "%s: %s", path, strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, used = 0;
    char *buf = malloc(cap);
    bool ok = buf != NULL;
    while (ok) {
        if (used == cap) {
            if (cap >= CB_META_MAX_BYTES) {
                cb_msg_set(err, "%s: larger than %u MiB: not a cubench meta.json", path,
                           CB_META_MAX_BYTES >> 20);
                ok = false;
                break;
            }
            char *b = realloc(buf, cap * 2);
            if (!b) {
                cb_msg_set(err, "compare: out of memory reading %s", path);
                ok = false;
                break;
            }
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + used, 1, cap - used, f);
        used += got;
        if (got == 0) {
            if (ferror(f)) {
                cb_msg_set(err, "%s: read error", path);
                ok = false;
            }
            break;
        }
    }
    fclose(f);
    if (!ok) {
        free(buf);
        return false;
    }
    *text = buf;
    *len = used;
    return true;
}

static bool collect(cb_cmp_meta *m, const json_t *root)
{
    const json_t *v = json_object_get(root, "schema_version");
    if (json_is_integer(v)) m->schema_version = (int)json_integer_value(v);
    v = json_object_get(root, "git_sha");
    if (json_is_string(v)) snprintf(m->git_sha, sizeof m->git_sha, "%s", json_string_value(v));
    v = at_path(root, "device.name");
    if (json_is_string(v)) snprintf(m->device, sizeof m->device, "%s", json_string_value(v));
    v = json_object_get(root, "started");
    if (json_is_string(v)) snprintf(m->started, sizeof m->started, "%s", json_string_value(v));
    v = at_path(root, "host.hostname");
    if (json_is_string(v)) snprintf(m->hostname, sizeof m->hostname, "%s", json_string_value(v));
    m->complete = json_is_true(json_object_get(root, "complete"));
    char text[208];
    if (json_is_null(json_object_get(root, "device")) && !add_condition(m, "device", "none"))
        return false;
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

bool cb_cmp_meta_read(const char *path, cb_cmp_meta *out, cb_msg *err)
{
    memset(out, 0, sizeof *out);
    char *text;
    size_t len;
    bool missing;
    if (!read_file(path, &text, &len, &missing, err)) return false;
    if (missing) return true;
    bool ok = false;
    json_t *root = NULL;
    if (cb_cmp_json_depth(text, len, CB_META_MAX_DEPTH) > CB_META_MAX_DEPTH) {
        cb_msg_set(err, "%s: nested deeper than %d levels: not a cubench meta.json", path,
                   CB_META_MAX_DEPTH);
        goto done;
    }
    json_error_t jerr;
    root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        cb_msg_set(err, "%s:%d:%d: invalid JSON: %.120s", path, jerr.line, jerr.column, jerr.text);
        goto done;
    }
    if (!json_is_object(root)) {
        cb_msg_set(err, "%s: the top level is not a JSON object", path);
        goto done;
    }
    out->present = true;
    ok = collect(out, root);
    if (!ok) cb_msg_set(err, "compare: out of memory reading %s", path);
done:
    json_decref(root);
    free(text);
    if (!ok) cb_cmp_meta_free(out);
    return ok;
}

const char *cb_cmp_meta_get(const cb_cmp_meta *m, const char *key)
{
    for (int i = 0; i < m->n_conditions; i++)
        if (strcmp(m->conditions[i].key, key) == 0) return m->conditions[i].value;
    return NULL;
}

void cb_cmp_meta_free(cb_cmp_meta *m)
{
    for (int i = 0; i < m->n_conditions; i++) {
        free(m->conditions[i].key);
        free(m->conditions[i].value);
    }
    free(m->conditions);
    memset(m, 0, sizeof *m);
}
