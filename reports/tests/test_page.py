"""What the page of the recorded H200 suite (tests/data/h200-defaults-r2) says:
key figures first, with the run's values; throttle flags only where a reason
can have slowed the point; multi-GPU sections reduced to a sentence on one
GPU; telemetry against seconds, decimated; the page within its size budget.
Expected values come from the CSV files (expect.py), not the report's code.
"""

from __future__ import annotations

import json
import math
from html import escape
from pathlib import Path

import pytest

import expect as E
from conftest import REPO, draw

SUITE = REPO / "tests" / "data" / "h200-defaults-r2"
TC = REPO / "tests" / "data" / "h200-matmul-tc"


@pytest.fixture(scope="module")
def suite(drawn_root):
    return SUITE, draw([SUITE], drawn_root)


# Sharded with the suite's other tests (tests/pytest_plugins/cb_shard.py):
# its report is drawn once for test_report, this file and test_browser.
ON_SUITE = pytest.mark.shard_group(SUITE.name)


def _names(out: Path) -> set[str]:
    return {f["name"] for f in E.manifest(out)["figures"]}


@pytest.mark.parametrize("run", [SUITE, TC], ids=lambda p: p.name)
def test_key_figures_lead_the_page_with_the_runs_values(run, drawn_root):
    out = draw([run], drawn_root)
    html = (out / "index.html").read_text()
    first = html.index("<h2")
    assert html[first:first + 80].count("Key figures") == 1, "the page opens with them"
    got = {f["figure"]: f for f in E.manifest(out)["runs"][0]["key_figures"]}
    want = E.key_figures(run)
    assert want, "the recorded run has key figures"
    kinds = {"vecadd": "vector add, best", "sgemm": "hand-written SGEMM, best",
             "tc_BF16": "tensor-core rung, best BF16", "tc_TF32": "tensor-core rung, best TF32",
             "pinned_h2d": "pinned H2D copy, best", "pinned_d2h": "pinned D2H copy, best"}
    for kind, (ident, value, share) in want.items():
        entry = next(f for name, f in got.items() if name.startswith(kinds[kind]))
        assert entry["point"] == ident and entry["value"] == value
        if share is not None:
            assert math.isclose(entry["share_pct"], share, rel_tol=1e-9)
            assert entry["of"], "every share names what it is a share of"
            assert f"{share:.1f} %" in html
        assert escape(ident) in html
    # the tensor-core shares name cuBLAS of the same precision, measured in the run
    for kind in ("tc_BF16", "tc_TF32"):
        if kind in want:
            entry = next(f for n, f in got.items() if n.startswith(kinds[kind]))
            assert f"matmul/cublas_{kind[3:].lower()}" in entry["of"]


@ON_SUITE
def test_cublas_tensor_shares_use_the_datasheet_peak(suite):
    _, out = suite
    got = {f["figure"]: f for f in E.manifest(out)["runs"][0]["key_figures"]}
    bf16 = got["cuBLAS BF16, best (TFLOP/s)"]
    # 132 SMs x 4096 dense FLOP/clk x 1830 MHz = 989.4 TFLOP/s, the datasheet's figure
    assert "989.4" in bf16["of"] and "datasheet" in bf16["of"]
    assert math.isclose(bf16["share_pct"], 100 * bf16["value"] / (132 * 4096 * 1830e6 / 1e12),
                        rel_tol=1e-9)


@ON_SUITE
def test_throttle_flags_only_where_a_reason_can_have_slowed_the_point(suite):
    run, out = suite
    rows = {r["_id"]: r for r in E.rows(run)}
    flagged = set()
    for name in _names(out):
        data = E.figure_data(out, name)
        charts = [data] if data["kind"] == "line" else data.get("panels", [])
        for chart in charts:
            flagged |= {i for s in chart.get("series", [])
                        for i, f in zip(s["ids"], s["flags"]) if f}
    assert flagged, "the recorded suite has points slowed by sw_power_cap"
    for ident in flagged:
        r = rows[ident]
        assert r["throttle"] not in ("", "none")
        # a fall of the SM clock beyond 2 % of its maximum (1980 MHz), on SM work
        assert float(r["sm_clock_min_mhz"]) < 0.98 * 1980
        assert r["family"] not in ("transfers", "p2p") or "zero_copy" in ident
    # pageable copies measured right after a power-capped GEMM read sw_power_cap:
    # a copy engine does not run on the SMs, so they are not ringed
    copies = [i for i, r in rows.items() if r["benchmark"] == "transfers/memcpy_sync"
              and r["throttle"] == "sw_power_cap"]
    assert copies and not flagged & set(copies)
    html = (out / "index.html").read_text()
    assert "not counted: cannot slow a copy-engine copy" in html


@ON_SUITE
def test_one_gpu_collapses_the_multi_gpu_sections(suite):
    run, out = suite
    names = _names(out)
    assert not [n for n in names if n.startswith(("p2p_", "nccl_"))]
    html = (out / "index.html").read_text()
    assert "No peer-to-peer pair was timed: 80 point(s)" in html
    assert "ran with one rank, which moves nothing over a link" in html
    # the 80 p2p skips are one line of the skipped table, with their count
    skipped = html[html.index('id="skipped-and-failed-points"'):]
    assert skipped.count("<td>p2p/copy</td>") == 1


@ON_SUITE
def test_telemetry_is_against_seconds_and_decimated(suite):
    run, out = suite
    samples = E.samples(run)
    total = sum(len(v) for v in samples.values())
    for name in [n for n in _names(out) if n.startswith("telemetry_")]:
        data = E.figure_data(out, name)
        assert "(s" in data["x_label"]
        assert 0 < len(data["buckets"]) <= 600 < total
        t = [b["t_s"] for b in data["buckets"]]
        assert t == sorted(t)
        # the power panel's points lie within the clock panel's time span
        ends = [p["end_s"] for p in data["rows"] if p["end_s"] is not None]
        assert max(ends) <= max(t) * 1.01 + 1e-9 and min(t) >= 0
        assert sum(b["samples"] for b in data["buckets"]) == data["samples"]


@ON_SUITE
def test_the_page_is_light(suite):
    """The budget of a one-run page (reports/benchmark.py measures size and
    time; size alone is checked here, it does not depend on the machine)."""
    _, out = suite
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    assert size <= 5e6, f"{size / 1e6:.1f} MB"
    biggest = max(p.stat().st_size for p in out.rglob("*.json"))
    assert biggest <= 500e3, "no sidecar carries the samples: samples.csv holds them"


@ON_SUITE
def test_tables_sort_offline(suite):
    _, out = suite
    html = (out / "index.html").read_text()
    assert 'class="sortable"' in html and "<script>" in html
    assert "src=" not in html.split("<script>")[1].split("</script>")[0]  # inline only
    assert "http://" not in html and "https://" not in html
