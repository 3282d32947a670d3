/* history_text.c - growing text and JSON string literals for the history
 * (a run's conditions, replicate medians and samples as stored; the
 * dashboard's export). */
#include "history_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool reserve(cb_hist_text *t, size_t more)
{
    if (t->failed) return false;
    if (t->len + more + 1 <= t->cap) return true;
    size_t cap = t->cap ? t->cap : 256;
    while (cap < t->len + more + 1)
        cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
        t->failed = true;
        return false;
    }
    t->s = s, t->cap = cap;
    return true;
}

void cb_hist_text_add(cb_hist_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !reserve(t, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* The escape of one byte inside a JSON string, or NULL to copy it. */
static const char *json_escape(unsigned char c, char buf[8])
{
    switch (c) {
    case '"':
        return "\\\"";
    case '\\':
        return "\\\\";
    case '\n':
        return "\\n";
    case '\t':
        return "\\t";
    case '\r':
        return "\\r";
    default:
        break;
    }
    if (c >= 0x20) return NULL;
    snprintf(buf, 8, "\\u%04x", c);
    return buf;
}

void cb_hist_text_json(cb_hist_text *t, const char *s)
{
    char buf[8];
    cb_hist_text_add(t, "\"");
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        const char *e = json_escape(*c, buf);
        if (e)
            cb_hist_text_add(t, "%s", e);
        else if (reserve(t, 1))
            t->s[t->len++] = (char)*c, t->s[t->len] = '\0';
    }
    cb_hist_text_add(t, "\"");
}

void cb_hist_json_string(FILE *f, const char *s)
{
    char buf[8];
    fputc('"', f);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c; c++) {
        const char *e = json_escape(*c, buf);
        if (e)
            fputs(e, f);
        else
            fputc(*c, f);
    }
    fputc('"', f);
}

void cb_hist_text_free(cb_hist_text *t)
{
    free(t->s);
    memset(t, 0, sizeof *t);
}
