/* counters_spec.c - `--metrics` text into the session's items.
 *
 * The spec is a comma-separated list of presets and metric names. A preset
 * stands for its entries; a metric name is a word with '_' or '.' in it
 * (every CUPTI metric is unit__counter[.rollup[.submetric]]). Whether a
 * name exists is the chip's question (counters_resolve.c); here only the
 * form is checked, so a typo in a preset word is caught without CUPTI. */
#include "counters_session.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static bool item_is_listed(const struct cb_counters *c, const cb_counters_entry *e,
                           const char *name)
{
    for (int i = 0; i < c->n_items; i++) {
        const cb_counters_item *it = &c->items[i];
        if (e && it->entry == e) return true;
        if (!e && name && !it->entry && strcmp(it->user_name, name) == 0) return true;
    }
    return false;
}

static bool add_item(struct cb_counters *c, const cb_counters_entry *e, const char *name,
                     const char *preset, cb_msg *why)
{
    if (item_is_listed(c, e, name)) return true;
    if (c->n_items == CB_COUNTERS_MAX_METRICS) {
        cb_msg_set(why, "--metrics: more than %d metrics", CB_COUNTERS_MAX_METRICS);
        return false;
    }
    cb_counters_item *it = &c->items[c->n_items++];
    memset(it, 0, sizeof *it);
    it->entry = e;
    it->preset = preset;
    if (name) snprintf(it->user_name, sizeof it->user_name, "%s", name);
    return true;
}

static void preset_words(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < cb_counters_n_presets && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
                                 cb_counters_presets[i].name);
}

/* One word of the list: a preset, or the form of a metric name. */
static bool add_word(struct cb_counters *c, const char *word, cb_msg *why)
{
    const cb_counters_preset *p = cb_counters_preset_find(word);
    if (p) {
        for (int i = 0; i < p->n; i++)
            if (!add_item(c, &p->entries[i], NULL, p->name, why)) return false;
        return true;
    }
    /* A bare word is a preset or a typo of one; anything with '_' or '.'
     * goes to the chip, which can say what it is closest to. */
    bool form = strpbrk(word, "_.") != NULL;
    for (const char *s = word; *s && form; s++)
        form = isalnum((unsigned char)*s) || *s == '_' || *s == '.';
    if (!form) {
        char presets[96];
        preset_words(presets, sizeof presets);
        cb_msg_set(why,
                   "--metrics: '%.60s' is neither a preset (%s) nor a metric name (metric "
                   "names look like dram__bytes.sum or sm__throughput.avg.pct_of_peak_sustained_"
                   "elapsed)",
                   word, presets);
        return false;
    }
    if (strlen(word) >= CB_COUNTERS_NAME_LEN) {
        cb_msg_set(why, "--metrics: '%.60s...' is longer than %d characters", word,
                   CB_COUNTERS_NAME_LEN - 1);
        return false;
    }
    return add_item(c, NULL, word, NULL, why);
}

bool cb_counters_parse_spec(struct cb_counters *c, const char *spec, cb_msg *why)
{
    if (snprintf(c->spec, sizeof c->spec, "%s", spec) >= (int)sizeof c->spec) {
        cb_msg_set(why, "--metrics: the list is longer than %zu characters", sizeof c->spec - 1);
        return false;
    }
    c->n_items = 0;
    const char *p = spec;
    for (;;) {
        size_t len = strcspn(p, ",");
        while (len && isspace((unsigned char)*p))
            p++, len--;
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        char word[CB_COUNTERS_NAME_LEN + 2];
        if (len == 0) {
            cb_msg_set(why, "--metrics: an empty name in '%.80s'", spec);
            return false;
        }
        snprintf(word, sizeof word, "%.*s", (int)(len < sizeof word - 1 ? len : sizeof word - 1),
                 p);
        if (!add_word(c, word, why)) return false;
        p += strcspn(p, ",");
        if (!*p) break;
        p++;
    }
    return true;
}
