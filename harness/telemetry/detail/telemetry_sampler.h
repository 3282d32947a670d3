/* telemetry_sampler.h - one NVML reading, and the thread that takes them.
 *
 * A reading is the SM and memory clocks, board power, GPU temperature and
 * the clock-event reasons of one device, stamped on CLOCK_MONOTONIC
 * (cb_now_s, cb_common.h) so that it lines up with the runner's per-sample host_t0. The
 * sampler thread sleeps until cb_sampler_begin, then reads every period until
 * cb_sampler_end hands the readings over. It only reads: cubench never
 * changes a clock or power setting. */
#ifndef CB_TELEMETRY_SAMPLER_H
#define CB_TELEMETRY_SAMPLER_H

#include "telemetry_nvml.h"
#include "telemetry_readings.h"

#include <stdint.h>

typedef enum cb_power_source {
    CB_POWER_NONE,    /* the GPU reports no power                              */
    CB_POWER_INSTANT, /* nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)  */
    CB_POWER_AVERAGE, /* nvmlDeviceGetPowerUsage: a 1 s average on Ampere and later */
} cb_power_source;

const char *cb_power_source_name(cb_power_source s); /* "instant", "average" or NULL */

/* The fields of a reading, for error bookkeeping. */
enum {
    CB_FIELD_SM_CLOCK,
    CB_FIELD_MEM_CLOCK,
    CB_FIELD_POWER,
    CB_FIELD_TEMP,
    CB_FIELD_REASONS,
    CB_N_FIELDS
};
const char *cb_telemetry_field_name(int field); /* "sm_clock", ... */

/* Failed calls per field with the first one's NVML text: meta.json says
 * which fields stayed empty and why. */
typedef struct cb_sampler_errors {
    long count[CB_N_FIELDS];
    char first[CB_N_FIELDS][96];
    long readings; /* readings taken in all */
    long dropped;  /* readings not kept (the per-point cap, out of memory) */
} cb_sampler_errors;

/* At most this many readings per point (~2.9 h at 10 ms); later ones are
 * counted in `dropped`. */
#define CB_SAMPLER_MAX_READINGS (1 << 20)

/* Which power reading the device offers: instant, else the average, else
 * none (the failure goes into *errors). */
cb_power_source cb_sampler_probe_power(const cb_nvml *n, cb_nvmlDevice_t dev,
                                       cb_sampler_errors *errors);

/* Take one reading now; every failed call leaves its field empty and is
 * counted in *errors. */
void cb_sampler_read(const cb_nvml *n, cb_nvmlDevice_t dev, cb_power_source power,
                     cb_telemetry_reading *r, cb_sampler_errors *errors);

typedef struct cb_sampler cb_sampler;

/* Start the (idle) thread. CB_FAIL with a message when it cannot. */
cb_status cb_sampler_create(cb_sampler **out, const cb_nvml *n, cb_nvmlDevice_t dev,
                            cb_power_source power, double period_s, cb_msg *why);

/* Read another device from the next span on (between spans only). */
void cb_sampler_set_device(cb_sampler *s, cb_nvmlDevice_t dev, cb_power_source power);

/* Forget earlier readings and read every period from now on; the first
 * reading is taken at once. */
void cb_sampler_begin(cb_sampler *s);

/* Stop reading and append this span's readings to *out. Waits for a
 * reading in flight, and for the first one of the span (a span shorter than
 * the thread's wake-up still gets one reading; at most 1 s). CB_FAIL only
 * when *out cannot grow. */
cb_status cb_sampler_end(cb_sampler *s, cb_telemetry_readings *out, cb_msg *why);

/* The newest reading of the span in progress; false when there is none
 * (no span, or its first reading is not in yet). */
bool cb_sampler_latest(cb_sampler *s, cb_telemetry_reading *out);

/* A copy of the error bookkeeping so far. */
void cb_sampler_errors_get(cb_sampler *s, cb_sampler_errors *out);

/* Stop and join the thread; NULL is fine. */
void cb_sampler_destroy(cb_sampler *s);

#endif
