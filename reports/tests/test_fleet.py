"""The fleet page (reports/fleet.py) over two models: the recorded H200 A/A
runs (tests/data) and CPU-only runs made here with the cubench binary.

Needs the binary (CUBENCH_BIN, set by ctest, or a build in this checkout);
skipped without one. The numbers are cubench fleet's, so these tests check
the page, not the statistics (tests/cpu/test_fleet.c does).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import REPO, reports_cli
from reports.fleet import main, models, read_rows

AA_RUNS = ["aa1-A", "aa1-B", "aa2-A", "aa2-B", "aa3-A", "aa3-B"]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory, cubench):
    """Six H200 runs (links to the recorded ones) and three CPU-only runs."""
    root = tmp_path_factory.mktemp("fleet") / "fleet"
    root.mkdir()
    for name in AA_RUNS:
        (root / f"h200-{name}").symlink_to(REPO / "tests" / "data" / f"h200-{name}")
    for i in range(3):
        subprocess.run([cubench, "run", "vecadd/host", "matmul/host_blocked", "--quick",
                        "--quiet", "--axis", "m=64,128", "--out", str(root / f"cpu-{i}")],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return root


def test_two_models(fleet, cubench, tmp_path):
    out = tmp_path / "page"
    assert main(["--fleet", str(fleet), "-o", str(out), "--cubench", cubench]) == 0
    rows = read_rows(out / "fleet.csv")
    names = models(rows)
    assert len(names) == 2 and "NVIDIA H200" in names
    cpu = next(n for n in names if n.startswith("CPU: "))
    page = (out / "index.html").read_text()
    assert "NVIDIA H200" in page and cpu in page
    # The recorded A/A runs of one H200 sit inside the 5% band; the CPU runs
    # made here on a shared test machine may not (their verdicts are the
    # machine's, not the page's).
    assert {r["verdict"] for r in rows if r["model"] == "NVIDIA H200"} == {"ok"}
    manifest = json.loads((out / "report.json").read_text())
    assert manifest["models"] == names and manifest["status"] in (0, 1)
    assert f"cubench fleet exit {manifest['status']}" in page
    assert len(manifest["figures"]) == 2
    for fig in manifest["figures"]:
        for key in ("png", "svg", "data_json", "data_csv"):
            assert (out / fig[key]).stat().st_size > 0
    strips = {json.loads((out / f["data_json"]).read_text())["model"]:
              json.loads((out / f["data_json"]).read_text()) for f in manifest["figures"]}
    h200 = strips["NVIDIA H200"]["rows"]
    assert sorted(r["run"] for r in h200) == [f"h200-{n}" for n in AA_RUNS]
    assert {r["figure"] for r in h200} == {"vecadd"}
    assert {r["figure"] for r in strips[cpu]["rows"]} == {"vecadd/host", "matmul/host_blocked"}
    assert len(strips[cpu]["rows"]) == 6
    assert (out / "fleet.md").read_text().startswith("# cubench fleet")


def test_flagged_runs_are_marked(fleet, cubench, tmp_path):
    """A 0.1% tolerance at 50% confidence flags A/A runs whose interval misses
    it (aa1-B and aa3-B run 2% below the others): the page names them."""
    out = tmp_path / "page"
    assert main(["--fleet", str(fleet), "-o", str(out), "--cubench", cubench,
                 "--tolerance", "0.001", "--alpha", "0.5"]) == 0
    rows = read_rows(out / "fleet.csv")
    flagged = sorted({r["run"] for r in rows if r["verdict"] in ("slow", "fast", "missing")})
    assert flagged
    page = (out / "index.html").read_text()
    assert "Flagged: " + ", ".join(flagged) + "." in page
    assert "cubench fleet exit 1" in page
    assert 'class="marked"' in page


def test_schema2_gpu_run(cubench, tmp_path):
    """The recorded schema 2 run of the whole default suite (--device all on
    one H200, samples.csv.xz unpacked here), three times under three names:
    every GPU figure finds its reference point, the telemetry columns and the
    PCIe link reach the CSV, and identical runs are all ok."""
    import lzma
    src = REPO / "tests" / "data" / "h200-defaults-r2"
    base = tmp_path / "unpacked"
    base.mkdir()
    (base / "samples.csv").write_bytes(lzma.decompress((src / "samples.csv.xz").read_bytes()))
    root = tmp_path / "fleet"
    root.mkdir()
    for i in range(3):
        run = root / f"node{i}_GPU-test"
        run.mkdir()
        for name in ("results.csv", "meta.json"):
            (run / name).symlink_to(src / name)
        (run / "samples.csv").symlink_to(base / "samples.csv")
    out = tmp_path / "page"
    assert main(["--fleet", str(root), "-o", str(out), "--cubench", cubench]) == 0
    rows = read_rows(out / "fleet.csv")
    assert models(rows) == ["NVIDIA H200"]
    figures = {r["figure"] for r in rows}
    assert figures == {"vecadd", "pinned H2D", "pinned D2H", "cuBLAS FP32", "ladder best"}
    assert {r["verdict"] for r in rows} == {"ok"}
    for r in rows:
        assert r["sm_clock_median_mhz"] and r["throttle"] and r["power_mean_w"]
        assert r["pcie"] == "gen 5 x16"
        assert r["device_uuid"].startswith("GPU-")
        assert abs(float(r["ratio"]) - 1.0) < 1e-6  # the same samples (exp of a log)
    ladder = next(r for r in rows if r["figure"] == "ladder best")
    assert not ladder["benchmark"].startswith(("matmul/cublas", "matmul/host"))


def test_errors(fleet, cubench, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["--fleet", str(empty), "-o", str(tmp_path / "a"), "--cubench", cubench]) == 2
    assert "no run directories" in capsys.readouterr().err
    assert main(["--fleet", str(tmp_path / "none"), "-o", str(tmp_path / "b"),
                 "--cubench", cubench]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert main(["--fleet", str(fleet), "-o", str(tmp_path / "c"),
                 "--cubench", str(tmp_path / "no-such-binary")]) == 2
    assert "not an executable file" in capsys.readouterr().err
    assert not (tmp_path / "c" / "index.html").exists()


def test_module_entry_point(fleet, cubench, tmp_path):
    """`python3 -m reports --fleet` reaches the fleet page (the module run as
    __main__ in a forked child, conftest.reports_cli)."""
    out = tmp_path / "page"
    proc = reports_cli("--fleet", fleet, "-o", out, "--cubench", cubench)
    assert proc.returncode == 0, proc.stderr
    assert (out / "index.html").exists()
