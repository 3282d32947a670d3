/* cli_util.c - strict parsing of numeric option values. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

bool cb_cli_parse_double(const char *cmd, const char *opt, const char *text, double lo, double hi,
                         double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !isfinite(v) || v < lo || v > hi) {
        fprintf(stderr, "cubench %s: %s: '%s' is not a number in [%g, %g]\n", cmd, opt, text, lo,
                hi);
        return false;
    }
    *out = v;
    return true;
}

bool cb_cli_parse_int(const char *cmd, const char *opt, const char *text, long long lo,
                      long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < lo || v > hi) {
        fprintf(stderr, "cubench %s: %s: '%s' is not an integer in [%lld, %lld]\n", cmd, opt, text,
                lo, hi);
        return false;
    }
    *out = v;
    return true;
}
