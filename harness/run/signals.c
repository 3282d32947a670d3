/* signals.c - Ctrl-C and kill stop a run cleanly between samples.
 * The first signal only sets a flag: the runner abandons the point in flight
 * and the CLI finalises meta.json, so every finished row stays valid. A second
 * signal ends the process at once (the rows are already on disk). */
#include "signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t cb_stop_requested = 0;

static void on_signal(int sig)
{
    if (cb_stop_requested) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    cb_stop_requested = 1;
}

void cb_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

bool cb_interrupted(void)
{
    return cb_stop_requested != 0;
}
