"""The single-run report: every figure is drawn and holds the recorded numbers.

Runs over the synthetic fixture (structure) and over every recorded run in
tests/data/*/ (real data). Expected values are recomputed from the CSV files
with the plain csv module (expect.py), not with the report's own code.
"""

from __future__ import annotations

import math
import statistics
import subprocess
from pathlib import Path

import pytest

import expect as E
from conftest import REPO, draw, recorded_runs, reports_cli, unrendered

RUNS = ["synthetic"] + [str(p) for p in recorded_runs()]
REL = 1e-9


@pytest.fixture(params=RUNS, ids=lambda p: Path(p).name)
def made(request, synthetic_run, drawn_root):
    """(run directory, report directory): each run drawn once per session."""
    run_dir = synthetic_run if request.param == "synthetic" else Path(request.param)
    return run_dir, draw([run_dir], drawn_root)


def figures_of(out: Path, kind: str | None = None, prefix: str = "") -> list[dict]:
    found = []
    for fig in E.manifest(out)["figures"]:
        data = E.figure_data(out, fig["name"])
        if (kind is None or data["kind"] == kind) and fig["name"].startswith(prefix):
            found.append(data)
    return found


def test_every_figure_is_written_in_every_format(made):
    run_dir, out = made
    figs = E.manifest(out)["figures"]
    assert figs, "a run with timed points has figures"
    for fig in figs:
        png = (out / fig["png"]).read_bytes()
        assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5000, fig["png"]
        assert "<svg" in (out / fig["svg"]).read_text()[:2000], fig["svg"]
        data = E.figure_data(out, fig["name"])
        assert data["figure"] == fig["name"]
        csv_text = (out / fig["data_csv"]).read_text()
        assert csv_text.count("\n") >= 2, f"{fig['data_csv']} holds no rows"


def test_html_references_every_figure_and_its_data(made):
    _, out = made
    html = (out / "index.html").read_text()
    for fig in E.manifest(out)["figures"]:
        assert f'src="{fig["png"]}"' in html
        assert f'href="{fig["svg"]}"' in html
        assert f'href="{fig["data_csv"]}"' in html
        assert f'href="{fig["data_json"]}"' in html


def test_every_plotted_point_is_a_recorded_value(made):
    """Each point of each line is a timed row's GB/s or TFLOP/s at one of its
    axis values: nothing is invented, rescaled or taken from a skipped row."""
    run_dir, out = made
    by_id = {r["_id"]: r for r in E.timed(run_dir)}
    checked = 0
    charts = figures_of(out, "line") + [p for d in figures_of(out, "panels") for p in d["panels"]]
    for data in charts:
        for s in data["series"]:
            assert len(s["x"]) == len(s["y"]) == len(s["ids"]) > 0
            for x, y, ident in zip(s["x"], s["y"], s["ids"]):
                row = by_id[ident]
                assert y in (E.number(row["gbps"]), E.number(row["tflops"]))
                assert x in [E.number(v) for v in row["_axes"].values()]
                checked += 1
            # whiskers: the row's time CI turned into throughput; hollow: noisy
            for y, ident, lo, hi, noisy in zip(s["y"], s["ids"], s["lo"], s["hi"],
                                               s["noisy"]):
                row = by_id[ident]
                assert noisy == (row["status"] == "noisy")
                a, b, med = (E.number(row[c]) for c in ("ci_lo_s", "ci_hi_s", "median_s"))
                if a and b and a <= med <= b:
                    assert math.isclose(lo, y * med / b, rel_tol=REL)
                    assert math.isclose(hi, y * med / a, rel_tol=REL)
                    assert lo <= y * (1 + REL) and y <= hi * (1 + REL)
                else:
                    assert lo is None and hi is None
    assert checked > 0


def test_vecadd_bandwidth_curves(made):
    run_dir, out = made
    rows = [r for r in E.timed(run_dir, "vecadd") if "n" in r["_axes"] and r["gbps"]]
    if not rows:
        pytest.skip("no timed vecadd point in this run")
    data = E.figure_data(out, "vecadd_gbps_vs_n")
    # The Python frameworks' adds of the run are drawn beside the rungs.
    framework = E.framework_vecadds(run_dir)
    want = E.best_curves(rows + framework, "n", "gbps")
    got = {s["ids"][0].split(" [")[0]: dict(zip(s["x"], s["y"])) for s in data["series"]}
    assert got == want
    for s in data["series"]:
        bench = s["ids"][0].split(" [")[0]
        family, _, variant = bench.partition("/")
        if family == "vecadd":
            assert s["label"] == variant
        else:  # "torch: add [kernel]": the family, and the kernel CUPTI saw
            assert s["label"].startswith(f"{family}: {variant}") and s["style"]["marker"] in "^s"
            last = next(r for r in framework if r["_id"] == s["ids"][-1])
            kernel = last["kernels"].split("|")[0]
            if kernel:
                short = s["label"].split(" [", 1)[1].rstrip("]").rstrip("…")
                assert short and short.split("::")[-1][:20] in kernel, (short, kernel)
    for s in data["series"]:
        assert s["x"] == sorted(s["x"])
    refs = {r["label"].split(" ")[0]: r["value"] for r in data["reflines"]}
    gpu = [r for r in rows if not E.is_host(r)]
    assert refs["best"] == max(float(r["gbps"]) for r in gpu)
    peaks = [float(r["peak"]) for r in E.timed(run_dir, "vecadd")
             if not E.is_host(r) and r["peak_unit"] == "GB/s" and r["peak"]]
    if peaks:
        assert refs["theoretical"] == peaks[0]
    assert data["xscale"] in ("log2", "linear")
    assert "GB/s" in data["ylabel"]


def test_vecadd_heatmaps_hold_every_launch_shape(made):
    run_dir, out = made
    maps = figures_of(out, "heatmap")
    rows = [r for r in E.rows(run_dir) if r["family"] == "vecadd"
            and {"block", "grid", "n"} <= set(r["_axes"])]
    timed = [r for r in rows if r["status"] in ("ok", "noisy")]
    for bench in {r["benchmark"] for r in timed}:
        shapes: dict = {}
        for r in timed:
            if r["benchmark"] == bench:
                s = shapes.setdefault(float(r["_axes"]["n"]), (set(), set()))
                s[0].add(r["_axes"]["block"])
                s[1].add(r["_axes"]["grid"])
        good = [n for n, (b, g) in shapes.items() if len(b) > 1 and len(g) > 1]
        found = [m for m in maps if m["benchmark"] == bench]
        if not good:
            assert not found
            continue
        (hm,) = found
        assert hm["n"] == max(good)
        # each cell: the best over any other axis (ilp, hint); a cell that
        # never ran shows its first row's status
        expect: dict = {}
        for r in rows:
            if r["benchmark"] != bench or float(r["_axes"]["n"]) != hm["n"]:
                continue
            key = (r["_axes"]["block"], r["_axes"]["grid"])
            old = expect.get(key)
            timed_r = r["status"] in ("ok", "noisy")
            if old is None or (timed_r and (old["status"] not in ("ok", "noisy")
                                            or float(r["gbps"]) > float(old["gbps"]))):
                expect[key] = r
        cells = {(c["block"], c["grid"]): c for c in hm["rows"]}
        assert len(cells) == len({b for b, _ in expect}) * len({g for _, g in expect})
        for key, r in expect.items():
            assert cells[key]["status"] == r["status"]
            assert cells[key]["id"] == r["_id"]
            if r["status"] in ("ok", "noisy"):
                assert cells[key]["gbps"] == float(r["gbps"])
                assert cells[key]["occupancy"] == E.number(r["occupancy"])
    if timed and any(m for m in maps):
        assert all(m["blocks"] and m["grids"] for m in maps)


def _size_axis(rows):
    for name in ("size", "m", "n"):
        if all(E.number(r["_axes"].get(name, "x")) is not None for r in rows):
            return name
    return None


def test_matmul_fp32_ladder(made):
    """The FP32 ladder draws FP32 rows only: no TF32/BF16 cuBLAS among them,
    bars as a share of cuBLAS FP32 with cuBLAS as the labelled 100 %."""
    run_dir, out = made
    rows = [r for r in E.timed(run_dir) if r["family"] in ("matmul", "matmul_tc")
            and r["tflops"]]
    if not rows:
        pytest.skip("no timed matmul point in this run")
    rows += E.framework_matmuls(run_dir)  # drawn beside the ladder
    fp32 = [r for r in rows if E.precision(r) == "FP32"]
    if not fp32:
        assert "matmul_tflops_vs_size" not in {f["name"] for f in E.manifest(out)["figures"]}
        return
    xaxis = _size_axis(fp32)
    data = E.figure_data(out, "matmul_tflops_vs_size")
    got = {s["ids"][0].split(" [")[0]: dict(zip(s["x"], s["y"])) for s in data["series"]}
    assert got == E.best_curves(fp32, xaxis, "tflops")
    assert not any(b.startswith(("matmul/cublas_tf32", "matmul/cublas_bf16")) for b in got)
    for s in data["series"]:
        if s["ids"][0].startswith("matmul/cublas"):
            assert "(reference)" in s["label"] and s["style"]["marker"] == "D"
    _check_ladder(out, "matmul_ladder", fp32, xaxis)


def test_tensor_core_ladder(made):
    """Every precision but FP32: one panel per precision, each rung a share
    of the cuBLAS of its precision at the same size, cuBLAS the reference,
    rungs named by benchmark (suffix dropped), kernels in the table."""
    run_dir, out = made
    rows = [r for r in E.timed(run_dir) if r["family"] in ("matmul", "matmul_tc")
            and r["tflops"]]
    rows += E.framework_matmuls(run_dir) if rows else []
    other = [r for r in rows if E.precision(r) != "FP32"]
    names = {f["name"] for f in E.manifest(out)["figures"]}
    if not other:
        assert "matmul_tc_ladder" not in names
        return
    panels = E.figure_data(out, "matmul_tc_tflops_vs_size")["panels"]
    assert [p["precision"] for p in panels] == [
        p for p in ("BF16", "TF32", "FP16", "FP8") if any(E.precision(r) == p for r in other)]
    for panel in panels:
        prows = [r for r in other if E.precision(r) == panel["precision"]]
        got = {s["ids"][0].split(" [")[0]: dict(zip(s["x"], s["y"])) for s in panel["series"]}
        assert got == E.best_curves(prows, _size_axis(prows), "tflops")
    assert len({p["yscale"] for p in panels}) == 1, "one scale for every panel"
    if all(r["benchmark"].startswith("matmul/cublas") for r in other):
        assert "matmul_tc_ladder" not in names  # references alone: no ladder to draw
    else:
        _check_ladder(out, "matmul_tc_ladder", other, None)
    html = (out / "index.html").read_text()
    tc = [r for r in other if r["family"] == "matmul_tc"]
    if tc:
        assert "Tensor-core ladder" in html
        for r in tc:  # the kernel table names what each rung launched
            kernel = r["kernels"].split("|")[0].split("::")[-1].split("(")[0]
            assert kernel in html, kernel


def _check_ladder(out, name, rows, xaxis):
    data = E.figure_data(out, name)
    assert data["panels"]
    for panel in data["panels"]:
        prows = [r for r in rows if E.precision(r) == panel["precision"]]
        axis = xaxis or _size_axis(prows)
        gpu_sizes = {}
        for r in prows:
            if not E.is_host(r):
                gpu_sizes.setdefault(r["benchmark"], set()).add(float(r["_axes"][axis]))
        common = set.intersection(*gpu_sizes.values()) if gpu_sizes else set()
        if common:
            assert panel["size"] == max(common)
        at = [r for r in prows if float(r["_axes"][axis]) == panel["size"]]
        best = {}
        for r in at:
            if r["benchmark"] not in best or float(r["tflops"]) > float(
                    best[r["benchmark"]]["tflops"]):
                best[r["benchmark"]] = r
        ref = f"matmul/cublas_{panel['precision'].lower()}"
        assert panel["reference"] == (ref if ref in best else None)
        if ref in best:
            assert panel["reference_tflops"] == float(best[ref]["tflops"])
        assert {b["benchmark"] for b in panel["rows"]} == set(best) - {ref}
        labels = [b["label"] for b in panel["rows"]]
        assert len(labels) == len(set(labels)), "every rung has its own name"
        for bar in panel["rows"]:
            r = best[bar["benchmark"]]
            assert bar["tflops"] == float(r["tflops"])
            assert not bar["label"].endswith("_" + panel["precision"].lower())
            if r["pct_ref"] and r["ref_benchmark"] == ref:
                assert bar["pct_ref"] == float(r["pct_ref"])
            elif ref in best:
                assert math.isclose(bar["pct_ref"], 100 * float(best[ref]["median_s"])
                                    / float(r["median_s"]), rel_tol=REL)


def transfer_panel(r: dict) -> str:
    """A transfer row's chart: its direction, else its benchmark's variant."""
    return r["_axes"].get("direction") or r["benchmark"].partition("/")[2]


def test_transfer_curves(made):
    run_dir, out = made
    rows = [r for r in E.timed(run_dir, "transfers")
            if "bytes" in r["_axes"] and "streams" not in r["_axes"] and r["gbps"]]
    if not rows:
        pytest.skip("no timed transfer point in this run")
    names = {f["name"] for f in E.manifest(out)["figures"]}
    panels = {transfer_panel(r) for r in rows}
    assert {n for n in names if n.startswith("transfers_") and n != "transfers_overlap"} == {
        f"transfers_{p}" for p in panels}
    for panel in panels:
        data = E.figure_data(out, f"transfers_{panel}")
        prows = [r for r in rows if transfer_panel(r) == panel]
        key = lambda r: (r["benchmark"],) + tuple(
            sorted((k, v) for k, v in r["_axes"].items() if k not in ("bytes", "direction")))
        want = E.best_curves(prows, "bytes", "gbps", key)
        assert len(data["series"]) == len(want)
        got = {}
        for s in data["series"]:
            r = next(r for r in prows if r["_id"] == s["ids"][0])
            got[key(r)] = dict(zip(s["x"], s["y"]))
            fit = s["extra"]["fit"]
            if len(s["x"]) >= 2 and fit["meaningful"]:
                assert fit["alpha_us"] >= 0 and fit["beta_gbps"] > 0
                assert "α=" in s["label"] and "β=" in s["label"]
            elif fit:  # a negative latency is not drawn as a fit
                assert "α" not in s["label"] and "not meaningful" in s["label"]
        assert got == want
        assert data["xscale"] == "log2" and data["yscale"] == "log10"
        peaks = [float(r["peak"]) for r in prows if r["peak_unit"] == "GB/s" and r["peak"]]
        assert [ref["value"] for ref in data["reflines"]] == (
            [max(set(peaks), key=peaks.count)] if peaks else [])


def test_roofline(made):
    run_dir, out = made
    names = [f["name"] for f in E.manifest(out)["figures"]]
    gpu = [r for r in E.timed(run_dir) if not E.is_host(r) and r["tflops"]
           and E.number(r["flops"]) and E.number(r["bytes"])]
    vec = [float(r["gbps"]) for r in E.timed(run_dir, "vecadd") if not E.is_host(r) and r["gbps"]]
    d2d = [float(r["gbps"]) for r in E.timed(run_dir, "transfers")
           if (r["benchmark"] == "transfers/d2d" or r["_axes"].get("direction") == "d2d")
           and r["gbps"]]
    import json
    device = json.loads((run_dir / "meta.json").read_text()).get("device") or {}
    fp32 = any(r["peak_unit"] == "TFLOP/s" and r["peak"] for r in gpu) or "fp32" in str(device)
    dram = "dram" in str(device) or any(r["peak_unit"] == "GB/s" and r["family"] == "vecadd"
                                        and r["peak"] for r in E.timed(run_dir))
    if "roofline" not in names:
        assert not gpu or not (vec or d2d or dram) or not fp32
        pytest.skip("no roofline for this run (no GPU flops, no bandwidth or no FP32 peak)")
    data = E.figure_data(out, "roofline")
    if vec or d2d:
        assert data["bandwidth_gbps"] == max(vec or d2d)
    else:  # nothing measured the bandwidth: the stated DRAM peak, and the chart says so
        assert data["bandwidth_source"].startswith("theoretical")
        assert data["bandwidth_gbps"] == data["dram_peak_gbps"]
    best = {}
    for r in gpu:
        if r["benchmark"] not in best or float(r["tflops"]) > float(best[r["benchmark"]]["tflops"]):
            best[r["benchmark"]] = r
    assert {p["benchmark"] for p in data["rows"]} == set(best)
    for p in data["rows"]:
        r = best[p["benchmark"]]
        assert p["tflops"] == float(r["tflops"])
        assert math.isclose(p["intensity"], float(r["flops"]) / float(r["bytes"]), rel_tol=REL)
    assert math.isclose(data["ridge_intensity"],
                        data["fp32_tflops"] * 1e12 / (data["bandwidth_gbps"] * 1e9), rel_tol=REL)
    assert "work model" in data["intensity"]
    # each roof is the figure its source states: SMs x rate x the clock named
    for roof in data["roofs"]:
        if roof["kind"] == "table":
            mhz = float(roof["clock"].split(", ")[1].split(" MHz")[0])
            rate = {"BF16": 4096, "FP8": 8192}.get(roof["precision"].split()[0], 2048)
            if device.get("compute_capability") == "9.0":
                assert math.isclose(roof["tflops"], device["sm_count"] * rate * mhz / 1e6,
                                    rel_tol=REL)
            if roof["clock"].startswith("datasheet"):
                assert f"{roof['tflops']:.1f}" in roof["source"], roof
    # one legend line per family (matmuls by precision), not one per benchmark
    groups = {p["group"] for p in data["rows"]}
    assert len(groups) <= 8 and len(groups) < max(2, len(data["rows"]))
    caption = next(f["caption"] for f in E.manifest(out)["figures"] if f["name"] == "roofline")
    for p in data["rows"]:
        if p["share_of_roof"] < 0.25 and not p["measured_intensity"]:
            assert p["benchmark"] in caption  # named: the model does not explain it


def test_noisy_distributions(made):
    run_dir, out = made
    samples = E.samples(run_dir)
    noisy = [r for r in E.rows(run_dir) if r["status"] == "noisy"
             and samples.get((r["benchmark"], r["axes"]))]
    names = [f["name"] for f in E.manifest(out)["figures"]]
    if not noisy:
        assert "noisy_distributions" not in names
        return
    data = E.figure_data(out, "noisy_distributions")
    assert 0 < len(data["rows"]) <= 12
    noisy_ids = {r["_id"]: r for r in noisy}
    widest = sorted((float(r["ci_rel_half"] or 0) for r in noisy), reverse=True)[:12]
    assert sorted((rec["ci_rel_half"] or 0 for rec in data["rows"]), reverse=True) == widest
    for rec in data["rows"]:
        r = noisy_ids[rec["id"]]
        every = samples[(r["benchmark"], r["axes"])]
        shown = data["samples_s"][rec["id"]]
        assert rec["samples"] == len(every)
        # every sample up to 400, else a subset of them (the box is from all)
        assert len(shown) == min(400, len(every)) and set(shown) <= set(every)
        assert math.isclose(rec["sample_median_s"], statistics.median(every), rel_tol=1e-12)


def test_environment_and_status_tables(made):
    run_dir, out = made
    import json
    from html import escape
    meta = json.loads((run_dir / "meta.json").read_text())
    html = (out / "index.html").read_text()
    device = meta.get("device") or {}
    assert escape(str(device.get("name", "no GPU"))) in html
    for key in ("cubench_version", "git_sha", "started"):
        if key in meta:
            assert escape(str(meta[key])) in html
    # every point that did not run is listed with its reason
    for r in E.rows(run_dir):
        if r["status"] in ("skip", "fail"):
            assert escape(r["reason"]) in html


# --- synthetic-only checks: the fixture's model is known -----------------------

def _series_curve(s, rows_by_id):
    """(variant, direction, memory) of the curve a series draws."""
    r = rows_by_id[s["ids"][0]]
    return (r["benchmark"].partition("/")[2], r["_axes"].get("direction"),
            r["_axes"].get("memory"))


@pytest.mark.shard_group("synthetic")  # its report is the synthetic `made`'s
def test_synthetic_transfer_fits_come_from_fits_csv(synthetic_run, drawn_root):
    import csv
    from conftest import OVERLAP_EFFICIENCY, transfer_alpha_beta
    out = draw([synthetic_run], drawn_root)
    by_id = {r["_id"]: r for r in E.timed(synthetic_run)}
    for panel in ("h2d", "d2h", "bidir", "d2d"):
        data = E.figure_data(out, f"transfers_{panel}")
        assert data["series"]
        for s in data["series"]:
            fit = s["extra"]["fit"]
            assert fit["source"] == "fits.csv"
            alpha, beta = transfer_alpha_beta(*_series_curve(s, by_id))
            assert math.isclose(fit["alpha_us"], alpha * 1e6, rel_tol=1e-6)
            assert math.isclose(fit["beta_gbps"], beta / 1e9, rel_tol=1e-6)
    overlap = E.figure_data(out, "transfers_overlap")
    with (synthetic_run / "overlap.csv").open() as fh:
        side = {float(r["streams"]): 100 * float(r["efficiency"]) for r in csv.DictReader(fh)}
    effs = overlap["efficiency"]
    assert [e["streams"] for e in effs] == [1.0, 2.0, 4.0, 8.0]
    assert {e["efficiency_source"] for e in effs} == {"overlap.csv"}
    for e in effs:
        assert e["efficiency"] == side[e["streams"]]
        assert math.isclose(e["efficiency"], 100 * OVERLAP_EFFICIENCY[int(e["streams"])],
                            rel_tol=0.05)
    # every stage of every stream count is drawn on the left
    assert len(overlap["rows"]) == 16
    assert {r["stage"] for r in overlap["rows"]} == {"h2d", "kernel", "d2h", "pipeline"}
    html = (out / "index.html").read_text()
    assert "Other: scan" in html and "scan/decoupled_lookback" in html
    assert "SYNTHETIC DATA" in html


def test_fit_without_fits_csv_recovers_the_model(tmp_path):
    from conftest import transfer_alpha_beta, write_synthetic_run
    run = write_synthetic_run(tmp_path / "nofits", families=("transfers",), fits=False)
    out = tmp_path / "r"
    reports_cli(run, "-o", out, check=True)
    by_id = {r["_id"]: r for r in E.timed(run)}
    data = E.figure_data(out, "transfers_d2h")
    for s in data["series"]:
        fit = s["extra"]["fit"]
        assert fit["source"] == "fitted by the report" and "*" in s["label"]
        alpha, beta = transfer_alpha_beta(*_series_curve(s, by_id))
        # the samples carry ~1% noise around the model
        assert math.isclose(fit["beta_gbps"], beta / 1e9, rel_tol=0.03)
        assert math.isclose(fit["alpha_us"], alpha * 1e6, rel_tol=0.1)
    # without overlap.csv the efficiency comes from the stage medians
    overlap = E.figure_data(out, "transfers_overlap")
    assert {e["efficiency_source"] for e in overlap["efficiency"]} == {"stages"}


def test_fit_here_is_exact_on_exact_data():
    from reports.figures_transfers import fit_here
    sizes = [2.0**e for e in range(10, 31, 2)]
    times = [7e-6 + b / 25e9 for b in sizes]
    alpha_us, beta_gbps = fit_here(sizes, times)
    assert math.isclose(alpha_us, 7.0, rel_tol=1e-9)
    assert math.isclose(beta_gbps, 25.0, rel_tol=1e-9)


def test_incomplete_run_is_reported_and_missing_samples_tolerated(tmp_path):
    import json
    from conftest import write_synthetic_run
    run = write_synthetic_run(tmp_path / "cut", families=("vecadd",))
    meta = json.loads((run / "meta.json").read_text())
    meta.update(complete=False, interrupted=True)
    (run / "meta.json").write_text(json.dumps(meta))
    (run / "samples.csv").unlink()
    out = tmp_path / "r"
    proc = reports_cli(run, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert "samples.csv: missing" in proc.stderr
    html = (out / "index.html").read_text()
    assert "did not finish normally" in html
    assert "vecadd_gbps_vs_n.png" in html
    assert "noisy_distributions" not in html


def test_matmul_with_a_size_axis(tmp_path):
    from conftest import write_synthetic_run
    run = write_synthetic_run(tmp_path / "size", families=("matmul",), matmul_axes="size")
    out = draw([run], tmp_path)
    data = E.figure_data(out, "matmul_tflops_vs_size")
    assert data["xlabel"] == "matrix size (m = n = k)"
    want = E.best_curves([r for r in E.timed(run, "matmul") if r["tflops"]
                          and E.precision(r) == "FP32"], "size", "tflops")
    assert {s["ids"][0].split(" [")[0]: dict(zip(s["x"], s["y"])) for s in data["series"]} == want
    (panel,) = E.figure_data(out, "matmul_ladder")["panels"]
    assert panel["size_axis"] == "size" and panel["size"] == 4096


@pytest.mark.shard_group("cpu_only")  # the fixture's, with the captions test
def test_host_only_run_without_a_gpu(cpu_only):
    """CI has no GPU: host baselines only, device null. The report draws what
    there is and leaves out what needs a GPU (roofline, peaks)."""
    _, out = cpu_only
    names = {f["name"] for f in E.manifest(out)["figures"]}
    assert {"vecadd_gbps_vs_n", "matmul_tflops_vs_size", "matmul_ladder"} <= names
    assert "roofline" not in names
    vec = E.figure_data(out, "vecadd_gbps_vs_n")
    assert [s["label"] for s in vec["series"]] == ["host"] and vec["reflines"] == []
    html = (out / "index.html").read_text()
    assert "no GPU" in html and "no CUDA-capable device" in html


def test_overlap_benchmark_in_a_family_of_its_own(tmp_path):
    from conftest import OVERLAP_EFFICIENCY, write_synthetic_run
    run = write_synthetic_run(tmp_path / "ov", families=("transfers",),
                              keep=lambda b: b == "transfers/overlap")
    text = (run / "results.csv").read_text().replace("transfers/overlap,transfers,",
                                                     "overlap/streams,overlap,")
    (run / "results.csv").write_text(text)
    out = tmp_path / "r"
    reports_cli(run, "-o", out, check=True)
    data = E.figure_data(out, "overlap_overlap")
    rows = E.timed(run, "overlap")
    med = {(r["_axes"]["stage"], float(r["_axes"]["streams"])): float(r["median_s"]) for r in rows}
    assert [e["streams"] for e in data["efficiency"]] == [1.0, 2.0, 4.0, 8.0]
    for e in data["efficiency"]:
        s = e["streams"]
        ideal = max(med[("h2d", s)], med[("kernel", s)], med[("d2h", s)])
        assert e["efficiency_source"] == "stages"
        assert e["efficiency"] == 100 * ideal / med[("pipeline", s)]
        assert math.isclose(e["efficiency"], 100 * OVERLAP_EFFICIENCY[int(s)], rel_tol=0.05)


def test_measured_curves_are_solid_and_peaks_dashed(made):
    """A dashed line means a peak; a measured curve drawn dashed (the CPU
    baseline was) reads as a peak."""
    _, out = made
    for data in figures_of(out, "line"):
        for s in data["series"]:
            assert s["style"].get("linestyle", "-") in ("-", "solid"), (data["figure"], s["label"])
        for ref in data["reflines"]:
            if "peak" in ref["label"]:
                assert ref["style"].get("linestyle") == "--", ref


@pytest.fixture(scope="module")
def cpu_only(tmp_path_factory):
    """A run made without a GPU: only vecadd/host and matmul/host_* rows,
    meta.json device null (SYNTHETIC fixture). Unrendered: the tests here
    read no pixels, and test_browser renders this run's page."""
    from conftest import write_synthetic_run
    root = tmp_path_factory.mktemp("cpu_only")
    run = write_synthetic_run(root / "cpu_run", families=("vecadd", "matmul"),
                              keep=lambda bench: "/host" in bench, no_device=True)
    out = root / "report"
    with unrendered():
        proc = reports_cli(run, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return run, out


@pytest.fixture(scope="module")
def cpu_only_real(tmp_path_factory):
    """A real schema-2 run of the CPU baselines by the built cubench on this
    machine (CI has no GPU), --quick: about 3 s."""
    import os
    binary = os.environ.get("CUBENCH_BIN") or str(REPO / "build-ci" / "cubench")
    if not Path(binary).is_file():
        pytest.skip("no cubench binary (CUBENCH_BIN or build-ci/cubench)")
    root = tmp_path_factory.mktemp("cpu_real")
    run = root / "cpu_run"
    proc = subprocess.run([binary, "run", "vecadd/host", "matmul/host_*", "--quick", "--quiet",
                           "--out", str(run)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = root / "report"
    proc = reports_cli(run, "-o", out)
    assert proc.returncode == 0, proc.stderr
    return run, out


@pytest.mark.parametrize("which", ["cpu_only", "cpu_only_real"])
def test_cpu_only_captions_describe_only_what_is_drawn(which, request):
    _, out = request.getfixturevalue(which)
    figs = E.manifest(out)["figures"]
    names = {f["name"] for f in figs}
    assert {"vecadd_gbps_vs_n", "matmul_tflops_vs_size", "matmul_ladder"} <= names
    assert "roofline" not in names  # no GPU point, no roof
    for fig in figs:
        data = E.figure_data(out, fig["name"])
        assert not data.get("reflines"), f"{fig['name']}: no GPU, no peak line"
        for word in ("DRAM", "GPU", "dashed", "dotted", "cuBLAS", "rung"):
            assert word not in fig["caption"], f"{fig['name']}: {word!r} in {fig['caption']!r}"
    caption = {f["name"]: f["caption"] for f in figs}
    assert "CPU baseline" in caption["vecadd_gbps_vs_n"]
    assert "CPU baselines" in caption["matmul_tflops_vs_size"]


def test_gpu_captions_name_the_lines_they_have(made):
    run_dir, out = made
    for fig in E.manifest(out)["figures"]:
        data = E.figure_data(out, fig["name"])
        if data["kind"] != "line" or not fig["name"].endswith("vecadd_gbps_vs_n"):
            continue
        labels = [r["label"] for r in data["reflines"]]
        assert ("DRAM peak" in fig["caption"]) == any("DRAM peak" in l for l in labels)
        assert ("best GPU bandwidth" in fig["caption"]) == any("best measured" in l
                                                              for l in labels)
