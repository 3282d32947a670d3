/* nvtx_ranges.h - NVTX ranges naming what cubench is doing.
 *
 * Everything goes into one NVTX domain, "cubench": one range per point,
 * named "<benchmark> <axes>" (e.g. "vecadd/grid_stride n=1024;block=256;
 * grid=auto"), coloured and categorised by family so a timeline in Nsight
 * Systems reads at a glance. Samples get no range of their own: with CUPTI
 * injected each would cost two MARKER records inside the timed loop. With
 * no tool attached an NVTX call costs a few nanoseconds (one indirect call).
 *
 * Ranges reach CUPTI (as MARKER records) only when NVTX_INJECTION64_PATH
 * names libcupti before the first NVTX call of the process: cb_nvtx_init
 * sets it when asked to and when no tool (nsys, ncu) has set it already.
 */
#ifndef CB_NVTX_RANGES_H
#define CB_NVTX_RANGES_H

#include "cb_common.h"

/* Call once, after the command line is parsed and before any NVTX or CUDA
 * call. `inject_cupti`: cubench's own CUPTI timer will run, so point
 * NVTX_INJECTION64_PATH at libcupti unless it is already set. Later calls
 * are no-ops. The ranges below call it with `false` if nobody did. */
void cb_nvtx_init(bool inject_cupti);

/* What NVTX_INJECTION64_PATH held after cb_nvtx_init ("" for none), and
 * whether cubench set it. */
const char *cb_nvtx_injection(bool *set_by_cubench);

/* The range of one point: push before setup, pop after teardown (so that
 * setup, verification, warm-up and samples all sit inside it). Not nestable:
 * a point range is pushed only when none is open. */
void cb_nvtx_point_push(const char *bench, const char *axes);
void cb_nvtx_point_pop(void);

/* The ARGB colour of a benchmark's family (the part of `bench` before '/'):
 * a fixed palette indexed by a hash of the family name, so a family has the
 * same colour in every run and on every machine. */
uint32_t cb_nvtx_family_color(const char *bench);

#endif
