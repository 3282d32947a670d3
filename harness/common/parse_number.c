/* parse_number.c - strict number parsing (parse_number.h). */
#include "parse_number.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* strtod and strtoll skip leading space and accept words such as "nan" and
 * "infinity" (strtod) or a sign followed by nothing: the first character
 * must already belong to the number. */
static bool starts_like_number(const char *text)
{
    if (!text || !*text) return false;
    const char *p = text;
    if (*p == '+' || *p == '-') p++;
    return isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]));
}

bool cb_parse_double(const char *text, double lo, double hi, double *out, cb_msg *why)
{
    char *end = NULL;
    errno = 0;
    /* decimal only: strtod also reads hexadecimal ("0x10", "0x1p3") */
    const bool shaped = starts_like_number(text) && text[strspn(text, "+-0123456789.eE")] == '\0';
    double v = shaped ? strtod(text, &end) : NAN;
    if (!shaped || errno || *end || !isfinite(v) || v < lo || v > hi) {
        cb_msg_set(why, "'%.60s' is not a number in [%g, %g]", text ? text : "", lo, hi);
        return false;
    }
    *out = v;
    return true;
}

bool cb_parse_int(const char *text, long long lo, long long hi, long long *out, cb_msg *why)
{
    char *end = NULL;
    errno = 0;
    bool shaped = starts_like_number(text) && text[strspn(text, "+-0123456789")] == '\0';
    long long v = shaped ? strtoll(text, &end, 10) : 0;
    if (!shaped || errno || *end || v < lo || v > hi) {
        cb_msg_set(why, "'%.60s' is not an integer in [%lld, %lld]", text ? text : "", lo, hi);
        return false;
    }
    *out = v;
    return true;
}
