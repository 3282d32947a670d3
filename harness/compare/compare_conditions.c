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

bool cb_cmp_conditions_diff(const cb_cmp_run *base, const cb_cmp_run *cand, cb_cmp_conditions *out,
                            cb_msg *err)
{
    memset(out, 0, sizeof *out);
    count_meta(base, &out->base_meta, &out->base_telemetry);
    count_meta(cand, &out->new_meta, &out->new_telemetry);
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
                cb_msg_set(err, "compare: out of memory");
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
