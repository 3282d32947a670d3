/* counters_json.c - meta.json's "metrics" section: what --metrics asked
 * for, what it meant on each chip (name, unit, CUPTI's description, the
 * column it feeds, how a point's kernels combine, passes), each device's
 * standing, and the versions of the libraries that read the counters. docs/schema.md lists the
 * keys. */
#include "counters_session.h"

#include <cuda_runtime_api.h>
#include <cupti.h>

static void write_chip(cb_json *j, const cb_counters_chip *chip)
{
    cb_json_object_begin(j);
    cb_json_kv_str(j, "chip", chip->name);
    cb_json_kv_bool(j, "usable", chip->usable);
    cb_json_kv_str(j, "unusable_reason", chip->usable ? NULL : chip->unusable_reason);
    cb_json_kv_int(j, "passes", (long long)chip->passes);
    cb_json_kv_array_begin(j, "metrics");
    for (int i = 0; i < chip->n; i++) {
        cb_json_object_begin(j);
        cb_json_kv_str(j, "name", chip->names[i]);
        cb_json_kv_str(j, "unit", chip->units[i]);
        cb_json_kv_str(j, "description", chip->desc[i]);
        cb_json_kv_str(j, "column", cb_counters_role_column(chip->role[i]));
        cb_json_kv_str(j, "combine",
                       cb_counters_combine_name(cb_counters_combine_of(chip->names[i])));
        if (chip->role[i] == CB_COUNTERS_ROLE_FLOPS) cb_json_kv_num(j, "weight", chip->weight[i]);
        cb_json_object_end(j);
    }
    cb_json_array_end(j);
    cb_json_object_end(j);
}

static void write_devices(cb_json *j, const cb_counters *c)
{
    cb_json_kv_array_begin(j, "devices");
    for (int i = 0; i < c->n_devices; i++) {
        const cb_counters_device *d = &c->devices[i];
        cb_json_object_begin(j);
        cb_json_kv_int(j, "ordinal", d->ordinal);
        cb_json_kv_str(j, "chip", d->chip >= 0 ? c->chips[d->chip].name : NULL);
        cb_json_kv_str(j, "skip_reason", d->skip_reason[0] ? d->skip_reason : NULL);
        cb_json_object_end(j);
    }
    cb_json_array_end(j);
}

void cb_counters_write_json(cb_json *j, const cb_counters *c)
{
    cb_json_key(j, "metrics");
    if (!c) {
        cb_json_null(j);
        return;
    }
    cb_json_object_begin(j);
    cb_json_kv_str(j, "requested", c->spec);
    cb_json_kv_str(j, "notice", cb_counters_notice(c));
    cb_json_kv_str(j, "collection",
                   "CUPTI range profiler after the timed samples: one auto range per kernel of "
                   "one run, user replay, the point's kernels combined (counts summed, rates and "
                   "shares of peak weighted by each kernel's gpu__time_duration.sum); a run "
                   "without kernels, or with max_kernels or more: one user range around it");
    cb_json_kv_int(j, "max_kernels", CB_COUNTERS_MAX_KERNELS);
    cb_json_kv_num(j, "model_tolerance", CB_COUNTERS_MODEL_TOLERANCE);
    uint32_t cupti = 0;
    if (cuptiGetVersion(&cupti) == CUPTI_SUCCESS)
        cb_json_kv_int(j, "cupti_api_version", cupti);
    else
        cb_json_kv_str(j, "cupti_api_version", NULL);
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
        cb_json_kv_int(j, "cuda_driver_api_version", driver);
    else
        cb_json_kv_str(j, "cuda_driver_api_version", NULL);
    cb_json_kv_array_begin(j, "chips");
    for (int k = 0; k < c->n_chips; k++)
        write_chip(j, &c->chips[k]);
    cb_json_array_end(j);
    write_devices(j, c);
    cb_json_object_end(j);
}
