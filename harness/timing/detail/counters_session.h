/* counters_session.h - the inside of a cb_counters session, shared by the
 * files that parse (counters_spec.c), resolve on a chip
 * (counters_resolve.c), measure (counters_measure.c) and describe it
 * (counters_json.c). */
#ifndef CB_COUNTERS_SESSION_H
#define CB_COUNTERS_SESSION_H

#include "counters.h"
#include "counters_ops.h"
#include "counters_presets.h"

#define CB_COUNTERS_MAX_METRICS 96
#define CB_COUNTERS_MAX_CHIPS   8
#define CB_COUNTERS_MAX_DEVICES 64
#define CB_COUNTERS_NAME_LEN    128
#define CB_COUNTERS_UNIT_LEN    40
#define CB_COUNTERS_DESC_LEN    200
#define CB_COUNTERS_CHIP_LEN    32

/* One item of the spec: a preset's entry, or a metric the user named. */
typedef struct cb_counters_item {
    const cb_counters_entry *entry; /* NULL: user_name */
    char user_name[CB_COUNTERS_NAME_LEN];
    const char *preset; /* the preset it came from, or NULL */
} cb_counters_item;

/* The spec resolved on one chip: the metrics collected and what they feed. */
typedef struct cb_counters_chip {
    char name[CB_COUNTERS_CHIP_LEN];
    bool usable;                      /* metrics resolved and a config image made */
    char unusable_reason[CB_MSG_LEN]; /* why not (every pass on it is a skip)     */
    int n;
    char text[CB_COUNTERS_MAX_METRICS][CB_COUNTERS_NAME_LEN];
    char unit_text[CB_COUNTERS_MAX_METRICS][CB_COUNTERS_UNIT_LEN];
    char desc[CB_COUNTERS_MAX_METRICS][CB_COUNTERS_DESC_LEN];
    const char *names[CB_COUNTERS_MAX_METRICS]; /* -> text   */
    const char *units[CB_COUNTERS_MAX_METRICS]; /* -> unit_text */
    cb_counters_role role[CB_COUNTERS_MAX_METRICS];
    double weight[CB_COUNTERS_MAX_METRICS];
    int time_index; /* gpu__time_duration.sum, which weighs the ranges; -1 none */
    void *host;     /* host object holding the config (evaluation) */
    uint8_t *config;
    size_t config_size;
    size_t passes; /* what the config image needs */
} cb_counters_chip;

typedef struct cb_counters_device {
    int ordinal;
    int chip;                     /* index into chips, -1 when unknown */
    bool probed;                  /* support and permission asked      */
    char skip_reason[CB_MSG_LEN]; /* non-empty: every pass skips    */
} cb_counters_device;

struct cb_counters {
    const cb_counters_host_ops *host;
    const cb_counters_target_ops *target;
    char spec[512];
    cb_counters_item items[CB_COUNTERS_MAX_METRICS];
    int n_items;
    cb_counters_chip *chips; /* [CB_COUNTERS_MAX_CHIPS] */
    int n_chips;
    cb_counters_device devices[CB_COUNTERS_MAX_DEVICES];
    int n_devices;
    bool profiler_up; /* target->initialize succeeded */
    char notice[2 * CB_MSG_LEN];
};

/* counters_spec.c: split the spec into items (presets expanded, repeats
 * dropped). False with a message on an empty item, an unknown preset word
 * given where a metric name cannot be (no "__"), or too many metrics. */
bool cb_counters_parse_spec(struct cb_counters *c, const char *spec, cb_msg *why);

/* counters_resolve.c: resolve the items on `chip` (preset entries by the
 * alternatives the chip knows; user names validated one by one), then make
 * the config image. CB_FAIL with the user's message for a name the chip
 * does not know (exit 2); CB_SKIP when the chip cannot be used at all (the
 * reason in chip->unusable_reason); CB_OK. */
cb_status cb_counters_resolve_chip(struct cb_counters *c, cb_counters_chip *chip, cb_msg *why);
void cb_counters_chip_release(struct cb_counters *c, cb_counters_chip *chip);

/* counters_resolve.c: without a chip to ask, check each user name on every
 * chip the host API knows; refuse (CB_FAIL, exit 2) only names no chip
 * knows. CB_SKIP (the reason in why) when the host API lists no chips:
 * nothing could be checked. *n_chips: how many chips were asked. */
cb_status cb_counters_check_any_chip(struct cb_counters *c, size_t *n_chips, cb_msg *why);

/* counters_suggest.c: "closest on GH100: a, b, c" for a name `host` (an
 * object of that chip) refuses, into buf. */
void cb_counters_suggest(const cb_counters_host_ops *ops, void *host, const char *chip,
                         const char *name, char *buf, size_t len);
/* Levenshtein distance, capped at `cap` (for the suggestions; tested). */
int cb_counters_edit_distance(const char *a, const char *b, int cap);

/* counters_aggregate.c: how a metric's per-range values (one range per
 * kernel) make the point's value. Counts (a name ending in a rollup: .sum,
 * .avg, .min, .max) add up: the run's kernels did all of it. Everything
 * else (rates, ratios, shares of peak: .per_second, .pct, .ratio,
 * .pct_of_peak_sustained_*, .peak_sustained, ...) is the mean weighted by
 * each range's GPU time, which for `X.pct_of_peak_sustained_elapsed` is
 * sum(X) over sum(peak x elapsed cycles) when the unit's clock is the same
 * in every range. */
typedef enum cb_counters_combine {
    CB_COUNTERS_COMBINE_SUM = 0,
    CB_COUNTERS_COMBINE_TIME_MEAN = 1,
} cb_counters_combine;

cb_counters_combine cb_counters_combine_of(const char *name);
/* "sum" or "time-weighted mean" (meta.json). */
const char *cb_counters_combine_name(cb_counters_combine how);

/* The point's value of each of n metrics from `ranges` rows of per-range
 * values (per_range[r * n + i]) into out[n]. time_index: the metric that
 * holds each range's GPU time (the weight), or -1. One range: its values as
 * they are. A sum with a non-finite term is NAN (not a sum that quietly
 * lacks one); a mean leaves out ranges whose value or weight is not finite
 * (a ratio of a kernel that made no such event reads NAN), and is NAN when
 * none is left or no weight is known. */
void cb_counters_aggregate(const char *const *names, int n, const double *per_range, int ranges,
                           int time_index, double *out);

/* counters_sol.c: the SOL figures, DRAM bytes and FLOPs of a pass's values. */
void cb_counters_fill_figures(const cb_counters_chip *chip, cb_counters_values *v);

/* CUPTI's name for a result, through the host table. */
const char *cb_counters_result_name(const struct cb_counters *c, CUptiResult r);

#endif
