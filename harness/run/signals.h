/* signals.h - Ctrl-C and kill stop a run cleanly between samples. */
#ifndef CB_SIGNALS_H
#define CB_SIGNALS_H

#include <stdbool.h>

/* Set by SIGINT/SIGTERM; the runner stops between samples. Installing
 * clears it and keeps the handlers in place before, which the first signal
 * also calls (signals.c says why). */
bool cb_interrupted(void);
void cb_install_signal_handlers(void);

#endif
