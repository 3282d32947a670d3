/* telemetry_readings.h - one NVML reading and a growing list of them: what
 * the sampler hands the runner for a point, and what the summaries read. */
#ifndef CB_TELEMETRY_READINGS_H
#define CB_TELEMETRY_READINGS_H

#include "cb_common.h"

typedef struct cb_telemetry_reading {
    double t_s;                         /* CLOCK_MONOTONIC, middle of the calls */
    double sm_clock_mhz, mem_clock_mhz; /* NAN where the call failed            */
    double power_w, temp_c;             /* NAN where failed or not reported     */
    uint64_t reasons;                   /* clock-event reason bits              */
    bool reasons_valid;                 /* false where the call failed          */
} cb_telemetry_reading;

/* A growing array of readings, oldest first. */
typedef struct cb_telemetry_readings {
    cb_telemetry_reading *v;
    int n, cap;
} cb_telemetry_readings;

cb_status cb_telemetry_readings_append(cb_telemetry_readings *dst, const cb_telemetry_reading *src,
                                       int n, cb_msg *why);
void cb_telemetry_readings_free(cb_telemetry_readings *r);

#endif
