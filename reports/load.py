"""Read and validate one cubench result directory (docs/schema.md, version 1).

Everything the report shows comes through here, so this is the one place that
knows the file formats. It is strict about what the schema promises (the
schema version, the documented columns, numbers where numbers belong) and
raises InputError with the file and line when a promise is broken: a report
drawn from a half-understood file is worse than no report. It is lenient about
what the schema leaves open: extra columns, a missing samples.csv (an
interrupted copy), and the optional fits.csv / overlap.csv written beside the
transfers family, whose columns are not fixed yet.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import csvfile

SCHEMA_VERSION = 1

RESULTS_COLUMNS = (
    "schema_version", "benchmark", "family", "axes", "status", "reason",
    "timer", "cache", "batch", "samples", "median_s", "min_s", "max_s",
    "q1_s", "q3_s", "mean_s", "stddev_s", "ci_lo_s", "ci_hi_s",
    "ci_rel_half", "cupti_median_s", "overhead_s", "kernels", "bytes",
    "flops", "gbps", "tflops", "peak", "peak_unit", "pct_peak",
    "ref_benchmark", "pct_ref", "occupancy", "verify_error", "note",
)

# Columns that hold a number when they are not empty.
NUMERIC_COLUMNS = (
    "batch", "samples", "median_s", "min_s", "max_s", "q1_s", "q3_s",
    "mean_s", "stddev_s", "ci_lo_s", "ci_hi_s", "ci_rel_half",
    "cupti_median_s", "overhead_s", "bytes", "flops", "gbps", "tflops",
    "peak", "pct_peak", "pct_ref", "occupancy", "verify_error",
)

SAMPLES_COLUMNS = ("benchmark", "axes", "sample", "time_s", "cupti_s", "batch")

STATUSES = ("ok", "noisy", "skip", "fail")

# Optional side files of the transfers family (columns not fixed by the
# schema; read as plain text rows and interpreted by figures_transfers).
OPTIONAL_CSV = ("fits.csv", "overlap.csv")


class InputError(Exception):
    """A result directory that does not hold what schema version 1 promises."""


def parse_axes(text: str, where: str = "") -> dict[str, str]:
    """Split `n=1024;block=256;grid=auto` into an ordered name -> value dict.

    The order is the benchmark's declaration order and is kept, because the
    axes text is the point's identity and the first axis is usually the one a
    sweep runs over."""
    axes: dict[str, str] = {}
    if text == "":
        return axes
    for token in text.split(";"):
        name, sep, value = token.partition("=")
        if not sep or not name:
            raise InputError(f"{where}bad axes field {text!r}: "
                             f"expected name=value pairs joined by ';'")
        axes[name] = value
    return axes


_INT_RE = re.compile(r"^[+-]?\d+$")


def axis_number(value: str | None) -> float | None:
    """The numeric value of an axis (`1024` -> 1024.0), None for a word such
    as `auto` or `pinned`."""
    if value is None:
        return None
    if _INT_RE.match(value):
        return float(int(value))
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def format_axes(axes: dict[str, str]) -> str:
    """Inverse of parse_axes: the identity text of a point."""
    return ";".join(f"{k}={v}" for k, v in axes.items())


@dataclass
class Result:
    """One row of results.csv, numbers parsed (None = empty field)."""

    line: int
    benchmark: str
    family: str
    axes: dict[str, str]
    status: str
    reason: str
    timer: str
    cache: str
    peak_unit: str
    ref_benchmark: str
    kernels: str
    note: str
    num: dict[str, float | None]
    raw: dict[str, str]

    @property
    def variant(self) -> str:
        return self.benchmark.partition("/")[2] or self.benchmark

    @property
    def axes_text(self) -> str:
        return format_axes(self.axes)

    @property
    def identity(self) -> tuple[str, str]:
        """benchmark + axes: how a point is matched across runs."""
        return (self.benchmark, self.axes_text)

    @property
    def measured(self) -> bool:
        """Timed and verified: the only rows that have numbers to plot."""
        return self.status in ("ok", "noisy") and self.median_s is not None

    @property
    def is_host(self) -> bool:
        """A CPU baseline: never part of a GPU roof or a GPU reference line."""
        return self.cache == "n/a" or self.variant.startswith("host")

    @property
    def median_s(self) -> float | None:
        return self.num["median_s"]

    @property
    def gbps(self) -> float | None:
        return self.num["gbps"]

    @property
    def tflops(self) -> float | None:
        return self.num["tflops"]

    def axis(self, name: str) -> float | None:
        return axis_number(self.axes.get(name))

    def label(self) -> str:
        return f"{self.benchmark} [{self.axes_text}]"


@dataclass
class Run:
    """One result directory: its rows, raw samples and environment."""

    path: Path
    meta: dict
    results: list[Result]
    samples: dict[tuple[str, str], list[float]]
    side_csv: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    has_samples: bool = True

    @property
    def gpu_name(self) -> str:
        device = self.meta.get("device")
        if isinstance(device, dict) and device.get("name"):
            return str(device["name"])
        return "no GPU"

    @property
    def label(self) -> str:
        """GPU name + directory name: what a reader needs to tell runs apart."""
        return f"{self.gpu_name} ({self.path.name})"

    def families(self) -> list[str]:
        seen: list[str] = []
        for row in self.results:
            if row.family not in seen:
                seen.append(row.family)
        return seen

    def rows(self, family: str | None = None, measured: bool = True) -> list[Result]:
        return [r for r in self.results
                if (family is None or r.family == family)
                and (not measured or r.measured)]

    def device_peak(self, kind: str) -> float | None:
        """A theoretical peak from meta.json: kind is 'dram', 'pcie' or 'fp32'."""
        return device_peak(self.meta, kind)


def _read_csv(path: Path, required: tuple[str, ...]) -> list[tuple[int, dict[str, str]]]:
    """Rows of an RFC 4180 file as (line number, column -> text), read by the
    same rules as the C reader (csvfile.py), checking the required columns."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        header, records = csvfile.parse(data, str(path))
    except csvfile.CsvError as exc:
        raise InputError(str(exc)) from None
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)} "
                         f"(schema version {SCHEMA_VERSION}, docs/schema.md)")
    return [(line, dict(zip(header, fields))) for line, fields in records]


def _number(text: str, where: str) -> float | None:
    """A number column: empty is None ('not measured'); otherwise the field in
    the C reader's syntax (strtod), non-finite values read as None."""
    if text == "":
        return None
    try:
        value = csvfile.parse_number(text)
    except ValueError:
        raise InputError(f"{where}: {text!r} is not a number") from None
    return value if math.isfinite(value) else None


def read_results(path: Path) -> list[Result]:
    results = []
    for line, raw in _read_csv(path, RESULTS_COLUMNS):
        where = f"{path}:{line}"
        if raw["schema_version"] != str(SCHEMA_VERSION):
            raise InputError(f"{where}: schema_version {raw['schema_version']!r}, "
                             f"this report reads version {SCHEMA_VERSION}")
        if raw["status"] not in STATUSES:
            raise InputError(f"{where}: status {raw['status']!r} is not one of "
                             f"{', '.join(STATUSES)}")
        if "/" not in raw["benchmark"]:
            raise InputError(f"{where}: benchmark {raw['benchmark']!r} is not "
                             f"family/variant")
        num = {c: _number(raw[c], f"{where}: column {c}") for c in NUMERIC_COLUMNS}
        results.append(Result(
            line=line, benchmark=raw["benchmark"], family=raw["family"],
            axes=parse_axes(raw["axes"], f"{where}: "), status=raw["status"],
            reason=raw["reason"], timer=raw["timer"], cache=raw["cache"],
            peak_unit=raw["peak_unit"], ref_benchmark=raw["ref_benchmark"],
            kernels=raw["kernels"], note=raw["note"], num=num, raw=raw))
    return results


def read_samples(path: Path) -> dict[tuple[str, str], list[float]]:
    samples: dict[tuple[str, str], list[tuple[int, float]]] = {}
    for line, raw in _read_csv(path, SAMPLES_COLUMNS):
        where = f"{path}:{line}"
        time_s = _number(raw["time_s"], f"{where}: column time_s")
        index = _number(raw["sample"], f"{where}: column sample")
        if time_s is None or index is None:
            raise InputError(f"{where}: a sample needs sample and time_s")
        key = (raw["benchmark"], format_axes(parse_axes(raw["axes"], f"{where}: ")))
        samples.setdefault(key, []).append((int(index), time_s))
    return {k: [t for _, t in sorted(v)] for k, v in samples.items()}


# meta.json is a few levels deep (device.pcie.width); far deeper nesting is
# no cubench file, and would overflow the recursion of the JSON decoder or of
# the environment table.
META_MAX_DEPTH = 32


def _depth(obj) -> int:
    """Nesting depth of a JSON value, without recursion."""
    deepest, stack = 0, [(obj, 1)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if isinstance(value, dict):
            stack += [(v, depth + 1) for v in value.values()]
        elif isinstance(value, list):
            stack += [(v, depth + 1) for v in value]
    return deepest


def read_meta(path: Path) -> dict:
    if not path.exists():
        raise InputError(f"{path}: missing (every result directory has meta.json)")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from None
    except RecursionError:
        raise InputError(f"{path}: nested too deeply to be a cubench meta.json") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if not isinstance(meta, dict):
        raise InputError(f"{path}: expected a JSON object")
    if _depth(meta) > META_MAX_DEPTH:
        raise InputError(f"{path}: nested deeper than {META_MAX_DEPTH} levels; "
                         f"not a cubench meta.json")
    if meta.get("schema_version") != SCHEMA_VERSION:
        raise InputError(f"{path}: schema_version {meta.get('schema_version')!r}, "
                         f"this report reads version {SCHEMA_VERSION}")
    return meta


def _read_side_csv(path: Path) -> list[dict[str, str]]:
    """An optional side file: header + rows, no required columns."""
    rows = _read_csv(path, ())
    return [r for _, r in rows]


def load_run(directory: str | Path, warn=None) -> Run:
    """Load and validate one result directory. `warn(msg)` receives notes
    about tolerated gaps (no samples.csv); InputError for broken promises."""
    path = Path(directory)
    if not path.is_dir():
        raise InputError(f"{path}: not a directory")
    meta = read_meta(path / "meta.json")
    results_path = path / "results.csv"
    if not results_path.exists():
        raise InputError(f"{results_path}: missing (every result directory has results.csv)")
    results = read_results(results_path)
    samples_path = path / "samples.csv"
    has_samples = samples_path.exists()
    samples = read_samples(samples_path) if has_samples else {}
    if not has_samples and warn:
        warn(f"{samples_path}: missing; distributions will be left out")
    side = {}
    for name in OPTIONAL_CSV:
        if (path / name).exists():
            side[name] = _read_side_csv(path / name)
    return Run(path=path, meta=meta, results=results, samples=samples,
               side_csv=side, has_samples=has_samples)


# --- peaks -------------------------------------------------------------------

_PEAK_WORDS = {  # most specific first: peaks.fp32_lanes_per_sm is no peak
    "dram": (("dram", "gbps"), ("dram",), ("hbm",), ("memory", "gbps")),
    "pcie": (("pcie", "gbps"), ("pcie",)),
    "fp32": (("fp32", "tflops"), ("fp32", "flops"), ("tflops",)),
}


def _walk_numbers(obj, prefix=""):
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _walk_numbers(value, f"{prefix}{key}.".lower())
    elif isinstance(obj, (int, float)) and not isinstance(obj, bool):
        yield prefix.rstrip("."), float(obj)


def device_peak(meta: dict, kind: str) -> float | None:
    """Find a theoretical peak in meta.json's `device` object.

    The schema says the device object holds "the three peaks" without fixing
    their key names (meta.c writes device.peaks.dram_gbps, pcie_gbps and
    fp32_tflops), so this looks for a numeric key path under `device`
    holding 'peak' and the kind's words, most specific first."""
    device = meta.get("device")
    if not isinstance(device, dict):
        return None
    candidates = [(k, v) for k, v in _walk_numbers(device) if "peak" in k and v > 0]
    for words in _PEAK_WORDS[kind]:
        for key, value in candidates:
            if all(w in key for w in words):
                return value
    return None
