"""Ctrl-C during a run that calls Python code.

The C runner stops between samples when SIGINT arrives, and its handler
also calls the interpreter's (harness/run/signals.c), so Python learns of
the signal too. What Python does with it is decided here, for the length
of one run:

- inside a benchmark's own code (setup, run, verify, teardown, a work
  model) it raises KeyboardInterrupt, so code that blocks or loops in
  Python stops at once; the hook then answers CB_API_INTERRUPTED and the
  runner ends the run as interrupted (exit 130);
- anywhere else (between hooks, in the engine's own bookkeeping) it only
  notes the interrupt, and the next hook answers CB_API_INTERRUPTED before
  calling user code: no KeyboardInterrupt can escape a ctypes callback;
- code that blocks in C (a framework call that hangs) cannot be
  interrupted by Python: a watcher thread, woken by the interpreter's
  wakeup fd, ends the process with exit 130 and one line when the run has
  not stopped GRACE_S seconds after the first Ctrl-C. Every finished point
  is on disk by then (rows are flushed point by point).

Only the main thread can own signal handlers: a run started from another
thread leaves them alone (the C runner's handler still stops it between
samples).
"""

from __future__ import annotations

import os
import signal
import socket
import threading

GRACE_S = 5.0  # how long a run may take to stop after the first Ctrl-C
# Where the watcher's line goes: stderr, or what it was while stderr is
# captured (cubench.measure replays the engine's output afterwards).
message_fd = 2


def caused_by_interrupt(exc: BaseException) -> bool:
    """Is exc a KeyboardInterrupt, or raised because of one? A Ctrl-C that
    lands while an extension module initialises (`import torch` takes
    seconds) surfaces as ImportError("initialization failed") raised from
    the KeyboardInterrupt; that is an interrupt, not a broken module."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


class Guard:
    """`with Guard(describe) as g:` around one run; `g.user()` around user
    code. `describe()` names what is running, for the watcher's line."""

    def __init__(self, describe=lambda: "the run"):
        self.describe = describe
        self.pending = False
        self.in_user = False
        self._active = False
        self._done = threading.Event()

    # ---- the run ----

    def __enter__(self):
        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        if previous in (signal.SIG_IGN, None):
            return self  # Ctrl-C is ignored, or owned by code outside Python
        self._previous = previous
        self._reader, self._writer = socket.socketpair()
        self._writer.setblocking(False)
        try:
            self._previous_fd = signal.set_wakeup_fd(self._writer.fileno(),
                                                     warn_on_full_buffer=False)
        except ValueError:
            self._close_sockets()
            return self
        signal.signal(signal.SIGINT, self._on_sigint)
        self._active = True
        threading.Thread(target=self._watch, name="cubench-interrupt", daemon=True).start()
        return self

    def __exit__(self, *exc):
        if not self._active:
            return False
        self._done.set()
        signal.signal(signal.SIGINT, self._previous)
        signal.set_wakeup_fd(self._previous_fd)
        try:
            self._writer.send(b"\0")  # wakes the watcher, which then ends
        except OSError:
            pass
        self._active = False
        return False

    def _close_sockets(self):
        for s in (self._reader, self._writer):
            s.close()

    # ---- the handler (main thread, between bytecodes) ----

    def _on_sigint(self, signum, frame):
        self.pending = True
        if self.in_user:
            raise KeyboardInterrupt

    def user(self):
        """Context for user code: KeyboardInterrupt may be raised inside."""
        return _UserCode(self)

    # ---- the watcher thread ----

    def _watch(self):
        try:
            while not self._done.is_set():
                data = self._reader.recv(64)
                if not data or self._done.is_set():
                    return
                if signal.SIGINT in data:
                    break
            if self._done.wait(GRACE_S):
                return
            line = (f"\ncubench: interrupted, and {self.describe()} has not returned "
                    f"{GRACE_S:g} s later (blocked outside Python); stopping now: every "
                    "finished point is on disk\n")
            try:
                os.write(message_fd, line.encode())
            except OSError:
                pass
            os._exit(130)
        finally:
            self._close_sockets()


class _UserCode:
    __slots__ = ("guard",)

    def __init__(self, guard: Guard):
        self.guard = guard

    def __enter__(self):
        if self.guard.pending:
            raise KeyboardInterrupt
        self.guard.in_user = True

    def __exit__(self, *exc):
        self.guard.in_user = False
        return False
