/* host_slices.h - one loop over [0, count) spread over CPU threads: what
 * the host-side fills, checks and references of the families share. */
#ifndef CB_HOST_SLICES_H
#define CB_HOST_SLICES_H

#include <stdbool.h>
#include <stddef.h>

/* The most slices (threads) one call runs. */
#define CB_SLICES_MAX 256

/* Do indices [from, to) of the loop; `slice` (0 .. threads - 1) tells the
 * slices apart, e.g. to keep a partial sum each. */
typedef void (*cb_slice_fn)(void *ctx, int slice, size_t from, size_t to);

/* Run fn over [0, count) cut into `threads` even slices (clamped to
 * 1 .. CB_SLICES_MAX and to count). Slice 0 runs on the caller, the others
 * on threads of their own, and the caller also runs every slice whose
 * thread could not start: the whole range is done whatever happens. False
 * when some thread could not start. */
bool cb_run_slices(size_t count, int threads, cb_slice_fn fn, void *ctx);

#endif
