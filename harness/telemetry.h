/* telemetry.h - what the GPU did while cubench measured it (NVML).
 *
 * One cb_telemetry per run: it loads NVML (telemetry_nvml.h), lists the
 * devices NVML sees (telemetry_device.h), finds the run's CUDA device by
 * UUID (never by ordinal: NVML and CUDA may number devices differently) and
 * runs a sampler thread (telemetry_sampler.h) that the runner starts and
 * stops around each point's sampling. Without NVML, with --no-telemetry or
 * without a CUDA device nothing is sampled and the telemetry columns stay
 * empty; cb_telemetry_unavailable_reason says why, and nothing fails.
 * docs/telemetry.md describes the whole. */
#ifndef CB_TELEMETRY_H
#define CB_TELEMETRY_H

#include "json_writer.h"
#include "telemetry_sampler.h"

#include <stdio.h>

#define CB_TELEMETRY_DEFAULT_PERIOD_S 0.010

typedef struct cb_telemetry_options {
    bool off;            /* --no-telemetry                                    */
    double period_s;     /* --telemetry-period (default 10 ms)                */
    const char *library; /* NULL: $CUBENCH_NVML_LIBRARY, else libnvidia-ml.so.1 */
} cb_telemetry_options;

void cb_telemetry_options_defaults(cb_telemetry_options *o);

typedef struct cb_telemetry cb_telemetry;

/* Open NVML and, when `cuda_uuid` names a device, start the sampler for
 * it. Never fails: returns NULL only when out of host memory, and every
 * function below takes NULL as "telemetry unavailable". */
cb_telemetry *cb_telemetry_open(const cb_telemetry_options *o, const char *cuda_uuid);

/* True when points on the run's device are sampled. */
bool cb_telemetry_sampling(const cb_telemetry *t);

/* Why nothing is sampled ("off (--no-telemetry)", "cannot load NVML ...",
 * ...); NULL while sampling. */
const char *cb_telemetry_unavailable_reason(const cb_telemetry *t);

/* Around one point's sampling: begin starts the readings, end appends them
 * to *out (CB_FAIL only when *out cannot grow). No-ops when not sampling. */
void cb_telemetry_point_begin(cb_telemetry *t);
cb_status cb_telemetry_point_end(cb_telemetry *t, cb_telemetry_readings *out, cb_msg *why);

/* meta.json's "telemetry" member (key and object). */
void cb_telemetry_write_json(cb_json *j, const cb_telemetry *t);

/* `cubench env`'s telemetry lines. */
void cb_telemetry_print(FILE *f, const cb_telemetry *t);

/* Stop the sampler, shut NVML down, free; NULL is fine. */
void cb_telemetry_close(cb_telemetry *t);

#endif
