/* csv_reader.h - a strict RFC 4180 reader with header-driven column lookup.
 *
 * The whole input is parsed into memory at once: a header record naming the
 * columns, then data records that must each have exactly as many fields.
 * Accepted: quoted fields ("a,b"), doubled quotes inside them (""), embedded
 * newlines inside quotes, LF or CRLF line ends, a last record without a final
 * newline when it is complete, a UTF-8 byte-order mark, blank lines (skipped).
 * Rejected, each with "NAME:LINE: what" in the message:
 *   - an empty input (no header), an empty or duplicate column name;
 *   - a record with more or fewer fields than the header; a last record with
 *     no final newline and too few fields is reported as truncated;
 *   - an unterminated quoted field (reported with the line it started on);
 *   - a quote inside an unquoted field, text after a closing quote;
 *   - a carriage return not followed by a line feed, a NUL byte.
 * Readers of our own files call cb_csv_require() with the columns they need,
 * so extra or reordered columns never break them.
 */
#ifndef CB_CSV_READER_H
#define CB_CSV_READER_H

#include "cb_common.h"

typedef struct cb_csv cb_csv;

/* Parse `len` bytes of `data` (need not be NUL-terminated; `data` may be NULL
 * when len is 0). `name` labels messages (a path, or "<memory>"). Returns
 * NULL with `err` set on malformed input or when out of memory. */
cb_csv *cb_csv_parse(const char *data, size_t len, const char *name, cb_msg *err);

/* Read and parse the file at `path`. NULL with `err` set when it cannot be
 * opened or read, or does not parse. */
cb_csv *cb_csv_read_file(const char *path, cb_msg *err);

/* Free a table; NULL is allowed. */
void cb_csv_free(cb_csv *csv);

/* The name given to cb_csv_parse (or the path). */
const char *cb_csv_name(const cb_csv *csv);

/* Number of data records (the header is not counted) and of columns. */
int cb_csv_rows(const cb_csv *csv);
int cb_csv_cols(const cb_csv *csv);

/* The name of column `col`, 0 <= col < cb_csv_cols(). */
const char *cb_csv_header(const cb_csv *csv, int col);

/* Index of the column named `name` (exact match), or -1 when absent. */
int cb_csv_col(const cb_csv *csv, const char *name);

/* Look up `n` column names; cols[i] receives the index of names[i]. Returns
 * false with "NAME: missing column 'x'" in `err` for the first one absent. */
bool cb_csv_require(const cb_csv *csv, const char *const *names, int n, int *cols, cb_msg *err);

/* The unescaped text of a field, never NULL ("" for an empty field).
 * 0 <= row < cb_csv_rows(), 0 <= col < cb_csv_cols(). */
const char *cb_csv_get(const cb_csv *csv, int row, int col);

/* The 1-based line of the input on which data record `row` starts (for
 * messages; the header is on line 1 unless blank lines precede it). */
long cb_csv_line(const cb_csv *csv, int row);

/* Field `col` of `row` as a finite or infinite double (strtod syntax, the
 * whole field, no surrounding blanks). False with "NAME:LINE: column 'c':
 * 'text' is not a number" in `err` for an empty or malformed field. */
bool cb_csv_get_double(const cb_csv *csv, int row, int col, double *out, cb_msg *err);

#endif
