/* cupti_timer.h - GPU-only durations from the CUPTI Activity API.
 *
 * The runner brackets every sample with an external correlation id
 * (cb_cupti_sample_begin/end); after a point it flushes CUPTI and asks for the
 * records joined per sample. Records arrive out of order and across buffers;
 * parsing and joining live in cupti_records.c so they can be tested on the
 * CPU with synthetic buffers, and only cupti_timer.c talks to CUPTI itself.
 * When CUPTI is missing or refused the runner falls back to events only.
 *
 * Order of calls (one thread, the one that enqueues the work):
 *   cb_nvtx_init(true)                     once, before any NVTX call
 *   cb_cupti_start(&why)                   once; false -> events only, say why
 *   for each point:
 *     setup, run, verify, warm-up          (not attributed: no sample id)
 *     for each sample s (ids unique over the whole run):
 *       [L2 flush]                         outside begin/end, or it is counted
 *       cb_cupti_sample_begin(id_s)        before the start event is recorded
 *       event start; run x batch; event stop
 *       cb_cupti_sample_end()              after the stop event is recorded
 *     stream synchronize
 *     cb_cupti_collect(first_id, n, &pt, &why)   once per point that sampled
 *     ... pt.gpu_s[s] / batch is the GPU-only time of one run ...
 *     cb_cupti_point_free(&pt)
 *   cb_cupti_stop()                        at exit
 */
#ifndef CB_CUPTI_TIMER_H
#define CB_CUPTI_TIMER_H

#include "cb_common.h"
#include "cupti_point.h"

/* Subscribe to CUPTI and enable CONCURRENT_KERNEL, MEMCPY, MEMSET, RUNTIME,
 * DRIVER, EXTERNAL_CORRELATION and MARKER. False with a reason when CUPTI is
 * missing or refused (another subscriber such as Nsight Systems/Compute,
 * insufficient privileges, no driver or device); nothing is left enabled and
 * the caller runs with events only. Never aborts. Calling it again after a
 * success is a no-op that returns true. Best before the first CUDA call, but
 * it also works afterwards. */
bool cb_cupti_start(cb_msg *why);
bool cb_cupti_active(void);

/* Attribute everything enqueued by this thread between begin and end to
 * `sample_id` (never 0; unique within the run). No-ops when CUPTI is not
 * active. Not nestable. */
void cb_cupti_sample_begin(uint64_t sample_id);
void cb_cupti_sample_end(void);

/* Synchronize the device, force-flush CUPTI and join the records of samples
 * first_id .. first_id + n_samples - 1 into `out` (arrays allocated here,
 * freed by cb_cupti_point_free, also on failure). Records of other ids and
 * records not made inside a sample are discarded, and the store is emptied,
 * so call it once per point (a point that stops before collecting leaves
 * records that the next collect discards: ids never repeat). CB_FAIL with
 * a reason when records were dropped, lost, or lack timestamps (the CUPTI
 * figures of the point are then not to be trusted; `out` is still filled as
 * far as possible). CB_SKIP when CUPTI is not active. */
cb_status cb_cupti_collect(uint64_t first_id, int n_samples, cb_cupti_point *out, cb_msg *why);

/* Flush, disable everything and unsubscribe. Safe to call when not active. */
void cb_cupti_stop(void);

/* Record that CUPTI is deliberately not used (`--no-cupti`, `--timer
 * event` under a profiler...) so that cb_cupti_state says so. */
void cb_cupti_set_off(const char *reason);

/* For meta.json. cb_cupti_api_version: cuptiGetVersion (e.g. 130001), 0 when
 * the library does not answer. cb_cupti_state: "active", "off: <reason>",
 * "unavailable: <reason>", "stopped" or "not started". cb_cupti_describe:
 * both in one line, "CUPTI API 130001, active". */
uint32_t cb_cupti_api_version(void);
const char *cb_cupti_state(void);
void cb_cupti_describe(char *buf, size_t len);

/* The file libcupti was loaded from (dladdr on a CUPTI symbol), or the
 * toolkit's copy when that fails; false when neither is known. Used to point
 * NVTX_INJECTION64_PATH at CUPTI so NVTX ranges become MARKER records. */
bool cb_cupti_library_path(char *buf, size_t len);

#endif
