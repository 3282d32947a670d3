"""The cubench binary, for what the report takes from it rather than redoing:
the fleet page's numbers (`cubench fleet`) and an A/B page's verdicts
(`cubench compare`), so that the page says exactly what the C tools say.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import subprocess
from pathlib import Path

from .load import InputError

REPO = Path(__file__).resolve().parent.parent


def front_end_parser(prog: str, description: str, source: str, metavar: str,
                     source_help: str) -> argparse.ArgumentParser:
    """The options every page drawn from a cubench command's output has: the
    command's input (`source`, required), -o/--out and --cubench."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument(source, required=True, metavar=metavar, help=source_help)
    parser.add_argument("-o", "--out", required=True, metavar="OUT_DIR")
    parser.add_argument("--cubench", metavar="BIN", help="the cubench binary")
    return parser


def find_cubench(given: str | None = None) -> str:
    """--cubench, $CUBENCH_BIN, this checkout's build/ or build-ci/, or PATH;
    InputError when there is none."""
    if given:
        if not (os.access(given, os.X_OK) and Path(given).is_file()):
            raise InputError(f"--cubench {given}: not an executable file")
        return given
    candidates = [os.environ.get("CUBENCH_BIN"),
                  str(REPO / "build" / "cubench"), str(REPO / "build-ci" / "cubench"),
                  shutil.which("cubench")]
    for c in candidates:
        if c and os.access(c, os.X_OK) and Path(c).is_file():
            return c
    raise InputError("cubench not found: build it (scripts/build.sh) or give --cubench BIN "
                     "(or set CUBENCH_BIN)")


def compare_verdicts(base: Path, new: Path) -> tuple[list[dict] | None, str]:
    """`cubench compare BASE NEW --csv -` as rows (verdict, ratio = NEW/BASE
    time, ci_lo, ci_hi, ...), or None and the reason there are none (no
    binary, or compare refused the pair)."""
    try:
        binary = find_cubench()
    except InputError as exc:
        return None, str(exc)
    try:
        proc = subprocess.run([binary, "compare", str(base), str(new), "--csv", "-",
                               "--fail-on", "none"], capture_output=True, text=True,
                              timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"cubench compare did not run ({exc})"
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        return None, "cubench compare: " + (lines[-1] if lines else f"exit {proc.returncode}")
    return list(csv.DictReader(io.StringIO(proc.stdout))), ""
