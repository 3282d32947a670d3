"""The A/B page of two runs of one GPU model with known ratios (synthetic pair).

The new run of the pair is the base with every vecadd time x 0.5 and every
matmul time x 1.25 (same samples, scaled), transfers unchanged, one matmul
point dropped and one vecadd point added (conftest.synthetic_pair). Runs of
different GPU models get the hardware page instead (test_hardware.py).
"""

from __future__ import annotations

import math

import pytest

import expect as E
from conftest import PAIR_GPU, reports_cli, unrendered
from reports.compare import match_runs
from reports.load import load_run

SCALE = {"vecadd": 0.5, "matmul": 1.25, "transfers": 1.0}


@pytest.fixture(scope="module")
def compared(synthetic_pair, tmp_path_factory):
    base, new = synthetic_pair
    out = tmp_path_factory.mktemp("compare")
    # Unrendered: the tests read the figures' data and the page, no pixels
    # (test_browser renders an A/B page).
    with unrendered():
        proc = reports_cli(base, new, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return base, new, out


def test_match_and_ratios_are_exact(synthetic_pair):
    base, new = (load_run(p) for p in synthetic_pair)
    matches, missing, added = match_runs(base, new)
    assert [r.identity for r in missing] == [("matmul/naive_uncoalesced", "m=256;n=m;k=m")]
    assert [r.identity for r in added] == [("vecadd/new_variant", "n=1024")]
    timed_base = {r.identity for r in base.results if r.measured}
    assert len(matches) == len(timed_base) - 1
    for m in matches:
        scale = SCALE[m.base.family]
        assert math.isclose(m.time_ratio, scale, rel_tol=1e-7), m.base.label()
        assert math.isclose(m.throughput_ratio, 1 / scale, rel_tol=1e-7), m.base.label()
        assert m.unit == ("TFLOP/s" if m.base.family == "matmul" else "GB/s")


def test_ratio_figure_holds_every_matching_point(compared):
    base, new, out = compared
    names = [f["name"] for f in E.manifest(out)["figures"]]
    (name,) = [n for n in names if n.startswith("compare/ratios_")]
    assert "compare/hardware_best_points" not in names  # the ratios are drawn once
    data = E.figure_data(out, name)
    base_rows = {(r["benchmark"], r["axes"]): r for r in E.timed(base)}
    new_rows = {(r["benchmark"], r["axes"]): r for r in E.timed(new)}
    common = set(base_rows) & set(new_rows)
    assert {(r["benchmark"], r["axes"]) for r in data["rows"]} == common
    for rec in data["rows"]:
        b, n = base_rows[(rec["benchmark"], rec["axes"])], new_rows[(rec["benchmark"], rec["axes"])]
        scale = SCALE[b["family"]]
        assert math.isclose(rec["throughput_ratio"], 1 / scale, rel_tol=1e-7)
        if rec["source"] == "medians":
            assert rec["time_ratio"] == float(n["median_s"]) / float(b["median_s"])
        else:  # cubench compare's ratio of the log medians, its CI and its verdict
            assert math.isclose(rec["time_ratio"], scale, rel_tol=1e-6)
            want = {0.5: "faster", 1.25: "slower", 1.0: "same"}[scale]
            if rec["ci_lo"] is None:  # a kind with no known between-run spread: untested
                assert rec["verdict"] == "inconclusive" and rec["ci_hi"] is None
                continue
            assert rec["ci_lo"] <= rec["time_ratio"] <= rec["ci_hi"]
            assert rec["verdict"] in (want, "inconclusive")


def test_verdicts_come_from_cubench_compare(compared):
    """With the binary (CI builds it), the A/B page shows compare's verdicts."""
    from reports.binary import find_cubench
    from reports.load import InputError
    try:
        find_cubench()
    except InputError:
        pytest.skip("no cubench binary")
    base, new, out = compared
    (name,) = [f["name"] for f in E.manifest(out)["figures"]
               if f["name"].startswith("compare/ratios_")]
    rows = E.figure_data(out, name)["rows"]
    assert {r["source"] for r in rows} == {"cubench compare"}
    verdicts = {r["benchmark"].partition("/")[0]: set() for r in rows}
    for r in rows:
        verdicts[r["benchmark"].partition("/")[0]].add(r["verdict"])
    assert "faster" in verdicts["vecadd"] and "slower" in verdicts["matmul"]
    html = (out / "index.html").read_text()
    assert "cubench compare:" in html and " slower" in html


def test_the_same_gpu_model_makes_an_ab_page_conditions_first(compared):
    base, new, out = compared
    html = (out / "index.html").read_text()
    assert "cubench report — A/B comparison" in html
    assert "hardware comparison" not in html
    # what differs (here the build) comes before the ratios
    section = html[html.index('id="a-b-comparison"'):]
    assert section.index("What differs between the runs") < section.index("1111111")
    assert section.index("1111111") < section.index("Time ratio new / base")


def test_side_by_side_charts_show_each_run(compared):
    base, new, out = compared
    names = [f["name"] for f in E.manifest(out)["figures"]]
    for name in ("compare/vecadd_gbps_vs_n", "compare/matmul_tflops_vs_size",
                 "compare/transfers_h2d"):
        assert name in names
        data = E.figure_data(out, name)
        assert len(data["panels"]) == 2
        assert data["panels"][0]["run"].endswith("(base_run)")
        assert data["panels"][1]["run"].endswith("(new_run)")
    vec = E.figure_data(out, "compare/vecadd_gbps_vs_n")
    for panel, run in zip(vec["panels"], (base, new)):
        rows = [r for r in E.timed(run, "vecadd")]
        want = E.best_curves(rows, "n", "gbps")
        got = {s["ids"][0].split(" [")[0]: dict(zip(s["x"], s["y"])) for s in panel["series"]}
        assert got == want
        for s in panel["series"]:  # a CPU curve is labelled by the host CPU
            if s["ids"][0].startswith("vecadd/host"):
                assert s["label"] == "host (CPU: synthetic CPU)"
    # one colour per variant on both panels
    colours = [{s["label"]: s["style"]["color"] for s in p["series"]} for p in vec["panels"]]
    for label in set(colours[0]) & set(colours[1]):
        assert colours[0][label] == colours[1][label]


def test_page_labels_runs_by_gpu_and_directory(compared):
    base, new, out = compared
    html = (out / "index.html").read_text()
    assert f"{PAIR_GPU} (base_run)" in html
    assert f"{PAIR_GPU} (new_run)" in html
    assert "base only" in html and "new only" in html
    for fig in E.manifest(out)["figures"]:
        assert f'src="{fig["png"]}"' in html
    # each run keeps its own full section, in its own folder
    names = [f["name"] for f in E.manifest(out)["figures"]]
    assert "run1_base_run/vecadd_gbps_vs_n" in names
    assert "run2_new_run/matmul_ladder" in names
    # the ratio table: every matching point
    assert "<td>vecadd/grid_stride</td>" in html
