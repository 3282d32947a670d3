/* test_utf8_trim.c - a size-limited write that stops inside a UTF-8
 * character leaves no half of it behind: the notes and messages cubench
 * writes into fixed buffers reach CSV files that must stay valid UTF-8
 * (a compare note cut after the first byte of "±" broke a reader); and a
 * message stays one line whatever it quotes. */
/* test links: cubench_common */
#include "cb_common.h"
#include "cb_test.h"

#include <stdio.h>
#include <string.h>

/* snprintf "x ± y" (± is 0xC2 0xB1) into `size` bytes, then trim. */
static void cut_at(size_t size, const char *want)
{
    char buf[16];
    snprintf(buf, size, "%s", "x \xC2\xB1 y");
    cb_utf8_trim_tail(buf);
    CB_CHECK_STR(buf, want);
}

int main(void)
{
    cut_at(3, "x ");         /* before the character: untouched */
    cut_at(4, "x ");         /* after its first byte: the half is cut */
    cut_at(5, "x \xC2\xB1"); /* whole: kept */
    cut_at(8, "x \xC2\xB1 y");
    /* Three- and four-byte characters cut after each of their bytes. */
    const char *euro = "\xE2\x82\xAC", *emoji = "\xF0\x9F\x98\x80";
    for (size_t keep = 1; keep <= 3; keep++) {
        char buf[8] = {0};
        memcpy(buf, euro, keep);
        cb_utf8_trim_tail(buf);
        CB_CHECK_STR(buf, keep == 3 ? euro : "");
    }
    for (size_t keep = 1; keep <= 4; keep++) {
        char buf[8] = {0};
        memcpy(buf, emoji, keep);
        cb_utf8_trim_tail(buf);
        CB_CHECK_STR(buf, keep == 4 ? emoji : "");
    }
    char plain[] = "ascii only";
    cb_utf8_trim_tail(plain);
    CB_CHECK_STR(plain, "ascii only");
    char empty[] = "";
    cb_utf8_trim_tail(empty);
    CB_CHECK_STR(empty, "");
    /* cb_msg_set trims what it cut. */
    cb_msg m;
    char longer[sizeof m.text + 8];
    memset(longer, 'a', sizeof longer);
    longer[sizeof m.text - 2] = '\xC2';
    longer[sizeof m.text - 1] = '\xB1';
    longer[sizeof longer - 1] = '\0';
    cb_msg_set(&m, "%s", longer);
    CB_CHECK_EQ_INT((int)strlen(m.text), (int)sizeof m.text - 2);
    /* ... and keeps a message on one line: a quoted cell's newline, tab or
     * escape byte is shown as '?', UTF-8 untouched. */
    cb_msg_set(&m, "point '%s' listed twice", "x\ny\r\tz\x1b\x7f \xC2\xB1");
    CB_CHECK_STR(m.text, "point 'x?y??z?? \xC2\xB1' listed twice");
    return cb_test_finish("test_utf8_trim");
}
