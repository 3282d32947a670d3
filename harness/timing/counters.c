/* counters.c - a --metrics session: the spec, each device's chip and what
 * the spec means on it, and each device's standing (counters allowed or
 * not), from before the first point to after the last.
 *
 * Everything that can refuse the command line happens in cb_counters_open;
 * everything that depends on the device's state at run time (permission,
 * MIG, another profiler holding the counters) is found by the first pass on
 * that device (counters_measure.c) and turns every pass there into a skip. */
#include "counters_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void append_notice(struct cb_counters *c, const char *text)
{
    size_t used = strlen(c->notice);
    snprintf(c->notice + used, sizeof c->notice - used, "%s%s", used ? "; " : "", text);
}

/* Validate the user's names where no chip can be asked (no device, or a
 * profiler that does not come up): every chip the host API knows. */
static cb_status check_without_chip(struct cb_counters *c, const char *context, cb_msg *why)
{
    bool typed = false;
    for (int i = 0; i < c->n_items && !typed; i++)
        typed = c->items[i].entry == NULL;
    char text[2 * CB_MSG_LEN];
    if (!typed) {
        snprintf(text, sizeof text, "%s: presets are resolved on a GPU's chip", context);
        append_notice(c, text);
        return CB_OK;
    }
    size_t n = 0;
    cb_msg err = {{0}};
    cb_status st = cb_counters_check_any_chip(c, &n, &err);
    if (st == CB_FAIL) {
        *why = err;
        return CB_FAIL;
    }
    if (st == CB_SKIP)
        snprintf(text, sizeof text, "%s: metric names were not checked: %.200s", context, err.text);
    else
        snprintf(text, sizeof text,
                 "%s: metric names were checked against the %zu chips this CUPTI knows (a name "
                 "any of them knows is accepted)",
                 context, n);
    append_notice(c, text);
    return CB_OK;
}

static int find_or_add_chip(struct cb_counters *c, const char *name, bool *added)
{
    *added = false;
    for (int k = 0; k < c->n_chips; k++)
        if (strcmp(c->chips[k].name, name) == 0) return k;
    if (c->n_chips == CB_COUNTERS_MAX_CHIPS) return -1;
    cb_counters_chip *chip = &c->chips[c->n_chips];
    memset(chip, 0, sizeof *chip);
    snprintf(chip->name, sizeof chip->name, "%s", name);
    *added = true;
    return c->n_chips++;
}

/* Name the device's chip and resolve the spec on it (once per chip). */
static cb_status open_device(struct cb_counters *c, cb_counters_device *d, cb_msg *why)
{
    const char *name = NULL;
    CUptiResult r = c->target->chip_name(d->ordinal, &name);
    if (r != CUPTI_SUCCESS || !name) {
        snprintf(d->skip_reason, sizeof d->skip_reason,
                 "CUPTI cannot name the chip of device %d: %s", d->ordinal,
                 cb_counters_result_name(c, r));
        return CB_OK;
    }
    bool added = false;
    int k = find_or_add_chip(c, name, &added);
    if (k < 0) {
        snprintf(d->skip_reason, sizeof d->skip_reason, "more than %d kinds of chip in one run",
                 CB_COUNTERS_MAX_CHIPS);
        return CB_OK;
    }
    d->chip = k;
    cb_counters_chip *chip = &c->chips[k];
    if (added && cb_counters_resolve_chip(c, chip, why) == CB_FAIL) return CB_FAIL;
    if (!chip->usable) snprintf(d->skip_reason, sizeof d->skip_reason, "%s", chip->unusable_reason);
    return CB_OK;
}

static cb_status open_devices(struct cb_counters *c, const int *ordinals, int n, cb_msg *why)
{
    CUptiResult r = c->target->initialize();
    c->profiler_up = r == CUPTI_SUCCESS;
    char down[CB_MSG_LEN] = "";
    if (!c->profiler_up)
        snprintf(down, sizeof down, "CUPTI's profiler does not initialize: %s",
                 cb_counters_result_name(c, r));
    bool any_chip = false;
    for (int i = 0; i < n; i++) {
        cb_counters_device *d = &c->devices[c->n_devices++];
        memset(d, 0, sizeof *d);
        d->ordinal = ordinals[i];
        d->chip = -1;
        if (!c->profiler_up) {
            snprintf(d->skip_reason, sizeof d->skip_reason, "%s", down);
            continue;
        }
        if (open_device(c, d, why) == CB_FAIL) return CB_FAIL;
        any_chip |= d->chip >= 0;
    }
    for (int i = 0; i < c->n_devices; i++) {
        if (!c->devices[i].skip_reason[0]) continue;
        char text[CB_MSG_LEN + 64];
        snprintf(text, sizeof text, "device %d: every metric pass will be a skip: %.200s",
                 c->devices[i].ordinal, c->devices[i].skip_reason);
        append_notice(c, text);
    }
    /* No chip could be asked: still refuse the names no chip knows. */
    if (!any_chip) return check_without_chip(c, "no chip to ask", why);
    return CB_OK;
}

cb_status cb_counters_open_with(const char *spec, const int *ordinals, int n_ordinals,
                                const cb_counters_ops *ops, struct cb_counters **out, cb_msg *why)
{
    *out = NULL;
    if (n_ordinals > CB_COUNTERS_MAX_DEVICES) {
        cb_msg_set(why, "--metrics: at most %d devices", CB_COUNTERS_MAX_DEVICES);
        return CB_FAIL;
    }
    struct cb_counters *c = calloc(1, sizeof *c);
    cb_counters_chip *chips = c ? calloc(CB_COUNTERS_MAX_CHIPS, sizeof *chips) : NULL;
    if (!chips) {
        free(c);
        cb_msg_set(why, "--metrics: out of host memory");
        return CB_FAIL;
    }
    c->chips = chips;
    c->host = ops && ops->host ? ops->host : cb_counters_cupti_host();
    c->target = ops && ops->target ? ops->target : cb_counters_cupti_target();
    cb_status st = cb_counters_parse_spec(c, spec, why) ? CB_OK : CB_FAIL;
    if (st == CB_OK)
        st = n_ordinals > 0 ? open_devices(c, ordinals, n_ordinals, why)
                            : check_without_chip(c, "no CUDA device", why);
    if (st != CB_OK) {
        cb_counters_close(c);
        return CB_FAIL;
    }
    *out = c;
    return CB_OK;
}

cb_status cb_counters_open(const char *spec, const int *ordinals, int n_ordinals, cb_counters **out,
                           cb_msg *why)
{
    return cb_counters_open_with(spec, ordinals, n_ordinals, NULL, out, why);
}

void cb_counters_close(cb_counters *c)
{
    if (!c) return;
    for (int k = 0; k < c->n_chips; k++)
        cb_counters_chip_release(c, &c->chips[k]);
    if (c->profiler_up) c->target->deinitialize();
    free(c->chips);
    free(c);
}

const char *cb_counters_spec(const cb_counters *c)
{
    return c ? c->spec : NULL;
}

const char *cb_counters_notice(const cb_counters *c)
{
    return c && c->notice[0] ? c->notice : NULL;
}
