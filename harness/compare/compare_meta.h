/* compare_meta.h - what the judge takes from a run's meta.json: the git
 * SHA, the devices, the host, whether the run completed, who the run is (so
 * that a copy is not counted as a second process), which throttle reasons
 * count, and the conditions a comparison must be told about when they
 * differ between BASE and NEW (GPU, driver, runtime, clocks, settings, and
 * whatever scalar readings the `telemetry` block holds). compare and fleet
 * both read meta.json here, and only here; python.json's frameworks too.
 *
 * meta.json is parsed with jansson. Invalid JSON, a top level that is not an
 * object, nesting deeper than CB_META_MAX_DEPTH or a file over
 * CB_META_MAX_BYTES is an error (the caller exits 2); a missing file is not
 * (older tools and hand-made runs have none). Every key is optional: a key
 * that is absent or of another type is left out, never guessed. */
#ifndef CB_COMPARE_META_H
#define CB_COMPARE_META_H

#include "cb_common.h"

#include <stddef.h>

/* cubench writes 4 levels; 64 is generous and keeps recursion bounded. */
#define CB_META_MAX_DEPTH 64
/* cubench writes a few kB; a larger file is not a meta.json. */
#define CB_META_MAX_BYTES (16u << 20)
/* The telemetry block is open-ended: at most this many of its readings. */
#define CB_META_MAX_TELEMETRY 64

typedef struct cb_cmp_kv {
    char *key;   /* a dotted path, e.g. "device.sm_clock_khz" */
    char *value; /* its value as text                         */
} cb_cmp_kv;

/* One device block (`devices[i]`, else `device`). Absent numbers are 0. */
typedef struct cb_cmp_device {
    int ordinal;
    char name[128];
    char uuid[96];
    int pcie_gen, pcie_width, pcie_max_gen, pcie_max_width;
} cb_cmp_device;

/* At most this many throttle words (`telemetry.throttle_counted`). */
#define CB_META_MAX_COUNTED 16

typedef struct cb_cmp_meta {
    bool present;       /* a meta.json was read                 */
    int schema_version; /* 0 when absent                        */
    char git_sha[64];
    char device[128]; /* device.name, "" without one          */
    int complete;     /* `complete`: 1 true, 0 false, -1 absent or not a boolean */
    bool device_null; /* `"device": null`: a run without a GPU */
    char hostname[128], cpu[128];
    char started[40];       /* `started` (UTC, ISO 8601), "" without one */
    cb_cmp_device *devices; /* `devices`, else the one `device` */
    int n_devices;
    /* Who the run is: host, start time and command line (which names the
     * output directory) hashed; 0 without them. Copies of one run agree. */
    uint64_t identity;
    /* The reasons this run counts as throttling, when it says
     * (telemetry.throttle_counted); n_counted 0: not said. */
    char counted[CB_META_MAX_COUNTED][32];
    int n_counted;
    bool has_telemetry; /* a `telemetry` object was there       */
    cb_cmp_kv *conditions;
    int n_conditions;
} cb_cmp_meta;

/* The greatest nesting depth of arrays and objects in `text` (strings
 * skipped), counted in one pass and stopping early past `limit`. */
int cb_cmp_json_depth(const char *text, size_t len, int limit);

/* Read `path` into `out` (zeroed first). A missing file leaves
 * out->present false and returns true. False with `err` set ("PATH:LINE:COL:
 * what") for a file that cannot be read or is not acceptable JSON, or when
 * out of memory. */
bool cb_cmp_meta_read(const char *path, cb_cmp_meta *out, cb_msg *err);

/* The device block of `ordinal`, else the first, else NULL. */
const cb_cmp_device *cb_cmp_meta_device(const cb_cmp_meta *m, int ordinal);

/* The frameworks named in DIR/python.json (`frameworks` keys), joined by
 * ',' with a ',' on each side (",torch,cupy,"), into `out`; "" without the
 * file. False with `err` set for a python.json that is not valid JSON. */
bool cb_cmp_python_frameworks(const char *dir, char *out, size_t len, cb_msg *err);

/* The value of condition `key`, or NULL. */
const char *cb_cmp_meta_get(const cb_cmp_meta *m, const char *key);

void cb_cmp_meta_free(cb_cmp_meta *m);

#endif
