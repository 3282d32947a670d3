/* report_text.h - text for the judge's markdown reports (compare and
 * fleet write their tables through it). */
#ifndef CB_REPORT_TEXT_H
#define CB_REPORT_TEXT_H

#include <stdio.h>

/* Write `s` as the text of a markdown table cell: '|' would end the cell,
 * '<' could open an HTML tag, and a newline would end the row. */
void cb_md_cell_text(FILE *f, const char *s);

/* "s" when n is not 1: "%d point%s". */
const char *cb_plural(long n);

#endif
