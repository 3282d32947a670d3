"""recorded.py - a recorded run's CSV file, which tests/data keeps plain or,
where it is large, as NAME.xz (samples.csv, the suites' results.csv): one
opener for the scripts that read the recorded runs, the run directories
under a folder, one metric of a metrics.csv, and the scripts' one way to
exit."""

from __future__ import annotations

import csv
import lzma
import sys
from pathlib import Path


def open_csv(run_dir: Path, name: str):
    """`run_dir`/`name` opened for csv, or `name`.xz decompressed where only
    that is there."""
    plain = Path(run_dir) / name
    # Builds before cb_utf8_trim_tail could end a note that a byte limit cut
    # on the first half of a character (h200-r3/suiteH/compare-H3-H4): read
    # such a byte as U+FFFD rather than refuse the file.
    if plain.exists():
        return plain.open(newline="", encoding="utf-8", errors="replace")
    return lzma.open(plain.with_name(name + ".xz"), "rt", newline="", encoding="utf-8",
                     errors="replace")


def metric_values(run_dir: Path, metric: str) -> dict[tuple[str, str], float]:
    """`metric`'s value per (benchmark, axes) in `run_dir`/metrics.csv (the
    `--metrics` pass's long format, plain or .xz); rows without a number
    are left out."""
    values = {}
    with open_csv(run_dir, "metrics.csv") as f:
        for r in csv.DictReader(f):
            if r["metric"] == metric:
                try:
                    values[(r["benchmark"], r["axes"])] = float(r["value"])
                except ValueError:
                    pass
    return values


def run_dirs(parent: str, pattern: str = "*") -> list[Path]:
    """The run directories `parent`/`pattern` that hold a results.csv,
    plain or .xz, sorted by name."""
    return sorted(d for d in Path(parent).glob(pattern)
                  if (d / "results.csv").exists() or (d / "results.csv.xz").exists())


def run_script(main) -> None:
    """Exit with main()'s code; Ctrl-C exits 130, as cubench does."""
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
