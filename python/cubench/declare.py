"""Declaring Python benchmarks: the same descriptor as a C `cb_bench`.

    import cubench as cb

    @cb.benchmark("mine/scale", axes=[cb.Axis("n", "2^20:2^26:x4", help="elements")],
                  bytes=lambda p: 8 * p["n"], requires="torch")
    def scale(p, ctx):
        ...allocate, fill inputs with random values, poison outputs...
        return cb.Setup(run=..., verify=...)

The decorator records a `Benchmark` in a `Registry` (the default one unless
`registry=` says otherwise); the engine (cubench.engine) hands the registry
to the C library, whose runner plans, verifies, times and records it.
"""

from __future__ import annotations

import importlib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

from .errors import Skip

TARGETS = {"cuda": 0, "host": 1}
TIMERS = {"default": 0, "event": 1, "host": 2}
PEAKS = {"none": 0, "dram": 1, "pcie": 2, "fp32": 3}
KINDS = {"int": 0, "enum": 1, "float": 2}
MAX_AXES = 8  # CB_MAX_AXES of harness/core/point.h
# Modules whose use makes a benchmark GPU code when it does not say its target.
GPU_MODULES = frozenset({"torch", "cupy", "cupyx", "jax", "jaxlib", "numba", "triton", "pycuda",
                         "tensorflow", "cudf", "cv2", "cuda", "warp", "tilelang"})
_NAME = re.compile(r"^[A-Za-z0-9_.+-]+/[A-Za-z0-9_.+-]+$")


def _spec(value) -> str:
    """An axis default in the C grammar: "2^20:2^26:x4", 1024 or [1, 2]."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


@dataclass(frozen=True)
class Axis:
    """One axis, in the grammar of `cubench run --axis` (harness/core/axis.h).

    kind "int": integer values (`choices` may add words such as "auto");
    kind "float": numbers such as 0.5 or 1e-3 (the row keeps their text);
    kind "enum": one of the words in `choices`."""

    name: str
    defaults: Any
    kind: str = "int"
    choices: Sequence[str] | str | None = None
    min: int = 1
    help: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"axis '{self.name}': kind must be 'int', 'float' or 'enum', "
                             f"not {self.kind!r}")
        if not re.match(r"^[a-z][a-z0-9_]{0,30}$", self.name or ""):
            raise ValueError(f"axis {self.name!r}: names are lower case, 1-31 characters")

    @property
    def choices_text(self) -> str:
        if self.choices is None:
            return ""
        return self.choices if isinstance(self.choices, str) else ",".join(self.choices)


class Point(Mapping):
    """A point's axis values by name: an int for integer values, a float
    for float axes, a str for words (`auto`) and enum axes. `text` is the
    row's `axes` column (empty for a benchmark without axes)."""

    def __init__(self, values: dict, text: str):
        self._values = values
        self.text = text

    def __getitem__(self, name):
        return self._values[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        return f"Point({self.text})"


@dataclass(frozen=True)
class Context:
    """What the runner gives setup. `stream` is the runner's cudaStream_t as
    an integer (0 for host benchmarks): wrap it with
    torch.cuda.ExternalStream, cupy.cuda.ExternalStream or
    numba.cuda.external_stream and enqueue every run on it."""

    stream: int
    device: int | None
    sm_count: int
    l2_bytes: int
    seed: int
    host_threads: int


@dataclass
class Setup:
    """What setup returns (a plain `run` callable, or `(run, verify)`, will
    do too). `run()` enqueues one run on ctx.stream (host benchmarks: does
    it). `verify()` checks the output of the run before it: it returns the
    measured error (None or 0 for exact checks) or raises. `teardown()`
    frees what setup allocated (optional: dropping the references is
    enough for most frameworks). `memcpy_kinds` = (src, dst) CUPTI memory
    kinds every copy of a run must show (1 pageable, 2 pinned, 3 device)."""

    run: Callable[[], Any]
    verify: Callable[[], Any] | None = None
    teardown: Callable[[], Any] | None = None
    note: str = ""
    occupancy: float | None = None
    memcpy_kinds: tuple[int, int] = (0, 0)


@dataclass
class Benchmark:
    """A registered Python benchmark (what `benchmark` records)."""

    name: str
    setup: Callable[[Point, Context], Any]
    axes: list[Axis]
    summary: str = ""
    target: str = "cuda"
    timer: str = "default"
    peak: str = "none"
    bytes: Callable[[Point], float] | None = None
    flops: Callable[[Point], float] | None = None
    ref: str | None = None
    requires: tuple[str, ...] = ()
    release: Callable[[], Any] | None = None
    source: str | None = field(default=None, compare=False)

    @property
    def family(self) -> str:
        return self.name.split("/", 1)[0]

    def check(self):
        if not _NAME.match(self.name):
            raise ValueError(f"benchmark {self.name!r}: names are family/variant "
                             "(letters, digits, _ . + -)")
        if len(self.axes) > MAX_AXES:
            raise ValueError(f"{self.name}: has {len(self.axes)} axes; at most {MAX_AXES}")
        names = [a.name for a in self.axes]
        if len(set(names)) != len(names):
            raise ValueError(f"{self.name}: an axis is declared twice")
        for key, table in (("target", TARGETS), ("timer", TIMERS), ("peak", PEAKS)):
            if getattr(self, key) not in table:
                raise ValueError(f"{self.name}: {key} must be one of {', '.join(table)}")

    def import_requirements(self):
        """Import what the benchmark needs; a failure is a skip with the
        reason (not installed, or installed but broken)."""
        for module in self.requires:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as e:
                if e.name and module.split(".")[0] == e.name.split(".")[0]:
                    raise Skip(f"{module} is not installed") from None
                raise Skip(f"import {module} failed: {e}") from None
            except Exception as e:  # a framework that fails to load is a skip too
                first = str(e).strip().splitlines()[0] if str(e).strip() else ""
                raise Skip(f"import {module} failed: {type(e).__name__}: {first}") from None

    def prepare(self, point: Point, ctx: Context) -> Setup:
        """Run the user's setup and normalise what it returns."""
        self.import_requirements()
        got = self.setup(point, ctx)
        if isinstance(got, Setup):
            return got
        if callable(got):
            return Setup(run=got)
        if isinstance(got, tuple) and 1 <= len(got) <= 3 and all(
                g is None or callable(g) for g in got) and callable(got[0]):
            return Setup(*got)
        raise TypeError(f"{self.name}: setup must return a cubench.Setup, a run callable or "
                        f"(run, verify[, teardown]), not {type(got).__name__}")

    def work(self, which: int, point: Point) -> float:
        fn = self.bytes if which == 0 else self.flops
        value = fn(point) if fn else math.nan
        return float(value) if value is not None else math.nan


class Registry:
    """Benchmarks by name, in declaration order."""

    def __init__(self):
        self._benches: dict[str, Benchmark] = {}

    def add(self, bench: Benchmark) -> Benchmark:
        bench.check()
        if bench.name in self._benches:
            raise ValueError(f"benchmark '{bench.name}' is declared twice")
        self._benches[bench.name] = bench
        return bench

    def __iter__(self):
        return iter(self._benches.values())

    def __len__(self):
        return len(self._benches)

    def get(self, name: str) -> Benchmark | None:
        return self._benches.get(name)

    def families(self) -> dict[str, list[Benchmark]]:
        out: dict[str, list[Benchmark]] = {}
        for b in self._benches.values():
            out.setdefault(b.family, []).append(b)
        return out


REGISTRY = Registry()


def _as_tuple(value: str | Iterable[str] | None) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


def infer_target(requires: Iterable[str]) -> str:
    """"cuda" when a required module is a GPU framework, else "host"."""
    return "cuda" if any(m.split(".")[0] in GPU_MODULES for m in requires) else "host"


def benchmark(name: str, *, axes: Sequence[Axis] = (), summary: str = "",
              target: str | None = None,
              timer: str = "default", peak: str = "none",
              bytes: Callable[[Point], float] | None = None,
              flops: Callable[[Point], float] | None = None, ref: str | None = None,
              requires: str | Iterable[str] | None = None,
              release: Callable[[], Any] | None = None, registry: Registry | None = None):
    """Decorate `setup(point, ctx)` to declare benchmark `name` ("family/variant").

    axes      the sweep (0 to 8 Axis), same grammar and overrides as C; no
              axes: one point
    target    "cuda" (needs a device; event timer) or "host" (host clock);
              left out: "cuda" when `requires` names a GPU framework
              (torch, cupy, jax, numba, triton, ...), else "host"
    timer     "host" for frameworks that cannot enqueue on ctx.stream (JAX):
              run() must then wait for its own work (block_until_ready)
    peak      what pct_peak is against: "dram", "pcie", "fp32" or "none"
    bytes     bytes one run moves, as a function of the point (GB/s column)
    flops     flops of one run (TFLOP/s column)
    ref       a benchmark with the same axes whose median gives pct_ref
    requires  modules to import before setup; failing that, skip rows
    release   called after every point (teardown or failed setup) to give
              memory back, e.g. torch.cuda.empty_cache
    """

    needs = _as_tuple(requires)

    def decorate(setup: Callable[[Point, Context], Any]):
        code = getattr(setup, "__code__", None)
        (REGISTRY if registry is None else registry).add(Benchmark(
            name=name, setup=setup, axes=list(axes), summary=summary or (setup.__doc__ or "").strip()
            .split("\n")[0], target=target or infer_target(needs), timer=timer, peak=peak,
            bytes=bytes, flops=flops, ref=ref, requires=needs, release=release,
            source=code.co_filename if code else None))
        return setup

    return decorate
