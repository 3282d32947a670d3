"""The recorded H200 runs in tests/data: internally consistent, and what
`cubench compare` says about the recorded A/A and A/B pairs."""
import csv
import json
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"
RUNS = sorted(p for p in DATA.glob("h200-*") if (p / "results.csv").exists())


def test_there_are_recorded_runs():
    assert len(RUNS) >= 10


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_run_is_consistent(run):
    meta = json.loads((run / "meta.json").read_text())
    assert meta["schema_version"] in (1, 2) and meta["device"]["name"] == "NVIDIA H200"
    assert meta["complete"] is True
    with open(run / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert rows
    for r in rows:
        assert r["status"] in ("ok", "noisy", "skip", "fail")
        assert r["status"] != "fail", (r["benchmark"], r["axes"], r["reason"])
        if r["status"] in ("ok", "noisy"):
            med = float(r["median_s"])
            assert float(r["min_s"]) <= med <= float(r["max_s"])
            if r["bytes"]:
                assert float(r["gbps"]) == pytest.approx(float(r["bytes"]) / med / 1e9, rel=1e-6)
            if r["flops"]:
                assert float(r["tflops"]) == pytest.approx(float(r["flops"]) / med / 1e12, rel=1e-6)
            if r["pct_peak"]:
                fig = float(r["tflops"] if r["peak_unit"] == "TFLOP/s" else r["gbps"])
                assert float(r["pct_peak"]) == pytest.approx(100 * fig / float(r["peak"]), rel=1e-6)


def compare(cubench, base, new):
    p = subprocess.run([cubench, "compare", str(DATA / base), str(DATA / new), "--csv", "-"],
                       capture_output=True, text=True, timeout=120)
    rows = list(csv.DictReader(p.stdout.splitlines()))
    return p.returncode, rows


def test_known_slowdown_is_flagged(cubench):
    rc, rows = compare(cubench, "h200-ab-A", "h200-ab-B")
    assert rc == 1
    assert len(rows) == 8 and all(r["verdict"] == "slower" for r in rows)


@pytest.mark.parametrize("pair", ["aa1", "aa2", "aa3"])
def test_aa_pairs(cubench, pair):
    """Two runs of the same build over 140 points. aa2 and aa3 (the final
    build) flag nothing slower;
    aa1 flags one point, n = 2^24 at +3.3%, where the kernel itself (CUPTI
    agrees with the events) ran slower in the second process: the spread
    between processes at that L2-sized working set, which the perf gate's
    confirmation re-run exists for. The test pins that down, not more."""
    rc, rows = compare(cubench, f"h200-{pair}-A", f"h200-{pair}-B")
    assert len(rows) == 140
    slower = [r for r in rows if r["verdict"] == "slower"]
    if pair in ("aa2", "aa3"):
        assert rc == 0 and not slower
    else:
        assert rc == 1 and len(slower) == 1
        assert re.search(r"n=16777216;", slower[0]["axes"]) and float(slower[0]["ratio"]) < 1.04


def test_targets_script_fails_on_a_missed_target(tmp_path):
    """scripts/targets.py passes on the recorded runs and exits 1 when one
    figure falls below its target (here: every vecadd median doubled)."""
    import shutil
    import subprocess
    import sys
    script = ROOT / "scripts" / "targets.py"
    ok = subprocess.run([sys.executable, str(script)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    data = tmp_path / "data"
    shutil.copytree(ROOT / "tests" / "data", data,
                    ignore=shutil.ignore_patterns("samples.csv*"))
    path = data / "h200-vecadd-large" / "results.csv"
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        if r["gbps"]:
            r["gbps"] = str(float(r["gbps"]) / 2)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
    bad = subprocess.run([sys.executable, str(script), str(data)], capture_output=True, text=True)
    assert bad.returncode == 1
    assert "vecadd best GB/s at n=2^28" in bad.stderr
