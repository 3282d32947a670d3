/* common_axes.h - axis definitions that mean the same in several families.
 *
 * Written once, so that an axis a user meets in two families has one name,
 * one kind, one lower limit and one help text in `cubench list`; a family
 * passes only what really differs between families, its default sweep. */
#ifndef CB_COMMON_AXES_H
#define CB_COMMON_AXES_H

#include "axis.h"

/* The fields of an enum axis that sweeps every one of its words by default
 * (spliced into an axis entry beside .name and .help): the words are
 * written once, so the defaults cannot fall out of step with the choices. */
#define CB_AXIS_ENUM_ALL(words) .kind = CB_AXIS_ENUM, .defaults = words, .choices = words

/* The fields of a size axis in bytes, spliced beside .defaults and .help
 * (which say what the family counts: per copy, each way, per rank...).
 * The name is also what fits.csv sweeps: fit.c fits latency and bandwidth
 * along the `bytes` axis of every curve. */
#define CB_AXIS_BYTES .name = "bytes", .kind = CB_AXIS_INT, .min_value = 1

/* Threads per block of a one-dimensional launch. */
#define CB_BLOCK_AXIS(defaults_list)                                                               \
    {                                                                                              \
        .name = "block", .kind = CB_AXIS_INT, .defaults = defaults_list, .min_value = 1,           \
        .help = "threads per block"                                                                \
    }

#endif
