"""The recorded run of scripts/record/python_roads.sh, held to what it was
recorded to show: tests/data/h200-python-roads is its OUT/roads (PyCUDA,
the PyTorch extension, torch.distributed, torch.add, the C vecadd rung and
cubench's NCCL family in one run) and tests/data/h200-python-roads-hot its
OUT/small-hot. Skipped while those directories are not in the tree."""
import csv
import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"
ROADS, HOT = DATA / "h200-python-roads", DATA / "h200-python-roads-hot"


def rows(d):
    if not (d / "results.csv").is_file():
        pytest.skip(f"{d.name} is not recorded")
    with open(d / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


def timed(r):
    return r["status"] in ("ok", "noisy")


def find(rs, bench, axes):
    got = [r for r in rs if r["benchmark"] == bench and r["axes"] == axes]
    assert len(got) == 1, (bench, axes, len(got))
    return got[0]


def test_the_run_has_its_provenance_and_no_failure():
    rs = rows(ROADS)
    meta = json.loads((ROADS / "meta.json").read_text())
    assert meta["complete"] is True and not meta["interrupted"]
    frameworks = json.loads((ROADS / "python.json").read_text())["frameworks"]
    assert {"torch", "pycuda"} <= set(frameworks)
    assert not [r for r in rs if r["status"] == "fail"]
    for r in rs:
        if r["family"] in ("pycuda", "torch_ext", "torch_dist") and timed(r) \
                and r["benchmark"] != "torch_ext/call_only":
            assert r["verify_error"] not in ("", "nan"), r["benchmark"]


def test_pycuda_has_three_rungs_that_ran():
    rs = rows(ROADS)
    ran = {r["benchmark"] for r in rs if r["family"] == "pycuda" and timed(r)}
    assert ran >= {"pycuda/add", "pycuda/source_module", "pycuda/copy"}
    kinds = {r["axes"].split(";")[1] for r in rs if r["benchmark"] == "pycuda/copy" and timed(r)}
    assert kinds == {"memory=pageable", "memory=pinned"}


def test_the_extension_runs_the_c_rungs_kernel_at_its_speed():
    rs = rows(ROADS)
    c = find(rs, "vecadd/float4_per_thread", "n=268435456;block=256")
    ext = find(rs, "torch_ext/vecadd_float4", "n=268435456;block=256")
    assert timed(c) and timed(ext)
    assert float(ext["gbps"]) >= 0.98 * float(c["gbps"])
    assert ext["kernels"].split("|")[0] == c["kernels"].split("|")[0]  # the same kernel


def test_torch_distributed_beside_nccl_at_every_point_of_one_gpu():
    rs = rows(ROADS)
    for op in ("all_reduce", "all_gather", "reduce_scatter", "broadcast"):
        for dtype in ("float", "bf16"):
            for size in (1024, 1048576, 1073741824):
                axes = f"ranks=1;dtype={dtype};bytes={size}"
                t, n = find(rs, f"torch_dist/{op}", axes), find(rs, f"nccl/{op}", axes)
                assert timed(t) and timed(n), (op, axes)
    # Out of place in both (a device copy at one rank): the same time at 1 GiB.
    for op in ("all_gather", "reduce_scatter"):
        axes = "ranks=1;dtype=float;bytes=1073741824"
        t, n = find(rs, f"torch_dist/{op}", axes), find(rs, f"nccl/{op}", axes)
        assert abs(float(t["median_s"]) / float(n["median_s"]) - 1) <= 0.05, op
    # torch's all-reduce is in place: NCCL moves nothing at one rank.
    axes = "ranks=1;dtype=float;bytes=1073741824"
    t, n = find(rs, "torch_dist/all_reduce", axes), find(rs, "nccl/all_reduce", axes)
    assert float(t["median_s"]) < 0.5 * float(n["median_s"])


def test_each_caller_has_its_cost_per_call_at_small_n():
    rs = rows(HOT)
    for bench in ("vecadd/float4_per_thread", "torch/add", "torch_ext/vecadd_float4",
                  "torch_ext/call_only", "pycuda/add", "pycuda/source_module"):
        r = find(rs, bench, "n=1024;block=256" if bench.startswith(("vecadd", "torch_ext"))
                 else "n=1024")
        assert timed(r) and r["cache"] == "hot", bench
    call = find(rs, "torch_ext/call_only", "n=1024;block=256")
    full = find(rs, "torch_ext/vecadd_float4", "n=1024;block=256")
    assert float(call["median_s"]) < float(full["median_s"])  # the launch costs something
