/* fleet_json.c - key-path lookup in a JSON text without building a tree.
 *
 * Values that are not on the path are skipped by scanning: strings to their
 * closing quote (honouring backslash escapes), objects and arrays by counting
 * brackets of either kind (the nesting depth is a counter, so depth costs no
 * memory), anything else up to the next ',', '}' or ']'.
 */
#include "fleet_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

/* Past the string that starts at the quote `s`, or NULL when unterminated. */
static const char *skip_string(const char *s)
{
    for (s++; *s; s++) {
        if (*s == '\\') {
            if (!s[1]) return NULL;
            s++;
        } else if (*s == '"') {
            return s + 1;
        }
    }
    return NULL;
}

/* Past the value that starts at `s`, or NULL when malformed/truncated. */
static const char *skip_value(const char *s)
{
    if (*s == '"') return skip_string(s);
    if (*s == '{' || *s == '[') {
        long depth = 0;
        while (*s) {
            if (*s == '"') {
                s = skip_string(s);
                if (!s) return NULL;
                continue;
            }
            if (*s == '{' || *s == '[') depth++;
            if (*s == '}' || *s == ']') {
                if (--depth == 0) return s + 1;
            }
            s++;
        }
        return NULL;
    }
    const char *start = s;
    while (*s && *s != ',' && *s != '}' && *s != ']' && *s != ' ' && *s != '\n' && *s != '\r' &&
           *s != '\t')
        s++;
    return s > start ? s : NULL;
}

/* Does the string at the quote `s` (ending just before `end`) equal the
 * `len` bytes of `key`? Keys of our files hold no escapes; an escaped key
 * simply never matches. */
static bool key_equals(const char *s, const char *end, const char *key, size_t len)
{
    return (size_t)(end - s - 2) == len && memcmp(s + 1, key, len) == 0;
}

/* In the object at `obj` (its '{'), the value of `key`, or NULL. */
static const char *member(const char *obj, const char *key, size_t len)
{
    const char *s = skip_ws(obj + 1);
    if (*s == '}') return NULL;
    for (;;) {
        if (*s != '"') return NULL;
        const char *end = skip_string(s);
        if (!end) return NULL;
        bool match = key_equals(s, end, key, len);
        s = skip_ws(end);
        if (*s++ != ':') return NULL;
        s = skip_ws(s);
        if (match) return s;
        s = skip_value(s);
        if (!s) return NULL;
        s = skip_ws(s);
        if (*s == '}') return NULL;
        if (*s++ != ',') return NULL;
        s = skip_ws(s);
    }
}

const char *cb_fleet_json_find(const char *json, const char *path)
{
    const char *v = skip_ws(json);
    while (*path) {
        if (*v != '{') return NULL;
        const char *dot = strchr(path, '.');
        size_t len = dot ? (size_t)(dot - path) : strlen(path);
        v = member(v, path, len);
        if (!v) return NULL;
        path += len + (dot ? 1 : 0);
    }
    return v;
}

const char *cb_fleet_json_item(const char *json, const char *path, int index)
{
    const char *v = *path ? cb_fleet_json_find(json, path) : skip_ws(json);
    if (!v || *v != '[' || index < 0) return NULL;
    v = skip_ws(v + 1);
    for (int i = 0; *v && *v != ']'; i++) {
        if (i == index) return v;
        v = skip_value(v);
        if (!v) return NULL;
        v = skip_ws(v);
        if (*v != ',') return NULL;
        v = skip_ws(v + 1);
    }
    return NULL;
}

bool cb_fleet_json_string(const char *json, const char *path, char *out, size_t len)
{
    if (len) out[0] = '\0';
    const char *v = cb_fleet_json_find(json, path);
    if (!v || *v != '"' || !skip_string(v) || len == 0) return false;
    size_t o = 0;
    for (const char *s = v + 1; *s != '"'; s++) {
        char c = *s;
        if (c == '\\') {
            s++;
            c = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s == 'u' ? '?' : *s;
            if (*s == 'u') /* skip the four hex digits when present */
                for (int i = 0; i < 4 && s[1] && s[1] != '"'; i++)
                    s++;
        }
        if (o + 1 < len) out[o++] = c;
    }
    out[o] = '\0';
    return true;
}

bool cb_fleet_json_number(const char *json, const char *path, double *out)
{
    const char *v = cb_fleet_json_find(json, path);
    if (!v || !(*v == '-' || (*v >= '0' && *v <= '9'))) return false;
    char *end = NULL;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || errno || !isfinite(d)) return false;
    *out = d;
    return true;
}

int cb_fleet_json_bool(const char *json, const char *path)
{
    const char *v = cb_fleet_json_find(json, path);
    if (!v) return -1;
    const char *end = skip_value(v);
    if (!end) return -1;
    if (end - v == 4 && memcmp(v, "true", 4) == 0) return 1;
    if (end - v == 5 && memcmp(v, "false", 5) == 0) return 0;
    return -1;
}
