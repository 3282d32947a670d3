/* cb_common.c - enum and status names, message formatting, growing arrays, a
 * binary search and the clock. */
#include "cb_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *cb_enum_name(const char *const *names, int n_names, int v, const char *fallback)
{
    return v >= 0 && v < n_names && names[v] ? names[v] : fallback;
}

const char *cb_status_name(cb_status s)
{
    static const char *const names[] = {
        [CB_OK] = "ok", [CB_NOISY] = "noisy", [CB_SKIP] = "skip", [CB_FAIL] = "fail"};
    return cb_enum_name(names, CB_ARRAY_LEN(names), (int)s, "?");
}

void cb_msg_set(cb_msg *m, const char *fmt, ...)
{
    if (!m) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->text, sizeof m->text, fmt, ap);
    va_end(ap);
    cb_utf8_trim_tail(m->text);
    /* A message is one line: a control character quoted from an input (a
     * CSV cell with a newline in it) must not start another. */
    for (char *c = m->text; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
}

void cb_utf8_trim_tail(char *s)
{
    size_t n = strlen(s);
    /* The last lead byte, at most 3 continuation bytes back. */
    size_t i = n, back = 0;
    while (i > 0 && back < 4 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) {
        i--;
        back++;
    }
    if (i == 0) return;
    const unsigned char lead = (unsigned char)s[i - 1];
    size_t need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
    if (lead >= 0xC0 && back < need) s[i - 1] = '\0';
}

void *cb_grow_array(void *items, int n, int *cap, int first_cap, size_t size)
{
    if (n < *cap) return items;
    int grown_cap = *cap ? 2 * *cap : first_cap;
    void *grown = realloc(items, (size_t)grown_cap * size);
    if (grown) *cap = grown_cap;
    return grown;
}

size_t cb_lower_bound(const void *key, const void *base, size_t n, size_t size,
                      int (*cmp)(const void *key, const void *item))
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(key, (const char *)base + mid * size) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

double cb_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
