/* report_text.c - markdown cell text (report_text.h). */
#include "report_text.h"

void cb_md_cell_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|')
            fputs("\\|", f);
        else if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '\n' || *s == '\r')
            fputc(' ', f);
        else
            fputc(*s, f);
    }
}

const char *cb_plural(long n)
{
    return n == 1 ? "" : "s";
}
