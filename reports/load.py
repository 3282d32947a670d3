"""Read and validate one cubench result directory (docs/schema.md, versions 1 and 2).

Everything the report shows comes through here, so this is the one place that
knows the file formats. It is strict about what the schema promises (the
schema version, the documented columns, numbers where numbers belong) and
raises InputError with the file and line when a promise is broken: a report
drawn from a half-understood file is worse than no report. It is lenient about
what the schema leaves open: extra columns, a missing samples.csv (an
interrupted copy), and the optional fits.csv / overlap.csv written beside the
transfers family, whose columns are not fixed yet.

Schema 2 appends columns after `note` (the device of each row, replicates,
and the telemetry the run saw: clocks, power, temperature, throttle reasons,
and where each peak came from) and may hold rows of several devices; a run
is split into one Run per device by split_devices(). Schema 1 files (the
recorded runs in tests/data) read as before, with no telemetry.
"""

from __future__ import annotations

import json
import lzma
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from . import csvfile

SCHEMA_VERSIONS = (1, 2, 3)  # every version this report reads

RESULTS_COLUMNS = (
    "schema_version", "benchmark", "family", "axes", "status", "reason",
    "timer", "cache", "batch", "samples", "median_s", "min_s", "max_s",
    "q1_s", "q3_s", "mean_s", "stddev_s", "ci_lo_s", "ci_hi_s",
    "ci_rel_half", "cupti_median_s", "overhead_s", "kernels", "bytes",
    "flops", "gbps", "tflops", "peak", "peak_unit", "pct_peak",
    "ref_benchmark", "pct_ref", "occupancy", "verify_error", "note",
)

# Schema 2 appends these after `note`.
RESULTS_COLUMNS_V2 = (
    "device", "device_uuid", "replicates", "sm_clock_min_mhz",
    "sm_clock_median_mhz", "sm_clock_max_mhz", "mem_clock_median_mhz",
    "power_mean_w", "temp_max_c", "throttle", "peak_source",
)

# Columns that hold a number when they are not empty.
NUMERIC_COLUMNS = (
    "batch", "samples", "median_s", "min_s", "max_s", "q1_s", "q3_s",
    "mean_s", "stddev_s", "ci_lo_s", "ci_hi_s", "ci_rel_half",
    "cupti_median_s", "overhead_s", "bytes", "flops", "gbps", "tflops",
    "peak", "pct_peak", "pct_ref", "occupancy", "verify_error",
)
# Schema 3 appends these after `peak_source`.
RESULTS_COLUMNS_V3 = (
    "kind", "key_figure", "key_rule", "setup_s", "verify_s", "warmup_s",
    "sampling_s", "teardown_s", "throttled_samples", "throttle_wait_s",
)
NUMERIC_COLUMNS_V3 = (
    "setup_s", "verify_s", "warmup_s", "sampling_s", "teardown_s",
    "throttled_samples", "throttle_wait_s",
)
NUMERIC_COLUMNS_V2 = (
    "replicates", "sm_clock_min_mhz", "sm_clock_median_mhz", "sm_clock_max_mhz",
    "mem_clock_median_mhz", "power_mean_w", "temp_max_c",
)

# Columns a run may add (drawn when present, never required): seconds per
# phase of each point, how many samples were taken while throttled and how
# long the runner waited for the clocks, and the hardware counters' speed of
# light (percent of the peak of each unit, as Nsight Compute's SOL section).
PHASE_COLUMNS = ("setup_s", "verify_s", "warmup_s", "sampling_s", "teardown_s")
SOL_COLUMNS = ("sol_dram_pct", "sol_l2_pct", "sol_l1_pct", "sol_sm_pct", "sol_tensor_pct")
OPTIONAL_NUMERIC = PHASE_COLUMNS + SOL_COLUMNS + ("throttled_samples", "throttle_wait_s")
KINDS = ("device", "host_copy", "staged_copy", "host", "python", "multi_gpu")  # the `kind` column

SAMPLES_COLUMNS = ("benchmark", "axes", "sample", "time_s", "cupti_s", "batch")
SAMPLES_COLUMNS_V2 = ("device", "replicate", "sm_clock_mhz", "throttle")

# Columns each schema version promises.
REQUIRED = {
    1: (RESULTS_COLUMNS, SAMPLES_COLUMNS),
    2: (RESULTS_COLUMNS + RESULTS_COLUMNS_V2, SAMPLES_COLUMNS + SAMPLES_COLUMNS_V2),
    3: (RESULTS_COLUMNS + RESULTS_COLUMNS_V2 + RESULTS_COLUMNS_V3,
        SAMPLES_COLUMNS + SAMPLES_COLUMNS_V2),
}

STATUSES = ("ok", "noisy", "skip", "fail")

# Optional side files of the transfers family (columns not fixed by the
# schema; read as plain text rows and interpreted by figures_transfers).
OPTIONAL_CSV = ("fits.csv", "overlap.csv")


class InputError(Exception):
    """A result directory that does not hold what its schema version promises."""


def display_text(text: str) -> str:
    """A name from the file system as text a page can hold: a directory named
    in Latin-1 on a UTF-8 system arrives with lone surrogates, which no
    UTF-8 file can store; they become U+FFFD."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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
    # The throttle reasons that can have changed this point's time, set by
    # conditions.judge_throttle when the run is loaded: '' when none was
    # active, or none could have (a copy-engine copy, a clock that stayed at
    # its maximum, no sample taken while throttled).
    throttle_affects: str = ""

    @property
    def device(self) -> str:
        """The device column (schema 2), empty in schema 1."""
        return self.raw.get("device", "")

    @property
    def throttle(self) -> str:
        """Clock-event reasons seen while the point ran ('a+b'), 'none', or
        empty without telemetry (schema 1, or no NVML)."""
        return self.raw.get("throttle", "")

    @property
    def throttled(self) -> bool:
        return self.throttle not in ("", "none")

    @property
    def peak_source(self) -> str:
        return self.raw.get("peak_source", "")

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
class Telemetry:
    """The samples.csv rows of a schema-2 run, one list per column, in the
    order the run took them (a run holds hundreds of thousands: columns keep
    reading and filtering them cheap). `key[i]` is the identity (benchmark,
    axes) of sample i."""

    key: list[tuple[str, str]] = field(default_factory=list)
    device: list[str] = field(default_factory=list)
    replicate: list[str] = field(default_factory=list)
    time_s: list[float] = field(default_factory=list)
    sm_clock_mhz: list[float | None] = field(default_factory=list)
    throttle: list[str] = field(default_factory=list)
    batch: list[float] = field(default_factory=list)  # runs per sample

    def __len__(self) -> int:
        return len(self.key)

    def indexes(self, family: str | None) -> list[int]:
        """The samples of one family (all for None), in order; the families
        are sorted out in one pass over the samples, on the first call."""
        if family is None:
            return list(range(len(self.key)))
        if not hasattr(self, "_by_family"):
            by: dict[str, list[int]] = {}
            family_of: dict[tuple[str, str], str] = {}
            for i, key in enumerate(self.key):
                fam = family_of.get(key)
                if fam is None:
                    fam = family_of[key] = key[0].partition("/")[0]
                by.setdefault(fam, []).append(i)
            self._by_family = by
        return self._by_family.get(family, [])

    def select(self, keep) -> "Telemetry":
        """The samples whose index i gives keep(i) true, in order."""
        idx = [i for i in range(len(self.key)) if keep(i)]
        return Telemetry(*([column[i] for i in idx] for column in (
            self.key, self.device, self.replicate, self.time_s, self.sm_clock_mhz,
            self.throttle, self.batch)))


@dataclass
class Metric:
    """One row of the optional long-format metrics.csv: a hardware counter
    (or any other measured figure) of one point."""

    benchmark: str
    axes: str
    device: str
    metric: str
    value: float
    unit: str


@dataclass
class Run:
    """One result directory (or one device of it): rows, raw samples, environment."""

    path: Path
    meta: dict
    results: list[Result]
    samples: dict[tuple[str, str], list[float]]
    side_csv: dict[str, list[dict[str, str]]] = field(default_factory=dict)
    has_samples: bool = True
    schema: int = 1
    telemetry: Telemetry = field(default_factory=Telemetry)
    device_key: str = ""  # the `device` value of this Run's rows, when split
    samples_by_device: dict = field(default_factory=dict)  # device -> samples
    metrics: list[Metric] = field(default_factory=list)  # metrics.csv, when present

    def device_info(self) -> dict | None:
        """The meta.json object of this Run's device: `device`, or the entry
        of a `devices` list whose ordinal, UUID or name the rows name."""
        devices = self.meta.get("devices")
        if self.device_key and isinstance(devices, list):
            uuids = {r.raw.get("device_uuid") for r in self.results} - {"", None}
            for dev in devices:
                if isinstance(dev, dict) and (
                        str(dev.get("ordinal")) == self.device_key
                        or dev.get("uuid") in uuids or dev.get("name") == self.device_key):
                    return dev
        device = self.meta.get("device")
        if isinstance(device, dict):
            return device
        if isinstance(devices, list) and devices and isinstance(devices[0], dict):
            return devices[0]
        return None

    @property
    def gpu_name(self) -> str:
        device = self.device_info()
        if device and device.get("name"):
            return str(device["name"])
        return "no GPU"

    @property
    def label(self) -> str:
        """GPU name + directory name (+ the device, when a run holds several):
        what a reader needs to tell runs apart."""
        if self.device_key:
            return f"{self.gpu_name} [device {self.device_key}] ({self.name})"
        return f"{self.gpu_name} ({self.name})"

    @property
    def name(self) -> str:
        """The directory's name, as a page can show it."""
        return display_text(self.path.name)

    @property
    def has_telemetry(self) -> bool:
        """Whether the run recorded clocks or power (schema 2 with NVML)."""
        return any(r.num.get("sm_clock_median_mhz") is not None
                   or r.num.get("power_mean_w") is not None for r in self.results) or any(
            c is not None for c in self.telemetry.sm_clock_mhz)

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
        return device_peak({"device": self.device_info()}, kind)


def split_devices(run: Run) -> list[Run]:
    """One Run per value of the `device` column (schema 2 runs over several
    GPUs), so that each device is drawn and compared like a run of its own;
    a run of one device comes back as it is."""
    devices: list[str] = []
    for r in run.results:
        if r.device and r.device not in devices:
            devices.append(r.device)
    if len(devices) < 2:
        return [run]
    parts = []
    for i, dev in enumerate(devices):
        # Host points have no device: they go with the first device's part.
        mine = (dev, "") if i == 0 else (dev,)
        rows = [r for r in run.results if r.device in mine]
        samples = {k: v for d in mine for k, v in run.samples_by_device.get(d, {}).items()}
        parts.append(Run(path=run.path, meta=run.meta, results=rows, samples=samples,
                         side_csv=run.side_csv, has_samples=run.has_samples,
                         schema=run.schema,
                         telemetry=run.telemetry.select(
                             lambda i, mine=mine: run.telemetry.device[i] in mine),
                         device_key=dev,
                         metrics=[m for m in run.metrics if m.device in mine]))
    return parts


def _read_table(path: Path, required: tuple[str, ...],
                schema: int = 1) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the records (line number, fields) of an RFC 4180 file,
    read by the same rules as the C reader (csvfile.py), checking the required
    columns. A `.xz` path is decompressed first (large recorded samples are
    kept so)."""
    try:
        data = path.read_bytes()
        if path.suffix == ".xz":
            data = lzma.decompress(data)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    except lzma.LZMAError as exc:
        raise InputError(f"{path}: not an xz file ({exc})") from None
    try:
        header, records = csvfile.parse(data, str(path))
    except csvfile.CsvError as exc:
        raise InputError(str(exc)) from None
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)} "
                         f"(schema version {schema}, docs/schema.md)")
    return header, records


def _read_csv(path: Path, required: tuple[str, ...],
              schema: int = 1) -> list[tuple[int, dict[str, str]]]:
    """Rows as (line number, column -> text): _read_table for small files."""
    header, records = _read_table(path, required, schema)
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


def read_results(path: Path, schema: int = 1) -> list[Result]:
    """results.csv of a run whose meta.json says `schema`; every row must say
    the same version."""
    results = []
    numeric = (NUMERIC_COLUMNS + (NUMERIC_COLUMNS_V2 if schema >= 2 else ())
               + (NUMERIC_COLUMNS_V3 if schema >= 3 else ()))
    rows = _read_csv(path, REQUIRED[schema][0], schema)
    if rows:
        numeric += tuple(c for c in OPTIONAL_NUMERIC if c in rows[0][1] and c not in numeric)
    for line, raw in rows:
        where = f"{path}:{line}"
        if raw["schema_version"] != str(schema):
            raise InputError(f"{where}: schema_version {raw['schema_version']!r}, "
                             f"but meta.json says {schema}")
        if raw["status"] not in STATUSES:
            raise InputError(f"{where}: status {raw['status']!r} is not one of "
                             f"{', '.join(STATUSES)}")
        if "/" not in raw["benchmark"]:
            raise InputError(f"{where}: benchmark {raw['benchmark']!r} is not "
                             f"family/variant")
        num = {c: _number(raw[c], f"{where}: column {c}") for c in numeric}
        results.append(Result(
            line=line, benchmark=raw["benchmark"], family=raw["family"],
            axes=parse_axes(raw["axes"], f"{where}: "), status=raw["status"],
            reason=raw["reason"], timer=raw["timer"], cache=raw["cache"],
            peak_unit=raw["peak_unit"], ref_benchmark=raw["ref_benchmark"],
            kernels=raw["kernels"], note=raw["note"], num=num, raw=raw))
    return results


# A number column of a large file holding only these characters is read
# with float() in one pass: over digits, signs, '.', 'e' and 'E', float()
# accepts exactly what strtod reads whole (the spelling cubench writes,
# %.9g). Anything else (hex, inf, blanks, a typo) is read field by field,
# which also gives the first bad field's line in the message.
_NOT_DECIMAL = re.compile(r"[^0-9eE+\-.\n]")


def _number_column(values: list[str], lines: list[int], path: Path,
                   column: str) -> list[float | None]:
    """A number column of a large file: as _number on every field, fast."""
    if not _NOT_DECIMAL.search("\n".join(values)):
        try:
            return [float(v) if v else None for v in values]
        except ValueError:
            pass  # '1e', '--1': the field by field reading names it
    return [_number(v, f"{path}:{line}: column {column}") for v, line in zip(values, lines)]


def _identities(records: list, ib: int, ia: int, path: Path) -> list[tuple[str, str]]:
    """Each record's (benchmark, canonical axes), each axes text parsed once."""
    keys: dict[tuple[str, str], tuple[str, str]] = {}  # raw -> canonical identity
    idents = []
    for line, fields in records:
        ident = (fields[ib], fields[ia])
        key = keys.get(ident)
        if key is None:
            key = keys[ident] = (ident[0], format_axes(parse_axes(ident[1], f"{path}:{line}: ")))
        idents.append(key)
    return idents


def _by_device(idents, devices, replicates, indexes, times) -> dict:
    """{device: {identity: [time_s in (replicate, sample) order]}}."""
    rep_order = {r: (axis_number(r) or 0.0) for r in set(replicates)}
    samples: dict[str, dict[tuple[str, str], list]] = {}
    for key, device, replicate, index, value in zip(idents, devices, replicates, indexes, times):
        samples.setdefault(device, {}).setdefault(key, []).append(
            (rep_order[replicate], index, value))
    return {dev: {k: [t for _, _, t in sorted(v)] for k, v in per.items()}
            for dev, per in samples.items()}


def read_samples(path: Path, schema: int = 1):
    """samples.csv as {device: {(benchmark, axes): [time_s in sample order]}}
    (device '' in schema 1) and, for schema 2, every row's telemetry in file
    order (the order the run took them)."""
    header, records = _read_table(path, REQUIRED[schema][1], schema)
    col = {name: i for i, name in enumerate(header)}
    lines = [line for line, _ in records]

    def texts(name: str) -> list[str]:
        i = col[name]
        return [fields[i] for _, fields in records]

    def numbers(name: str) -> list[float | None]:
        return _number_column(texts(name), lines, path, name)

    times, indexes = numbers("time_s"), numbers("sample")
    missing = next((line for value, index, line in zip(times, indexes, lines)
                    if value is None or index is None), None)
    if missing is not None:
        raise InputError(f"{path}:{missing}: a sample needs sample and time_s")
    devices = texts("device") if "device" in col else [""] * len(records)
    replicates = texts("replicate") if "replicate" in col else [""] * len(records)
    idents = _identities(records, col["benchmark"], col["axes"], path)
    telemetry = Telemetry()
    if schema >= 2:
        telemetry = Telemetry(idents, devices, replicates, times, numbers("sm_clock_mhz"),
                              texts("throttle"), [b or 1.0 for b in numbers("batch")])
    return _by_device(idents, devices, replicates, indexes, times), telemetry


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
    if meta.get("schema_version") not in SCHEMA_VERSIONS:
        raise InputError(f"{path}: schema_version {meta.get('schema_version')!r}, "
                         f"this report reads versions "
                         f"{', '.join(map(str, SCHEMA_VERSIONS))}")
    return meta


METRICS_COLUMNS = ("benchmark", "axes", "device", "metric", "value", "unit")


def _read_metrics(path: Path) -> list[Metric]:
    """metrics.csv: one measured figure per row (long format). Its columns
    are promised once the file is there; a value that is not a number stops
    the report like one in results.csv."""
    out = []
    for line, raw in _read_csv(path, METRICS_COLUMNS):
        where = f"{path}:{line}"
        value = _number(raw["value"], f"{where}: column value")
        if value is None:
            continue  # an empty value: not measured
        axes = format_axes(parse_axes(raw["axes"], f"{where}: "))
        out.append(Metric(raw["benchmark"], axes, raw["device"], raw["metric"], value,
                          raw["unit"]))
    return out


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
    schema = meta["schema_version"]
    results_path = path / "results.csv"
    if not results_path.exists():
        raise InputError(f"{results_path}: missing (every result directory has results.csv)")
    results = read_results(results_path, schema)
    samples_path = path / "samples.csv"
    if not samples_path.exists() and (path / "samples.csv.xz").exists():
        samples_path = path / "samples.csv.xz"
    has_samples = samples_path.exists()
    by_device, telemetry = read_samples(samples_path, schema) if has_samples else ({}, Telemetry())
    if not has_samples and warn:
        warn(f"{samples_path}: missing; distributions will be left out")
    side = {}
    for name in OPTIONAL_CSV:
        if (path / name).exists():
            side[name] = _read_side_csv(path / name)
    merged: dict[tuple[str, str], list[float]] = {}
    for per in by_device.values():
        for key, times in per.items():
            merged.setdefault(key, []).extend(times)
    metrics = _read_metrics(path / "metrics.csv") if (path / "metrics.csv").exists() else []
    run = Run(path=path, meta=meta, results=results, samples=merged, side_csv=side,
              has_samples=has_samples, schema=schema, telemetry=telemetry,
              samples_by_device=by_device, metrics=metrics)
    from .conditions import judge_throttle  # conditions reads Run: imported late
    judge_throttle(run)
    return run


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
