"""The hardware comparison page: runs from different GPUs, lined up point by
point, each judged against its own peaks, with per-precision roofs and the
telemetry each run was measured under.

The second GPU is SYNTHETIC: a recorded H200 run transformed by derive.py
(times x 1.6, peaks x 0.65, another name and compute capability), written in
the test's tmp directory.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import expect as E
from conftest import REPO
from derive import THROTTLE_WORDS, derive_run

DATA = REPO / "tests" / "data"
SOURCES = [DATA / "h200-vecadd-large", DATA / "h200-matmul-configs"]


def _report(dirs, out: Path) -> Path:
    proc = subprocess.run([sys.executable, "-m", "reports", *map(str, dirs), "-o", str(out)],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def schema1_pair(tmp_path_factory):
    """The recorded runs (schema 1) against a derived 'GPU B' (schema 1)."""
    root = tmp_path_factory.mktemp("hw1")
    base = derive_run(SOURCES, root / "h200", schema=1)
    other = derive_run(SOURCES, root / "gpu_b", schema=1, time_scale=1.6, peak_scale=0.65,
                       gpu_name="SYNTHETIC GPU B (derived, not a measurement)", cc="8.0",
                       uuid="GPU-SYNTH-B")
    return base, other, _report([base, other], root / "report")


@pytest.fixture(scope="module")
def schema2_pair(tmp_path_factory):
    root = tmp_path_factory.mktemp("hw2")
    base = derive_run(SOURCES, root / "h200_s2", schema=2)
    other = derive_run(SOURCES, root / "gpu_b_s2", schema=2, time_scale=1.6, peak_scale=0.65,
                       gpu_name="SYNTHETIC GPU B (derived, not a measurement)", cc="7.5",
                       uuid="GPU-SYNTH-B")
    return base, other, _report([base, other], root / "report")


def _figures(out: Path) -> dict:
    return {f["name"]: f for f in E.manifest(out)["figures"]}


def test_points_line_up_with_absolute_values_and_own_peak_shares(schema1_pair):
    base, other, out = schema1_pair
    html = (out / "index.html").read_text()
    assert "hardware comparison" in html and "Hardware: the same points on each GPU" in html
    rows = {(r["benchmark"], r["axes"]): r for r in E.timed(base)}
    new = {(r["benchmark"], r["axes"]): r for r in E.timed(other)}
    data = E.figure_data(out, "compare/hardware_best_points")
    assert {r["run"] for r in data["rows"]} == {"NVIDIA H200 (h200)",
                                                "SYNTHETIC GPU B (derived, not a measurement) (gpu_b)"}
    for rec in data["rows"]:
        src = (rows if rec["run"].endswith("(h200)") else new)[(rec["benchmark"], rec["axes"])]
        assert rec["value"] == float(src["gbps"] if rec["unit"] == "GB/s" else src["tflops"])
        if src["pct_peak"]:
            assert rec["pct_peak"] == float(src["pct_peak"])
            assert rec["peak"] == float(src["peak"])
    # every benchmark timed on both appears once per GPU, at the base's best point
    benches = {b for b, _ in rows if (b, _) in new}
    assert {r["benchmark"] for r in data["rows"]} == benches
    for bench in benches:
        best = max((r for k, r in rows.items() if k[0] == bench and k in new),
                   key=lambda r: float(r["gbps"] if r["family"] == "vecadd" else r["tflops"]))
        got = {r["axes"] for r in data["rows"] if r["benchmark"] == bench}
        assert got == {best["axes"]}
    # the table holds every common point, values of both GPUs as text
    some = next(iter(k for k in rows if k in new and rows[k]["family"] == "matmul"))
    assert f"{float(rows[some]['tflops']):.4g}" in html
    assert f"{float(new[some]['tflops']):.4g}" in html


def test_schema1_runs_say_telemetry_was_not_recorded(schema1_pair):
    _, _, out = schema1_pair
    html = (out / "index.html").read_text()
    assert html.count("Telemetry was not recorded") >= 2
    assert not [n for n in _figures(out) if "telemetry" in n]


def test_roofline_has_per_precision_roofs_from_the_table(schema1_pair):
    base, other, out = schema1_pair
    meta = json.loads((base / "meta.json").read_text())["device"]
    roofs = {r["precision"]: r for r in E.figure_data(out, "run1_h200/roofline")["roofs"]}
    assert set(roofs) == {"FP32", "TF32 tensor", "BF16 tensor"}
    clock = meta["sm_clock_khz"] * 1e3
    assert roofs["BF16 tensor"]["tflops"] == pytest.approx(meta["sm_count"] * 4096 * clock / 1e12)
    assert roofs["TF32 tensor"]["tflops"] == pytest.approx(meta["sm_count"] * 2048 * clock / 1e12)
    assert roofs["FP32"]["kind"] == "run" and roofs["BF16 tensor"]["kind"] == "table"
    assert "datasheet" in roofs["BF16 tensor"]["source"]
    caption = _figures(out)["run1_h200/roofline"]["caption"]
    assert "table values" in caption and "BF16 tensor" in caption
    # the derived GPU B says compute capability 8.0: the A100 rates of the table
    roofs_b = {r["precision"]: r for r in E.figure_data(out, "run2_gpu_b/roofline")["roofs"]}
    assert roofs_b["BF16 tensor"]["tflops"] == pytest.approx(meta["sm_count"] * 2048 * clock / 1e12)


def test_an_architecture_missing_from_the_table_gets_no_tensor_roof(schema2_pair):
    _, _, out = schema2_pair
    data = E.figure_data(out, "run2_gpu_b_s2/roofline")
    assert [r["precision"] for r in data["roofs"]] == ["FP32"]
    assert "7.5 is not in the tensor-core table" in data["no_tensor_roofs"]
    assert "No tensor-core roofs" in _figures(out)["run2_gpu_b_s2/roofline"]["caption"]


def test_schema2_telemetry_is_drawn_and_throttled_points_flagged(schema2_pair):
    base, _, out = schema2_pair
    figs = _figures(out)
    for name in ("run1_h200_s2/telemetry_vecadd", "run1_h200_s2/telemetry_matmul",
                 "compare/telemetry_run1", "compare/telemetry_run2"):
        assert name in figs, name
    throttled = {r["_id"] for r in E.rows(base) if r["throttle"] == THROTTLE_WORDS}
    assert throttled
    tele = E.figure_data(out, "run1_h200_s2/telemetry_matmul")
    assert {p["id"] for p in tele["rows"] if p["throttle"] == THROTTLE_WORDS} == \
        {i for i in throttled if i.startswith("matmul/")}
    clocks = [s["sm_clock_mhz"] for s in tele["samples"]]
    assert min(clocks) == 1590.0 and max(clocks) == 1980.0
    # every flagged point of every line chart is a throttled row, and back
    flagged = set()
    for name in figs:
        data = E.figure_data(out, name)
        if data["kind"] == "line" and name.startswith("run1_"):
            for s in data["series"]:
                flagged |= {i for i, f in zip(s["ids"], s["flags"]) if f}
                assert all(f == THROTTLE_WORDS for f in s["flags"] if f)
    assert flagged and flagged <= throttled
    assert "Red rings" in figs["run1_h200_s2/matmul_tflops_vs_size"]["caption"]
    hw = E.figure_data(out, "compare/hardware_best_points")
    assert any(r["throttle"] == THROTTLE_WORDS for r in hw["rows"])
    html = (out / "index.html").read_text()
    assert "Telemetry was not recorded" not in html
    assert "[throttled: " + THROTTLE_WORDS in html
    assert "power_mean_w" in figs["run1_h200_s2/telemetry_matmul"]["caption"]


def test_schema2_without_nvml_says_so(tmp_path):
    run = derive_run(SOURCES[:1], tmp_path / "no_nvml", schema=2, telemetry=False)
    out = _report([run], tmp_path / "report")
    html = (out / "index.html").read_text()
    assert "telemetry columns are empty" in html
    assert not [n for n in _figures(out) if "telemetry" in n]


def test_a_run_over_two_devices_shows_them_side_by_side(tmp_path):
    run = derive_run([SOURCES[0], DATA / "h200-matmul-defaults"], tmp_path / "two_gpus",
                     schema=2, devices=("0", "1"))
    out = _report([run], tmp_path / "report")
    labels = [r["label"] for r in E.manifest(out)["runs"]]
    assert labels == ["NVIDIA H200 [device 0] (two_gpus)", "NVIDIA H200 [device 1] (two_gpus)"]
    data = E.figure_data(out, "compare/vecadd_gbps_vs_n")
    assert [p["run"] for p in data["panels"]] == labels
    # device 1 was derived 10% slower: its rows, not device 0's, are in its panel
    rows = [r for r in E.rows(run) if r["device"] == "1" and r["status"] in ("ok", "noisy")]
    ids = {f"{r['benchmark']} [{r['axes']}]": float(r["gbps"]) for r in rows}
    dev0 = {f"{r['benchmark']} [{r['axes']}]": float(r["gbps"]) for r in E.rows(run)
            if r["device"] == "0" and r["status"] in ("ok", "noisy")}
    checked = 0
    for s in data["panels"][1]["series"]:
        for y, ident in zip(s["y"], s["ids"]):
            assert y == ids[ident] and y != dev0[ident]
            checked += 1
    assert checked
    # host points (device empty) are drawn once, with the first device
    hosts = {r["_id"] for r in E.rows(run) if r["device"] == "" and r["status"] in ("ok", "noisy")}
    assert hosts
    drawn = [{i for s in E.figure_data(out, f"run{k}_two_gpus/matmul_tflops_vs_size")["series"]
              for i in s["ids"]} for k in (1, 2)]
    assert drawn[0] & hosts and not drawn[1] & hosts
