/* axis.c - the axis value grammar (see axis.h).
 *
 * Each VALUE is read in two passes over its text, both linear: first its
 * syntax (digits, then nothing, a unit, `^` and digits, or `sm`), so that
 * garbage is refused before any arithmetic; then its value, with every
 * multiplication checked against the 2^62 cap. */
#include "axis.h"

#include "parse_number.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Values are capped well below INT64_MAX so products in ranges cannot
 * overflow: 2^62 = 4611686018427387904, itself allowed. */
#define CB_AXIS_LIMIT ((int64_t)1 << 62)

/* a * b for 0 <= a, b <= CB_AXIS_LIMIT; false when the product passes it. */
static bool mul_checked(int64_t a, int64_t b, int64_t *out)
{
    if (a != 0 && b > CB_AXIS_LIMIT / a) return false;
    *out = a * b;
    return true;
}

/* A run of decimal digits: its value, or too_big once it passes the cap. */
typedef struct digit_run {
    int64_t value;
    bool too_big;
} digit_run;

/* Read the whole run of digits at *s (past the cap too, so the caller can
 * look at what follows); false when there is none. One pass, no growth. */
static bool scan_digits(const char **s, digit_run *d)
{
    const char *p = *s;
    if (!isdigit((unsigned char)*p)) return false;
    d->value = 0;
    d->too_big = false;
    for (; isdigit((unsigned char)*p); p++) {
        int digit = *p - '0';
        if (d->too_big) continue;
        if (d->value > (CB_AXIS_LIMIT - digit) / 10)
            d->too_big = true;
        else
            d->value = d->value * 10 + digit;
    }
    *s = p;
    return true;
}

/* base^exp exactly, or false when it passes the cap. Exponentiation by
 * squaring: at most 62 rounds, since any base >= 2 passes 2^62 by then. An
 * exponent past the cap still has an answer for the bases 0 and 1. */
static bool pow_checked(digit_run base, digit_run exp, int64_t *out)
{
    if (!exp.too_big && exp.value == 0) {
        *out = 1; /* k^0 = 1, and 0^0 = 1 by the usual convention */
        return true;
    }
    if (base.too_big) return false;
    if (base.value <= 1) {
        *out = base.value; /* 0^k = 0 and 1^k = 1 for k >= 1 */
        return true;
    }
    if (exp.too_big) return false;
    int64_t result = 1, square = base.value, e = exp.value;
    for (;;) {
        if ((e & 1) && !mul_checked(result, square, &result)) return false;
        e >>= 1;
        if (e == 0) break;
        /* A factor still to come is at least square^2, so when that passes
         * the cap the result does too. */
        if (!mul_checked(square, square, &square)) return false;
    }
    *out = result;
    return true;
}

typedef struct cb_unit {
    const char *suffix;
    int64_t factor;
} cb_unit;

/* Matched against the whole rest of the value, so "KiB" is not "Ki" + "B". */
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

/* Messages quote at most this much of a text, so that the reason still
 * fits a message (CB_MSG_LEN 256) after a megabyte of input. */
#define CLIP_CHARS 40
typedef struct clipped {
    char text[CLIP_CHARS + 4];
} clipped;

static clipped clip(const char *s)
{
    clipped c;
    size_t n = strnlen(s, CLIP_CHARS + 1);
    if (n <= CLIP_CHARS) {
        memcpy(c.text, s, n + 1);
    } else {
        memcpy(c.text, s, CLIP_CHARS);
        memcpy(c.text + CLIP_CHARS, "...", 4);
    }
    return c;
}

/* One VALUE: an integer, or (planning without a device) `k sm` unresolved. */
typedef struct parsed_value {
    int64_t v;       /* the integer; CB_AXIS_DEFERRED when deferred      */
    bool deferred;   /* `sm` without an SM count, ctx->defer_device set */
    int64_t sm_mult; /* k of `k sm` when deferred                       */
} parsed_value;

static bool too_large(const char *text, cb_msg *err)
{
    cb_msg_set(err, "'%s' is too large (values go up to 2^62 = %lld)", clip(text).text,
               (long long)CB_AXIS_LIMIT);
    return false;
}

/* `k sm`: k times the SM count, or, planning without a device, k kept for
 * later (the SM count is only known once a device is chosen). */
static bool parse_sm_multiple(const char *text, digit_run num, const cb_axis_context *ctx,
                              parsed_value *out, cb_msg *err)
{
    if (num.too_big) return too_large(text, err);
    if (ctx && ctx->host) {
        cb_msg_set(err, "'%s' needs a GPU's SM count; a host benchmark has none", clip(text).text);
        return false;
    }
    if (ctx && ctx->sm_count > 0) {
        if (!mul_checked(num.value, ctx->sm_count, &out->v)) return too_large(text, err);
        return true;
    }
    if (ctx && ctx->defer_device) {
        out->v = CB_AXIS_DEFERRED;
        out->deferred = true;
        out->sm_mult = num.value;
        return true;
    }
    cb_msg_set(err, "'%s' uses 'sm' (the SM count) but no CUDA device is selected",
               clip(text).text);
    return false;
}

/* `base^exp`, `caret` pointing at the '^'. */
static bool parse_power(const char *text, const char *caret, digit_run base, parsed_value *out,
                        cb_msg *err)
{
    const char *q = caret + 1;
    digit_run exp;
    if (!scan_digits(&q, &exp)) {
        cb_msg_set(err, "'%s': expected an exponent (digits) after '^'", clip(text).text);
        return false;
    }
    if (*q) {
        cb_msg_set(err, "'%s': unexpected '%s' after the power", clip(text).text, clip(q).text);
        return false;
    }
    if (!pow_checked(base, exp, &out->v)) return too_large(text, err);
    return true;
}

/* The factor of a unit suffix (1 when there is none). */
static bool unit_factor(const char *text, const char *suffix, int64_t *factor, cb_msg *err)
{
    *factor = 1;
    if (!*suffix) return true;
    for (int u = 0; u < CB_ARRAY_LEN(cb_units); u++) {
        if (strcmp(suffix, cb_units[u].suffix) == 0) {
            *factor = cb_units[u].factor;
            return true;
        }
    }
    cb_msg_set(err, "'%s': unexpected '%s' (units: k M G Ki Mi Gi KiB MiB GiB, or ^, or sm)",
               clip(text).text, clip(suffix).text);
    return false;
}

static bool parse_one(const char *text, const cb_axis_context *ctx, parsed_value *out, cb_msg *err)
{
    const char *p = text;
    digit_run num = {1, false}; /* a bare "sm" is 1 sm */
    bool have_num = scan_digits(&p, &num);
    out->deferred = false;
    out->sm_mult = 0;
    if (strcmp(p, "sm") == 0) return parse_sm_multiple(text, num, ctx, out, err);
    if (!have_num) {
        cb_msg_set(err, "'%s' is not a number (expected e.g. 256, 2^20, 4Ki, 8sm)",
                   clip(text).text);
        return false;
    }
    if (*p == '^') return parse_power(text, p, num, out, err);
    int64_t factor;
    if (!unit_factor(text, p, &factor, err)) return false;
    if (num.too_big || !mul_checked(num.value, factor, &out->v)) return too_large(text, err);
    return true;
}

bool cb_axis_parse_value(const char *text, const cb_axis_context *ctx, int64_t *out, cb_msg *err)
{
    cb_axis_context resolved = {
        .sm_count = ctx ? ctx->sm_count : 0, .defer_device = false, .host = ctx && ctx->host};
    parsed_value pv;
    if (!parse_one(text, &resolved, &pv, err)) return false;
    *out = pv.v;
    return true;
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

/* Append a value with its canonical text. */
static bool push_text(cb_axis_values *out, int64_t i, const char *text, const cb_axis_def *def,
                      cb_msg *err)
{
    if (out->count >= CB_AXIS_MAX_VALUES) {
        cb_msg_set(err, "axis '%s': more than %d values", def->name, CB_AXIS_MAX_VALUES);
        return false;
    }
    cb_axis_value *val = &out->v[out->count];
    if (snprintf(val->text, sizeof val->text, "%s", text) >= (int)sizeof val->text) {
        cb_msg_set(err, "axis '%s': '%s' is too long (at most %d characters)", def->name,
                   clip(text).text, (int)sizeof val->text - 1);
        return false;
    }
    val->i = i;
    out->count++;
    return true;
}

static bool push_int(cb_axis_values *out, int64_t v, const cb_axis_def *def, cb_msg *err)
{
    if (v < def->min_value) {
        cb_msg_set(err, "axis '%s': %lld is below the minimum %lld", def->name, (long long)v,
                   (long long)def->min_value);
        return false;
    }
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)v);
    return push_text(out, v, text, def, err);
}

/* The canonical text of one part of an item: "528" or, deferred, "4sm". */
static void format_part(const parsed_value *pv, char *buf, size_t len)
{
    if (pv->deferred)
        snprintf(buf, len, "%lldsm", (long long)pv->sm_mult);
    else
        snprintf(buf, len, "%lld", (long long)pv->v);
}

/* The smallest value a deferred item can take: lo itself, or k x 1 SM. */
static int64_t deferred_least(const parsed_value *lo)
{
    return lo->deferred ? lo->sm_mult : lo->v;
}

/* `k sm` with k >= 1 is never below a minimum of 1, whatever the SM count. */
static bool deferred_start_ok(const cb_axis_def *def, const parsed_value *lo, cb_msg *err)
{
    int64_t least = deferred_least(lo);
    if (least < def->min_value && !(lo->deferred && least > 0)) {
        cb_msg_set(err, "axis '%s': %lld%s is below the minimum %lld", def->name, (long long)least,
                   lo->deferred ? "sm" : "", (long long)def->min_value);
        return false;
    }
    return true;
}

/* A deferred range, as far as it can be checked without the SM count: ends
 * of one kind compare, a step of 0sm never moves, and a multiplicative
 * range cannot start at 0. */
static bool deferred_range_ok(const cb_axis_def *def, const parsed_value *lo,
                              const parsed_value *hi, const parsed_value *step, bool multiply,
                              cb_msg *err)
{
    if (hi && lo->deferred == hi->deferred &&
        (lo->deferred ? hi->sm_mult < lo->sm_mult : hi->v < lo->v)) {
        char a[32], b[32];
        format_part(hi, a, sizeof a);
        format_part(lo, b, sizeof b);
        cb_msg_set(err, "axis '%s': range end %s is below its start %s", def->name, a, b);
        return false;
    }
    if (step && step->deferred && step->sm_mult < 1) {
        cb_msg_set(err, "axis '%s': step %s0sm must be 1sm or more", def->name,
                   multiply ? "x" : "+");
        return false;
    }
    if (multiply && deferred_least(lo) < 1) {
        cb_msg_set(err, "axis '%s': a multiplicative range must start at 1 or more", def->name);
        return false;
    }
    return true;
}

/* An item that needs the SM count, planned without a device: check what
 * can be checked (k sm >= k for any SM count >= 1) and keep it as text. */
static bool push_deferred(const cb_axis_def *def, const parsed_value *lo, const parsed_value *hi,
                          const parsed_value *step, bool multiply, cb_axis_values *out, cb_msg *err)
{
    if (!deferred_start_ok(def, lo, err)) return false;
    if (!deferred_range_ok(def, lo, hi, step, multiply, err)) return false;
    char text[128], part[32];
    format_part(lo, text, sizeof text);
    if (hi) {
        format_part(hi, part, sizeof part);
        strcat(text, ":");
        strcat(text, part);
    }
    if (step) {
        format_part(step, part, sizeof part);
        strcat(text, multiply ? ":x" : ":+");
        strcat(text, part);
    }
    return push_text(out, CB_AXIS_DEFERRED, text, def, err);
}

static bool parse_part(const cb_axis_def *def, const char *text, const cb_axis_context *ctx,
                       parsed_value *pv, cb_msg *err)
{
    cb_msg inner;
    if (parse_one(text, ctx, pv, &inner)) return true;
    cb_msg_set(err, "axis '%s': %s", def->name, inner.text);
    return false;
}

/* A word item: one of the axis's choices. */
static bool push_word(const cb_axis_def *def, const char *item, cb_axis_values *out, cb_msg *err)
{
    if (!word_allowed(def->choices, item)) {
        cb_msg_set(err, "axis '%s': '%s' is not one of %s", def->name, clip(item).text,
                   def->choices ? def->choices : "(no choices)");
        return false;
    }
    return push_text(out, CB_AXIS_WORD, item, def, err);
}

/* Cut START:STOP[:STEP] at its colons, in place; the number of parts. */
static int split_range(const cb_axis_def *def, char *item, char *parts[3], cb_msg *err)
{
    const clipped whole = clip(item); /* before the cuts below */
    parts[0] = item;
    parts[1] = parts[2] = NULL;
    int n_parts = 1;
    for (char *c = item; *c; c++) {
        if (*c != ':') continue;
        if (n_parts == 3) {
            cb_msg_set(err, "axis '%s': '%s' has too many ':' (START:STOP[:STEP])", def->name,
                       whole.text);
            return 0;
        }
        *c = '\0';
        parts[n_parts++] = c + 1;
    }
    return n_parts;
}

/* The STEP of a range: `x`/`*` multiplies, `+` (or nothing) adds. */
static bool parse_step(const cb_axis_def *def, const char *text, const cb_axis_context *ctx,
                       parsed_value *step, bool *multiply, cb_msg *err)
{
    const char *s = text;
    *multiply = *s == 'x' || *s == '*';
    if (*multiply || *s == '+') s++;
    cb_msg inner;
    if (!parse_one(s, ctx, step, &inner)) {
        cb_msg_set(err, "axis '%s': bad step '%s': %s", def->name, clip(text).text, inner.text);
        return false;
    }
    if (!step->deferred && (*multiply ? step->v < 2 : step->v < 1)) {
        cb_msg_set(err, "axis '%s': step '%s' must be %s", def->name, clip(text).text,
                   *multiply ? "x2 or more" : "1 or more");
        return false;
    }
    return true;
}

/* Every value of lo:hi:step, stopping where the next would pass the cap. */
static bool push_range(const cb_axis_def *def, int64_t lo, int64_t hi, int64_t step, bool multiply,
                       cb_axis_values *out, cb_msg *err)
{
    if (multiply && lo < 1) {
        cb_msg_set(err, "axis '%s': a multiplicative range must start at 1 or more", def->name);
        return false;
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

/* A number or a range, already cut at its colons into `n_parts` parts. */
static bool expand_numbers(const cb_axis_def *def, char *parts[3], int n_parts,
                           const cb_axis_context *ctx, cb_axis_values *out, cb_msg *err)
{
    parsed_value lo, hi, step = {.v = 1};
    if (!parse_part(def, parts[0], ctx, &lo, err)) return false;
    if (n_parts == 1) {
        if (lo.deferred) return push_deferred(def, &lo, NULL, NULL, false, out, err);
        return push_int(out, lo.v, def, err);
    }
    if (!parse_part(def, parts[1], ctx, &hi, err)) return false;
    if (!hi.deferred && !lo.deferred && hi.v < lo.v) {
        cb_msg_set(err, "axis '%s': range end %lld is below its start %lld", def->name,
                   (long long)hi.v, (long long)lo.v);
        return false;
    }
    bool multiply = false;
    if (n_parts == 3 && !parse_step(def, parts[2], ctx, &step, &multiply, err)) return false;
    if (lo.deferred || hi.deferred || step.deferred)
        return push_deferred(def, &lo, &hi, n_parts == 3 ? &step : NULL, multiply, out, err);
    return push_range(def, lo.v, hi.v, step.v, multiply, out, err);
}

/* Expand one ITEM (a value, a range or a word) into `out`. */
static bool expand_item(const cb_axis_def *def, char *item, const cb_axis_context *ctx,
                        cb_axis_values *out, cb_msg *err)
{
    if (*item == '\0') {
        cb_msg_set(err, "axis '%s': empty value in the list", def->name);
        return false;
    }
    if (def->kind == CB_AXIS_ENUM || word_allowed(def->choices, item))
        return push_word(def, item, out, err);
    char *parts[3];
    int n_parts = split_range(def, item, parts, err);
    if (n_parts == 0) return false;
    return expand_numbers(def, parts, n_parts, ctx, out, err);
}

/* One item of a FLOAT axis: a finite number, its canonical text the
 * shortest %g that reads back as the same double. */
static bool expand_float_item(const cb_axis_def *def, const char *item, cb_axis_values *out,
                              cb_msg *err)
{
    double v = 0;
    cb_msg why;
    if (!cb_parse_double(item, -1e300, 1e300, &v, &why)) {
        cb_msg_set(err, "axis '%s': %s (a float axis takes a list of numbers)", def->name,
                   why.text);
        return false;
    }
    if (out->count == CB_AXIS_MAX_VALUES) {
        cb_msg_set(err, "axis '%s': more than %d values", def->name, CB_AXIS_MAX_VALUES);
        return false;
    }
    cb_axis_value *dst = &out->v[out->count++];
    dst->i = 0;
    dst->f = v == 0 ? 0.0 : v; /* -0 and 0 are one point */
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(dst->text, sizeof dst->text, "%.*g", digits, dst->f);
        if (strtod(dst->text, NULL) == dst->f) break;
    }
    return true;
}

/* `item` without the spaces around it ("32, 64" is tolerated), in place. */
static char *trim_spaces(char *item)
{
    while (isspace((unsigned char)*item))
        item++;
    char *end = item + strlen(item);
    while (end > item && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return item;
}

/* Expand each comma-separated item of `list` (cut in place) into `out`. */
static bool expand_list(const cb_axis_def *def, char *list, const cb_axis_context *ctx,
                        cb_axis_values *out, cb_msg *err)
{
    char *item = list;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma) *comma = '\0';
        item = trim_spaces(item);
        bool item_ok = def->kind == CB_AXIS_FLOAT ? expand_float_item(def, item, out, err)
                                                  : expand_item(def, item, ctx, out, err);
        if (!item_ok) return false;
        if (!comma) return true;
        item = comma + 1;
    }
}

/* Drop duplicates, keeping first appearances (a point is run once).
 * At most CB_AXIS_MAX_VALUES (512) values: 131k comparisons at worst,
 * and a longer list has already been refused at its 513th value. */
static void drop_duplicates(cb_axis_values *out)
{
    int kept = 0;
    for (int i = 0; i < out->count; i++) {
        bool dup = false;
        for (int j = 0; j < kept && !dup; j++)
            dup = strcmp(out->v[j].text, out->v[i].text) == 0;
        if (!dup) out->v[kept++] = out->v[i];
    }
    out->count = kept;
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
    bool ok = expand_list(def, copy, ctx, out, err);
    free(copy);
    if (!ok) return false;
    drop_duplicates(out);
    if (def->kind != CB_AXIS_FLOAT)
        for (int i = 0; i < out->count; i++)
            out->v[i].f = (double)out->v[i].i;
    return true;
}
