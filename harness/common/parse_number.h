/* parse_number.h - the one parser of numbers typed by a user or read from a
 * file (option values, CSV cells, JSON-free settings): the whole text must be
 * the number, finite and within [lo, hi]; anything else is refused with a
 * message that quotes the text and the range. Every command and reader
 * parses numbers through these two, so "1e3", " 7" or "12abc" mean the same
 * (or are refused alike) everywhere. */
#ifndef CB_PARSE_NUMBER_H
#define CB_PARSE_NUMBER_H

#include "cb_common.h"

/* A decimal or scientific number ("0.5", "1e-3"); no leading or trailing
 * space, no "nan"/"inf". */
bool cb_parse_double(const char *text, double lo, double hi, double *out, cb_msg *why);

/* A whole number in base 10 ("-3", "4096"); "1.0" and "0x10" are refused. */
bool cb_parse_int(const char *text, long long lo, long long hi, long long *out, cb_msg *why);

#endif
