/* registry.h - the benchmarks a front end has registered, by family.
 *
 * The engine knows no family by name: a front end (the CLI, the shared
 * library behind the Python package, a test) registers families at start-up,
 * and the planner and runner only see what is here. bench/ registers the
 * families compiled into cubench from bench/families.def. */
#ifndef CB_REGISTRY_H
#define CB_REGISTRY_H

#include "results.h"

/* A family may write files of its own from the rows of a run (transfers:
 * overlap.csv). Called after every point with every row so far, so it must
 * be idempotent: write to a temporary name and rename. A failure to write
 * stops the run like any other write error. */
typedef cb_status (*cb_family_outputs_fn)(const char *dir, const cb_result *rows, int n,
                                          cb_msg *why);

typedef struct cb_family {
    const char *name; /* the part of every benchmark name before the '/' */
    const cb_bench *benches;
    int count;
    cb_family_outputs_fn write_outputs; /* optional */
} cb_family;

/* Add a family; its benchmark names must start with "<name>/" and must not
 * exist yet. The table must outlive the registry (static data). */
cb_status cb_registry_add_family(const cb_family *family, cb_msg *why);

/* Forget every family (tests, and a library front end that re-registers). */
void cb_registry_clear(void);

int cb_registry_family_count(void);
const cb_family *cb_registry_family(int i);

/* Number of benchmarks and the i-th one, in registration order. */
int cb_registry_count(void);
const cb_bench *cb_registry_get(int i);

/* Find by exact name; NULL when absent. */
const cb_bench *cb_registry_find(const char *name);

/* Does `name` match shell glob `pattern` (fnmatch; a pattern without a '/' or
 * wildcard also matches a whole family: "vecadd" selects "vecadd/...")? */
bool cb_registry_matches(const char *pattern, const char *name);

/* Let every family with an output hook write its files for these rows. */
cb_status cb_registry_write_outputs(const char *dir, const cb_result *rows, int n, cb_msg *why);

#endif
