"""`cubench.measure(fn)`: one function measured in this process by the same
runner as `cubench run`, the result returned.

    import cubench
    r = cubench.measure(lambda: np.sort(x))          # host code: host clock
    r = cubench.measure(lambda: a @ b, flops=2 * n**3)  # CUDA tensors: events
    print(r)            # numpy: 1.234 ms median (95% CI 1.230-1.238 ms), 40 samples, ok
    r.median_s, r.ci_s, r.samples, r.status, r.conditions

The function becomes a one-point benchmark of its own family; the runner
verifies (when `verify` is given), warms up, samples under the stopping
rule and writes a run directory, which is read back (cubench.load) and
removed unless `keep=True` or `out=` names it. Every option of `cubench
run` that makes sense for one point is a keyword.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from . import gpu_objects, interrupt, provenance
from .declare import Benchmark, Setup
from .errors import Skip
from .results import load

# Columns of a row that say what the point ran under (docs/schema.md).
CONDITION_COLUMNS = (
    "note", "timer", "cache", "batch", "replicates", "device", "device_uuid",
    "sm_clock_min_mhz", "sm_clock_median_mhz", "sm_clock_max_mhz", "mem_clock_median_mhz",
    "power_mean_w", "temp_max_c", "throttle", "throttled_samples", "throttle_wait_s",
)
# The engine's first and last lines, which name the (temporary) directory.
_SUMMARY = re.compile(r"^cubench: (\d+ points.* -> .*/|\d+ ok, \d+ noisy, \d+ skip, \d+ fail.*"
                      r"results\.csv)$")
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.+-]+")


class MeasureError(RuntimeError):
    """The measured point failed (its verify or the function raised, or a
    CUDA call failed). `result` holds the row; the reason is the message."""

    def __init__(self, result: "Result"):
        super().__init__(f"{result.benchmark}: {result.reason or 'failed'}")
        self.result = result


def _seconds(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "n/a"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(s) >= scale:
            return f"{s / scale:.4g} {unit}"
    return f"{s / 1e-9:.4g} ns"


@dataclass(frozen=True)
class Result:
    """One measured point. Times are seconds per call of the function."""

    benchmark: str
    status: str                 # ok, noisy, skip or fail (docs/schema.md)
    reason: str | None          # why a point is noisy, skipped or failed
    median_s: float | None
    ci_s: tuple[float, float] | None  # the 95% confidence interval of the median
    samples: tuple[float, ...]  # every sample, seconds per call, in order
    gbps: float | None          # bytes / median_s / 1e9 (1e9 bytes/s), with bytes=
    tflops: float | None        # flops / median_s / 1e12, with flops=
    verify_error: float | None
    conditions: dict = field(default_factory=dict)  # note, timer, clocks, power, GPU, host
    row: dict = field(default_factory=dict)  # the whole results.csv row
    dir: Path | None = None     # the run directory, when kept

    @property
    def ok(self) -> bool:
        """Measured: `ok`, or `noisy` (the time budget ran out before the
        confidence interval was as narrow as asked)."""
        return self.status in ("ok", "noisy")

    def __str__(self):
        if not self.ok:
            return f"{self.benchmark}: {self.status}: {self.reason or ''}".rstrip(": ")
        ci = (f" (95% CI {_seconds(self.ci_s[0])} - {_seconds(self.ci_s[1])})"
              if self.ci_s else "")
        rate = "".join(f", {v:.4g} {unit}" for v, unit in ((self.gbps, "GB/s"),
                                                           (self.tflops, "TFLOP/s")) if v)
        text = (f"{self.benchmark}: {_seconds(self.median_s)} median{ci}, "
                f"{len(self.samples)} samples{rate}, {self.status}")
        return text + (f" ({self.reason})" if self.reason else "")


# ---- the benchmark ----

def variant_name(fn: Callable, name: str | None) -> str:
    """`family/variant` for the row: `name` when it has a `/`, else
    measure/<name or the function's name>."""
    if name and "/" in name:
        return name
    base = name or getattr(fn, "__name__", None) or type(fn).__name__
    base = _NAME_CHARS.sub("_", base.replace("<lambda>", "lambda")).strip("_") or "fn"
    return f"measure/{base}"


def _as_args(value) -> tuple:
    if value is None:
        return ()
    return tuple(value) if isinstance(value, tuple) else (value,)


@dataclass
class _Plan:
    """How the function is run: what was inferred, and the hooks."""

    fn: Callable
    setup: Callable | None
    verify: Callable | None
    teardown: Callable | None
    target: str
    inferred: bool
    kinds: set
    timer: str
    wait: Callable[[Any], None] | None

    def make_setup(self, name: str):
        def bench_setup(point, ctx):
            args = _as_args(self.setup()) if self.setup else ()
            found = self.kinds | gpu_objects.frameworks(*args)
            kinds = ", ".join(sorted(found))
            if self.target == "host" and found and self.inferred:
                raise ValueError(f"the arguments setup made are GPU data ({kinds}): say "
                                 "target='cuda'")
            if self.target == "cuda" and self.timer != "host" and found and \
                    not gpu_objects.can_bind(found):
                raise ValueError(f"the arguments setup made are GPU data ({kinds}) whose work "
                                 "cannot go on the runner's stream: say timer='host' (and sync=)")
            if self.target == "cuda" and ctx.device is None:
                raise Skip("no CUDA device")
            restore = None
            if self.target == "cuda" and self.timer != "host":
                restore = gpu_objects.bind_stream(found or _imported_bindable(), ctx.stream,
                                                  ctx.device)
            fn, wait = self.fn, self.wait

            if wait is None:
                def run():
                    fn(*args)
            else:
                def run():
                    wait(fn(*args))

            def teardown():
                try:
                    if self.teardown:
                        self.teardown()
                finally:
                    if restore:
                        restore()

            return Setup(run=run, verify=self.verify, teardown=teardown)
        return bench_setup


def _imported_bindable() -> set:
    return {m for m in ("torch", "cupy") if m in sys.modules}


def plan(fn, setup=None, verify=None, teardown=None, target=None, timer=None,
         sync=None) -> _Plan:
    """Decide the target and timer (module docstring of gpu_objects)."""
    if not callable(fn):
        raise TypeError(f"measure needs a callable, not {type(fn).__name__}")
    if target not in (None, "host", "cuda"):
        raise ValueError(f"target must be 'host', 'cuda' or None (inferred), not {target!r}")
    kinds = gpu_objects.frameworks(fn, setup, verify)
    inferred = target is None
    target = target or ("cuda" if kinds else "host")
    wait = sync and (lambda result: sync())
    if target == "host":
        return _Plan(fn, setup, verify, teardown, "host", inferred, kinds, timer or "default",
                     wait)
    bindable = kinds if kinds else _imported_bindable()
    if timer != "host" and sync is None and gpu_objects.can_bind(bindable):
        return _Plan(fn, setup, verify, teardown, "cuda", inferred, kinds, timer or "event",
                     None)
    # Work that cannot go on the runner's stream: host clock, and a wait.
    wait = wait or gpu_objects.device_wait(kinds)
    if wait is None and _device_count() > 0:
        raise ValueError("measure: cannot tell how to wait for this function's GPU work "
                         "(no CUDA data of PyTorch, CuPy, JAX or Numba found): pass sync=, a "
                         "function that waits for it")
    # Without a device the point is a skip row and nothing waits.
    return _Plan(fn, setup, verify, teardown, "cuda", inferred, kinds, "host", wait)


def _device_count() -> int:
    from .engine import engine
    return len(engine().devices()[0])


# ---- running it ----

def _options(*, cache, min_samples, max_time, target_ci, quick, replicates, device, seed,
             threads, telemetry, cupti, args) -> list[str]:
    out = []
    if cache not in ("cold", "hot"):
        raise ValueError(f"cache must be 'cold' or 'hot', not {cache!r}")
    out += ["--cache", cache]
    for flag, value in (("--min-samples", min_samples), ("--max-time-per-point", max_time),
                        ("--target-ci", target_ci), ("--replicates", replicates),
                        ("--device", device), ("--seed", seed), ("--threads", threads)):
        if value is not None:
            out += [flag, str(value)]
    if quick:
        out.append("--quick")
    if not telemetry:
        out.append("--no-telemetry")
    if cupti is False:
        out.append("--no-cupti")
    return out + [str(a) for a in args]


class _Stderr:
    """fd 2 into a file while the engine runs (its summary line names a
    directory that is about to go); replayed afterwards, less that line
    when the point was measured and `quiet`."""

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        self.file = tempfile.TemporaryFile()
        os.dup2(self.file.fileno(), 2)
        self.message_fd, interrupt.message_fd = interrupt.message_fd, self.saved
        return self

    def __exit__(self, *exc):
        try:
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        os.dup2(self.saved, 2)
        interrupt.message_fd = self.message_fd
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode("utf-8", "replace")
        self.file.close()
        return False

    def replay(self, quiet: bool):
        lines = self.text.splitlines()
        if quiet:
            lines = [ln for ln in lines if not _SUMMARY.match(ln.strip())]
        if lines:
            sys.stderr.write("\n".join(lines) + "\n")
            sys.stderr.flush()

    def last_line(self) -> str:
        lines = [ln.strip() for ln in self.text.splitlines() if ln.strip()]
        return lines[-1] if lines else ""


def _result(run_dir: Path, name: str, kept: bool, why: str) -> Result:
    """The run's one row as a Result; `why` is the engine's last line, the
    reason when there is no row (a write that failed stopped the run)."""
    rows = load(run_dir) if (run_dir / "results.csv").is_file() else []
    mine = [r for r in rows if r["benchmark"] == name]
    if len(mine) != 1:
        raise RuntimeError(f"cubench.measure: the run wrote {len(mine)} rows of {name}: {why}")
    row = mine[0]
    conditions = {k: row[k] for k in CONDITION_COLUMNS if k in row}
    device = rows.meta.get("device") if isinstance(rows.meta.get("device"), dict) else None
    conditions["gpu"] = device.get("name") if device else None
    host = rows.meta.get("host") if isinstance(rows.meta.get("host"), dict) else {}
    conditions["cpu"] = host.get("cpu")
    ci = (row["ci_lo_s"], row["ci_hi_s"]) if row.get("ci_lo_s") is not None else None
    return Result(benchmark=name, status=row["status"], reason=row.get("reason"),
                  median_s=row.get("median_s"), ci_s=ci, samples=tuple(rows.samples_of(row)),
                  gbps=row.get("gbps"), tflops=row.get("tflops"),
                  verify_error=row.get("verify_error"), conditions=conditions, row=row,
                  dir=run_dir if kept else None)


def measure(fn: Callable, *, setup: Callable | None = None, verify: Callable | None = None,
            teardown: Callable | None = None, target: str | None = None,
            timer: str | None = None, sync: Callable[[], Any] | None = None,
            cache: str = "cold", min_samples: int | None = None, max_time: float | None = None,
            target_ci: float | None = None, quick: bool = False, replicates: int | None = None,
            bytes: float | None = None, flops: float | None = None, peak: str = "none",
            name: str | None = None, device: int | None = None, seed: int | None = None,
            threads: int | None = None, telemetry: bool = True, cupti: bool | None = None,
            keep: bool = False, out: str | os.PathLike | None = None, quiet: bool = True,
            args: tuple = ()) -> Result:
    """Measure `fn(*setup())` (or `fn()`) with cubench's runner; returns a Result.

    setup      called before the point's first call (each replicate); returns
               fn's arguments: None for none, a tuple for several, else one
    verify     called after the first call, before timing: returns the error
               (None or 0: exact) or raises (cubench.VerifyError); without
               it the row's note says "not verified"
    teardown   called after the point
    target     "host" (host clock) or "cuda" (CUDA events on the runner's
               stream, made current for PyTorch and CuPy); None: "cuda" when
               fn, setup or verify hold CUDA data (a PyTorch tensor or
               module on a GPU, a CuPy, Numba or JAX GPU array), else "host"
    timer      "host" for GPU code that cannot go on the runner's stream;
               `sync()` (or the framework's own wait) then ends each call
    cache      "cold" (L2 flushed before every sample) or "hot" (batched)
    min_samples, max_time (s), target_ci (%), quick, replicates, device,
    seed, threads, telemetry, cupti: as the `cubench run` options
    bytes, flops  the work of one call: gives gbps (1e9 bytes/s) and tflops
    peak       "dram", "pcie", "fp32" or "none": what pct_peak is against
    name       the row's benchmark ("measure/<fn name>" by default)
    keep, out  keep the run directory (a new one, or `out`: new or empty)
    quiet      no progress line, no summary line
    args       further `cubench run` options, as strings

    A point that fails raises MeasureError; a skipped point (target
    "cuda" without a GPU) is returned with status "skip"; bad options
    raise ValueError; a run that could not write its files raises
    RuntimeError with the engine's reason; Ctrl-C raises KeyboardInterrupt.
    """
    from .engine import EXIT_INTERRUPTED, EXIT_USAGE, RegistrationError, engine

    p = plan(fn, setup, verify, teardown, target, timer, sync)
    bench_name = variant_name(fn, name)
    options = _options(cache=cache, min_samples=min_samples, max_time=max_time,
                       target_ci=target_ci, quick=quick, replicates=replicates, device=device,
                       seed=seed, threads=threads, telemetry=telemetry, cupti=cupti, args=args)
    code = getattr(fn, "__code__", None)
    bench = Benchmark(name=bench_name, setup=p.make_setup(bench_name), axes=[],
                      summary=f"cubench.measure of {getattr(fn, '__qualname__', bench_name)}",
                      target=p.target, timer=p.timer, peak=peak,
                      bytes=None if bytes is None else (lambda point: bytes),
                      flops=None if flops is None else (lambda point: flops),
                      source=code.co_filename if code else None)
    bench.check()
    eng = engine()
    kept = keep or out is not None
    run_dir = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="cubench-measure-"))
    side = {"function": getattr(fn, "__qualname__", repr(fn)),
            "file": code.co_filename if code else None, "target": p.target,
            "target_inferred": p.inferred, "frameworks": sorted(p.kinds), "timer": p.timer}

    def write_side(d: Path, final: bool):
        provenance.write(d, provenance.document(str(eng.lib.path), eng.version, [],
                                                measure=side))

    argv = [bench_name, "--out", str(run_dir), *options] + (["--quiet"] if quiet else [])
    try:
        with _Stderr() as err:
            try:
                with eng.only(bench.family, [bench]):
                    outcome = eng.run(argv, meta=write_side)
            except RegistrationError as e:
                raise ValueError(f"cubench.measure: {e}") from None
        if outcome.exit_code == EXIT_INTERRUPTED:
            err.replay(quiet=quiet)  # the directory is about to go
            raise KeyboardInterrupt
        if outcome.exit_code == EXIT_USAGE:
            err.replay(quiet=False)
            raise ValueError(f"cubench.measure: {err.last_line() or 'bad options'}")
        if outcome.dir is None:
            err.replay(quiet=False)
            raise RuntimeError(f"cubench.measure: {err.last_line() or 'the run wrote nothing'}")
        try:
            result = _result(outcome.dir, bench_name, kept, err.last_line())
        except RuntimeError:
            err.replay(quiet=False)
            raise
        err.replay(quiet=quiet and result.ok)
    finally:
        if not kept:
            shutil.rmtree(run_dir, ignore_errors=True)
    if result.status == "fail":
        raise MeasureError(result)
    return result
