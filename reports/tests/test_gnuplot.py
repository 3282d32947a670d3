"""scripts/plot_gnuplot.sh: the same charts without Python, checked by their data.

Skipped (with the reason) where gnuplot is not installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import expect as E
from conftest import REPO, recorded_runs, write_synthetic_run

SCRIPT = REPO / "scripts" / "plot_gnuplot.sh"
pytestmark = pytest.mark.skipif(shutil.which("gnuplot") is None,
                                reason="gnuplot not installed (apt-get install gnuplot-nox)")


def read_blocks(path: Path) -> dict[str, dict[float, float]]:
    """prepare.awk's output: {title: {x: y}} per data block."""
    blocks: dict = {}
    current = None
    for line in path.read_text().splitlines():
        if line.startswith('"'):
            current = blocks.setdefault(line.split('"')[1], {})
        elif line.strip():
            x, y, _ident = line.split()
            current[float(x)] = float(y)
    return blocks


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    return write_synthetic_run(tmp_path_factory.mktemp("gp") / "run")


@pytest.mark.parametrize("which", ["synthetic"] + [str(p) for p in recorded_runs()],
                         ids=lambda p: Path(p).name)
def test_gnuplot_charts_hold_the_recorded_values(which, synthetic, tmp_path):
    run = synthetic if which == "synthetic" else Path(which)
    out = tmp_path / "gp"
    proc = subprocess.run(["bash", str(SCRIPT), str(run), str(out)], capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    charts = 0
    vec = [r for r in E.timed(run, "vecadd") if "n" in r["_axes"] and r["gbps"]]
    if vec:
        want = {k.partition("/")[2]: v for k, v in E.best_curves(vec, "n", "gbps").items()}
        assert read_blocks(out / "gnuplot_vecadd.dat") == want
        charts += 1
    mm = [r for r in E.timed(run, "matmul") if r["tflops"]]
    if mm:
        xaxis = "size" if all("size" in r["_axes"] for r in mm) else "m"
        want = {k.partition("/")[2]: v for k, v in E.best_curves(mm, xaxis, "tflops").items()}
        assert read_blocks(out / "gnuplot_matmul.dat") == want
        charts += 1
    tr = [r for r in E.timed(run, "transfers") if "bytes" in r["_axes"]
          and "streams" not in r["_axes"] and r["gbps"]]
    panel = lambda r: r["_axes"].get("direction") or r["benchmark"].partition("/")[2]
    for name in {panel(r) for r in tr}:
        rows = [r for r in tr if panel(r) == name]
        key = lambda r: " ".join([r["benchmark"].partition("/")[2]] + [
            v for k, v in r["_axes"].items() if k not in ("bytes", "direction")])
        want = E.best_curves(rows, "bytes", "gbps", key)
        assert read_blocks(out / f"gnuplot_transfers_{name}.dat") == want
        charts += 1
    pngs = sorted(out.glob("*.png"))
    # The gnuplot path draws vecadd, matmul and transfers only: a run of other
    # families (torch, cupy, ...) gets no chart there, and none is invented.
    assert len(pngs) == charts
    assert charts > 0 or which != "synthetic"
    for png in pngs:
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
        svg = png.with_suffix(".svg").read_text()
        assert "<svg" in svg
        assert "GB/s" in svg or "TFLOP/s" in svg


def test_gnuplot_refuses_bad_input_with_exit_2(tmp_path):
    cases = {
        tmp_path / "absent": "not a directory",
        tmp_path / "nofile": "results.csv: missing",
        tmp_path / "empty": "empty file",
        tmp_path / "nocols": "missing column family",
    }
    (tmp_path / "nofile").mkdir()
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "results.csv").write_text("")
    (tmp_path / "nocols").mkdir()
    (tmp_path / "nocols" / "results.csv").write_text("schema_version,benchmark\n1,vecadd/x\n")
    for run, message in cases.items():
        proc = subprocess.run(["bash", str(SCRIPT), str(run), str(tmp_path / "out")],
                              capture_output=True, text=True)
        assert proc.returncode == 2, (run, proc.stderr)
        assert message in proc.stderr


def test_gnuplot_skips_absent_families(tmp_path):
    run = write_synthetic_run(tmp_path / "only_vecadd", families=("vecadd",))
    proc = subprocess.run(["bash", str(SCRIPT), str(run), str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "matmul chart skipped" in proc.stderr
    assert sorted(p.name for p in (tmp_path / "out").glob("*.png")) == ["gnuplot_vecadd.png"]


def test_gnuplot_style_is_the_reports_style():
    """One colour and line convention: style.gp is what reports/style.py
    says, and the script gives each curve the line type style.py's rule
    gives it."""
    from reports import style
    assert (REPO / "reports" / "gnuplot" / "style.gp").read_text() == style.gnuplot_style()
    titles = ["cublas_fp32", "naive", "host_cblas", "tiled", "cublas_tf32", "host_blocked"]
    titles += [f"rung{i}" for i in range(10)]
    data = "".join(f'"{t}"\n1 2 x\n\n\n' for t in titles)
    script = SCRIPT.read_text()
    function = script[script.index("linetypes() {"):]
    function = function[:function.index("\n}\n") + 3]
    proc = subprocess.run(["bash", "-c", function + 'linetypes /dev/stdin'], input=data,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert [int(t) for t in proc.stdout.split()] == style.gnuplot_linetypes(titles)


def test_gnuplot_draws_peaks_black_dashed_and_cpu_brown(synthetic, tmp_path):
    from reports import style
    out = tmp_path / "gp"
    subprocess.run(["bash", str(SCRIPT), str(synthetic), str(out)], check=True,
                   capture_output=True)
    svg = (out / "gnuplot_vecadd.svg").read_text()
    brown = style.CPU_COLORS[0].lstrip("#")
    rgb = tuple(int(brown[i:i + 2], 16) for i in (0, 2, 4))
    assert "rgb(%3d, %3d, %3d)" % rgb in svg  # the host curve
    assert "stroke-dasharray" in svg  # the dashed peak
