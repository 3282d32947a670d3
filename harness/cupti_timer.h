/* cupti_timer.h - GPU-only durations from the CUPTI Activity API.
 *
 * The runner brackets every sample with an external correlation id
 * (cb_cupti_sample_begin/end); after a point it flushes CUPTI and asks for the
 * records joined per sample. Records arrive out of order and across buffers;
 * parsing and joining live in cupti_records.c so they can be tested on the
 * CPU with synthetic buffers, and only this module talks to CUPTI itself.
 * When CUPTI is missing or refused the runner falls back to events only.
 */
#ifndef CB_CUPTI_TIMER_H
#define CB_CUPTI_TIMER_H

#include "cb_common.h"

/* What CUPTI saw for one point, joined by sample. */
typedef struct cb_cupti_point {
    int n_samples;
    double *gpu_s;       /* [n_samples]: sum of kernel+memcpy+memset durations, seconds */
    int *records;        /* [n_samples]: how many records were attributed      */
    long dropped;        /* records CUPTI reported dropped during the point      */
    char kernels[256];   /* distinct kernel names, '|'-separated, demangled      */
    int memcpy_count;    /* memcpy records seen                                 */
    int memcpy_src_kind; /* the src kind all memcpys shared, -1 when they differ, 0 none */
    int memcpy_dst_kind; /* likewise for dst                                    */
} cb_cupti_point;

/* Subscribe and enable CONCURRENT_KERNEL, MEMCPY, MEMSET, RUNTIME and
 * EXTERNAL_CORRELATION (and MARKER for NVTX). False with a reason when CUPTI
 * is unavailable; the caller then runs with events only. */
bool cb_cupti_start(cb_msg *why);
bool cb_cupti_active(void);

/* Attribute everything enqueued between begin and end to `sample_id`. */
void cb_cupti_sample_begin(uint64_t sample_id);
void cb_cupti_sample_end(void);

/* Flush CUPTI (forced) and collect the records of samples
 * first_id .. first_id + n_samples - 1 into `out` (arrays allocated here,
 * freed by cb_cupti_point_free). Records of other ids are discarded. */
cb_status cb_cupti_collect(uint64_t first_id, int n_samples, cb_cupti_point *out, cb_msg *why);
void cb_cupti_point_free(cb_cupti_point *p);

/* Flush and unsubscribe. */
void cb_cupti_stop(void);

/* Version string for meta.json ("CUPTI API 130000"), or why it is absent. */
void cb_cupti_describe(char *buf, size_t len);

#endif
