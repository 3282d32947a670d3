"""The bridge to libcubench.so: five ctypes hooks shared by every Python
benchmark, registration of Python families into the C registry, the run
session (cb_api_run: the run directory and totals come back from the
engine) and every other command in-process (cb_api_main).

There is no Python runner: the C runner calls setup / run / verify /
teardown / work through the hooks below, with the benchmark's handle (its
index in `Engine.benches`) or the live point's handle (`Engine.states`).
Every hook catches everything it can raise and answers with a status and a
one-line reason (errors.classify), so a Python exception is a row, never a
crash; the full traceback of a failure goes to stderr. A Ctrl-C inside a
benchmark's code answers CB_API_INTERRUPTED (cubench.interrupt).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import math
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import _lib
from .declare import (KINDS, PEAKS, TARGETS, TIMERS, Benchmark, Context, Point, Registry, Setup,
                      _spec)
from .errors import FAIL, OK, VerifyError, classify
from .interrupt import Guard

WORD = -1  # CB_AXIS_WORD: an integer axis holding a word such as `auto`
INTERRUPTED = 4  # CB_API_INTERRUPTED: the run stops as if interrupted (exit 130)
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class RegistrationError(ValueError):
    """The C registry refused a family (a duplicate name, a bad axis)."""


@dataclass
class _Live:
    """A point between setup and teardown."""

    bench: Benchmark
    setup: Setup
    point: Point


@dataclass
class RunOutcome:
    """What one `run` gave: the exit code, the run directory the engine
    wrote (None when it wrote none: bad usage, --dry-run), the totals."""

    exit_code: int
    dir: Path | None
    ok: int = 0
    noisy: int = 0
    skip: int = 0
    fail: int = 0
    interrupted: bool = False


def _write(buf: int, size: int, text: str):
    """Copy `text` as one NUL-terminated line into the C buffer `buf`."""
    if not buf or size <= 0:
        return
    line = " ".join(text.split())
    data = line.encode("utf-8", "replace")[: size - 1].decode("utf-8", "ignore").encode()
    ctypes.memmove(buf, data + b"\0", len(data) + 1)


def _point(bench: Benchmark, p: _lib.ApiPoint) -> Point:
    values = {}
    for i in range(p.n_axes):
        name = p.names[i].decode()
        text = p.texts[i].decode()
        axis = bench.axes[i]
        if axis.kind == "enum" or (axis.kind == "int" and p.ints[i] == WORD):
            values[name] = text
        elif axis.kind == "float":
            values[name] = float(p.floats[i])
        else:
            values[name] = int(p.ints[i])
    return Point(values, (p.text or b"").decode())


def _argv(args: list[str]):
    return (ctypes.c_char_p * (len(args) + 1))(*[a.encode() for a in args], None)


class Engine:
    """The loaded library with the hooks installed. One per process
    (`engine()`): the C registry is process-wide."""

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        self.benches: list[Benchmark] = []
        self.states: dict[int, _Live] = {}
        self._next_state = 1
        self._families: set[str] = set()
        self._work_warned: set[tuple[str, str]] = set()
        self._guard = Guard()
        self._running = False
        self._meta_writer: Callable[[Path, bool], None] | None = None
        # Kept alive for as long as the library may call them.
        self._hooks = _lib.ApiHooks(_lib.SetupHook(self._setup), _lib.RunHook(self._run),
                                    _lib.VerifyHook(self._verify),
                                    _lib.TeardownHook(self._teardown), _lib.WorkHook(self._work))
        self._meta_hook = _lib.MetaHook(self._meta)
        self._init()

    def _init(self):
        err = ctypes.create_string_buffer(512)
        if self.lib.cb_api_init(ctypes.byref(self._hooks), err, len(err)) != 0:
            raise _lib.LibraryError(err.value.decode())
        self.lib.cb_api_set_meta_hook(self._meta_hook)

    @property
    def version(self) -> str:
        return self.lib.cb_api_version().decode()

    def devices(self) -> tuple[list[str], str]:
        """cubench's view of the CUDA devices: one description each, and
        the reason when there are none."""
        why = ctypes.create_string_buffer(256)
        n = self.lib.cb_api_device_count(why, len(why))
        out = []
        for i in range(n):
            buf = ctypes.create_string_buffer(512)
            self.lib.cb_api_device_describe(i, buf, len(buf))
            out.append(buf.value.decode(errors="replace"))
        return out, why.value.decode(errors="replace")

    # ---- registration ----

    def register(self, registry: Registry):
        """Add every family of `registry` not registered yet."""
        for family, benches in registry.families().items():
            if family in self._families:
                known = {b.name for b in self.benches}
                late = [b.name for b in benches if b.name not in known]
                if late:
                    raise RegistrationError(f"family '{family}' is registered already; "
                                            f"{', '.join(late)} came too late")
                continue
            self._add_family(family, benches)

    def _add_family(self, family: str, benches: list[Benchmark]):
        keep = []  # the bytes the descriptors point at, alive until the C copy

        def c(text):
            if text is None:
                return None
            b = str(text).encode()
            keep.append(b)
            return b

        descs = (_lib.ApiBench * len(benches))()
        first = len(self.benches)
        for i, b in enumerate(benches):
            axes = (_lib.ApiAxis * max(1, len(b.axes)))()
            keep.append(axes)
            for j, a in enumerate(b.axes):
                axes[j] = _lib.ApiAxis(c(a.name), KINDS[a.kind], c(_spec(a.defaults)),
                                       c(a.choices_text or None), int(a.min), c(a.help))
            descs[i] = _lib.ApiBench(c(b.name), c(b.summary), TARGETS[b.target], TIMERS[b.timer],
                                     PEAKS[b.peak], len(b.axes), axes if b.axes else None,
                                     c(b.ref), int(b.bytes is not None),
                                     int(b.flops is not None), first + i)
        err = ctypes.create_string_buffer(512)
        if self.lib.cb_api_add_family(c(family), descs, len(benches), err, len(err)) != 0:
            raise RegistrationError(err.value.decode())
        self.benches.extend(benches)
        self._families.add(family)

    def reset(self):
        """Forget every family, C and Python (tests); C families come back."""
        if self._running:
            raise RuntimeError("cubench: the registry cannot change during a run")
        self.lib.cb_api_reset()
        self.benches.clear()
        self.states.clear()
        self._families.clear()
        self._init()

    @contextlib.contextmanager
    def only(self, family: str, benches: list[Benchmark]):
        """The registry holding the C families and `benches` alone, for one
        run (cubench.measure); every Python family registered before is
        registered again by the next `register`."""
        if self._running:
            raise RuntimeError("cubench.measure cannot run inside a benchmark that is running")
        self.reset()
        try:
            self._add_family(family, benches)
            yield
        finally:
            self.reset()

    # ---- commands ----

    def main(self, argv: list[str]) -> int:
        """`cubench ARGV[1:]` in this process; argv[0] is recorded as the
        program. Returns the CLI's exit code."""
        sys.stdout.flush()
        sys.stderr.flush()
        with self._session(f"`{argv[1]}`" if len(argv) > 1 else "cubench"):
            rc = int(self.lib.cb_api_main(len(argv), _argv(argv)))
        if self._guard.pending:  # Ctrl-C while the command ran in C
            raise KeyboardInterrupt
        return rc

    def run(self, args: list[str], *,
            meta: Callable[[Path, bool], None] | None = None) -> RunOutcome:
        """`cubench run ARGS...` in this process (cb_api_run: the engine
        says which directory it wrote). `meta(dir, final)` writes the front
        end's own file into the run directory when the engine has written
        meta.json (final False) and at the end (final True); raising
        OSError there is a write failure of the run (exit 1)."""
        sys.stdout.flush()
        sys.stderr.flush()
        self._meta_writer = meta
        try:
            result = _lib.ApiRunResult()
            argv = ["run", *args]
            with self._session("the benchmark in flight"):
                rc = int(self.lib.cb_api_run(len(argv), _argv(argv), ctypes.byref(result)))
            text = result.dir.decode("utf-8", "surrogateescape")
            return RunOutcome(rc, Path(text) if text else None, result.ok, result.noisy,
                              result.skip, result.fail, bool(result.interrupted))
        finally:
            self._meta_writer = None

    @contextlib.contextmanager
    def _session(self, what: str):
        if self._running:
            raise RuntimeError("cubench: a run is already in progress in this process")
        self._running = True
        self._guard = Guard(lambda: what)
        try:
            with self._guard:
                yield
        finally:
            self._running = False

    # ---- the hooks (called by the C runner, with the GIL) ----

    def _interrupted(self, why: int, why_len: int) -> int:
        _write(why, why_len, "interrupted")
        return INTERRUPTED

    def _failed(self, where: str, bench: Benchmark | None, point: Point | None,
                exc: BaseException, why: int, why_len: int) -> int:
        if isinstance(exc, KeyboardInterrupt):
            return self._interrupted(why, why_len)
        status, reason = classify(exc, bench.source if bench else None)
        if isinstance(exc, VerifyError):
            reason = str(exc) or "verify failed"
        elif status == FAIL:
            name = bench.name if bench else "?"
            sys.stderr.write(f"\ncubench: {name} {point.text if point else ''}: {where} raised\n")
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
            sys.stderr.flush()
        _write(why, why_len, reason)
        return status

    def _release(self, bench: Benchmark | None):
        gc.collect()  # framework arrays held by reference cycles of the point
        if bench and bench.release:
            try:
                bench.release()
            except BaseException as e:  # noqa: BLE001 - reported, the run goes on
                sys.stderr.write(f"cubench: {bench.name}: release raised {e!r}\n")

    def _setup(self, handle, point_p, ctx_p, state_p, info_p, why, why_len):
        bench = point = None
        status = FAIL
        guard = self._guard
        try:
            if guard.pending:
                return self._interrupted(why, why_len)
            bench = self.benches[handle]
            point = _point(bench, point_p.contents)
            c = ctx_p.contents
            ctx = Context(stream=int(c.stream), device=c.device if c.device >= 0 else None,
                          sm_count=int(c.sm_count), l2_bytes=int(c.l2_bytes), seed=int(c.seed),
                          host_threads=int(c.host_threads))
            with guard.user():
                setup = bench.prepare(point, ctx)
            info = info_p.contents
            info.occupancy = -1.0 if setup.occupancy is None else float(setup.occupancy)
            info.memcpy_src_kind, info.memcpy_dst_kind = (int(k) for k in setup.memcpy_kinds)
            note = setup.note if setup.verify else "; ".join(
                n for n in (setup.note, "not verified: setup gave no verify") if n)
            info.note = note.encode("utf-8", "replace")[:159].decode("utf-8", "ignore").encode()
            sid = self._next_state
            self._next_state += 1
            self.states[sid] = _Live(bench, setup, point)
            state_p[0] = sid
            return OK
        except BaseException as e:  # noqa: BLE001 - every error is a row
            status = self._failed("setup", bench, point, e, why, why_len)
        self._release(bench)  # after the except block: the traceback's arrays are gone
        return status

    def _run(self, sid, stream, why, why_len):
        guard = self._guard
        live = self.states.get(sid)
        try:
            if guard.pending:
                return self._interrupted(why, why_len)
            guard.in_user = True
            try:
                live.setup.run()
            finally:
                guard.in_user = False
            return OK
        except BaseException as e:  # noqa: BLE001
            return self._failed("run", live and live.bench, live and live.point, e, why, why_len)

    def _verify(self, sid, error_p, why, why_len):
        live = self.states.get(sid)
        error_p[0] = math.nan
        try:
            if live.setup.verify is None:
                return OK
            with self._guard.user():
                got = live.setup.verify()
            if got is False:
                raise VerifyError("verify returned False")
            error_p[0] = 0.0 if got is None or got is True else float(got)
            return OK
        except VerifyError as e:
            error_p[0] = e.error
            return self._failed("verify", live.bench, live.point, e, why, why_len)
        except BaseException as e:  # noqa: BLE001
            return self._failed("verify", live and live.bench, live and live.point, e, why,
                                why_len)

    def _teardown(self, sid):
        live = self.states.pop(sid, None)
        if live is None:
            return
        bench = live.bench
        try:
            if live.setup.teardown:
                with self._guard.user():
                    live.setup.teardown()
        except KeyboardInterrupt:
            pass  # the runner stops after this point anyway
        except BaseException as e:  # noqa: BLE001 - the row is written already
            sys.stderr.write(f"cubench: {bench.name} {live.point.text}: teardown raised {e!r}\n")
        del live
        try:
            self._release(bench)
        except KeyboardInterrupt:
            pass

    def _work(self, handle, which, point_p):
        bench = None
        what = "bytes" if which == 0 else "flops"
        try:
            bench = self.benches[handle]
            with self._guard.user():
                value = bench.work(which, _point(bench, point_p.contents))
            if math.isnan(value) or (math.isfinite(value) and value >= 0):
                return value
            self._warn_work(bench.name, what, f"the {what} model gave {value!r}, which is not "
                                              "a finite number >= 0; left empty")
        except KeyboardInterrupt:
            pass
        except BaseException as e:  # noqa: BLE001
            name = bench.name if bench else str(handle)
            self._warn_work(name, what, f"the {what} model raised {e!r}; left empty")
        return math.nan

    def _warn_work(self, name: str, what: str, text: str):
        """One warning per benchmark and model (a sweep would repeat it)."""
        if (name, what) not in self._work_warned:
            self._work_warned.add((name, what))
            sys.stderr.write(f"cubench: warning: {name}: {text}\n")

    def _meta(self, dir_p, final, why, why_len):
        # Not user code: a Ctrl-C meanwhile is only noted (interrupt.py).
        try:
            if self._meta_writer is not None:
                self._meta_writer(Path(dir_p.decode("utf-8", "surrogateescape")), bool(final))
            return 0
        except BaseException as e:  # noqa: BLE001 - a write failure of the run
            _write(why, why_len, str(e) or type(e).__name__)
            return 1


_ENGINE: Engine | None = None


def engine() -> Engine:
    """The process' engine, loading the library on first use."""
    global _ENGINE
    if _ENGINE is None:
        _ENGINE = Engine(_lib.load())
    return _ENGINE
