"""The recorded H200 runs in tests/data: internally consistent, and what
`cubench compare` says about the recorded A/A and A/B pairs."""
import csv
import json
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
    assert meta["schema_version"] in (1, 2, 3) and meta["device"]["name"] == "NVIDIA H200"
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


def compare(cubench, base, new, *extra):
    p = subprocess.run([cubench, "compare", str(DATA / base), str(DATA / new), "--csv", "-", *extra],
                       capture_output=True, text=True, timeout=120)
    rows = list(csv.DictReader(p.stdout.splitlines()))
    return p.returncode, rows


@pytest.fixture(scope="module")
def calibration(cubench, tmp_path_factory):
    """The between-run spread of the last two calls' A/A pairs (aa2, aa3:
    four processes), recorded once as a user would per machine."""
    path = tmp_path_factory.mktemp("calibration") / "h200.csv"
    runs = [str(DATA / f"h200-{pair}-{side}") for pair in ("aa2", "aa3") for side in "AB"]
    p = subprocess.run([cubench, "compare", "--calibrate", *runs, "-o", str(path)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return path


def test_calibrate_refuses_one_pair(cubench, tmp_path):
    """One A/A pair cannot measure what processes share: --calibrate needs 3
    runs (it wrote sigma = 0 from a pair before, or from a run given twice)."""
    for runs in (["h200-aa3-A", "h200-aa3-B"], ["h200-aa3-A", "h200-aa3-A", "h200-aa3-A"]):
        p = subprocess.run([cubench, "compare", "--calibrate", *[str(DATA / r) for r in runs],
                            "-o", str(tmp_path / "cal.csv")], capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 2 and "at least 3 runs" in p.stderr
        assert not (tmp_path / "cal.csv").exists()


def test_known_slowdown_with_the_default_widening(cubench):
    """One schema-1 run per side and no calibration: compare assumes the
    default between-run spread of device kernels above 65 us (0.16% per run,
    measured on the recorded H200 runs, compare_defaults.c) and flags the
    +5-6% slowdown at every point, saying the spread was assumed;
    --between-run 0.01 (the old flat default) cannot claim it."""
    rc, rows = compare(cubench, "h200-ab-A", "h200-ab-B")
    assert rc == 1
    assert len(rows) == 8 and all(r["verdict"] == "slower" for r in rows)
    assert all(r["widening"] == "default" and float(r["between_run_sd"]) == 0.0016 for r in rows)
    assert all(r["kind"] == "device" for r in rows)
    rc, rows = compare(cubench, "h200-ab-A", "h200-ab-B", "--between-run", "0.01")
    assert rc == 0 and all(r["verdict"] == "inconclusive" for r in rows)
    assert all(float(r["mde"]) > 0.05 for r in rows)


def test_known_slowdown_is_flagged_with_a_calibration(cubench, calibration):
    rc, rows = compare(cubench, "h200-ab-A", "h200-ab-B", "--calibration", str(calibration))
    assert rc == 1
    assert len(rows) == 8 and all(r["verdict"] == "slower" for r in rows)
    assert all(r["widening"] == "calibration" and float(r["mde"]) < 0.05 for r in rows)


@pytest.mark.parametrize("pair", ["aa1", "aa2", "aa3"])
def test_aa_pairs(cubench, pair, calibration):
    """Two runs of the same build over 140 points: nothing slower or faster,
    exit 0, with the default widening and with the calibration (recorded on
    aa2 and aa3; aa1 is another call). Before compare widened
    by the between-run spread, aa1 flagged n = 2^24 at +3.3%: the bimodal
    point whose mode is not tied to the process."""
    for extra in ([], ["--calibration", str(calibration)]):
        rc, rows = compare(cubench, f"h200-{pair}-A", f"h200-{pair}-B", *extra)
        assert rc == 0 and len(rows) == 140
        assert not [r for r in rows if r["verdict"] in ("slower", "faster")]


def test_targets_script_fails_on_a_missed_target(tmp_path):
    """scripts/record/targets.py passes on the recorded runs and exits 1 when one
    figure falls below its target (here: every vecadd median doubled)."""
    import shutil
    import subprocess
    import sys
    script = ROOT / "scripts" / "record" / "targets.py"
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
