/* csv_writer.h - RFC 4180 CSV output: quoting where needed, NAN as empty. */
#ifndef CB_CSV_WRITER_H
#define CB_CSV_WRITER_H

#include <stdio.h>

typedef struct cb_csv_row {
    FILE *f;
    int fields; /* written so far on this line */
} cb_csv_row;

void cb_csv_begin(cb_csv_row *r, FILE *f);
/* A text field, quoted when it holds a comma, quote, CR or LF. NULL = empty. */
void cb_csv_str(cb_csv_row *r, const char *s);
/* A number with %.9g; NAN or infinities become an empty field. */
void cb_csv_num(cb_csv_row *r, double v);
void cb_csv_int(cb_csv_row *r, long long v);
void cb_csv_end(cb_csv_row *r);

/* A header line: every name of a NULL-terminated list, as text fields. */
void cb_csv_header_line(FILE *f, const char *const *names);

#endif
