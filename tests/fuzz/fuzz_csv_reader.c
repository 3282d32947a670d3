/* fuzz_csv_reader.c - libFuzzer target for harness/csv_reader.c.
 *
 * Properties checked on every input (a violation aborts, which libFuzzer
 * reports with the input that caused it):
 *   - the parser returns, without memory errors (ASan/UBSan do the rest);
 *   - a rejection comes with a message;
 *   - an accepted table is rectangular, every field is a string, every
 *     header name is found by cb_csv_col at its own index, lines ascend;
 *   - round trip: writing the table back with every field quoted and parsing
 *     that again gives the same fields.
 * Build and run: tests/fuzz/README.md.
 */
#define FUZZ_TARGET "fuzz_csv_reader"
#include "fuzz.h"

#include "csv_reader.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Append `s` quoted (inner quotes doubled) to buf; returns the new length. */
static size_t put_quoted(char *buf, size_t len, const char *s)
{
    buf[len++] = '"';
    for (; *s; s++) {
        if (*s == '"') buf[len++] = '"';
        buf[len++] = *s;
    }
    buf[len++] = '"';
    return len;
}

static void check_round_trip(const cb_csv *c)
{
    int rows = cb_csv_rows(c), cols = cb_csv_cols(c);
    size_t cap = 16;
    for (int r = -1; r < rows; r++)
        for (int k = 0; k < cols; k++)
            cap += 2 * strlen(r < 0 ? cb_csv_header(c, k) : cb_csv_get(c, r, k)) + 4;
    char *buf = malloc(cap);
    if (!buf) return;
    size_t len = 0;
    for (int r = -1; r < rows; r++) {
        for (int k = 0; k < cols; k++) {
            if (k) buf[len++] = ',';
            len = put_quoted(buf, len, r < 0 ? cb_csv_header(c, k) : cb_csv_get(c, r, k));
        }
        buf[len++] = '\n';
    }
    cb_msg err = {{0}};
    cb_csv *again = cb_csv_parse(buf, len, "round-trip", &err);
    FUZZ_ASSERT(again != NULL);
    FUZZ_ASSERT(cb_csv_rows(again) == rows && cb_csv_cols(again) == cols);
    for (int k = 0; k < cols; k++)
        FUZZ_ASSERT(strcmp(cb_csv_header(again, k), cb_csv_header(c, k)) == 0);
    for (int r = 0; r < rows; r++)
        for (int k = 0; k < cols; k++)
            FUZZ_ASSERT(strcmp(cb_csv_get(again, r, k), cb_csv_get(c, r, k)) == 0);
    cb_csv_free(again);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cb_msg err = {{0}};
    cb_csv *c = cb_csv_parse((const char *)data, size, "fuzz", &err);
    if (!c) {
        FUZZ_ASSERT(err.text[0] != '\0');
        return 0;
    }
    int rows = cb_csv_rows(c), cols = cb_csv_cols(c);
    FUZZ_ASSERT(rows >= 0 && cols >= 1);
    for (int k = 0; k < cols; k++) {
        FUZZ_ASSERT(cb_csv_header(c, k)[0] != '\0');
        FUZZ_ASSERT(cb_csv_col(c, cb_csv_header(c, k)) == k);
    }
    long prev_line = 0;
    for (int r = 0; r < rows; r++) {
        FUZZ_ASSERT(cb_csv_line(c, r) > prev_line);
        prev_line = cb_csv_line(c, r);
        for (int k = 0; k < cols; k++) {
            double v;
            (void)strlen(cb_csv_get(c, r, k));
            (void)cb_csv_get_double(c, r, k, &v, &err);
        }
    }
    check_round_trip(c);
    cb_csv_free(c);
    return 0;
}
