/* json_writer.c - streaming JSON with escaping per RFC 8259. */
#include "json_writer.h"

#include <math.h>
#include <stdlib.h>

static void indent(cb_json *j)
{
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* Comma and newline before a new member or element, unless it follows a key. */
static void before_value(cb_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (!j->first[j->depth]) fputc(',', j->f);
    j->first[j->depth] = false;
    if (j->depth > 0) indent(j);
}

/* The well-formed UTF-8 sequences by their lead byte (RFC 3629; the
 * Unicode standard's table 3-7): the length, and the allowed range of the
 * second byte, which is narrower where the lead byte alone would admit an
 * overlong form, a surrogate or a code point above U+10FFFF. Every later
 * byte is 0x80-0xbf. */
static const struct utf8_lead {
    unsigned char first, last; /* lead bytes */
    unsigned char len;
    unsigned char lo, hi; /* second byte */
} utf8_leads[] = {
    {0xc2, 0xdf, 2, 0x80, 0xbf}, {0xe0, 0xe0, 3, 0xa0, 0xbf}, /* below 0xa0: overlong */
    {0xe1, 0xec, 3, 0x80, 0xbf}, {0xed, 0xed, 3, 0x80, 0x9f}, /* above 0x9f: surrogates */
    {0xee, 0xef, 3, 0x80, 0xbf}, {0xf0, 0xf0, 4, 0x90, 0xbf}, /* below 0x90: overlong */
    {0xf1, 0xf3, 4, 0x80, 0xbf}, {0xf4, 0xf4, 4, 0x80, 0x8f}, /* above 0x8f: above U+10FFFF */
};

/* Length of the well-formed UTF-8 sequence at p, or 0 when it is not one
 * (a NUL ends the string and is never a continuation byte, so p is not
 * read past its end). */
static int utf8_valid_length(const unsigned char *p)
{
    if (p[0] < 0x80) return 1;
    for (int k = 0; k < (int)(sizeof utf8_leads / sizeof utf8_leads[0]); k++) {
        const struct utf8_lead *lead = &utf8_leads[k];
        if (p[0] < lead->first || p[0] > lead->last) continue;
        if (p[1] < lead->lo || p[1] > lead->hi) return 0;
        for (int i = 2; i < lead->len; i++)
            if (p[i] < 0x80 || p[i] > 0xbf) return 0;
        return lead->len;
    }
    return 0;
}

/* The two-character escapes JSON has for ASCII; other control characters
 * are written as \u00XX. */
static const char *const json_escapes[0x80] = {
    ['"'] = "\\\"", ['\\'] = "\\\\", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
};

/* A JSON string. Bytes that are not UTF-8 (a command line typed in
 * Latin-1, say) become U+FFFD, so every reader accepts the file. */
static void write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p >= 0x80) {
            int len = utf8_valid_length(p);
            if (len == 0) {
                fputs("\\ufffd", f);
            } else {
                fwrite(p, 1, (size_t)len, f);
                p += len - 1;
            }
        } else if (json_escapes[*p]) {
            fputs(json_escapes[*p], f);
        } else if (*p < 0x20) {
            fprintf(f, "\\u%04x", *p);
        } else {
            fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void open_scope(cb_json *j, char c)
{
    before_value(j);
    fputc(c, j->f);
    if (j->depth + 1 >= CB_JSON_MAX_DEPTH) abort();
    j->depth++;
    j->first[j->depth] = true;
}

static void close_scope(cb_json *j, char c)
{
    bool empty = j->first[j->depth];
    j->depth--;
    if (!empty) indent(j);
    fputc(c, j->f);
}

void cb_json_begin(cb_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->first[0] = true;
    j->after_key = false;
    open_scope(j, '{');
}

void cb_json_end(cb_json *j)
{
    close_scope(j, '}');
    fputc('\n', j->f);
}

void cb_json_key(cb_json *j, const char *key)
{
    before_value(j);
    write_string(j->f, key);
    fputs(": ", j->f);
    j->after_key = true;
}

void cb_json_object_begin(cb_json *j)
{
    open_scope(j, '{');
}
void cb_json_object_end(cb_json *j)
{
    close_scope(j, '}');
}
void cb_json_array_begin(cb_json *j)
{
    open_scope(j, '[');
}
void cb_json_array_end(cb_json *j)
{
    close_scope(j, ']');
}

void cb_json_str(cb_json *j, const char *s)
{
    before_value(j);
    if (s)
        write_string(j->f, s);
    else
        fputs("null", j->f);
}

void cb_json_num(cb_json *j, double v)
{
    before_value(j);
    if (isfinite(v))
        fprintf(j->f, "%.9g", v);
    else
        fputs("null", j->f);
}

void cb_json_int(cb_json *j, long long v)
{
    before_value(j);
    fprintf(j->f, "%lld", v);
}

void cb_json_bool(cb_json *j, bool v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->f);
}

void cb_json_null(cb_json *j)
{
    before_value(j);
    fputs("null", j->f);
}

void cb_json_kv_str(cb_json *j, const char *key, const char *s)
{
    cb_json_key(j, key);
    cb_json_str(j, s);
}
void cb_json_kv_num(cb_json *j, const char *key, double v)
{
    cb_json_key(j, key);
    cb_json_num(j, v);
}
void cb_json_kv_int(cb_json *j, const char *key, long long v)
{
    cb_json_key(j, key);
    cb_json_int(j, v);
}
void cb_json_kv_bool(cb_json *j, const char *key, bool v)
{
    cb_json_key(j, key);
    cb_json_bool(j, v);
}
void cb_json_kv_object_begin(cb_json *j, const char *key)
{
    cb_json_key(j, key);
    cb_json_object_begin(j);
}
void cb_json_kv_array_begin(cb_json *j, const char *key)
{
    cb_json_key(j, key);
    cb_json_array_begin(j);
}
