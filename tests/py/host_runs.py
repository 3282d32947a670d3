"""Runs of the CPU baseline vecadd/host for the CLI tests: one thread, the
sizes and options a test names, into a directory of its own."""

from __future__ import annotations

import csv
import subprocess
from pathlib import Path


def run_host(cubench: str, out: Path, n: str, *opts: str, timeout: float = 300) -> list[dict]:
    """`cubench run vecadd/host --axis n=N --axis threads=1 OPTS --out OUT`,
    which must exit 0; the rows of the results.csv it wrote."""
    p = subprocess.run([cubench, "run", "vecadd/host", "--axis", f"n={n}", "--axis", "threads=1",
                        *opts, "--out", str(out)], capture_output=True, text=True, timeout=timeout)
    assert p.returncode == 0, p.stderr
    with open(out / "results.csv", newline="") as f:
        return list(csv.DictReader(f))
