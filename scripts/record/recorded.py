"""recorded.py - a recorded run's CSV file, which tests/data keeps plain or,
where it is large, as NAME.xz (samples.csv, the suites' results.csv): one
opener for the scripts that read the recorded runs."""

from __future__ import annotations

import lzma
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
