/* telemetry_device.c - NVML's static view of one GPU, for meta.json and env. */
#include "telemetry_device.h"

#include <math.h>
#include <string.h>

static void field_error(const cb_nvml *n, cb_nvml_device_info *d, const char *field,
                        cb_nvmlReturn_t rc)
{
    if (d->n_errors == CB_NVML_MAX_FIELD_ERRORS) return;
    d->errors[d->n_errors].field = field;
    cb_nvml_error_text(n, rc, d->errors[d->n_errors].text, sizeof d->errors[0].text);
    d->n_errors++;
}

/* An unsigned query into a long long (-1 when it fails). */
#define CB_QUERY_UINT(dst, field, call)                                                            \
    do {                                                                                           \
        unsigned int cb_v_ = 0;                                                                    \
        cb_nvmlReturn_t cb_rc_ = (call);                                                           \
        if (cb_rc_ == CB_NVML_SUCCESS)                                                             \
            (dst) = cb_v_;                                                                         \
        else                                                                                       \
            field_error(n, d, field, cb_rc_);                                                      \
    } while (0)

/* A feature's mode (persistence, ECC, MIG) into *flag: 1 enabled, 0 not;
 * a failed query leaves it unknown and records why. */
static void feature_flag(const cb_nvml *n, cb_nvml_device_info *d, int *flag, const char *field,
                         cb_nvmlReturn_t rc, long long mode)
{
    if (rc == CB_NVML_SUCCESS)
        *flag = mode == CB_NVML_FEATURE_ENABLED;
    else
        field_error(n, d, field, rc);
}

void cb_nvml_device_unknown(cb_nvml_device_info *d, int index)
{
    memset(d, 0, sizeof *d);
    d->index = index;
    d->power_limit_w = d->power_default_limit_w = NAN;
    d->app_clock_sm_mhz = d->app_clock_mem_mhz = d->max_clock_sm_mhz = d->max_clock_mem_mhz = -1;
    d->persistence_mode = d->ecc_current = d->mig_current = -1;
    d->pcie_gen = d->pcie_width = d->pcie_max_gen = d->pcie_max_width = -1;
    d->power = CB_POWER_NONE;
}

void cb_nvml_device_query(const cb_nvml *n, cb_nvmlDevice_t dev, int index, cb_nvml_device_info *d)
{
    cb_nvml_device_unknown(d, index);
    d->handle = dev;

    cb_nvmlReturn_t rc = CB_NVML_CALL(n, DeviceGetUUID, dev, d->uuid, sizeof d->uuid);
    if (rc != CB_NVML_SUCCESS) {
        d->uuid[0] = '\0';
        field_error(n, d, "uuid", rc);
    }
    rc = CB_NVML_CALL(n, DeviceGetName, dev, d->name, sizeof d->name);
    if (rc != CB_NVML_SUCCESS) {
        d->name[0] = '\0';
        field_error(n, d, "name", rc);
    }
    long long mw = -1;
    CB_QUERY_UINT(mw, "power_limit_enforced_w",
                  CB_NVML_CALL(n, DeviceGetEnforcedPowerLimit, dev, &cb_v_));
    if (mw >= 0) d->power_limit_w = mw / 1e3;
    mw = -1;
    CB_QUERY_UINT(mw, "power_limit_default_w",
                  CB_NVML_CALL(n, DeviceGetPowerManagementDefaultLimit, dev, &cb_v_));
    if (mw >= 0) d->power_default_limit_w = mw / 1e3;
    CB_QUERY_UINT(d->app_clock_sm_mhz, "applications_clock_sm_mhz",
                  CB_NVML_CALL(n, DeviceGetApplicationsClock, dev, CB_NVML_CLOCK_SM, &cb_v_));
    CB_QUERY_UINT(d->app_clock_mem_mhz, "applications_clock_mem_mhz",
                  CB_NVML_CALL(n, DeviceGetApplicationsClock, dev, CB_NVML_CLOCK_MEM, &cb_v_));
    CB_QUERY_UINT(d->max_clock_sm_mhz, "max_clock_sm_mhz",
                  CB_NVML_CALL(n, DeviceGetMaxClockInfo, dev, CB_NVML_CLOCK_SM, &cb_v_));
    CB_QUERY_UINT(d->max_clock_mem_mhz, "max_clock_mem_mhz",
                  CB_NVML_CALL(n, DeviceGetMaxClockInfo, dev, CB_NVML_CLOCK_MEM, &cb_v_));
    int mode = 0, pending = 0;
    rc = CB_NVML_CALL(n, DeviceGetPersistenceMode, dev, &mode);
    feature_flag(n, d, &d->persistence_mode, "persistence_mode", rc, mode);
    rc = CB_NVML_CALL(n, DeviceGetEccMode, dev, &mode, &pending);
    feature_flag(n, d, &d->ecc_current, "ecc_current", rc, mode);
    unsigned int mig = 0, mig_pending = 0;
    rc = CB_NVML_CALL(n, DeviceGetMigMode, dev, &mig, &mig_pending);
    feature_flag(n, d, &d->mig_current, "mig_mode_current", rc, mig);
    CB_QUERY_UINT(d->pcie_gen, "pcie_generation",
                  CB_NVML_CALL(n, DeviceGetCurrPcieLinkGeneration, dev, &cb_v_));
    CB_QUERY_UINT(d->pcie_width, "pcie_width",
                  CB_NVML_CALL(n, DeviceGetCurrPcieLinkWidth, dev, &cb_v_));
    CB_QUERY_UINT(d->pcie_max_gen, "pcie_max_generation",
                  CB_NVML_CALL(n, DeviceGetMaxPcieLinkGeneration, dev, &cb_v_));
    CB_QUERY_UINT(d->pcie_max_width, "pcie_max_width",
                  CB_NVML_CALL(n, DeviceGetMaxPcieLinkWidth, dev, &cb_v_));
    cb_sampler_errors e;
    memset(&e, 0, sizeof e);
    d->power = cb_sampler_probe_power(n, dev, &e);
    if (d->power == CB_POWER_NONE && d->n_errors < CB_NVML_MAX_FIELD_ERRORS) {
        d->errors[d->n_errors].field = "power";
        memcpy(d->errors[d->n_errors].text, e.first[CB_FIELD_POWER], sizeof d->errors[0].text);
        d->n_errors++;
    }
}

static void kv_int_or_null(cb_json *j, const char *key, long long v)
{
    if (v >= 0)
        cb_json_kv_int(j, key, v);
    else {
        cb_json_key(j, key);
        cb_json_null(j);
    }
}

static void kv_bool_or_null(cb_json *j, const char *key, int v)
{
    if (v >= 0)
        cb_json_kv_bool(j, key, v == 1);
    else {
        cb_json_key(j, key);
        cb_json_null(j);
    }
}

void cb_nvml_device_write_json(cb_json *j, const cb_nvml_device_info *d, bool sampled)
{
    cb_json_object_begin(j);
    cb_json_kv_int(j, "nvml_index", d->index);
    cb_json_kv_str(j, "name", d->name[0] ? d->name : NULL);
    cb_json_kv_str(j, "uuid", d->uuid[0] ? d->uuid : NULL);
    cb_json_kv_bool(j, "sampled", sampled);
    cb_json_kv_num(j, "power_limit_enforced_w", d->power_limit_w);
    cb_json_kv_num(j, "power_limit_default_w", d->power_default_limit_w);
    cb_json_kv_str(j, "power_source", cb_power_source_name(d->power));
    kv_int_or_null(j, "applications_clock_sm_mhz", d->app_clock_sm_mhz);
    kv_int_or_null(j, "applications_clock_mem_mhz", d->app_clock_mem_mhz);
    kv_int_or_null(j, "max_clock_sm_mhz", d->max_clock_sm_mhz);
    kv_int_or_null(j, "max_clock_mem_mhz", d->max_clock_mem_mhz);
    kv_bool_or_null(j, "persistence_mode", d->persistence_mode);
    kv_bool_or_null(j, "ecc_current", d->ecc_current);
    kv_bool_or_null(j, "mig_mode_current", d->mig_current);
    cb_json_kv_object_begin(j, "pcie");
    kv_int_or_null(j, "generation", d->pcie_gen);
    kv_int_or_null(j, "width", d->pcie_width);
    kv_int_or_null(j, "max_generation", d->pcie_max_gen);
    kv_int_or_null(j, "max_width", d->pcie_max_width);
    cb_json_object_end(j);
    cb_json_kv_object_begin(j, "errors");
    for (int i = 0; i < d->n_errors; i++)
        cb_json_kv_str(j, d->errors[i].field, d->errors[i].text);
    cb_json_object_end(j);
    cb_json_object_end(j);
}

static void print_uint(FILE *f, long long v)
{
    if (v >= 0)
        fprintf(f, "%lld", v);
    else
        fprintf(f, "?");
}

/* "A SEP B" ("1980 / max 1980", "5 x16"), '?' for a value NVML did not give. */
static void print_pair(FILE *f, long long a, const char *sep, long long b)
{
    print_uint(f, a);
    fputs(sep, f);
    print_uint(f, b);
}

static const char *on_off(int v)
{
    return v < 0 ? "?" : v ? "on" : "off";
}

void cb_nvml_device_print(FILE *f, const cb_nvml_device_info *d)
{
    fprintf(f, "  nvml device %d: %s %s\n", d->index, d->name[0] ? d->name : "?",
            d->uuid[0] ? d->uuid : "?");
    fprintf(f, "    power limit ");
    if (isfinite(d->power_limit_w))
        fprintf(f, "%.0f W", d->power_limit_w);
    else
        fprintf(f, "?");
    if (isfinite(d->power_default_limit_w))
        fprintf(f, " (default %.0f W)", d->power_default_limit_w);
    fprintf(f, ", power reading %s; clocks SM app ",
            cb_power_source_name(d->power) ? cb_power_source_name(d->power) : "none");
    print_pair(f, d->app_clock_sm_mhz, " / max ", d->max_clock_sm_mhz);
    fprintf(f, " MHz, memory app ");
    print_pair(f, d->app_clock_mem_mhz, " / max ", d->max_clock_mem_mhz);
    fprintf(f, " MHz\n    persistence %s, ECC %s, MIG %s, PCIe gen ", on_off(d->persistence_mode),
            on_off(d->ecc_current), on_off(d->mig_current));
    print_pair(f, d->pcie_gen, " x", d->pcie_width);
    fprintf(f, " (max gen ");
    print_pair(f, d->pcie_max_gen, " x", d->pcie_max_width);
    fprintf(f, ")\n");
    for (int i = 0; i < d->n_errors; i++)
        fprintf(f, "    %s: %s\n", d->errors[i].field, d->errors[i].text);
}
