/* fleet_util.h - the small steps every part of the fleet report takes
 * alike: failing on memory, and joining a directory and a name. */
#ifndef CB_FLEET_UTIL_H
#define CB_FLEET_UTIL_H

#include "cb_common.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Out of memory: err set, false, so a step can end with `return
 * cb_fleet_oom(err)`. */
static inline bool cb_fleet_oom(cb_msg *err)
{
    cb_msg_set(err, "out of memory");
    return false;
}

/* dir + "/" + name into out; false (err set) when it does not fit. */
static inline bool cb_fleet_join(char *out, size_t len, const char *dir, const char *name,
                                 cb_msg *err)
{
    int n = snprintf(out, len, "%s/%s", dir, name);
    if (n >= 0 && (size_t)n < len) return true;
    cb_msg_set(err, "%.100s/%.60s: path too long", dir, name);
    return false;
}

#endif
