/* compare_conditions.h - what differs between the conditions BASE and NEW
 * ran under (GPU, driver, runtime, clocks, build, settings, telemetry), from
 * their meta.json files (compare_meta.h). A side of several runs whose runs
 * disagree shows every value, marked as varying; a side whose runs ran on
 * different devices is named as mixing them, whatever the other side did
 * (its runs' spread then holds the devices' difference). */
#ifndef CB_COMPARE_CONDITIONS_H
#define CB_COMPARE_CONDITIONS_H

#include "compare_load.h"

typedef struct cb_cmp_diff {
    const char *key; /* borrowed from the runs' meta */
    char base[200], cand[200];
} cb_cmp_diff;

typedef struct cb_cmp_conditions {
    cb_cmp_diff *diffs;
    int n_diffs;
    int base_meta, new_meta;           /* runs with a meta.json, per side */
    int base_telemetry, new_telemetry; /* runs with a telemetry block     */
    /* A side whose runs ran on different devices (names or UUIDs): which,
     * e.g. "2 runs on NVIDIA H200 GPU-1a..., 1 on NVIDIA A100 GPU-77...";
     * "" when its runs agree (or say nothing). */
    char base_mix[320], new_mix[320];
} cb_cmp_conditions;

/* Compare the conditions of the two sides. Keys known on one side only are
 * not differences (unknown is not different). False when out of memory. */
bool cb_cmp_conditions_diff(const cb_cmp_run *base, const cb_cmp_run *cand, cb_cmp_conditions *out,
                            cb_msg *err);

void cb_cmp_conditions_free(cb_cmp_conditions *c);

#endif
