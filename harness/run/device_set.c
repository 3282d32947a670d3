/* device_set.c - `--device N|all|N,M` against the machine (device_set.h). */
#include "device_set.h"

#include "parse_number.h"

#include <stdio.h>
#include <string.h>

/* "0,2" -> {0, 2}; refuses empty items, duplicates and more than the cap. */
static cb_status parse_ordinals(const char *spec, int *want, int *n_want, cb_msg *why)
{
    *n_want = 0;
    const char *p = spec;
    size_t spec_len = strlen(spec);
    if (spec_len > 0 && spec[spec_len - 1] == ',') {
        cb_msg_set(why, "--device: '%.60s' ends with a comma", spec);
        return CB_SKIP;
    }
    do {
        char item[24];
        size_t len = strcspn(p, ",");
        long long v = 0;
        cb_msg err;
        if (len == 0 || len >= sizeof item) {
            cb_msg_set(why, "--device: '%.60s' is not all or a list of ordinals (0, or 0,2)", spec);
            return CB_SKIP;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        if (!cb_parse_int(item, 0, 4096, &v, &err)) {
            cb_msg_set(why, "--device: '%.60s' is not all or a list of ordinals (0, or 0,2)", spec);
            return CB_SKIP;
        }
        for (int k = 0; k < *n_want; k++)
            if (want[k] == (int)v) {
                cb_msg_set(why, "--device: %lld is listed twice", v);
                return CB_SKIP;
            }
        if (*n_want == CB_MAX_RUN_DEVICES) {
            cb_msg_set(why, "--device: at most %d devices", CB_MAX_RUN_DEVICES);
            return CB_SKIP;
        }
        want[(*n_want)++] = (int)v;
        p += len;
    } while (*p++ == ',');
    return CB_OK;
}

cb_status cb_device_set_resolve(const char *spec, bool given, cb_device_set *ds, cb_msg *no_device,
                                cb_msg *why)
{
    ds->n = 0;
    int count = cb_device_count(no_device);
    int want[CB_MAX_RUN_DEVICES], n_want = 0;
    if (strcmp(spec, "all") == 0) {
        for (int d = 0; d < count && d < CB_MAX_RUN_DEVICES; d++)
            want[n_want++] = d;
    } else if (parse_ordinals(spec, want, &n_want, why) != CB_OK) {
        return CB_SKIP;
    }
    for (int k = 0; k < n_want; k++) {
        if (want[k] < count) continue;
        if (count == 0 && !given) return CB_OK; /* the default, on a machine without one */
        if (count == 0)
            cb_msg_set(why, "no CUDA device; --device %d cannot be used (%s)", want[k],
                       no_device->text);
        else
            cb_msg_set(why, "--device %d: only %d device(s) (0..%d)", want[k], count, count - 1);
        return CB_SKIP;
    }
    for (int k = 0; k < n_want; k++) {
        if (cb_device_query(want[k], &ds->info[ds->n], why) != CB_OK) {
            char inner[CB_MSG_LEN];
            snprintf(inner, sizeof inner, "%s", why->text);
            cb_msg_set(why, "cannot query device %d: %.200s", want[k], inner);
            return CB_FAIL;
        }
        ds->ptr[ds->n] = &ds->info[ds->n];
        ds->n++;
    }
    return CB_OK;
}
