/* telemetry_summary.h - a point's readings as its results.csv and
 * samples.csv fields.
 *
 * Per point: SM clock min/median/max and memory clock median over the
 * readings, mean power, highest temperature, and every reason seen. Per
 * sample: the SM clock of the reading nearest the sample's middle, and the
 * reasons of the readings taken during the sample (of the nearest reading
 * when none falls inside: at a 10 ms period most samples are shorter). */
#ifndef CB_TELEMETRY_SUMMARY_H
#define CB_TELEMETRY_SUMMARY_H

#include "results.h"
#include "telemetry_readings.h"

/* Fill *out from `n` readings (oldest first). No readings: out->valid false. */
void cb_telemetry_summarise(const cb_telemetry_reading *r, int n, cb_point_telemetry *out);

/* For each of `n_samples` samples starting at t0_s[i] (CLOCK_MONOTONIC) and
 * lasting time_s[i] * batch: sm_clock_mhz[i] (NAN without a reading) and
 * throttle[i] (reason words, static storage; NULL without a reading). */
void cb_telemetry_per_sample(const cb_telemetry_reading *r, int n, const double *t0_s,
                             const double *time_s, int batch, int n_samples, double *sm_clock_mhz,
                             const char **throttle);

#endif
