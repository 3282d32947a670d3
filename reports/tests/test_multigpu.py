"""The multi-GPU figures: the p2p matrix and the NCCL bandwidth curves, on
the recorded one-GPU H200 suite (NCCL one-rank rows, p2p all skips) and on a
copy of it whose p2p rows are rewritten as a two-GPU run (a test fixture,
not a measurement)."""
import csv
import lzma
import shutil
from pathlib import Path

from reports.figures_multigpu import bus_factor, nccl_figure, p2p_cells, p2p_figures
from reports.load import load_run

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "h200-defaults-r2"


def test_bus_factors_follow_nccl_tests():
    assert bus_factor("nccl/all_reduce", 8) == 2 * 7 / 8
    assert bus_factor("nccl/all_gather", 4) == 3 / 4
    assert bus_factor("nccl/reduce_scatter", 2) == 1 / 2
    assert bus_factor("nccl/broadcast", 8) == 1.0
    assert bus_factor("nccl/alltoall", 2) is None


def test_one_gpu_run_draws_nccl_algbw_and_no_p2p(tmp_path):
    run = load_run(DATA)
    assert p2p_cells(run) == {}, "every p2p row of a one-GPU run is a skip"
    assert p2p_figures(run, tmp_path, "x_") == []
    fig = nccl_figure(run, tmp_path, "x_")
    assert fig is not None and "algorithm bandwidth" in fig.title
    assert "one rank" in fig.caption
    assert (tmp_path / "x_nccl_busbw.png").stat().st_size > 1000


def test_two_gpu_p2p_matrix(tmp_path):
    run_dir = tmp_path / "two"
    shutil.copytree(DATA, run_dir)
    with open(run_dir / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
        fields = list(rows[0].keys())
    gbps = {("0", "1"): 48.0, ("1", "0"): 47.0}
    for r in rows:
        if r["benchmark"] != "p2p/copy":
            continue
        axes = dict(kv.split("=") for kv in r["axes"].split(";"))
        pair = (axes["src"], axes["dst"])
        if pair not in gbps:
            continue
        size = float(axes["bytes"])
        r.update(status="ok", reason="", samples="10", median_s=repr(size / gbps[pair] / 1e9),
                 min_s=repr(size / gbps[pair] / 1e9), max_s=repr(size / gbps[pair] / 1e9),
                 bytes=repr(size), gbps=repr(gbps[pair] * (size / 2**30)))
    with open(run_dir / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    run = load_run(run_dir)
    cells = p2p_cells(run)
    # The largest size (1 GiB) wins each cell: the figure nvbandwidth prints.
    assert cells[("on", "one")][(0, 1)] == 48.0 and cells[("on", "one")][(1, 0)] == 47.0
    figs = p2p_figures(run, tmp_path, "y_")
    assert len(figs) == 4  # peer on/off x one/both ways
    assert all((tmp_path / f.png).stat().st_size > 1000 for f in figs)
