/* signals.c - Ctrl-C and kill stop a run cleanly between samples.
 * The first signal only sets a flag: the runner abandons the point in flight
 * and the CLI finalises meta.json, so every finished row stays valid. A second
 * signal ends the process at once (the rows are already on disk).
 *
 * A handler that was in place before (a host process's own, such as the
 * Python interpreter's, when the runner is called through libcubench.so) is
 * called too on the first signal, so the host also learns of the interrupt:
 * Python then raises KeyboardInterrupt inside a benchmark's code that blocks,
 * which would otherwise never return to a point where the flag is read. */
#include "signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t cb_stop_requested = 0;
static struct sigaction cb_previous[2]; /* SIGINT, SIGTERM before the install */

static void chain(int sig)
{
    const struct sigaction *old = &cb_previous[sig == SIGINT ? 0 : 1];
    if (old->sa_flags & SA_SIGINFO) return; /* a three-argument handler: not ours to call */
    if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) return;
    old->sa_handler(sig);
}

static void on_signal(int sig)
{
    if (cb_stop_requested) {
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    cb_stop_requested = 1;
    chain(sig);
}

void cb_install_signal_handlers(void)
{
    cb_stop_requested = 0; /* a new run in a process whose last one was interrupted */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &cb_previous[0]);
    sigaction(SIGTERM, &sa, &cb_previous[1]);
    /* Installed twice in one process (a second run through the library):
     * the handler to chain to is the host's, never this one. */
    for (int i = 0; i < 2; i++)
        if (!(cb_previous[i].sa_flags & SA_SIGINFO) && cb_previous[i].sa_handler == on_signal)
            cb_previous[i].sa_handler = SIG_DFL;
}

bool cb_interrupted(void)
{
    return cb_stop_requested != 0;
}
