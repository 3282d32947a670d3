/* telemetry.c - NVML for one run: devices, the matched device, the sampler. */
#include "telemetry.h"

#include "telemetry_device.h"
#include "telemetry_internal.h"
#include "telemetry_reasons.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

void cb_telemetry_options_defaults(cb_telemetry_options *o)
{
    memset(o, 0, sizeof *o);
    o->period_s = CB_TELEMETRY_DEFAULT_PERIOD_S;
}

static void read_versions(cb_telemetry *t)
{
    const cb_nvml *n = &t->nvml;
    cb_nvmlReturn_t rc = CB_NVML_CALL(n, SystemGetDriverVersion, t->driver_version,
                                      (unsigned)sizeof t->driver_version);
    if (rc != CB_NVML_SUCCESS) {
        t->driver_version[0] = '\0';
        cb_nvml_error_text(n, rc, t->driver_error, sizeof t->driver_error);
    }
    rc = CB_NVML_CALL(n, SystemGetNVMLVersion, t->nvml_version, (unsigned)sizeof t->nvml_version);
    if (rc != CB_NVML_SUCCESS) {
        t->nvml_version[0] = '\0';
        cb_nvml_error_text(n, rc, t->nvml_error, sizeof t->nvml_error);
    }
}

/* Every device NVML sees, each read once. False with t->reason when none. */
static bool list_devices(cb_telemetry *t)
{
    const cb_nvml *n = &t->nvml;
    unsigned int count = 0;
    cb_nvmlReturn_t rc = n->fn.DeviceGetCount(&count);
    if (rc != CB_NVML_SUCCESS) {
        cb_nvml_error_text(n, rc, t->count_error, sizeof t->count_error);
        snprintf(t->reason, sizeof t->reason, "nvmlDeviceGetCount_v2 failed: %s", t->count_error);
        return false;
    }
    if (count == 0) {
        snprintf(t->reason, sizeof t->reason, "NVML sees no device");
        return false;
    }
    t->devices = calloc(count, sizeof *t->devices);
    t->matched = calloc(count, sizeof *t->matched);
    if (!t->devices || !t->matched) {
        snprintf(t->reason, sizeof t->reason, "out of host memory for %u NVML devices", count);
        return false;
    }
    for (unsigned int i = 0; i < count; i++) {
        cb_nvmlDevice_t h = NULL;
        rc = n->fn.DeviceGetHandleByIndex(i, &h);
        cb_nvml_device_info *d = &t->devices[t->n_devices];
        if (rc != CB_NVML_SUCCESS) {
            /* Listed with its error so meta.json shows the gap (a lost GPU,
             * no permission for one of several devices). */
            cb_nvml_device_unknown(d, (int)i);
            d->errors[0].field = "handle";
            cb_nvml_error_text(n, rc, d->errors[0].text, sizeof d->errors[0].text);
            d->n_errors = 1;
        } else {
            cb_nvml_device_query(n, h, (int)i, d);
        }
        t->n_devices++;
    }
    return true;
}

/* The NVML device with this UUID (any case), or -1. */
static int find_uuid(const cb_telemetry *t, const char *uuid)
{
    for (int i = 0; uuid && i < t->n_devices; i++)
        if (strcasecmp(t->devices[i].uuid, uuid) == 0) return i;
    return -1;
}

cb_telemetry *cb_telemetry_open(const cb_telemetry_options *o, const char *const *cuda_uuids,
                                int n_uuids)
{
    cb_telemetry *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->opt = *o;
    if (!(t->opt.period_s > 0)) t->opt.period_s = CB_TELEMETRY_DEFAULT_PERIOD_S;
    t->current = -1;
    if (o->off) {
        snprintf(t->reason, sizeof t->reason, "off (--no-telemetry)");
        return t;
    }
    cb_msg why = {{0}};
    if (!cb_nvml_open(&t->nvml, o->library, &why)) {
        snprintf(t->reason, sizeof t->reason, "%s", why.text);
        return t;
    }
    t->nvml_open = true;
    read_versions(t);
    if (!list_devices(t)) return t;
    if (n_uuids <= 0) {
        snprintf(t->reason, sizeof t->reason,
                 "no CUDA device to sample (host benchmarks carry no telemetry)");
        return t;
    }
    for (int k = 0; k < n_uuids; k++) {
        int i = find_uuid(t, cuda_uuids[k]);
        if (i >= 0) {
            t->matched[i] = true;
            if (t->current < 0) t->current = i;
        } else {
            size_t used = strlen(t->unmatched);
            snprintf(t->unmatched + used, sizeof t->unmatched - used, "%s%.60s", used ? " " : "",
                     cuda_uuids[k] ? cuda_uuids[k] : "?");
        }
    }
    if (t->current < 0) {
        snprintf(t->reason, sizeof t->reason,
                 "NVML sees no device with the CUDA device's UUID %.60s (%d NVML device(s))",
                 cuda_uuids[0] ? cuda_uuids[0] : "?", t->n_devices);
        return t;
    }
    const cb_nvml_device_info *d = &t->devices[t->current];
    if (cb_sampler_create(&t->sampler, &t->nvml, d->handle, d->power, t->opt.period_s, &why) !=
        CB_OK) {
        snprintf(t->reason, sizeof t->reason, "%s", why.text);
        t->current = -1;
        return t;
    }
    t->reason[0] = '\0';
    return t;
}

bool cb_telemetry_select(cb_telemetry *t, const char *uuid)
{
    if (!t || !t->sampler) return false;
    int i = find_uuid(t, uuid);
    if (i < 0 || !t->matched[i]) return false;
    if (i != t->current) {
        cb_sampler_set_device(t->sampler, t->devices[i].handle, t->devices[i].power);
        t->current = i;
    }
    return true;
}

bool cb_telemetry_sampling(const cb_telemetry *t)
{
    return t && t->sampler;
}

const char *cb_telemetry_unavailable_reason(const cb_telemetry *t)
{
    if (!t) return "out of host memory for telemetry";
    return t->sampler ? NULL : t->reason;
}

bool cb_telemetry_latest(cb_telemetry *t, cb_telemetry_reading *out)
{
    return t && t->sampler && cb_sampler_latest(t->sampler, out);
}

bool cb_telemetry_read_now(cb_telemetry *t, cb_telemetry_reading *out)
{
    if (!t || !t->sampler || t->current < 0) return false;
    const cb_nvml_device_info *d = &t->devices[t->current];
    cb_sampler_errors ignored;
    memset(&ignored, 0, sizeof ignored);
    cb_sampler_read(&t->nvml, d->handle, d->power, out, &ignored);
    return true;
}

bool cb_telemetry_violation_now(cb_telemetry *t, cb_violation_ns *out)
{
    memset(out, 0, sizeof *out);
    if (!t || !t->sampler || t->current < 0) return false;
    const cb_nvml_device_info *d = &t->devices[t->current];
    cb_nvmlViolationTime_t v;
    memset(&v, 0, sizeof v);
    if (CB_NVML_CALL(&t->nvml, DeviceGetViolationStatus, d->handle, CB_NVML_PERF_POLICY_POWER,
                     &v) != CB_NVML_SUCCESS)
        return false;
    out->power = v.violationTime;
    memset(&v, 0, sizeof v);
    if (CB_NVML_CALL(&t->nvml, DeviceGetViolationStatus, d->handle, CB_NVML_PERF_POLICY_THERMAL,
                     &v) == CB_NVML_SUCCESS)
        out->thermal = v.violationTime;
    return true;
}

/* The clock a throttled reading is measured against, MHz; 0 unknown. */
static double reference_clock_mhz(const cb_telemetry *t)
{
    if (!t || t->current < 0) return 0;
    const cb_nvml_device_info *d = &t->devices[t->current];
    if (d->app_clock_sm_mhz > 0) return (double)d->app_clock_sm_mhz;
    return d->max_clock_sm_mhz > 0 ? (double)d->max_clock_sm_mhz : 0;
}

bool cb_telemetry_throttled(const cb_telemetry *t, const cb_telemetry_reading *r, char *why,
                            size_t len)
{
    return cb_reading_throttled(r, reference_clock_mhz(t), CB_THROTTLE_CLOCK_SHARE, why, len);
}

void cb_telemetry_point_begin(cb_telemetry *t)
{
    if (t && t->sampler) cb_sampler_begin(t->sampler);
}

cb_status cb_telemetry_point_end(cb_telemetry *t, cb_telemetry_readings *out, cb_msg *why)
{
    if (!t || !t->sampler) return CB_OK;
    return cb_sampler_end(t->sampler, out, why);
}

static void kv_text_or_null(cb_json *j, const char *key, const char *s)
{
    cb_json_kv_str(j, key, s && s[0] ? s : NULL);
}

static void write_sampling(cb_json *j, const cb_telemetry *t)
{
    cb_json_key(j, "sampling");
    if (!t->sampler) {
        cb_json_null(j);
        return;
    }
    cb_sampler_errors e;
    cb_sampler_errors_get(t->sampler, &e);
    cb_json_object_begin(j);
    cb_json_kv_int(j, "readings", e.readings);
    cb_json_kv_int(j, "readings_dropped", e.dropped);
    cb_json_kv_object_begin(j, "failed_calls");
    for (int f = 0; f < CB_N_FIELDS; f++) {
        if (!e.count[f]) continue;
        cb_json_kv_object_begin(j, cb_telemetry_field_name(f));
        cb_json_kv_int(j, "count", e.count[f]);
        cb_json_kv_str(j, "first_error", e.first[f]);
        cb_json_object_end(j);
    }
    cb_json_object_end(j);
    cb_json_object_end(j);
}

/* The sampled devices' UUIDs; the first of them, NULL when none. */
static const cb_nvml_device_info *write_sampled_uuids(cb_json *j, const cb_telemetry *t)
{
    cb_json_kv_array_begin(j, "sampled_device_uuids");
    const cb_nvml_device_info *first = NULL;
    for (int i = 0; t->sampler && i < t->n_devices; i++) {
        if (!t->matched[i]) continue;
        cb_json_str(j, t->devices[i].uuid);
        if (!first) first = &t->devices[i];
    }
    cb_json_array_end(j);
    return first;
}

/* The clock-event reasons that count as throttling, by name. */
static void write_throttle_counted(cb_json *j)
{
    cb_json_kv_array_begin(j, "throttle_counted");
    uint64_t counted = cb_reasons_throttling_mask();
    for (uint64_t bit = 1; bit <= counted; bit <<= 1)
        if (counted & bit) cb_json_str(j, cb_reason_word(bit));
    cb_json_array_end(j);
}

/* What failed while opening NVML, each under the name of what it read. */
static void write_open_errors(cb_json *j, const cb_telemetry *t)
{
    cb_json_kv_object_begin(j, "errors");
    if (t->driver_error[0]) cb_json_kv_str(j, "driver_version", t->driver_error);
    if (t->nvml_error[0]) cb_json_kv_str(j, "nvml_version", t->nvml_error);
    if (t->count_error[0]) cb_json_kv_str(j, "device_count", t->count_error);
    if (t->sampler && t->unmatched[0]) cb_json_kv_str(j, "cuda_devices_not_seen", t->unmatched);
    cb_json_object_end(j);
}

static void write_devices(cb_json *j, const cb_telemetry *t)
{
    cb_json_kv_array_begin(j, "devices");
    for (int i = 0; i < t->n_devices; i++)
        cb_nvml_device_write_json(j, &t->devices[i], t->sampler && t->matched[i]);
    cb_json_array_end(j);
}

void cb_telemetry_write_json(cb_json *j, const cb_telemetry *t)
{
    cb_json_kv_object_begin(j, "telemetry");
    bool nvml = t && t->nvml_open;
    cb_json_kv_str(j, "source", nvml ? "nvml" : NULL);
    cb_json_kv_str(j, "unavailable_reason", cb_telemetry_unavailable_reason(t));
    if (!t) {
        cb_json_object_end(j);
        return;
    }
    cb_json_kv_str(j, "library", t->nvml.path[0] ? t->nvml.path : NULL);
    cb_json_kv_num(j, "period_ms", t->opt.period_s * 1e3);
    const cb_nvml_device_info *first = write_sampled_uuids(j, t);
    /* Per device below; here the first sampled device's. */
    cb_json_kv_str(j, "power_source", first ? cb_power_source_name(first->power) : NULL);
    cb_json_kv_str(j, "clock_event_reasons_call", nvml ? t->nvml.fn.reasons_symbol : NULL);
    write_throttle_counted(j);
    cb_json_kv_num(j, "sm_clock_spread_flag", CB_TELEMETRY_CLOCK_SPREAD);
    kv_text_or_null(j, "driver_version", nvml ? t->driver_version : NULL);
    kv_text_or_null(j, "nvml_version", nvml ? t->nvml_version : NULL);
    write_open_errors(j, t);
    write_sampling(j, t);
    write_devices(j, t);
    cb_json_object_end(j);
}

void cb_telemetry_print(FILE *f, const cb_telemetry *t)
{
    if (!t || !t->nvml_open) {
        fprintf(f, "telemetry: unavailable - %s\n", cb_telemetry_unavailable_reason(t));
        return;
    }
    fprintf(f, "telemetry: NVML %s, driver %s (%s), %d device(s); clock-event reasons by %s\n",
            t->nvml_version[0] ? t->nvml_version : "?",
            t->driver_version[0] ? t->driver_version : "?", t->nvml.path, t->n_devices,
            t->nvml.fn.reasons_symbol ? t->nvml.fn.reasons_symbol : "(none: the call is missing)");
    for (int i = 0; i < t->n_devices; i++)
        cb_nvml_device_print(f, &t->devices[i]);
    if (t->count_error[0]) fprintf(f, "  %s\n", t->reason);
}

void cb_telemetry_close(cb_telemetry *t)
{
    if (!t) return;
    cb_telemetry_unlock_clocks(t);
    cb_sampler_destroy(t->sampler);
    if (t->nvml_open) cb_nvml_close(&t->nvml);
    free(t->devices);
    free(t->matched);
    free(t->locked);
    free(t);
}
