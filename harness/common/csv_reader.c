/* csv_reader.c - RFC 4180 parsing into one text buffer plus field offsets.
 *
 * Fields are unescaped into `text`, each followed by a NUL, and located by
 * offsets (not pointers, because `text` moves when it grows). Record 0 is the
 * header. The parser is a loop over records; a record is a loop over fields;
 * every path that consumes input either advances `pos` or ends the record,
 * so any input terminates (the fuzz target checks this).
 */
#include "csv_reader.h"

#include "open_file.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cb_csv {
    char *name;
    char *text; /* unescaped fields, NUL-terminated, back to back */
    size_t text_len, text_cap;
    size_t *off; /* start of every field in `text`, record after record */
    size_t n_off, off_cap;
    long *lines; /* line on which each record starts (index 0: header) */
    int records; /* records stored, header included */
    int lines_cap;
    int cols;
};

typedef struct csv_parser {
    const char *data;
    size_t len, pos;
    long line; /* current 1-based line */
    cb_csv *csv;
    cb_msg *err;
} csv_parser;

enum { REC_OK, REC_EOF, REC_ERROR };

/* Grow an array to hold at least `need` items of `size` bytes. */
static bool grow(void **buf, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return true;
    size_t n = *cap ? *cap : 64;
    while (n < need) {
        if (n > SIZE_MAX / 2) return false;
        n *= 2;
    }
    if (n > SIZE_MAX / size) return false;
    void *p = realloc(*buf, n * size);
    if (!p) return false;
    *buf = p;
    *cap = n;
    return true;
}

static bool oom(csv_parser *ps)
{
    cb_msg_set(ps->err, "%s: out of memory", ps->csv->name);
    return false;
}

static bool append_text(csv_parser *ps, const char *s, size_t n)
{
    cb_csv *c = ps->csv;
    if (n > SIZE_MAX - c->text_len - 1) return oom(ps);
    void *buf = c->text;
    if (!grow(&buf, &c->text_cap, c->text_len + n + 1, 1)) return oom(ps);
    c->text = buf;
    if (n) memcpy(c->text + c->text_len, s, n);
    c->text_len += n;
    return true;
}

static bool start_field(csv_parser *ps)
{
    cb_csv *c = ps->csv;
    void *buf = c->off;
    if (!grow(&buf, &c->off_cap, c->n_off + 1, sizeof *c->off)) return oom(ps);
    c->off = buf;
    c->off[c->n_off++] = c->text_len;
    return true;
}

static bool end_field(csv_parser *ps)
{
    static const char nul = '\0';
    return append_text(ps, &nul, 1);
}

static bool fail(csv_parser *ps, long line, const char *what)
{
    cb_msg_set(ps->err, "%s:%ld: %s", ps->csv->name, line, what);
    return false;
}

/* Copy the run of ordinary characters inside quotes: up to a quote, a line
 * feed, a NUL byte or the end of input. */
static bool copy_quoted_run(csv_parser *ps)
{
    size_t run = ps->pos;
    while (run < ps->len && ps->data[run] != '"' && ps->data[run] != '\n' && ps->data[run] != '\0')
        run++;
    if (!append_text(ps, ps->data + ps->pos, run - ps->pos)) return false;
    ps->pos = run;
    return true;
}

static bool unterminated(csv_parser *ps, long started)
{
    char what[96];
    snprintf(what, sizeof what,
             "unterminated quoted field (the input ends on line %ld; truncated?)", ps->line);
    return fail(ps, started, what);
}

/* pos is on a quote inside a quoted field: is it doubled (a literal quote)? */
static bool doubled_quote(const csv_parser *ps)
{
    return ps->pos + 1 < ps->len && ps->data[ps->pos + 1] == '"';
}

/* pos is on the closing quote: step past it; only a comma, a line end or
 * the end of input may follow. */
static bool close_quoted(csv_parser *ps)
{
    ps->pos++;
    if (ps->pos < ps->len) {
        char next = ps->data[ps->pos];
        if (next != ',' && next != '\n' && next != '\r')
            return fail(ps, ps->line, "text after the closing quote of a quoted field");
    }
    return true;
}

/* A quoted field; pos is on the opening quote. Ends after the closing quote. */
static bool parse_quoted(csv_parser *ps)
{
    long started = ps->line;
    ps->pos++;
    for (;;) {
        if (!copy_quoted_run(ps)) return false;
        if (ps->pos >= ps->len) return unterminated(ps, started);
        char ch = ps->data[ps->pos];
        if (ch == '\0') return fail(ps, ps->line, "NUL byte in quoted field");
        if (ch == '\n') {
            if (!append_text(ps, "\n", 1)) return false;
            ps->line++;
            ps->pos++;
            continue;
        }
        /* A quote: doubled means a literal quote, else the field ends. */
        if (!doubled_quote(ps)) return close_quoted(ps);
        if (!append_text(ps, "\"", 1)) return false;
        ps->pos += 2;
    }
}

/* An unquoted field; ends before ',', '\r', '\n' or the end of input. */
static bool parse_plain(csv_parser *ps)
{
    size_t run = ps->pos;
    while (run < ps->len) {
        char ch = ps->data[run];
        if (ch == ',' || ch == '\n' || ch == '\r') break;
        if (ch == '"') return fail(ps, ps->line, "quote inside an unquoted field");
        if (ch == '\0') return fail(ps, ps->line, "NUL byte");
        run++;
    }
    if (!append_text(ps, ps->data + ps->pos, run - ps->pos)) return false;
    ps->pos = run;
    return true;
}

/* Skip blank lines (LF or CRLF) at pos. */
static void skip_blank_lines(csv_parser *ps)
{
    while (ps->pos < ps->len) {
        if (ps->data[ps->pos] == '\n') {
            ps->pos++;
            ps->line++;
        } else if (ps->data[ps->pos] == '\r' && ps->pos + 1 < ps->len &&
                   ps->data[ps->pos + 1] == '\n') {
            ps->pos += 2;
            ps->line++;
        } else {
            return;
        }
    }
}

/* One field, quoted or not, stored with its offset and NUL. */
static bool parse_field(csv_parser *ps)
{
    if (!start_field(ps)) return false;
    bool ok = ps->data[ps->pos] == '"' ? parse_quoted(ps) : parse_plain(ps);
    return ok && end_field(ps);
}

enum { FIELD_NEXT, FIELD_LAST, FIELD_ERROR };

/* What follows a field: a comma (another field comes), or a line end or the
 * end of input (the record ends; *terminated says which). */
static int after_field(csv_parser *ps, int *fields, bool *terminated)
{
    if (ps->pos >= ps->len) {
        *terminated = false;
        return FIELD_LAST;
    }
    char ch = ps->data[ps->pos];
    if (ch == ',') {
        ps->pos++;
        if (ps->pos < ps->len) return FIELD_NEXT;
        /* "a," at the very end: the record has a last, empty field. */
        if (!start_field(ps) || !end_field(ps)) return FIELD_ERROR;
        (*fields)++;
        *terminated = false;
        return FIELD_LAST;
    }
    if (ch == '\r') {
        if (ps->pos + 1 >= ps->len || ps->data[ps->pos + 1] != '\n') {
            fail(ps, ps->line, "carriage return not followed by a line feed");
            return FIELD_ERROR;
        }
        ps->pos++;
    }
    /* '\n' */
    ps->pos++;
    ps->line++;
    *terminated = true;
    return FIELD_LAST;
}

/* One record. Blank lines before it are skipped. On REC_OK, *fields is the
 * number of fields and *terminated says whether a line end closed it. */
static int parse_record(csv_parser *ps, int *fields, bool *terminated, long *start_line)
{
    skip_blank_lines(ps);
    if (ps->pos >= ps->len) return REC_EOF;
    *start_line = ps->line;
    *fields = 0;
    for (;;) {
        if (*fields == INT_MAX) {
            fail(ps, ps->line, "too many fields");
            return REC_ERROR;
        }
        if (!parse_field(ps)) return REC_ERROR;
        (*fields)++;
        int next = after_field(ps, fields, terminated);
        if (next == FIELD_ERROR) return REC_ERROR;
        if (next == FIELD_LAST) return REC_OK;
    }
}

static bool add_record_line(csv_parser *ps, long line)
{
    cb_csv *c = ps->csv;
    if (c->records == INT_MAX) return fail(ps, line, "too many records");
    if (c->records >= c->lines_cap) {
        size_t cap = (size_t)c->lines_cap;
        void *buf = c->lines;
        if (!grow(&buf, &cap, (size_t)c->records + 1, sizeof *c->lines)) return oom(ps);
        c->lines = buf;
        c->lines_cap = cap > INT_MAX ? INT_MAX : (int)cap;
    }
    c->lines[c->records++] = line;
    return true;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names must be non-empty and distinct. Duplicates are found by sorting the
 * names (c log c): a header of 100 000 columns compared pairwise took 95 s. */
static bool check_header(csv_parser *ps)
{
    cb_csv *c = ps->csv;
    for (int i = 0; i < c->cols; i++) {
        if (!c->text[c->off[i]]) {
            char what[64];
            snprintf(what, sizeof what, "empty column name (column %d of the header)", i + 1);
            return fail(ps, c->lines[0], what);
        }
    }
    const char **names = malloc((size_t)(c->cols > 0 ? c->cols : 1) * sizeof *names);
    if (!names) return oom(ps);
    for (int i = 0; i < c->cols; i++)
        names[i] = c->text + c->off[i];
    qsort(names, (size_t)c->cols, sizeof *names, cmp_name);
    for (int i = 1; i < c->cols; i++) {
        if (strcmp(names[i - 1], names[i]) == 0) {
            char what[CB_MSG_LEN];
            snprintf(what, sizeof what, "duplicate column '%.80s' in the header", names[i]);
            free(names);
            return fail(ps, c->lines[0], what);
        }
    }
    free(names);
    return true;
}

/* A data record must have as many fields as the header. */
static bool check_field_count(csv_parser *ps, int fields, bool terminated, long line)
{
    int cols = ps->csv->cols;
    if (fields == cols) return true;
    char what[CB_MSG_LEN];
    if (!terminated && fields < cols)
        snprintf(what, sizeof what, "truncated last record: %d of %d fields and no final newline",
                 fields, cols);
    else
        snprintf(what, sizeof what, "record has %d fields, the header has %d", fields, cols);
    return fail(ps, line, what);
}

/* Every record to the end of input: the first is the header. */
static bool parse_records(csv_parser *ps)
{
    cb_csv *c = ps->csv;
    for (;;) {
        int fields = 0;
        bool terminated = false;
        long line = ps->line;
        int rc = parse_record(ps, &fields, &terminated, &line);
        if (rc == REC_ERROR) return false;
        if (rc == REC_EOF) return true;
        if (!add_record_line(ps, line)) return false;
        if (c->records == 1) {
            c->cols = fields;
            if (!check_header(ps)) return false;
        } else if (!check_field_count(ps, fields, terminated, line)) {
            return false;
        }
    }
}

cb_csv *cb_csv_parse(const char *data, size_t len, const char *name, cb_msg *err)
{
    if (!name) name = "<memory>";
    cb_csv *c = calloc(1, sizeof *c);
    if (!c || !(c->name = strdup(name))) {
        free(c);
        cb_msg_set(err, "%s: out of memory", name);
        return NULL;
    }
    csv_parser ps = {.data = data, .len = data ? len : 0, .line = 1, .csv = c, .err = err};
    /* A UTF-8 byte-order mark (spreadsheets write one) is not part of the header. */
    if (ps.len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) ps.pos = 3;

    if (!parse_records(&ps)) goto fail;
    if (c->records == 0) {
        cb_msg_set(err, "%s: empty file (no header line)", c->name);
        goto fail;
    }
    return c;
fail:
    cb_csv_free(c);
    return NULL;
}

cb_csv *cb_csv_read_file(const char *path, cb_msg *err)
{
    bool not_regular;
    const int fd = cb_open_regular(path, &not_regular);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        cb_msg_set(err, "%s: cannot open: %s", path,
                   not_regular ? CB_NOT_REGULAR_TEXT : strerror(errno));
        if (fd >= 0) close(fd);
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        void *p = buf;
        if (!grow(&p, &cap, len + 65536, 1)) {
            free(buf);
            fclose(f);
            cb_msg_set(err, "%s: out of memory", path);
            return NULL;
        }
        buf = p;
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        cb_msg_set(err, "%s: read error: %s", path, strerror(saved));
        return NULL;
    }
    cb_csv *c = cb_csv_parse(buf, len, path, err);
    free(buf);
    return c;
}

void cb_csv_free(cb_csv *csv)
{
    if (!csv) return;
    free(csv->name);
    free(csv->text);
    free(csv->off);
    free(csv->lines);
    free(csv);
}

const char *cb_csv_name(const cb_csv *csv)
{
    return csv->name;
}
int cb_csv_rows(const cb_csv *csv)
{
    return csv->records - 1;
}
int cb_csv_cols(const cb_csv *csv)
{
    return csv->cols;
}
const char *cb_csv_header(const cb_csv *csv, int col)
{
    return csv->text + csv->off[col];
}

int cb_csv_col(const cb_csv *csv, const char *name)
{
    for (int i = 0; i < csv->cols; i++)
        if (strcmp(cb_csv_header(csv, i), name) == 0) return i;
    return -1;
}

bool cb_csv_require(const cb_csv *csv, const char *const *names, int n, int *cols, cb_msg *err)
{
    for (int i = 0; i < n; i++) {
        cols[i] = cb_csv_col(csv, names[i]);
        if (cols[i] < 0) {
            cb_msg_set(err, "%s: missing column '%s'", csv->name, names[i]);
            return false;
        }
    }
    return true;
}

const char *cb_csv_get(const cb_csv *csv, int row, int col)
{
    size_t i = ((size_t)row + 1) * (size_t)csv->cols + (size_t)col;
    return csv->text + csv->off[i];
}

long cb_csv_line(const cb_csv *csv, int row)
{
    return csv->lines[row + 1];
}

bool cb_csv_get_double(const cb_csv *csv, int row, int col, double *out, cb_msg *err)
{
    const char *s = cb_csv_get(csv, row, col);
    char *end = NULL;
    errno = 0;
    double v = *s ? strtod(s, &end) : 0.0;
    /* ERANGE on underflow still gives a usable (tiny) value; overflow gives inf. */
    if (!*s || *end || isspace((unsigned char)s[0])) {
        cb_msg_set(err, "%s:%ld: column '%s': '%.40s' is not a number", csv->name,
                   cb_csv_line(csv, row), cb_csv_header(csv, col), s);
        return false;
    }
    *out = v;
    return true;
}
