/* csv_writer.c - RFC 4180 CSV fields. */
#include "csv_writer.h"

#include <math.h>
#include <string.h>

void cb_csv_begin(cb_csv_row *r, FILE *f)
{
    r->f = f;
    r->fields = 0;
}

static void separator(cb_csv_row *r)
{
    if (r->fields++) fputc(',', r->f);
}

void cb_csv_str(cb_csv_row *r, const char *s)
{
    separator(r);
    if (!s) return;
    if (strpbrk(s, ",\"\r\n") == NULL) {
        fputs(s, r->f);
        return;
    }
    fputc('"', r->f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', r->f);
        fputc(*s, r->f);
    }
    fputc('"', r->f);
}

void cb_csv_num(cb_csv_row *r, double v)
{
    separator(r);
    if (isfinite(v)) fprintf(r->f, "%.9g", v);
}

void cb_csv_int(cb_csv_row *r, long long v)
{
    separator(r);
    fprintf(r->f, "%lld", v);
}

void cb_csv_end(cb_csv_row *r)
{
    fputc('\n', r->f);
    r->fields = 0;
}

void cb_csv_header_line(FILE *f, const char *const *names)
{
    cb_csv_row r;
    cb_csv_begin(&r, f);
    for (int i = 0; names[i]; i++)
        cb_csv_str(&r, names[i]);
    cb_csv_end(&r);
}
