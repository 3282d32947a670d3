/* buffer_pool.h - large buffers a family keeps across the points of a run.
 *
 * Page-locking a GiB of host memory costs ~0.5 s, freeing it ~0.2 s, and a
 * host whose memory has been locked and unlocked many times hands out more
 * scattered pages each time; the transfers family sweeps the same sizes
 * and kinds over and over (sync, async, both directions, bidirectional).
 * So a family gives its large buffers back here at teardown instead of
 * freeing them, and takes an idle one of the same class and size at the
 * next setup. Setup still writes every buffer it takes (patterns, poison):
 * nothing a point measures or checks depends on an earlier point's data,
 * unless the family keys the buffer by what it holds (see the key below).
 *
 * The pool does not know what a buffer is: the family describes each kind
 * of buffer it pools with a static cb_pool_class (a name, and the function
 * that frees one), and tells the device a buffer belongs to (page-locked
 * host memory is registered with the device current when it was made).
 * Idle buffers are capped in number and bytes; the least recently given
 * back goes first. The session drains the pool at the end of a run
 * (cb_buffer_pool_drain), and a family drains it itself when a point does
 * not fit beside the idle buffers. Thread-safe. */
#ifndef CB_BUFFER_POOL_H
#define CB_BUFFER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A kind of pooled buffer: static, one per kind; its address tells kinds
 * apart. `release` frees one buffer and may not report errors, so a failure
 * to free must be harmless to the run. */
typedef struct cb_pool_class {
    const char *name; /* "pinned host memory", for messages and tests */
    void (*release)(void *ptr);
} cb_pool_class;

/* An idle buffer of `cls`, of `device`, of exactly `bytes` and given back
 * with `key`, now the caller's, or NULL when there is none. The key is the
 * family's: 0 for a buffer whose content does not matter, or a digest of
 * what a buffer holds when the family keeps a result it can reuse (the
 * matmul family's FP64 references, by shape and seeds). */
void *cb_buffer_pool_take(const cb_pool_class *cls, int device, size_t bytes, uint64_t key);

/* Keep `ptr` for a later take. When it cannot be kept (larger than the
 * byte cap) it is released now; older idle buffers are released to stay
 * within the caps. */
void cb_buffer_pool_give(const cb_pool_class *cls, int device, size_t bytes, uint64_t key,
                         void *ptr);

/* Release every idle buffer. */
void cb_buffer_pool_drain(void);

/* Idle buffers and their bytes (tests, and the end-of-run figures). */
void cb_buffer_pool_idle(int *buffers, uint64_t *bytes);

/* The caps: at most `max_buffers` idle buffers of at most `max_bytes` in
 * all (defaults 16 and 8 GiB); lowering them releases what is over. */
void cb_buffer_pool_set_caps(int max_buffers, uint64_t max_bytes);

#endif
