/* cupti_point.h - what CUPTI saw for one point: the per-sample GPU times,
 * kernel names and copy kinds that cb_cupti_collect (cupti_timer.h) hands
 * the runner after a point, built by the record join (cupti_records.h). */
#ifndef CB_CUPTI_POINT_H
#define CB_CUPTI_POINT_H

#include "cb_common.h"

/* What CUPTI saw for one point, joined by sample. */
typedef struct cb_cupti_point {
    int n_samples;
    double *gpu_s;       /* [n_samples]: sum of the kernel, memcpy and memset durations
                          * attributed to the sample, seconds (whole sample, not per
                          * run); NAN when no record was attributed to the sample */
    int *records;        /* [n_samples]: how many GPU records were attributed      */
    long dropped;        /* records CUPTI dropped or cubench could not store       */
    char kernels[256];   /* distinct kernel names, '|'-separated, demangled, in
                          * order of first execution; ends "|..." when cut     */
    int kernel_count;    /* kernel records attributed to the point's samples  */
    int memcpy_count;    /* memcpy records likewise                            */
    int memset_count;    /* memset records likewise                            */
    int memcpy_src_kind; /* CUpti_ActivityMemoryKind all memcpys shared (1 pageable,
                          * 2 pinned, 3 device), -1 when they differ, 0 none */
    int memcpy_dst_kind; /* likewise for the destination                       */
    int nvtx_ranges;     /* NVTX ranges (start markers) CUPTI saw since the
                          * previous collect, any sample or none              */
} cb_cupti_point;

/* Free what a collect or join allocated; the struct may be reused. */
void cb_cupti_point_free(cb_cupti_point *p);

#endif
