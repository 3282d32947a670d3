/* test_csv_reader.c - RFC 4180 parsing, header lookup, and every rejection
 * with the message a user would see. */
/* test links: cubench_common */
#include "csv_reader.h"

#include "cb_test.h"

#include <stdlib.h>

static cb_csv *parse_bytes(const char *data, size_t len, cb_msg *err)
{
    memset(err, 0, sizeof *err);
    return cb_csv_parse(data, len, "t.csv", err);
}

static cb_csv *parse(const char *text, cb_msg *err)
{
    return parse_bytes(text, strlen(text), err);
}

/* Parsing must succeed; NULL (reported) when it does not. */
static cb_csv *parse_ok(const char *text, cb_msg *err)
{
    cb_csv *c = parse(text, err);
    CB_CHECK_MSG(c != NULL, "%s", err->text);
    return c;
}

/* Parsing `len` bytes must fail and the message must contain `what`. */
static void check_rejects_bytes(const char *data, size_t len, const char *what)
{
    cb_msg err;
    cb_csv *c = parse_bytes(data, len, &err);
    CB_CHECK_MSG(c == NULL, "accepted: %s", data);
    CB_CHECK_CONTAINS(err.text, what);
    cb_csv_free(c);
}

static void check_rejects(const char *text, const char *what)
{
    check_rejects_bytes(text, strlen(text), what);
}

static void test_basic(void)
{
    cb_msg err;
    cb_csv *c = parse_ok("a,b,c\n1,2,3\n4,,6\n", &err);
    if (!c) return;
    CB_CHECK(cb_csv_rows(c) == 2);
    CB_CHECK(cb_csv_cols(c) == 3);
    CB_CHECK(strcmp(cb_csv_header(c, 1), "b") == 0);
    CB_CHECK(cb_csv_col(c, "c") == 2);
    CB_CHECK(cb_csv_col(c, "d") == -1);
    CB_CHECK(strcmp(cb_csv_get(c, 0, 0), "1") == 0);
    CB_CHECK(strcmp(cb_csv_get(c, 1, 1), "") == 0);
    CB_CHECK(strcmp(cb_csv_get(c, 1, 2), "6") == 0);
    CB_CHECK(cb_csv_line(c, 0) == 2);
    CB_CHECK(cb_csv_line(c, 1) == 3);
    CB_CHECK(strcmp(cb_csv_name(c), "t.csv") == 0);
    cb_csv_free(c);
}

static void test_quoting(void)
{
    cb_msg err;
    cb_csv *c = parse_ok("name,note\n"
                         "\"a,b\",\"say \"\"hi\"\"\"\n"
                         "\"two\nlines\",\"\"\n"
                         "plain,\"\"\"\"\n",
                         &err);
    if (!c) return;
    CB_CHECK(cb_csv_rows(c) == 3);
    CB_CHECK(strcmp(cb_csv_get(c, 0, 0), "a,b") == 0);
    CB_CHECK(strcmp(cb_csv_get(c, 0, 1), "say \"hi\"") == 0);
    CB_CHECK(strcmp(cb_csv_get(c, 1, 0), "two\nlines") == 0);
    CB_CHECK(strcmp(cb_csv_get(c, 1, 1), "") == 0);
    CB_CHECK(strcmp(cb_csv_get(c, 2, 1), "\"") == 0);
    /* the embedded newline moves the next record one line down */
    CB_CHECK(cb_csv_line(c, 1) == 3);
    CB_CHECK(cb_csv_line(c, 2) == 5);
    cb_csv_free(c);
}

static void test_line_ends_and_edges(void)
{
    cb_msg err;
    cb_csv *c = parse_ok("a,b\r\n1,2\r\n\"x\r\ny\",3\r\n", &err);
    if (c) {
        CB_CHECK(cb_csv_rows(c) == 2);
        CB_CHECK(strcmp(cb_csv_header(c, 1), "b") == 0);
        CB_CHECK(strcmp(cb_csv_get(c, 0, 1), "2") == 0);
        CB_CHECK(strcmp(cb_csv_get(c, 1, 0), "x\r\ny") == 0); /* kept verbatim inside quotes */
    }
    cb_csv_free(c);

    /* One record, and the second field it must end with. */
    static const struct {
        const char *text, *b;
    } last[] = {
        /* a complete last record without a final newline is fine (RFC 4180) */
        {"a,b\n1,2", "2"},
        {"a,b\n1,\"2\"", "2"},
        /* trailing empty field, with and without newline */
        {"a,b\n1,\n", ""},
        {"a,b\n1,", ""},
    };
    for (int i = 0; i < CB_ARRAY_LEN(last); i++) {
        c = parse(last[i].text, &err);
        CB_CHECK_MSG(c && cb_csv_rows(c) == 1 && strcmp(cb_csv_get(c, 0, 1), last[i].b) == 0, "%s",
                     last[i].text);
        cb_csv_free(c);
    }

    /* blank lines are skipped; a BOM is not part of the first name */
    c = parse_ok("\xEF\xBB\xBF"
                 "a,b\n\n1,2\n\r\n\n3,4\n\n",
                 &err);
    if (c) {
        CB_CHECK(cb_csv_col(c, "a") == 0);
        CB_CHECK(cb_csv_rows(c) == 2);
        CB_CHECK(cb_csv_line(c, 1) == 6);
    }
    cb_csv_free(c);

    /* a header-only file is valid and has no rows */
    c = parse("a,b\n", &err);
    CB_CHECK(c && cb_csv_rows(c) == 0);
    cb_csv_free(c);

    /* the data need not be NUL-terminated */
    const char raw[] = {'a', '\n', '7', 'X'};
    c = cb_csv_parse(raw, 3, "raw", &err);
    CB_CHECK(c && cb_csv_rows(c) == 1 && strcmp(cb_csv_get(c, 0, 0), "7") == 0);
    cb_csv_free(c);
}

static void test_rejections(void)
{
    check_rejects("", "t.csv: empty file (no header line)");
    check_rejects("\n\r\n\n", "empty file");
    check_rejects("a,b\n1,\"2\n3,4\n",
                  "t.csv:2: unterminated quoted field (the input ends on line 4");
    check_rejects("a,b,c\n1,2,3\n4,5", "t.csv:3: truncated last record: 2 of 3 fields");
    check_rejects("a,b,c\n1,2\n4,5,6\n", "t.csv:2: record has 2 fields, the header has 3");
    check_rejects("a,b\n1,2,3\n", "t.csv:2: record has 3 fields, the header has 2");
    check_rejects("a,b\n1,2\n1,2,3", "t.csv:3: record has 3 fields");
    check_rejects("a,b\n1,x\"y\n", "t.csv:2: quote inside an unquoted field");
    check_rejects("a,b\n1,\"x\"y\n", "t.csv:2: text after the closing quote");
    check_rejects("a,b\r1,2\n", "t.csv:1: carriage return not followed by a line feed");
    check_rejects("a,a\n1,2\n", "t.csv:1: duplicate column 'a'");
    check_rejects("a,,c\n1,2,3\n", "t.csv:1: empty column name (column 2");
    const char nul[] = "a,b\n1,\0\n";
    check_rejects_bytes(nul, sizeof nul - 1, "t.csv:2: NUL byte");
}

static void test_require_and_numbers(void)
{
    cb_msg err;
    cb_csv *c = parse_ok("time_s,x\n1.5e-3,abc\n,2\n 3,4\n", &err);
    if (!c) return;
    static const char *const ok_cols[] = {"x", "time_s"};
    int idx[2];
    CB_CHECK(cb_csv_require(c, ok_cols, 2, idx, &err) && idx[0] == 1 && idx[1] == 0);
    static const char *const bad_cols[] = {"time_s", "status"};
    CB_CHECK(!cb_csv_require(c, bad_cols, 2, idx, &err));
    CB_CHECK_CONTAINS(err.text, "t.csv: missing column 'status'");
    double v = 0.0;
    CB_CHECK(cb_csv_get_double(c, 0, 0, &v, &err) && v == 1.5e-3);
    CB_CHECK(!cb_csv_get_double(c, 0, 1, &v, &err));
    CB_CHECK_CONTAINS(err.text, "t.csv:2: column 'x': 'abc' is not a number");
    CB_CHECK(!cb_csv_get_double(c, 1, 0, &v, &err));
    CB_CHECK_CONTAINS(err.text, "t.csv:3: column 'time_s': '' is not a number");
    CB_CHECK(!cb_csv_get_double(c, 2, 0, &v, &err)); /* leading blank */
    CB_CHECK(cb_csv_get_double(c, 1, 1, &v, &err) && v == 2.0);
    cb_csv_free(c);
}

static void test_files(void)
{
    cb_msg err;
    CB_CHECK(cb_csv_read_file("/nonexistent/dir/x.csv", &err) == NULL);
    CB_CHECK_CONTAINS(err.text, "/nonexistent/dir/x.csv: cannot open");

    char path[] = "/tmp/cb_csv_test_XXXXXX";
    int fd = mkstemp(path);
    CB_CHECK(fd >= 0);
    if (fd < 0) return;
    FILE *f = fdopen(fd, "w");
    /* big enough to cross the reader's 64 KiB chunks */
    fputs("benchmark,axes,time_s\n", f);
    for (int i = 0; i < 20000; i++)
        fprintf(f, "b/x,\"n=%d;k=a\",%d.5e-6\n", i % 7, i);
    fclose(f);
    cb_csv *c = cb_csv_read_file(path, &err);
    CB_CHECK_MSG(c != NULL, "%s", err.text);
    if (c) {
        CB_CHECK(cb_csv_rows(c) == 20000);
        CB_CHECK(strcmp(cb_csv_get(c, 19999, 1), "n=0;k=a") == 0);
        CB_CHECK(cb_csv_line(c, 19999) == 20001);
        CB_CHECK(strcmp(cb_csv_name(c), path) == 0);
    }
    cb_csv_free(c);
    remove(path);
}

int main(void)
{
    test_basic();
    test_quoting();
    test_line_ends_and_edges();
    test_rejections();
    test_require_and_numbers();
    test_files();
    return cb_test_finish("test_csv_reader");
}
