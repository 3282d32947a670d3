/* capability.h - can this GPU run this benchmark, and does this build carry
 * code that runs on it?
 *
 * Two questions, asked by the runner before a CUDA point's setup and by
 * `cubench env` for every device:
 *   1. the benchmark's needs (bench.h cb_bench_needs: compute capability
 *      range and feature) against the device: pure, no CUDA call, so CPU
 *      tests hand it fake devices;
 *   2. whether the running binary holds SASS for the device or PTX the
 *      driver can JIT: asked of the driver (cudaFuncGetAttributes on a
 *      kernel fails with cudaErrorNoKernelImageForDevice when not), and
 *      explained from the lists the build recorded (build_info.h).
 * Either one failing is a `skip` with the reason, never a failed point. */
#ifndef CB_CAPABILITY_H
#define CB_CAPABILITY_H

#include "bench.h"

/* Compute capability as one number: major * 10 + minor (9.0 -> 90). */
int cb_device_cc(const cb_device_info *d);

/* Does a device of compute capability `cc` meet b->needs? On false, `why`
 * holds the skip reason, e.g. "needs sm_80 (cp.async); this GPU is sm_75". */
bool cb_bench_needs_met(const cb_bench *b, int cc, cb_msg *why);

/* Is the build's code for a GPU of compute capability `cc` new enough for
 * b->needs (unless needs.library_code)? A build reaches the GPU through its
 * best SASS or PTX entry (cb_build_code_for); below needs.min_cc that code
 * holds the kernel's stub. On false, `why` says so: "the build's code for
 * sm_90 is compute_75 PTX, without cp.async (needs sm_80); rebuild with
 * -DCMAKE_CUDA_ARCHITECTURES=native". True when the build has no code for
 * the GPU at all: that is cb_build_runs_on's reason to give. */
bool cb_bench_build_has_feature(const cb_bench *b, int cc, const char *sass, const char *ptx,
                                cb_msg *why);

/* How a build whose SASS and PTX lists are `sass` and `ptx` (comma separated
 * architecture numbers, "75,80,90a") reaches a GPU of compute capability
 * `cc`: machine code for it, PTX the driver JIT-compiles, or nothing.
 * `arch` receives the entry used ("90", "80"), "" for none. SASS sm_XY runs
 * on X.Y up to X.9 (same major); an arch-specific sm_XYa on X.Y alone; PTX
 * compute_XY on every GPU from X.Y up. */
typedef enum cb_code_kind { CB_CODE_NONE, CB_CODE_SASS, CB_CODE_PTX } cb_code_kind;
cb_code_kind cb_build_code_for(int cc, const char *sass, const char *ptx, char *arch, size_t len);

/* The same for this build (build_info.h), as one line for `cubench env` and
 * meta.json: "sm_90 SASS", "compute_80 PTX, JIT-compiled by the driver",
 * "none: this build has no code for sm_75". */
cb_code_kind cb_build_code_describe(int cc, char *buf, size_t len);

/* Does the running binary hold code device `d` runs? Asks the driver on
 * one of the build's kernels. CB_OK; CB_SKIP with "this build has no code
 * for sm_75; rebuild with -DCMAKE_CUDA_ARCHITECTURES=native" (or why the
 * driver cannot JIT its PTX); CB_FAIL when the probe itself fails. Sets the
 * current device to d->ordinal. */
cb_status cb_build_runs_on(const cb_device_info *d, cb_msg *why);

/* 1 then 2, the build's code for the device against the needs
 * (cb_bench_build_has_feature with this build's lists), and the
 * benchmark's own probe (b->needs.probe) when it has one: what the runner
 * asks before setup. CB_OK, CB_SKIP or CB_FAIL. */
cb_status cb_bench_can_run(const cb_bench *b, const cb_device_info *d, cb_msg *why);

#endif
