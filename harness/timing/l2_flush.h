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

/* Keep stream `s` busy for at least `ns` nanoseconds of GPU time (one
 * thread polling the global timer; sm_70 and later). */
cudaError_t cb_launch_hold(unsigned ns, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
