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

/* Length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0 when it is not one. */
static int utf8_valid_length(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80) return 1;
    int len;
    unsigned lo = 0x80, hi = 0xbf; /* the allowed range of the second byte */
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0) lo = 0xa0; /* overlong */
        if (c == 0xed) hi = 0x9f; /* surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0) lo = 0x90; /* overlong */
        if (c == 0xf4) hi = 0x8f; /* above U+10FFFF */
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return len;
}

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
            continue;
        }
        switch (*p) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
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
