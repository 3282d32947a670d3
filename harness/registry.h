/* registry.h - every benchmark compiled in, as one static table built from
 * bench/families.def (an X-macro list: no constructors, no linker tricks). */
#ifndef CB_REGISTRY_H
#define CB_REGISTRY_H

#include "bench.h"

/* Number of benchmarks and the i-th one, in families.def order. */
int cb_registry_count(void);
const cb_bench *cb_registry_get(int i);

/* Find by exact name; NULL when absent. */
const cb_bench *cb_registry_find(const char *name);

/* Does `name` match shell glob `pattern` (fnmatch; a pattern without a '/' or
 * wildcard also matches a whole family: "vecadd" selects "vecadd/...")? */
bool cb_registry_matches(const char *pattern, const char *name);

#endif
