/* compare_kind.h - the kind of measurement a point is: what sets how much a
 * second process may differ from the first (docs/compare.md).
 *
 * Schema 3 runs write the kind each benchmark declares (results.csv `kind`).
 * Older runs are read by rules that name no benchmark, the same rules the
 * engine applies to a descriptor that leaves its kind to them:
 *   python     the row's family is one of the frameworks of the run's
 *              python.json (a Python framework's call);
 *   multi_gpu  the point has a `ranks` or `peer` axis (collectives, peer
 *              copies: several GPUs in one point);
 *   host       a CPU point: no `device` in a run that records devices, or,
 *              in a run without a `device` column (schema 1), a point timed
 *              by the host clock that is no copy (next rule);
 *   staged_copy  a copy through pageable host memory: the axis
 *              memory=pageable (the driver stages it with the CPU);
 *   host_copy  a copy through other host memory: a `memory` axis (pinned,
 *              ...) or an axis whose value is h2d or d2h; or GPU work the
 *              host clock times (a `device` and timer `host`);
 *   device     everything else: GPU work timed on the device. */
#ifndef CB_COMPARE_KIND_H
#define CB_COMPARE_KIND_H

#include "cb_common.h"

typedef enum cb_cmp_kind {
    CB_CMP_KIND_DEVICE,
    CB_CMP_KIND_HOST_COPY,
    CB_CMP_KIND_STAGED_COPY,
    CB_CMP_KIND_HOST,
    CB_CMP_KIND_PYTHON,
    CB_CMP_KIND_MULTI_GPU,
    CB_CMP_KINDS
} cb_cmp_kind;

/* "device", "host_copy", "staged_copy", "host", "python", "multi_gpu"
 * (results.csv). */
const char *cb_cmp_kind_name(cb_cmp_kind k);

/* The names above, for messages: "device, host_copy, ... or multi_gpu". */
extern const char cb_cmp_kind_list[];

/* The kind named `name`; false when it is none of the above. */
bool cb_cmp_kind_parse(const char *name, cb_cmp_kind *out);

/* What the rules above read of a row of an older run. */
typedef struct cb_cmp_kind_facts {
    const char *family;  /* results.csv `family`, or the benchmark before '/' */
    const char *axes;    /* name=value;...                                    */
    const char *timer;   /* event, host, cupti or ""                          */
    bool has_device_col; /* results.csv has a `device` column                 */
    const char *device;  /* the row's device, "" for none                     */
    bool python_family;  /* the family is a framework of python.json          */
} cb_cmp_kind_facts;

cb_cmp_kind cb_cmp_kind_infer(const cb_cmp_kind_facts *f);

/* A declared kind as this cubench reads it: runs written before
 * `staged_copy` existed declared their pageable copies `host_copy`; such a
 * row (memory=pageable in `axes`) is read as staged_copy, so that a BASE
 * from an older build and a NEW from this one agree on the point's kind.
 * `axes` may also be a calibration path (benchmark;name=value;...). */
cb_cmp_kind cb_cmp_kind_read_declared(cb_cmp_kind declared, const char *axes);

#endif
