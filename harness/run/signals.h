/* signals.h - Ctrl-C and kill stop a run cleanly between samples. */
#ifndef CB_SIGNALS_H
#define CB_SIGNALS_H

#include <stdbool.h>

/* Set by SIGINT/SIGTERM while the handlers are installed; the runner stops
 * between samples. */
bool cb_interrupted(void);

/* Install the run's handlers (and clear an earlier run's request to stop).
 * The first signal sets the flag; with `chain`, it also reaches the handler
 * installed before (a Python interpreter's, so Python code blocked in a
 * benchmark hook sees KeyboardInterrupt too). A second signal ends the
 * process at once: every finished row is already on disk. */
void cb_install_signal_handlers(bool chain);

/* Ask the run to stop as if Ctrl-C had been pressed (a front end whose
 * code saw the interrupt first). */
void cb_request_stop(void);

/* A cleanup the second signal runs before the process ends (the clock
 * lock's reset); NULL for none. Keep it short: it runs in the handler. */
void cb_signals_on_fatal(void (*cleanup)(void));

/* Put back the handlers found by cb_install_signal_handlers. */
void cb_restore_signal_handlers(void);

#endif
