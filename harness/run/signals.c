/* signals.c - Ctrl-C and kill stop a run cleanly between samples.
 * The first signal only sets a flag: the runner abandons the point in flight
 * and the session finalises meta.json, so every finished row stays valid. A
 * second signal ends the process at once (the rows are already on disk),
 * but only one that comes two seconds or more after the first: `timeout` and
 * job schedulers signal the process and then its whole process group, so
 * one request often arrives twice within microseconds. */
#include "signals.h"

#include <signal.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t cb_stop_requested = 0;
static volatile sig_atomic_t cb_first_signal_s; /* CLOCK_MONOTONIC seconds of the first */
static struct sigaction cb_previous[2];         /* SIGINT, SIGTERM as found */
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

/* Whole seconds of CLOCK_MONOTONIC (async-signal-safe). */
static long monotonic_s(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_MONOTONIC, &ts) == 0 ? (long)ts.tv_sec : 0;
}

static void on_signal(int sig)
{
    if (cb_stop_requested && monotonic_s() - cb_first_signal_s < 2)
        return; /* the same request again (process, then process group) */
    if (cb_stop_requested) {
        if (cb_fatal_cleanup) cb_fatal_cleanup();
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    cb_first_signal_s = (sig_atomic_t)monotonic_s();
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
