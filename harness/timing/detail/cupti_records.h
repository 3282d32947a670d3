/* cupti_records.h - from CUPTI activity records to per-sample GPU times.
 *
 * Pure bookkeeping, no CUPTI calls, so it is tested on the CPU with synthetic
 * records. cupti_timer.c hands over every completed buffer; this module keeps
 * a compact copy of what matters - GPU activity (kernel, memcpy, memset), the
 * external-correlation map and a count of NVTX markers - and ignores the rest
 * (the many RUNTIME/DRIVER API records, which are enabled only because CUPTI
 * emits EXTERNAL_CORRELATION records for API calls and nothing else).
 *
 * The join happens after the forced flush that ends a point: an
 * EXTERNAL_CORRELATION record (kind CUSTOM0) maps the correlation id of an API
 * call to the sample id pushed around it, and a GPU record carries the
 * correlation id of the call that enqueued it. Records arrive out of order and
 * across buffers, so nothing is joined before every buffer is in.
 *
 * Not thread safe: the caller serialises access (cupti_timer.c holds a mutex,
 * because CUPTI may deliver buffers from its own thread).
 */
#ifndef CB_CUPTI_RECORDS_H
#define CB_CUPTI_RECORDS_H

#include "cupti_timer.h"

#include <cupti_activity.h>

typedef struct cb_cupti_records cb_cupti_records;

/* NULL when out of memory. */
cb_cupti_records *cb_cupti_records_new(void);
void cb_cupti_records_free(cb_cupti_records *r);

/* Forget every stored record (the next point starts empty). */
void cb_cupti_records_clear(cb_cupti_records *r);

/* Keep what one record says. Unknown kinds are ignored. A record that cannot
 * be stored (out of memory) is counted as lost, which fails the next join. */
void cb_cupti_records_add(cb_cupti_records *r, const CUpti_Activity *record);

/* The way to walk a buffer: cuptiActivityGetNextRecord in cubench, a stand-in
 * in tests. */
typedef CUptiResult(CUPTIAPI *cb_cupti_next_record_fn)(uint8_t *buffer, size_t valid_bytes,
                                                       CUpti_Activity **record);

/* Add every record of a completed buffer; returns how many were read. A
 * buffer that cannot be walked to its end (an incomplete or invalid record)
 * counts one lost record. */
int cb_cupti_records_add_buffer(cb_cupti_records *r, uint8_t *buffer, size_t valid_bytes,
                                cb_cupti_next_record_fn next);

/* Records that could not be stored or read since the last clear. */
long cb_cupti_records_lost(const cb_cupti_records *r);

/* Attribute the stored GPU records to samples first_id .. first_id +
 * n_samples - 1 and fill `out` (arrays allocated here; cb_cupti_point_free
 * frees them). `dropped` is what CUPTI reported dropped during the point; it
 * and lost records make the result CB_FAIL, as do attributed records without
 * timestamps. `out` is filled in every case. */
cb_status cb_cupti_records_join(const cb_cupti_records *r, uint64_t first_id, int n_samples,
                                long dropped, cb_cupti_point *out, cb_msg *why);

/* Best-effort Itanium demangling of a kernel name to its qualified function
 * name, without parameters or template arguments:
 *   _Z13vecadd_kernelPKfS0_Pfi         -> vecadd_kernel
 *   _ZN7cubench5sgemmILi32EEEvPKfS2_Pf -> cubench::sgemm
 * Names that are not mangled (extern "C") or that it cannot read are copied
 * unchanged. Always NUL-terminates `out` (len > 0); returns strlen(out). */
size_t cb_cupti_demangle(const char *name, char *out, size_t len);

#endif
