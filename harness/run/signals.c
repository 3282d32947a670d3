/* signals.c - Ctrl-C and kill stop a run cleanly between samples.
 * The first signal only sets a flag: the runner abandons the point in flight
 * and the session finalises meta.json, so every finished row stays valid. A
 * second signal ends the process at once (the rows are already on disk). */
#include "signals.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t cb_stop_requested = 0;
static struct sigaction cb_previous[2]; /* SIGINT, SIGTERM as found */
static bool cb_installed, cb_chain;
static void (*volatile cb_fatal_cleanup)(void);

void cb_signals_on_fatal(void (*cleanup)(void))
{
    cb_fatal_cleanup = cleanup;
}

static int slot_of(int sig)
{
    return sig == SIGINT ? 0 : 1;
}

static void on_signal(int sig)
{
    if (cb_stop_requested) {
        if (cb_fatal_cleanup) cb_fatal_cleanup();
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    cb_stop_requested = 1;
    const struct sigaction *prev = &cb_previous[slot_of(sig)];
    if (cb_chain && !(prev->sa_flags & SA_SIGINFO) && prev->sa_handler != SIG_DFL &&
        prev->sa_handler != SIG_IGN && prev->sa_handler)
        prev->sa_handler(sig);
}

void cb_install_signal_handlers(bool chain)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    cb_stop_requested = 0;
    cb_chain = chain;
    sigaction(SIGINT, &sa, &cb_previous[0]);
    sigaction(SIGTERM, &sa, &cb_previous[1]);
    cb_installed = true;
}

void cb_restore_signal_handlers(void)
{
    if (!cb_installed) return;
    sigaction(SIGINT, &cb_previous[0], NULL);
    sigaction(SIGTERM, &cb_previous[1], NULL);
    cb_installed = false;
}

void cb_request_stop(void)
{
    cb_stop_requested = 1;
}

bool cb_interrupted(void)
{
    return cb_stop_requested != 0;
}
