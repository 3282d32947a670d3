/* noisy_account.h - why a run's noisy rows are noisy, by the kind of
 * point: the line the end of a run prints under where the time went, so a
 * reader sees at once which rows missed their target for a known reason
 * (a GPU at its power cap, a copy through host memory, a point of a few
 * microseconds) and which are left to look at (docs/methodology.md). */
#ifndef CB_NOISY_ACCOUNT_H
#define CB_NOISY_ACCOUNT_H

#include "results.h"

#include <stddef.h>

/* The classes, in the order a row is tested against them. */
typedef enum cb_noisy_class {
    CB_NOISY_THROTTLED, /* the GPU reported a power, thermal or hardware slowdown */
    CB_NOISY_HOST_COPY, /* a copy through host memory, or host-timed GPU work     */
    CB_NOISY_HOST,      /* CPU code                                               */
    CB_NOISY_PYTHON,    /* a Python framework's call                              */
    CB_NOISY_MULTI_GPU, /* several GPUs                                           */
    CB_NOISY_SHORT,     /* device work under CB_NOISY_SHORT_S per run             */
    CB_NOISY_OTHER,     /* the rest: device points to look at                     */
    CB_NOISY_CLASSES
} cb_noisy_class;

/* Device points shorter than this sit within a few timer ticks (32 ns on
 * the H200) and launch overheads of their spread. */
#define CB_NOISY_SHORT_S 20e-6

cb_noisy_class cb_noisy_class_of(const cb_result *r);

/* "noisy rows by kind: 5 throttled, 7 host copies, ..." for the noisy rows
 * among rows[0..n), classes with none left out; "" when none is noisy. */
void cb_noisy_account(const cb_result *rows, int n, char *out, size_t size);

#endif
