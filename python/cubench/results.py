"""Reading a run directory back: `cubench.load(dir)`.

    rows = cubench.load("results/2026-12-01T10:00:00Z-host")
    for r in rows:
        print(r["benchmark"], r["n"], r["median_s"], r["gbps"])
    df = rows.to_pandas()                # or cubench.load(dir, pandas=True)
    times = rows.samples_of(rows[0])     # the row's raw samples, seconds per run

Every column is read by its name (docs/schema.md), so a run of any schema
version reads the same way: 1 and 2, and 3 with its phase times, throttle
counts and speed-of-light columns. A column a version lacks is simply not
in its rows. The `axes` column is kept and each axis also gets a column of
its own: `n=1024;block=256;grid=auto` gives `n` = 1024, `block` = 256 and
`grid` = "auto" (an integer, a float or a word). An axis whose name is also
a column of results.csv (transfers' `bytes`) is called `axis_<name>`.

Values: empty fields are None; counts are int; the other numeric columns
are float; text columns stay text. samples.csv is read when first asked
for, compressed (`samples.csv.xz`) or not.
"""

from __future__ import annotations

import csv
import io
import json
import lzma
import re
from pathlib import Path
from typing import Any, Iterable

# Columns that hold text (any schema version); the rest are numbers.
TEXT_COLUMNS = frozenset({
    "benchmark", "family", "axes", "status", "reason", "timer", "cache", "kernels",
    "peak_unit", "ref_benchmark", "note", "device_uuid", "throttle", "peak_source",
    "kind", "key_figure", "key_rule",
})
# Columns that hold a count.
INT_COLUMNS = frozenset({
    "schema_version", "batch", "samples", "device", "replicates", "replicate", "sample",
    "throttled_samples",
})
_INT = re.compile(r"^[+-]?[0-9]+$")


class ResultsError(ValueError):
    """A directory that is not a readable cubench run."""


def _number(text: str) -> Any:
    """An int for whole-number text, a float for other numbers, else the text."""
    if _INT.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def _value(column: str, text: str) -> Any:
    if text == "":
        return None
    if column in TEXT_COLUMNS:
        return text
    if column in INT_COLUMNS and _INT.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text  # a column of a later version that holds words


def split_axes(text: str) -> list[tuple[str, Any]]:
    """`n=1024;block=auto` -> [("n", 1024), ("block", "auto")]."""
    out = []
    for part in (text or "").split(";"):
        if not part:
            continue
        name, sep, value = part.partition("=")
        if not sep:
            raise ResultsError(f"axes {text!r}: {part!r} is not name=value")
        out.append((name, _number(value)))
    return out


def _read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        data = path.read_bytes()
        if path.suffix == ".xz":
            data = lzma.decompress(data)
        text = data.decode("utf-8", errors="replace")
    except OSError as e:
        raise ResultsError(f"{path}: cannot read ({e.strerror})") from None
    except lzma.LZMAError as e:
        raise ResultsError(f"{path}: not an xz file ({e})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise ResultsError(f"{path}: empty (no header line)") from None
    except csv.Error as e:
        raise ResultsError(f"{path}: {e}") from None
    rows = []
    try:
        for line in reader:
            if not line:
                continue
            if len(line) != len(header):
                raise ResultsError(f"{path}, line {reader.line_num}: {len(line)} fields, the "
                                   f"header has {len(header)}")
            rows.append(line)
    except csv.Error as e:
        raise ResultsError(f"{path}, line {reader.line_num}: {e}") from None
    return header, rows


def _read_json(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        doc = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError) as e:
        raise ResultsError(f"{path}: not readable JSON ({e})") from None
    return doc if isinstance(doc, dict) else {}


def _device_text(value) -> str:
    return "" if value is None else str(value)


class Rows(list):
    """The rows of results.csv as dicts (a list: index, iterate, filter),
    plus the run's files: `dir`, `meta` (meta.json), `python` (python.json,
    when the Python package wrote one), `columns` (in file order, each axis
    column after `axes`), `axis_names`, and samples on demand."""

    def __init__(self, rows: Iterable[dict], *, dir: Path, columns: list[str],
                 axis_names: list[str], meta: dict, python: dict):
        super().__init__(rows)
        self.dir = dir
        self.columns = columns
        self.axis_names = axis_names
        self.meta = meta
        self.python = python
        self._samples_raw: tuple[list[str], list[list[str]]] | None = None
        self._samples: list[dict] | None = None
        self._times: dict[tuple, list[float]] | None = None

    @property
    def schema_version(self) -> int | None:
        return self[0].get("schema_version") if self else self.meta.get("schema_version")

    def where(self, **equal) -> "Rows":
        """The rows whose columns equal the keywords: `rows.where(status="ok", n=1024)`."""
        keep = [r for r in self if all(r.get(k) == v for k, v in equal.items())]
        return Rows(keep, dir=self.dir, columns=self.columns, axis_names=self.axis_names,
                    meta=self.meta, python=self.python)

    def _raw_samples(self) -> tuple[list[str], list[list[str]]]:
        if self._samples_raw is None:
            path = self.dir / "samples.csv"
            if not path.is_file() and (self.dir / "samples.csv.xz").is_file():
                path = self.dir / "samples.csv.xz"
            self._samples_raw = _read_csv(path) if path.is_file() else ([], [])
        return self._samples_raw

    def samples(self) -> list[dict]:
        """Every row of samples.csv (or samples.csv.xz) as a dict, typed like
        the rows; [] when the run has no samples file."""
        if self._samples is None:
            header, raw = self._raw_samples()
            self._samples = [{c: _value(c, t) for c, t in zip(header, r)} for r in raw]
        return self._samples

    def samples_of(self, row: dict) -> list[float]:
        """The time per run (seconds) of every sample of `row`, in file order."""
        if self._times is None:
            header, raw = self._raw_samples()
            self._times = {}
            if raw:
                for need in ("benchmark", "axes", "time_s"):
                    if need not in header:
                        raise ResultsError(f"{self.dir}: samples file has no {need} column")
                b, a, t = (header.index(c) for c in ("benchmark", "axes", "time_s"))
                d = header.index("device") if "device" in header else None
                for r in raw:
                    if r[t]:
                        key = (r[b], r[a], r[d] if d is not None else "")
                        self._times.setdefault(key, []).append(float(r[t]))
        key = (row.get("benchmark"), row.get("axes") or "", _device_text(row.get("device")))
        return list(self._times.get(key, ()))

    def to_pandas(self):
        """A pandas DataFrame with the same columns (pandas must be installed)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("to_pandas() needs pandas (pip install pandas); the rows "
                              "themselves are plain dicts") from None
        return pandas.DataFrame.from_records(list(self), columns=self.columns)

    def __repr__(self):
        return f"<cubench.Rows {len(self)} rows of {self.dir}>"


def load(dir: str | Path, *, pandas: bool = False):
    """Read run directory `dir` (results.csv, meta.json, python.json;
    samples on demand). Returns Rows, or a pandas DataFrame with
    `pandas=True` (then `df.attrs` holds `dir`, `meta` and `axis_names`)."""
    path = Path(dir)
    if not path.is_dir():
        raise ResultsError(f"{path}: no such directory")
    if not (path / "results.csv").is_file():
        raise ResultsError(f"{path}: no results.csv (not a cubench run directory)")
    header, raw = _read_csv(path / "results.csv")
    if "benchmark" not in header or "axes" not in header:
        raise ResultsError(f"{path / 'results.csv'}: no benchmark/axes columns "
                           "(not a cubench results file)")
    axis_names: list[str] = []
    rows = []
    for r in raw:
        row = {c: _value(c, t) for c, t in zip(header, r)}
        for name, value in split_axes(row["axes"] or ""):
            column = f"axis_{name}" if name in header else name
            if column not in axis_names:
                axis_names.append(column)
            row[column] = value
        rows.append(row)
    at = header.index("axes") + 1
    columns = header[:at] + axis_names + header[at:]
    out = Rows(rows, dir=path, columns=columns, axis_names=axis_names,
               meta=_read_json(path / "meta.json"), python=_read_json(path / "python.json"))
    if pandas:
        df = out.to_pandas()
        df.attrs.update(dir=str(path), meta=out.meta, axis_names=axis_names)
        return df
    return out
