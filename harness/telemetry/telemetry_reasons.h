/* telemetry_reasons.h - clock-event (throttle) reasons as words, and the
 * flag a point gets when its GPU was throttled or its SM clock moved.
 *
 * Which reasons count as throttling (docs/telemetry.md): sw_power_cap,
 * hw_slowdown, sync_boost, sw_thermal_slowdown, hw_thermal_slowdown and
 * hw_power_brake_slowdown lower the clock below what the settings allow.
 * gpu_idle (no work: between samples), applications_clocks_setting and
 * display_clock_setting (the clocks sit where a setting puts them) do not
 * count; they are recorded all the same. */
#ifndef CB_TELEMETRY_REASONS_H
#define CB_TELEMETRY_REASONS_H

#include "results.h"
#include "telemetry_readings.h"

#include <stddef.h>
#include <stdint.h>

/* Reasons that count as throttling (a mask of CB_NVML_REASON_* bits). */
uint64_t cb_reasons_throttling_mask(void);

/* A point's SM clock "moved" when (max - min) / max exceeds this (2%):
 * boost steps on an H100/H200 are 15 MHz, under 1% of 1980 MHz, so a
 * change of more than 2% is the clock leaving its boost plateau. */
#define CB_TELEMETRY_CLOCK_SPREAD 0.02

/* Words of the reason bits joined by '+' in bit order, "none" for 0; bits
 * NVML may add later are shown once as "other". Words that would not fit
 * in `len` are left out (never cut in the middle). */
void cb_reasons_format(uint64_t mask, char *buf, size_t len);

/* The same text from a table made once: the pointer stays valid for the
 * process's life (samples.csv points at it for every sample). */
const char *cb_reasons_text(uint64_t mask);

/* Parse words written by cb_reasons_format back into a mask ("" -> 0,
 * "none" -> 0); unknown words set no bit. */
uint64_t cb_reasons_parse(const char *words);

/* The word of one bit, or NULL for a bit NVML did not name. */
const char *cb_reason_word(uint64_t bit);

/* The flag of a point: "throttled: sw_power_cap" when a counted reason was
 * seen, "SM clock 1755-1980 MHz" when the clock moved by more than
 * CB_TELEMETRY_CLOCK_SPREAD, both joined by "; ", or "" when neither (or
 * without telemetry). Returns true when there is a flag. */
bool cb_telemetry_flag(const cb_point_telemetry *t, char *buf, size_t len);

/* Is one reading throttled: a counted reason active, or the SM clock below
 * `share` of `reference_mhz` (skipped when the reference is unknown, 0, and
 * when the GPU reports itself idle, which parks the clock)?
 * `why` (may be NULL) gets the words or the clock comparison. */
bool cb_reading_throttled(const cb_telemetry_reading *r, double reference_mhz, double share,
                          char *why, size_t len);

#endif
