"""Columns a run may add (docs/schema.md names them as they land): drawn when
present, never required. SYNTHETIC: small runs derived from recorded ones
(derive.py) with the columns written in, values chosen here so that every
figure's numbers are known: per-phase seconds, kind, throttled_samples,
throttle_wait_s, the sol_*_pct counters and a long-format metrics.csv.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

import expect as E
from conftest import REPO, unrendered
from derive import THROTTLE_WORDS, derive_run

DATA = REPO / "tests" / "data"
PHASES = ("setup_s", "verify_s", "warmup_s", "sampling_s", "teardown_s")
SOL = ("sol_dram_pct", "sol_l2_pct", "sol_l1_pct", "sol_sm_pct", "sol_tensor_pct")


def _add_columns(run: Path, values) -> None:
    """Append columns to results.csv: values(row) -> {column: text}."""
    with (run / "results.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r.update(values(r))
    with (run / "results.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _phases(r: dict) -> dict:
    timed = r["status"] in ("ok", "noisy")
    return {"setup_s": "0.25", "verify_s": "0.125", "warmup_s": "0.0625",
            "sampling_s": "0.5" if timed else "0", "teardown_s": "0.0625"}


def _sol(r: dict, i=[0]) -> dict:
    i[0] += 1
    return {c: f"{(10 * (k + 1) + i[0]) % 100}" for k, c in enumerate(SOL)}


@pytest.fixture(scope="module")
def extended(tmp_path_factory):
    root = tmp_path_factory.mktemp("columns")
    run = derive_run([DATA / "h200-matmul-tc", DATA / "h200-vecadd-large"], root / "ext",
                     schema=2)
    # every row: its phases, its kind, how many samples a reason was active
    # for (none: the reason was only active between samples), the counters
    _add_columns(run, lambda r: {**_phases(r), **_sol(r),
                                 "kind": "host" if r["cache"] == "n/a" else "device",
                                 "throttled_samples": "0", "throttle_wait_s": "0.5"})
    (run / "metrics.csv").write_text(
        "benchmark,axes,device,metric,value,unit\n"
        "matmul_tc/wgmma_bf16,m=8192;n=m;k=m,0,dram_bytes,4.2e9,bytes\n"
        "matmul_tc/wgmma_bf16,m=8192;n=m;k=m,0,sm__throughput,88.5,%\n")
    from reports.build import write_report
    out = root / "report"
    # Unrendered: the tests read the figures' data and the page, no pixels;
    # the recorded Python runs carry these columns, and test_report renders
    # their pages.
    with unrendered():
        write_report([str(run)], out, warn=lambda message: None)
    return run, out


def test_where_the_time_went(extended):
    run, out = extended
    data = E.figure_data(out, "phases")
    rows = E.rows(run)
    for rec in data["rows"]:
        frows = [r for r in rows if r["family"] == rec["family"]]
        for phase in PHASES:
            assert math.isclose(rec[phase], sum(float(_phases(r)[phase]) for r in frows))
    assert math.isclose(data["total_s"], sum(sum(float(v) for v in _phases(r).values())
                                             for r in rows))


def test_speed_of_light_per_ladder(extended):
    run, out = extended
    names = {f["name"] for f in E.manifest(out)["figures"]}
    assert {"sol_matmul_tc", "sol_vecadd"} <= names
    data = E.figure_data(out, "sol_matmul_tc")
    rows = {r["_id"]: r for r in E.rows(run)}
    assert data["units"] == list(SOL)
    for bar in data["rows"]:
        for c in SOL:
            assert bar[c] == float(rows[bar["id"]][c])
    html = (out / "index.html").read_text()
    assert "sm__throughput" in html  # metrics.csv gets its table


def test_no_flag_when_no_sample_saw_the_reason(extended):
    run, out = extended
    throttled = [r for r in E.rows(run) if r["throttle"] == THROTTLE_WORDS]
    assert throttled  # derive.py marked them, their clock at 1575-1590 MHz
    for name in [f["name"] for f in E.manifest(out)["figures"]]:
        data = E.figure_data(out, name)
        for s in data.get("series", []) if data["kind"] == "line" else []:
            assert not any(s["flags"]), name
    assert "not counted: no sample taken while it was active" in (out / "index.html").read_text()


def test_roofline_places_a_point_at_its_measured_intensity(extended):
    run, out = extended
    point = next(p for p in E.figure_data(out, "roofline")["rows"]
                 if p["benchmark"] == "matmul_tc/wgmma_bf16")
    row = next(r for r in E.rows(run) if r["_id"] == point["id"])
    if row["axes"] == "m=8192;n=m;k=m":  # metrics.csv's dram_bytes wins
        assert math.isclose(point["measured_intensity"], float(row["flops"]) / 4.2e9)
    else:  # sol_dram_pct of the DRAM peak over the median time
        moved = float(row["sol_dram_pct"]) / 100 * 4814.304e9 * float(row["median_s"])
        assert math.isclose(point["measured_intensity"], float(row["flops"]) / moved,
                            rel_tol=1e-6)


def test_telemetry_on_the_wall_clock(extended):
    run, out = extended
    data = E.figure_data(out, "telemetry_vecadd")
    assert data["x_label"].startswith("run time (s, wall clock")
    spans = sorted((p["start_s"], p["end_s"]) for p in data["rows"] if p["start_s"] is not None)
    # each point lasts its phases: 0.25 + 0.125 + 0.0625 + 0.5 + 0.0625 s
    for start, end in spans:
        assert math.isclose(end - start, 1.0, rel_tol=1e-9)
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert start >= end - 1e-9
