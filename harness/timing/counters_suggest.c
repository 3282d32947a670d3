/* counters_suggest.c - the closest metric names a chip knows, for the
 * message that refuses a name.
 *
 * A name is base[.rollup[.submetric]]. When the base exists, only the
 * suffix is wrong (or missing: "dram__bytes" alone cannot be collected), and
 * the chip's valid suffixes for that base are ranked against the user's.
 * When the base does not exist, the chip's base names (a few thousand) are
 * ranked by edit distance, each completed with the user's suffix if that is
 * valid for it, else with its closest suffix. */
#include "counters_session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUGGESTIONS 3

int cb_counters_edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 255 || lb > 255) return cap;
    int row[256], prev[256];
    for (size_t j = 0; j <= lb; j++)
        prev[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        row[0] = (int)i;
        int best = row[0];
        for (size_t j = 1; j <= lb; j++) {
            int sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
            int del = prev[j] + 1, ins = row[j - 1] + 1;
            row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (row[j] < best) best = row[j];
        }
        if (best >= cap) return cap; /* every path is already too far */
        memcpy(prev, row, sizeof(int) * (lb + 1));
    }
    return prev[lb] < cap ? prev[lb] : cap;
}

typedef struct ranked {
    const char *text[SUGGESTIONS];
    int dist[SUGGESTIONS];
    int n;
} ranked;

/* Keep the SUGGESTIONS nearest; ties keep the earlier one. */
static void rank_insert(ranked *r, const char *text, int dist)
{
    int at = r->n;
    while (at > 0 && r->dist[at - 1] > dist)
        at--;
    if (at >= SUGGESTIONS) return;
    int last = r->n < SUGGESTIONS ? r->n : SUGGESTIONS - 1;
    for (int k = last; k > at; k--) {
        r->text[k] = r->text[k - 1];
        r->dist[k] = r->dist[k - 1];
    }
    r->text[at] = text;
    r->dist[at] = dist;
    if (r->n < SUGGESTIONS) r->n++;
}

/* Without a suffix, rank against the form most names of the type take. */
static const char *usual_suffix(int type)
{
    switch (type) {
    case CB_METRIC_THROUGHPUT:
        return ".avg.pct_of_peak_sustained_elapsed";
    case CB_METRIC_RATIO:
        return ".pct";
    default:
        return ".sum";
    }
}

/* The valid suffixes of `base` nearest to `suffix` ("" for none given):
 * -1 no such base, 1 the suffix is valid for it, 0 ranked into out. */
static int rank_suffixes(const cb_counters_host_ops *ops, void *host, const char *base,
                         const char *suffix, ranked *out)
{
    cb_metric_props props;
    memset(out, 0, sizeof *out);
    if (ops->properties(host, base, &props) != CUPTI_SUCCESS) return -1;
    const char *const *subs = NULL;
    size_t n = 0;
    if (ops->submetrics(host, base, props.type, &subs, &n) != CUPTI_SUCCESS) return -1;
    const char *want = suffix[0] ? suffix : usual_suffix(props.type);
    for (size_t i = 0; i < n; i++) {
        if (suffix[0] && strcmp(subs[i], suffix) == 0) return 1;
        rank_insert(out, subs[i], cb_counters_edit_distance(want, subs[i], 64));
    }
    return 0;
}

static void ranked_bases(const cb_counters_host_ops *ops, void *host, const char *base, ranked *out)
{
    memset(out, 0, sizeof *out);
    for (int type = 0; type < CB_METRIC_TYPES; type++) {
        const char *const *names = NULL;
        size_t n = 0;
        if (ops->base_metrics(host, type, &names, &n) != CUPTI_SUCCESS) continue;
        for (size_t i = 0; i < n; i++) {
            int cap = out->n == SUGGESTIONS ? out->dist[SUGGESTIONS - 1] + 1 : 64;
            rank_insert(out, names[i], cb_counters_edit_distance(base, names[i], cap));
        }
    }
}

static size_t append(char *buf, size_t len, size_t used, const char *a, const char *b)
{
    if (used >= len) return used;
    int w = snprintf(buf + used, len - used, "%s%s%s", used ? ", " : "", a, b);
    return w > 0 ? used + (size_t)w : used;
}

void cb_counters_suggest(const cb_counters_host_ops *ops, void *host, const char *chip,
                         const char *name, char *buf, size_t len)
{
    char base[CB_COUNTERS_NAME_LEN];
    size_t cut = strcspn(name, ".");
    snprintf(base, sizeof base, "%.*s", (int)(cut < sizeof base ? cut : sizeof base - 1), name);
    const char *suffix = name + cut;
    char list[512] = "";
    size_t used = 0;
    ranked subs;
    int known = rank_suffixes(ops, host, base, suffix, &subs);
    if (known == 1) {
        snprintf(buf, len,
                 "%s has it, but this CUPTI's range profiler cannot collect it (device-level "
                 "metrics: pcie__*, nvl*, c2c*)",
                 chip);
        return;
    }
    if (known == 0) {
        /* The base is right: list suffixes only, so three fit a message. */
        for (int i = 0; i < subs.n; i++)
            used = append(list, sizeof list, used, "", subs.text[i]);
        if (suffix[0])
            snprintf(buf, len, "on %s %s has no %.40s; nearest: %s", chip, base, suffix,
                     used ? list : "(none listed)");
        else
            snprintf(buf, len, "on %s it needs a suffix; nearest: %s", chip,
                     used ? list : "(none listed)");
        return;
    }
    ranked bases;
    ranked_bases(ops, host, base, &bases);
    for (int i = 0; i < bases.n; i++) {
        ranked alt;
        int valid = rank_suffixes(ops, host, bases.text[i], suffix, &alt);
        const char *tail = valid == 1 ? suffix : (alt.n ? alt.text[0] : "");
        used = append(list, sizeof list, used, bases.text[i], tail);
    }
    snprintf(buf, len, "%s has no %s; nearest: %s", chip, base,
             used ? list : "(none: CUPTI listed no metrics)");
}
