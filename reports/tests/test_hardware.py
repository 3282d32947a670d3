"""The hardware comparison page: runs from different GPUs, lined up point by
point, each judged against its own peaks, with per-precision roofs and the
telemetry each run was measured under.

The second GPU is SYNTHETIC: a recorded H200 run transformed by derive.py
(times x 1.6, peaks x 0.65, another name and compute capability), written in
the test's tmp directory.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import expect as E
from conftest import REPO, unrendered
from derive import THROTTLE_WORDS, derive_run

DATA = REPO / "tests" / "data"
# Small recorded runs of both kinds: five vecadd points and 16 matmul points.
SOURCES = [DATA / "h200-cupti-on", DATA / "h200-matmul-configs"]


def _report(dirs, out: Path) -> Path:
    """Drawn in-process (the CLI has tests of its own) and unrendered: these
    tests read the figures' data and the page, no pixels (test_browser
    renders a hardware page of a derived GPU B)."""
    from reports.build import write_report
    with unrendered():
        write_report([str(d) for d in dirs], out, warn=lambda message: None)
    return out


def _gpu_b_pair(root: Path, schema: int, suffix: str, cc: str):
    """The recorded runs against a derived 'GPU B' (1.6x the time, 0.65x
    the peaks), both at `schema`, and their report: (base, other, out)."""
    base = derive_run(SOURCES, root / f"h200{suffix}", schema=schema)
    other = derive_run(SOURCES, root / f"gpu_b{suffix}", schema=schema, time_scale=1.6,
                       peak_scale=0.65, gpu_name="SYNTHETIC GPU B (derived, not a measurement)",
                       cc=cc, uuid="GPU-SYNTH-B")
    return base, other, _report([base, other], root / "report")


@pytest.fixture(scope="module")
def schema1_pair(tmp_path_factory):
    """The recorded runs (schema 1) against a derived 'GPU B' (schema 1)."""
    return _gpu_b_pair(tmp_path_factory.mktemp("hw1"), 1, "", cc="8.0")


@pytest.fixture(scope="module")
def schema2_pair(tmp_path_factory):
    return _gpu_b_pair(tmp_path_factory.mktemp("hw2"), 2, "_s2", cc="7.5")


def _figures(out: Path) -> dict:
    return {f["name"]: f for f in E.manifest(out)["figures"]}


def test_points_line_up_with_absolute_values_and_own_peak_shares(schema1_pair):
    base, other, out = schema1_pair
    html = (out / "index.html").read_text()
    assert "cubench report — hardware comparison" in html and "A/B" not in html
    # the conditions that differ come first: here the device (name, compute capability)
    section = html[html.index('id="hardware-comparison"'):]
    assert section.index("What differs between the runs") < section.index(
        "compare/hardware_best_points.png")
    assert not [n for n in _figures(out) if n.startswith("compare/ratios_")]  # drawn once
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


def test_every_share_names_its_own_peak(schema1_pair):
    """Where GPUs differ most (tensor-core and TF32/BF16 cuBLAS rows), the
    share is of the tensor peak of that GPU and precision, named."""
    _, _, out = schema1_pair
    data = E.figure_data(out, "compare/hardware_best_points")
    for rec in data["rows"]:
        if rec["benchmark"] in ("matmul/cublas_tf32", "matmul/cublas_bf16"):
            assert rec["pct_peak"] is not None and "peak" in rec["peak_source"]
        if rec["pct_peak"] is not None:
            assert rec["peak"] and rec["peak_source"]


def test_cpu_rows_are_labelled_by_the_host_cpu(tmp_path):
    base = derive_run([DATA / "h200-matmul-defaults"], tmp_path / "a", schema=1)
    other = derive_run([DATA / "h200-matmul-defaults"], tmp_path / "b", schema=1,
                       time_scale=1.3, gpu_name="SYNTHETIC GPU B (derived, not a measurement)",
                       uuid="GPU-SYNTH-B")
    meta = json.loads((other / "meta.json").read_text())
    meta["host"]["cpu"] = "SYNTHETIC CPU B"
    (other / "meta.json").write_text(json.dumps(meta))
    out = _report([base, other], tmp_path / "report")
    data = E.figure_data(out, "compare/hardware_best_points")
    host = [r for r in data["rows"] if r["benchmark"].startswith("matmul/host")]
    assert {r["who"] for r in host} == {"Intel(R) Xeon(R) Processor", "SYNTHETIC CPU B"}
    html = (out / "index.html").read_text()
    assert "on SYNTHETIC CPU B" in html


def test_schema1_runs_say_telemetry_was_not_recorded(schema1_pair):
    _, _, out = schema1_pair
    html = (out / "index.html").read_text()
    assert html.count("Telemetry was not recorded") >= 2
    assert not [n for n in _figures(out) if "telemetry" in n]


def test_roofline_has_per_precision_roofs_from_the_table(schema1_pair):
    base, other, out = schema1_pair
    meta = json.loads((base / "meta.json").read_text())["device"]
    roofs = {r["precision"]: r for r in E.figure_data(out, "run1_h200/roofline")["roofs"]}
    assert set(roofs) == {"FP32", "TF32 tensor", "BF16 tensor", "FP8 tensor"}
    # an H200 (sm_90, 132 SMs): at the datasheet's clock, 1830 MHz, the figures
    # it cites (989.4 BF16, 494.7 TF32 dense), not at the 1980 MHz max boost
    assert meta["sm_count"] == 132 and meta["sm_clock_khz"] == 1980000
    assert roofs["BF16 tensor"]["tflops"] == pytest.approx(132 * 4096 * 1830e6 / 1e12)
    assert roofs["TF32 tensor"]["tflops"] == pytest.approx(132 * 2048 * 1830e6 / 1e12)
    assert roofs["FP8 tensor"]["tflops"] == pytest.approx(132 * 8192 * 1830e6 / 1e12)
    assert "1978.9 dense" in roofs["FP8 tensor"]["source"]
    assert "989.4" in roofs["BF16 tensor"]["source"] and "494.7" in roofs["TF32 tensor"]["source"]
    assert roofs["BF16 tensor"]["clock"] == "datasheet, 1830 MHz"
    assert roofs["FP32"]["kind"] == "run" and roofs["BF16 tensor"]["kind"] == "table"
    assert roofs["FP32"]["clock"] == "max boost, 1980 MHz"
    caption = _figures(out)["run1_h200/roofline"]["caption"]
    assert "datasheet, 1830 MHz" in caption and "BF16 tensor" in caption
    # the derived GPU B says compute capability 8.0 with 132 SMs: no datasheet
    # of the table has that part, so its roofs are at its max boost clock, and say so
    roofs_b = {r["precision"]: r for r in E.figure_data(out, "run2_gpu_b/roofline")["roofs"]}
    assert roofs_b["BF16 tensor"]["tflops"] == pytest.approx(132 * 2048 * 1980e6 / 1e12)
    assert roofs_b["BF16 tensor"]["clock"] == "max boost, 1980 MHz"


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
                 "run2_gpu_b_s2/telemetry_vecadd"):
        assert name in figs, name
    assert not [n for n in figs if n.startswith("compare/telemetry")]  # drawn once, per run
    throttled = {r["_id"] for r in E.rows(base) if r["throttle"] == THROTTLE_WORDS}
    assert throttled
    tele = E.figure_data(out, "run1_h200_s2/telemetry_matmul")
    assert {p["id"] for p in tele["rows"] if p["throttle"] == THROTTLE_WORDS} == \
        {i for i in throttled if i.startswith("matmul/")}
    low = [b["sm_clock_min_mhz"] for b in tele["buckets"]]
    high = [b["sm_clock_max_mhz"] for b in tele["buckets"]]
    assert min(low) == 1590.0 and max(high) == 1980.0
    # every flagged point of every line chart is a throttled row, and back
    flagged = set()
    for name in figs:
        data = E.figure_data(out, name)
        if data["kind"] == "line" and name.startswith("run1_"):
            for s in data["series"]:
                flagged |= {i for i, f in zip(s["ids"], s["flags"]) if f}
                assert all(f == THROTTLE_WORDS for f in s["flags"] if f)
    assert flagged and flagged <= throttled
    # derive.py's throttled points ran at 1575-1590 MHz, far below the 1980 maximum
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
