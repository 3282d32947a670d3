/* counters_resolve.c - the spec on a chip: which metrics, their units, the
 * config image; and the check of names when there is no chip to ask.
 *
 * CUPTI's host API answers for a chip by name, with or without a GPU, so a
 * bad name is refused before the first point runs. A preset entry takes the
 * first alternative the chip knows and is left out when it knows none (a
 * GPU without tensor cores has no tensor pipe to report). A name the user
 * typed must exist: it is tried alone on a fresh host object (a failed add
 * spoils the object it was made on, seen with CUPTI 13.0). */
#include "counters_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cb_counters_result_name(const struct cb_counters *c, CUptiResult r)
{
    const char *s = c->host && c->host->result_name ? c->host->result_name(r) : NULL;
    return s ? s : "CUPTI_ERROR_?";
}

static bool chip_knows(const cb_counters_host_ops *ops, void *host, const char *name)
{
    cb_metric_props p;
    return name && ops->properties(host, name, &p) == CUPTI_SUCCESS;
}

/* Can `name` be collected on `chip`? Tried alone on a fresh host object. */
static CUptiResult collectable(const cb_counters_host_ops *ops, const char *chip, const char *name)
{
    void *h = NULL;
    CUptiResult r = ops->open(chip, &h);
    if (r != CUPTI_SUCCESS) return r;
    uint8_t *image = NULL;
    size_t size = 0, passes = 0;
    r = ops->config(h, &name, 1, &image, &size, &passes);
    free(image);
    ops->close(h);
    return r;
}

/* The role a preset gives this metric, so that a name typed by hand still
 * fills its column ("dram__bytes.sum" alone fills dram_bytes). */
static cb_counters_role role_of(const char *name, double *weight, const char *const *known,
                                int n_known)
{
    for (int p = 0; p < cb_counters_n_presets; p++) {
        const cb_counters_preset *ps = &cb_counters_presets[p];
        for (int e = 0; e < ps->n; e++) {
            const cb_counters_entry *en = &ps->entries[e];
            if (en->role == CB_COUNTERS_ROLE_NONE) continue;
            bool skip = false;
            for (int k = 0; en->unless && k < n_known && !skip; k++)
                skip = strcmp(known[k], en->unless) == 0;
            for (int a = 0; a < CB_COUNTERS_ALTERNATIVES && en->names[a] && !skip; a++) {
                if (strcmp(en->names[a], name) != 0) continue;
                *weight = en->weight > 0 ? en->weight : 1;
                return en->role;
            }
        }
    }
    *weight = 1;
    return CB_COUNTERS_ROLE_NONE;
}

static void chip_add(cb_counters_chip *chip, const char *name, const cb_metric_props *p)
{
    for (int i = 0; i < chip->n; i++)
        if (strcmp(chip->text[i], name) == 0) return;
    if (chip->n == CB_COUNTERS_MAX_METRICS) return; /* the spec parser caps items below this */
    int i = chip->n++;
    snprintf(chip->text[i], sizeof chip->text[i], "%s", name);
    snprintf(chip->unit_text[i], sizeof chip->unit_text[i], "%s", p->dim_unit ? p->dim_unit : "");
    snprintf(chip->desc[i], sizeof chip->desc[i], "%s", p->description ? p->description : "");
    chip->names[i] = chip->text[i];
    chip->units[i] = chip->unit_text[i];
}

/* A preset entry on this chip: its first known alternative, or nothing. */
static void add_entry(const cb_counters_host_ops *ops, void *q, cb_counters_chip *chip,
                      const cb_counters_entry *e)
{
    if (e->unless && chip_knows(ops, q, e->unless)) return;
    for (int a = 0; a < CB_COUNTERS_ALTERNATIVES && e->names[a]; a++) {
        cb_metric_props p;
        if (ops->properties(q, e->names[a], &p) == CUPTI_SUCCESS) {
            chip_add(chip, e->names[a], &p);
            return;
        }
    }
}

static cb_status add_user_name(const struct cb_counters *c, void *q, cb_counters_chip *chip,
                               const char *name, cb_msg *why)
{
    CUptiResult r = collectable(c->host, chip->name, name);
    if (r != CUPTI_SUCCESS) {
        char hint[CB_MSG_LEN];
        cb_counters_suggest(c->host, q, chip->name, name, hint, sizeof hint);
        cb_msg_set(why, "--metrics: %.80s: %s", name, hint);
        return CB_FAIL;
    }
    cb_metric_props p = {0};
    if (c->host->properties(q, name, &p) != CUPTI_SUCCESS) memset(&p, 0, sizeof p);
    chip_add(chip, name, &p);
    return CB_OK;
}

/* Every pass also reads each range's GPU time: it weighs the ranges of a
 * point of several kernels (counters_aggregate.c), and it says how long
 * the replayed kernels ran, beside the timed median. */
#define CB_COUNTERS_TIME_METRIC "gpu__time_duration.sum"

static void add_time_metric(const cb_counters_host_ops *ops, void *q, cb_counters_chip *chip)
{
    cb_metric_props p;
    if (ops->properties(q, CB_COUNTERS_TIME_METRIC, &p) == CUPTI_SUCCESS)
        chip_add(chip, CB_COUNTERS_TIME_METRIC, &p);
    chip->time_index = -1;
    for (int i = 0; i < chip->n; i++)
        if (strcmp(chip->names[i], CB_COUNTERS_TIME_METRIC) == 0) chip->time_index = i;
}

/* Roles after every metric is known (an entry's `unless` needs the list). */
static void assign_roles(cb_counters_chip *chip)
{
    for (int i = 0; i < chip->n; i++)
        chip->role[i] = role_of(chip->names[i], &chip->weight[i], chip->names, chip->n);
}

static cb_status make_config(const struct cb_counters *c, cb_counters_chip *chip, cb_msg *why)
{
    CUptiResult r = c->host->open(chip->name, &chip->host);
    if (r == CUPTI_SUCCESS)
        r = c->host->config(chip->host, chip->names, (size_t)chip->n, &chip->config,
                            &chip->config_size, &chip->passes);
    if (r != CUPTI_SUCCESS) {
        cb_msg_set(why, "--metrics: CUPTI cannot schedule these %d metrics together on %s: %s",
                   chip->n, chip->name, cb_counters_result_name(c, r));
        return CB_FAIL;
    }
    return CB_OK;
}

cb_status cb_counters_resolve_chip(struct cb_counters *c, cb_counters_chip *chip, cb_msg *why)
{
    void *q = NULL;
    CUptiResult r = c->host->open(chip->name, &q);
    if (r != CUPTI_SUCCESS) {
        snprintf(chip->unusable_reason, sizeof chip->unusable_reason,
                 "this CUPTI's profiler host API does not support chip %s (%s)", chip->name,
                 cb_counters_result_name(c, r));
        return CB_SKIP;
    }
    cb_status st = CB_OK;
    chip->n = 0;
    for (int i = 0; i < c->n_items && st == CB_OK; i++) {
        const cb_counters_item *it = &c->items[i];
        if (it->entry)
            add_entry(c->host, q, chip, it->entry);
        else
            st = add_user_name(c, q, chip, it->user_name, why);
    }
    if (st == CB_OK && chip->n > 0) add_time_metric(c->host, q, chip);
    c->host->close(q);
    if (st != CB_OK) return st;
    if (chip->n == 0) {
        snprintf(chip->unusable_reason, sizeof chip->unusable_reason,
                 "chip %s knows none of the metrics asked for", chip->name);
        return CB_SKIP;
    }
    assign_roles(chip);
    st = make_config(c, chip, why);
    chip->usable = st == CB_OK;
    return st;
}

void cb_counters_chip_release(struct cb_counters *c, cb_counters_chip *chip)
{
    if (chip->host) c->host->close(chip->host);
    chip->host = NULL;
    free(chip->config);
    chip->config = NULL;
    chip->usable = false;
}

/* The chip whose names the refusal suggests from: GH100 where this CUPTI
 * knows it (the data-centre chip of its generation), else its last. */
static const char *reference_chip(const char *const *chips, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(chips[i], "GH100") == 0) return chips[i];
    return n ? chips[n - 1] : NULL;
}

static cb_status check_name_any_chip(struct cb_counters *c, const char *const *chips, size_t n,
                                     const char *name, cb_msg *why)
{
    for (size_t k = 0; k < n; k++)
        if (collectable(c->host, chips[k], name) == CUPTI_SUCCESS) return CB_OK;
    const char *ref = reference_chip(chips, n);
    void *q = NULL;
    char hint[CB_MSG_LEN] = "";
    if (ref && c->host->open(ref, &q) == CUPTI_SUCCESS) {
        cb_counters_suggest(c->host, q, ref, name, hint, sizeof hint);
        c->host->close(q);
    }
    cb_msg_set(why, "--metrics: %.80s: no chip can collect it (no GPU: all %zu tried); %s", name, n,
               hint);
    return CB_FAIL;
}

cb_status cb_counters_check_any_chip(struct cb_counters *c, size_t *n_chips, cb_msg *why)
{
    const char *const *chips = NULL;
    size_t n = 0;
    *n_chips = 0;
    CUptiResult r = c->host->chips(&chips, &n);
    if (r != CUPTI_SUCCESS || n == 0) {
        cb_msg_set(why, "CUPTI's profiler host API lists no chips (%s)",
                   r != CUPTI_SUCCESS ? cb_counters_result_name(c, r) : "none");
        return CB_SKIP;
    }
    for (int i = 0; i < c->n_items; i++) {
        if (c->items[i].entry) continue;
        cb_status st = check_name_any_chip(c, chips, n, c->items[i].user_name, why);
        if (st != CB_OK) return st;
    }
    *n_chips = n;
    return CB_OK;
}
