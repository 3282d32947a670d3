/* telemetry.h - what the GPU did while cubench measured it (NVML).
 *
 * One cb_telemetry per run: it loads NVML (telemetry_nvml.h), lists the
 * devices NVML sees (telemetry_device.h), finds the run's CUDA devices by
 * UUID (never by ordinal: NVML and CUDA may number devices differently) and
 * runs a sampler thread (telemetry_sampler.h) that the runner points at a
 * point's device, then starts and stops around the point's sampling.
 * Without NVML, with --no-telemetry or without a CUDA device nothing is
 * sampled and the telemetry columns stay empty;
 * cb_telemetry_unavailable_reason says why, and nothing fails.
 * docs/telemetry.md describes the whole. */
#ifndef CB_TELEMETRY_H
#define CB_TELEMETRY_H

#include "json_writer.h"
#include "telemetry_readings.h"

#include <stdio.h>

#define CB_TELEMETRY_DEFAULT_PERIOD_S 0.010

typedef struct cb_telemetry_options {
    bool off;            /* --no-telemetry                                    */
    double period_s;     /* --telemetry-period (default 10 ms)                */
    const char *library; /* NULL: $CUBENCH_NVML_LIBRARY, else libnvidia-ml.so.1 */
    unsigned lock_mhz;   /* --lock-clocks: lock the SM clock here (0: never)  */
} cb_telemetry_options;

void cb_telemetry_options_defaults(cb_telemetry_options *o);

typedef struct cb_telemetry cb_telemetry;

/* Open NVML and, when NVML sees one of the run's CUDA devices (`n_uuids`
 * UUIDs, "GPU-..."), start the sampler. Never fails: returns NULL only when
 * out of host memory, and every function below takes NULL as "telemetry
 * unavailable". */
cb_telemetry *cb_telemetry_open(const cb_telemetry_options *o, const char *const *cuda_uuids,
                                int n_uuids);

/* True when some device of the run is sampled. */
bool cb_telemetry_sampling(const cb_telemetry *t);

/* Point the sampler at the CUDA device `uuid` for the points that follow
 * (call between points). False when that device is not sampled. */
bool cb_telemetry_select(cb_telemetry *t, const char *uuid);

/* Why nothing is sampled ("off (--no-telemetry)", "cannot load NVML ...",
 * ...); NULL while sampling. */
const char *cb_telemetry_unavailable_reason(const cb_telemetry *t);

/* Around one point's sampling on the selected device: begin starts the
 * readings, end appends them to *out (CB_FAIL only when *out cannot grow).
 * No-ops when not sampling. */
void cb_telemetry_point_begin(cb_telemetry *t);
cb_status cb_telemetry_point_end(cb_telemetry *t, cb_telemetry_readings *out, cb_msg *why);

/* Throttle-aware sampling (docs/methodology.md). A reading is throttled
 * when a reason that counts as throttling (telemetry_reasons.h) is active,
 * or the SM clock is below CB_THROTTLE_CLOCK_SHARE of the sampled device's
 * application clock (its maximum clock where NVML gives none). */
#define CB_THROTTLE_CLOCK_SHARE 0.90

/* The newest reading of the point being sampled (between point_begin and
 * point_end); false when there is none yet or nothing is sampled. */
bool cb_telemetry_latest(cb_telemetry *t, cb_telemetry_reading *out);

/* One reading of the selected device, taken now by the caller (between
 * points: waiting for a throttled GPU to recover). False when nothing is
 * sampled. */
bool cb_telemetry_read_now(cb_telemetry *t, cb_telemetry_reading *out);

/* How long NVML has counted the current device's clocks as held below the
 * requested ones by its power limit and by temperature, ns, cumulative
 * since the driver loaded (nvmlDeviceGetViolationStatus). Its difference
 * across a point's sampling sees capping that instantaneous readings every
 * 10 ms can miss. False where this NVML or device does not report the
 * power one; thermal is 0 where only it is missing. */
typedef struct cb_violation_ns {
    uint64_t power, thermal;
} cb_violation_ns;
bool cb_telemetry_violation_now(cb_telemetry *t, cb_violation_ns *out);

/* Is `r` throttled by the rule above? With a reason, `why` (may be NULL)
 * says which: "sw_power_cap", "SM clock 1380 MHz < 90% of 1980 MHz". */
bool cb_telemetry_throttled(const cb_telemetry *t, const cb_telemetry_reading *r, char *why,
                            size_t len);

/* The opt-in clock lock (--lock-clocks MHZ, clock_lock.c): every sampled
 * GPU of the run locked at `mhz` (SM clock) through NVML. CB_FAIL with the
 * reason (no permission, no NVML): nothing stays locked. The lock is reset
 * by cb_telemetry_unlock_clocks, cb_telemetry_close, at exit() and by
 * cb_telemetry_unlock_for_exit (for a fatal signal's path). */
cb_status cb_telemetry_lock_clocks(cb_telemetry *t, unsigned mhz, cb_msg *why);
void cb_telemetry_unlock_clocks(cb_telemetry *t);
void cb_telemetry_unlock_for_exit(void);
/* meta.json's "clock_lock" member. */
void cb_telemetry_write_lock_json(cb_json *j, const cb_telemetry *t);

/* meta.json's "telemetry" member (key and object). */
void cb_telemetry_write_json(cb_json *j, const cb_telemetry *t);

/* `cubench env`'s telemetry lines. */
void cb_telemetry_print(FILE *f, const cb_telemetry *t);

/* Stop the sampler, shut NVML down, free; NULL is fine. */
void cb_telemetry_close(cb_telemetry *t);

#endif
