/* profile_point.h - drilling into one point with Nsight Compute / Systems.
 *
 * cubench measures; the Nsight tools explain. This module prints the command
 * lines that re-run exactly one point under ncu or nsys, and brackets that
 * point with cudaProfilerStart/Stop so the tools (started with
 * --profile-from-start off / --capture-range=cudaProfilerApi) capture it and
 * nothing else: not module loading, not setup, not the other points.
 *
 * The printed commands use two options of `cubench run`, spelled here so the
 * CLI and these lines cannot drift apart:
 *   CB_PROFILE_FLAG   profile mode: the runner calls cb_profile_start before
 *                     the point's profiled runs and cb_profile_stop after;
 *   CB_NO_CUPTI_FLAG  cubench's own CUPTI stays off (one CUPTI subscriber per
 *                     process, and the profiler is it).
 */
#ifndef CB_PROFILE_POINT_H
#define CB_PROFILE_POINT_H

#include "cb_common.h"

#include <stdio.h>

#define CB_PROFILE_FLAG  "--profile"
#define CB_NO_CUPTI_FLAG "--no-cupti"

typedef enum cb_profile_tool {
    CB_PROFILE_NCU,  /* Nsight Compute: hardware counters of each kernel */
    CB_PROFILE_NSYS, /* Nsight Systems: timeline with cubench's NVTX ranges */
} cb_profile_tool;

/* The point to re-run. */
typedef struct cb_profile_target {
    const char *program;      /* how cubench was invoked (argv[0])                */
    const char *bench;        /* "vecadd/grid_stride"                             */
    const char *axes;         /* cb_point_format text: "n=1024;block=256;grid=auto" */
    bool hot;                 /* hot-cache point: tell ncu not to flush caches     */
    int n_extra;              /* further `cubench run` arguments to keep, e.g.     */
    const char *const *extra; /* {"--cache", "hot"}; may be NULL when 0     */
} cb_profile_target;

/* One shell command line (quoted for sh) that profiles the point with
 * `tool`. Returns the length it needed, like snprintf; the text is cut (and
 * NUL-terminated) when `len` is too small. */
size_t cb_profile_command(char *buf, size_t len, cb_profile_tool tool, const cb_profile_target *t);

/* Print both command lines, each after a '#' line saying what it captures
 * (for the CLI to show on request, or after a surprising result). */
void cb_profile_print_commands(FILE *out, const cb_profile_target *t);

/* cudaProfilerStart / cudaProfilerStop around the profiled part of the
 * point. Harmless without a profiler attached. */
cb_status cb_profile_start(cb_msg *why);
cb_status cb_profile_stop(cb_msg *why);

#endif
