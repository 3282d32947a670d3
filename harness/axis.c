/* axis.c - the axis value grammar (see axis.h). */
#include "axis.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values are capped well below INT64_MAX so products in ranges cannot overflow. */
#define CB_AXIS_LIMIT ((int64_t)1 << 62)

static bool mul_checked(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > CB_AXIS_LIMIT / a) return false;
    *out = a * b;
    return true;
}

/* Parse a run of decimal digits; false if none or too large. */
static bool parse_digits(const char **s, int64_t *out)
{
    const char *p = *s;
    if (!isdigit((unsigned char)*p)) return false;
    int64_t v = 0;
    while (isdigit((unsigned char)*p)) {
        if (v > (CB_AXIS_LIMIT - 9) / 10) return false;
        v = v * 10 + (*p - '0');
        p++;
    }
    *s = p;
    *out = v;
    return true;
}

typedef struct cb_unit {
    const char *suffix;
    int64_t factor;
} cb_unit;

/* Longest suffixes first so "KiB" is not read as "Ki" + "B". */
static const cb_unit cb_units[] = {
    {"KiB", (int64_t)1 << 10},
    {"MiB", (int64_t)1 << 20},
    {"GiB", (int64_t)1 << 30},
    {"TiB", (int64_t)1 << 40},
    {"Ki", (int64_t)1 << 10},
    {"Mi", (int64_t)1 << 20},
    {"Gi", (int64_t)1 << 30},
    {"Ti", (int64_t)1 << 40},
    {"k", 1000},
    {"M", 1000000},
    {"G", 1000000000},
};

bool cb_axis_parse_value(const char *text, const cb_axis_context *ctx, int64_t *out, cb_msg *err)
{
    const char *p = text;
    int64_t base = 1;
    bool have_num = parse_digits(&p, &base);
    int64_t v = base;

    if (strcmp(p, "sm") == 0) {
        if (!ctx || ctx->sm_count <= 0) {
            cb_msg_set(err, "'%s' uses 'sm' (the SM count) but no CUDA device is selected", text);
            return false;
        }
        if (!mul_checked(have_num ? base : 1, ctx->sm_count, &v)) goto too_big;
        p += 2;
    } else if (!have_num) {
        cb_msg_set(err, "'%s' is not a number (expected e.g. 256, 2^20, 4Ki, 8sm)", text);
        return false;
    } else if (*p == '^') {
        p++;
        int64_t e;
        if (!parse_digits(&p, &e)) {
            cb_msg_set(err, "'%s': expected an exponent after '^'", text);
            return false;
        }
        v = 1;
        for (int64_t i = 0; i < e; i++)
            if (!mul_checked(v, base, &v)) goto too_big;
    } else if (*p) {
        for (int u = 0; u < CB_ARRAY_LEN(cb_units); u++) {
            if (strcmp(p, cb_units[u].suffix) == 0) {
                if (!mul_checked(base, cb_units[u].factor, &v)) goto too_big;
                p += strlen(cb_units[u].suffix);
                break;
            }
        }
    }
    if (*p) {
        cb_msg_set(err, "'%s': unexpected '%s' (units: k M G Ki Mi Gi KiB MiB GiB, or ^, or sm)",
                   text, p);
        return false;
    }
    *out = v;
    return true;
too_big:
    cb_msg_set(err, "'%s' is too large", text);
    return false;
}

/* Is `word` one of the comma-separated `choices`? */
static bool word_allowed(const char *choices, const char *word)
{
    if (!choices) return false;
    size_t wl = strlen(word);
    const char *c = choices;
    while (*c) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == wl && strncmp(c, word, len) == 0) return true;
        if (!end) break;
        c = end + 1;
    }
    return false;
}

static bool push_int(cb_axis_values *out, int64_t v, const cb_axis_def *def, cb_msg *err)
{
    if (v < def->min_value) {
        cb_msg_set(err, "axis '%s': %lld is below the minimum %lld", def->name, (long long)v,
                   (long long)def->min_value);
        return false;
    }
    if (out->count >= CB_AXIS_MAX_VALUES) {
        cb_msg_set(err, "axis '%s': more than %d values", def->name, CB_AXIS_MAX_VALUES);
        return false;
    }
    cb_axis_value *val = &out->v[out->count++];
    val->i = v;
    snprintf(val->text, sizeof val->text, "%lld", (long long)v);
    return true;
}

static bool push_word(cb_axis_values *out, const char *word, const cb_axis_def *def, cb_msg *err)
{
    if (out->count >= CB_AXIS_MAX_VALUES) {
        cb_msg_set(err, "axis '%s': more than %d values", def->name, CB_AXIS_MAX_VALUES);
        return false;
    }
    cb_axis_value *val = &out->v[out->count++];
    val->i = CB_AXIS_WORD;
    snprintf(val->text, sizeof val->text, "%s", word);
    return true;
}

/* Expand one ITEM (a value, a range or a word) into `out`. */
static bool expand_item(const cb_axis_def *def, char *item, const cb_axis_context *ctx,
                        cb_axis_values *out, cb_msg *err)
{
    if (*item == '\0') {
        cb_msg_set(err, "axis '%s': empty value in the list", def->name);
        return false;
    }
    if (def->kind == CB_AXIS_ENUM || word_allowed(def->choices, item)) {
        if (!word_allowed(def->choices, item)) {
            cb_msg_set(err, "axis '%s': '%s' is not one of %s", def->name, item,
                       def->choices ? def->choices : "(no choices)");
            return false;
        }
        return push_word(out, item, def, err);
    }
    char *parts[3] = {item, NULL, NULL};
    int n_parts = 1;
    for (char *c = item; *c; c++) {
        if (*c == ':') {
            if (n_parts == 3) {
                cb_msg_set(err, "axis '%s': '%s' has too many ':' (START:STOP[:STEP])", def->name,
                           item);
                return false;
            }
            *c = '\0';
            parts[n_parts++] = c + 1;
        }
    }
    int64_t lo, hi;
    cb_msg inner;
    if (!cb_axis_parse_value(parts[0], ctx, &lo, &inner)) {
        cb_msg_set(err, "axis '%s': %s", def->name, inner.text);
        return false;
    }
    if (n_parts == 1) return push_int(out, lo, def, err);
    if (!cb_axis_parse_value(parts[1], ctx, &hi, &inner)) {
        cb_msg_set(err, "axis '%s': %s", def->name, inner.text);
        return false;
    }
    if (hi < lo) {
        cb_msg_set(err, "axis '%s': range end %lld is below its start %lld", def->name,
                   (long long)hi, (long long)lo);
        return false;
    }
    bool multiply = false;
    int64_t step = 1;
    if (n_parts == 3) {
        const char *s = parts[2];
        if (*s == 'x' || *s == '*') {
            multiply = true;
            s++;
        } else if (*s == '+') {
            s++;
        }
        if (!cb_axis_parse_value(s, ctx, &step, &inner)) {
            cb_msg_set(err, "axis '%s': bad step '%s': %s", def->name, parts[2], inner.text);
            return false;
        }
        if (multiply ? step < 2 : step < 1) {
            cb_msg_set(err, "axis '%s': step '%s' must be %s", def->name, parts[2],
                       multiply ? "x2 or more" : "1 or more");
            return false;
        }
        if (multiply && lo < 1) {
            cb_msg_set(err, "axis '%s': a multiplicative range must start at 1 or more", def->name);
            return false;
        }
    }
    for (int64_t v = lo; v <= hi;) {
        if (!push_int(out, v, def, err)) return false;
        int64_t next;
        if (multiply) {
            if (!mul_checked(v, step, &next)) break;
        } else {
            if (v > CB_AXIS_LIMIT - step) break;
            next = v + step;
        }
        v = next;
    }
    return true;
}

bool cb_axis_expand(const cb_axis_def *def, const char *spec, const cb_axis_context *ctx,
                    cb_axis_values *out, cb_msg *err)
{
    out->count = 0;
    if (!spec || !*spec) {
        cb_msg_set(err, "axis '%s': no values given", def->name);
        return false;
    }
    size_t len = strlen(spec);
    char *copy = malloc(len + 1);
    if (!copy) {
        cb_msg_set(err, "out of memory");
        return false;
    }
    memcpy(copy, spec, len + 1);
    bool ok = true;
    char *item = copy;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = '\0';
        /* Tolerate spaces around items: "32, 64". */
        while (isspace((unsigned char)*item))
            item++;
        char *end = item + strlen(item);
        while (end > item && isspace((unsigned char)end[-1]))
            *--end = '\0';
        if (!expand_item(def, item, ctx, out, err)) {
            ok = false;
            break;
        }
        if (!comma) break;
        item = comma + 1;
    }
    free(copy);
    if (!ok) return false;
    /* Drop duplicates, keeping first appearances (a point is run once). */
    int kept = 0;
    for (int i = 0; i < out->count; i++) {
        bool dup = false;
        for (int j = 0; j < kept && !dup; j++)
            dup = strcmp(out->v[j].text, out->v[i].text) == 0;
        if (!dup) out->v[kept++] = out->v[i];
    }
    out->count = kept;
    return true;
}
