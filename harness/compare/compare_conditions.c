/* compare_conditions.c - the conditions that differ between two sides. */
#include "compare_conditions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The side's value of `key` over its runs: "" when no run records it, the
 * value when they agree, else the values joined by " / " and "(varies)". */
static void side_value(const cb_cmp_run *run, const char *key, char *buf, size_t len)
{
    buf[0] = '\0';
    const char *first = NULL;
    bool varies = false;
    for (int d = 0; d < run->n_dirs; d++) {
        const char *v = cb_cmp_meta_get(&run->dirs[d].meta, key);
        if (!v) continue;
        if (!first) {
            first = v;
            snprintf(buf, len, "%s", v);
        } else if (strcmp(first, v) != 0 && !strstr(buf, v)) {
            size_t used = strlen(buf);
            snprintf(buf + used, len - used, " / %s", v);
            varies = true;
        }
    }
    if (varies) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, " (varies)");
    }
}

static void count_meta(const cb_cmp_run *run, int *meta, int *telemetry)
{
    *meta = *telemetry = 0;
    for (int d = 0; d < run->n_dirs; d++) {
        *meta += run->dirs[d].meta.present;
        *telemetry += run->dirs[d].meta.has_telemetry;
    }
}

/* A run's devices: its rows' UUIDs, else its meta.json's first device. */
static void device_signature(const cb_cmp_dir *d, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < d->n_devices && i < 4 && d->uuids[i][0]; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "+" : "", d->uuids[i]);
    if (used) return;
    const cb_cmp_device *dev = d->meta.n_devices ? &d->meta.devices[0] : NULL;
    if (dev && (dev->name[0] || dev->uuid[0]))
        snprintf(buf, len, "%.120s %.90s", dev->name, dev->uuid);
}

/* Say which devices a side's runs used, when they differ. */
static void side_mix(const cb_cmp_run *run, char *out, size_t len)
{
    char first[256] = "", sig[256];
    int same = 0, other = 0, other_at = -1;
    out[0] = '\0';
    for (int d = 0; d < run->n_dirs; d++) {
        device_signature(&run->dirs[d], sig, sizeof sig);
        if (!sig[0]) continue;
        if (!first[0]) snprintf(first, sizeof first, "%s", sig);
        if (strcmp(first, sig) == 0) {
            same++;
        } else {
            other++;
            if (other_at < 0) other_at = d;
        }
    }
    if (!other) return;
    device_signature(&run->dirs[other_at], sig, sizeof sig);
    snprintf(out, len, "%d run%s on %.120s, %d on other devices (first: %.120s)", same,
             same == 1 ? "" : "s", first, other, sig);
}

bool cb_cmp_conditions_diff(const cb_cmp_run *base, const cb_cmp_run *cand, cb_cmp_conditions *out,
                            cb_msg *err)
{
    memset(out, 0, sizeof *out);
    count_meta(base, &out->base_meta, &out->base_telemetry);
    count_meta(cand, &out->new_meta, &out->new_telemetry);
    side_mix(base, out->base_mix, sizeof out->base_mix);
    side_mix(cand, out->new_mix, sizeof out->new_mix);
    /* the keys: every key any BASE run records (a key once) */
    for (int d = 0; d < base->n_dirs; d++) {
        const cb_cmp_meta *m = &base->dirs[d].meta;
        for (int k = 0; k < m->n_conditions; k++) {
            const char *key = m->conditions[k].key;
            bool seen = false;
            for (int i = 0; i < out->n_diffs && !seen; i++)
                seen = strcmp(out->diffs[i].key, key) == 0;
            for (int e = 0; e < d && !seen; e++)
                seen = cb_cmp_meta_get(&base->dirs[e].meta, key) != NULL;
            if (seen) continue;
            cb_cmp_diff diff = {.key = key};
            side_value(base, key, diff.base, sizeof diff.base);
            side_value(cand, key, diff.cand, sizeof diff.cand);
            if (!diff.cand[0] || strcmp(diff.base, diff.cand) == 0) continue;
            cb_cmp_diff *grown = realloc(out->diffs, (size_t)(out->n_diffs + 1) * sizeof *grown);
            if (!grown) {
                cb_cmp_conditions_free(out);
                cb_msg_set(err, "out of memory");
                return false;
            }
            out->diffs = grown;
            out->diffs[out->n_diffs++] = diff;
        }
    }
    return true;
}

void cb_cmp_conditions_free(cb_cmp_conditions *c)
{
    free(c->diffs);
    memset(c, 0, sizeof *c);
}
