/* l2_flush.h - the launchers of what opens a cold sample: the L2 flush and
 * the hold that lengthens the host's head start. */
#ifndef CB_L2_FLUSH_H
#define CB_L2_FLUSH_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Read `bytes` of `buf` (a multiple of 16) so L2 ends up holding clean lines
 * of it: reading rather than writing leaves no dirty lines whose write-back
 * would be charged to the next timed kernel. `sink` receives a value only
 * in a case that never happens, which keeps the reads alive. */
cudaError_t cb_launch_l2_flush(const void *buf, size_t bytes, float *sink, cudaStream_t s);

/* The flush, then a hold of `ns` nanoseconds, in one launch (the head
 * start of a cold sample, runner_timing.c says why one). `done` is one
 * device unsigned, 0 before the first launch; the kernel leaves it 0. */
cudaError_t cb_launch_l2_flush_hold(const void *buf, size_t bytes, float *sink, unsigned *done,
                                    unsigned ns, cudaStream_t s);

/* Keep stream `s` busy for at least `ns` nanoseconds of GPU time (one
 * thread polling the global timer; sm_70 and later). The runner no longer
 * holds with a kernel of its own (cb_launch_l2_flush_hold); its GPU test
 * uses this one as the control. */
cudaError_t cb_launch_hold(unsigned ns, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
