"""The recorded H200 runs of the Python package (tests/data/h200-python-*,
h200-runner-ahead): what docs/python.md says of them holds in the files."""
import csv
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
from cubench.check import matmul_tolerance  # noqa: E402

DATA = ROOT / "tests" / "data"
FAMILIES = ("torch", "cupy", "jax", "numba", "triton")


def rows(run):
    with open(DATA / run / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("family", FAMILIES)
def test_every_installed_framework_family_verified(family):
    got = rows(f"h200-python-{family}")
    assert got and all(r["benchmark"].startswith(family + "/") for r in got)
    timed = [r for r in got if r["status"] in ("ok", "noisy")]
    assert len(timed) >= len(got) // 2
    assert not [r for r in got if r["status"] == "fail"]
    # Every timed row was checked first: an error figure, not "not verified".
    for r in timed:
        assert r["verify_error"] != "" and float(r["verify_error"]) >= 0, r["axes"]
        assert "not verified" not in r["note"]


def test_frameworks_not_installed_are_skips_with_the_reason():
    for r in rows("h200-python-others"):
        if not r["benchmark"].startswith("numpy/"):
            assert r["status"] == "skip"
            assert "not installed" in r["reason"] or "without CUDA" in r["reason"], r["reason"]


def test_torch_add_is_within_one_percent_of_a_plain_event_loop():
    doc = json.loads((DATA / "h200-runner-ahead" / "event_loop.json").read_text())
    assert doc["n"] == 2**28
    for mode in ("cold", "hot"):
        m = doc["modes"][mode]
        assert m["cubench_status"] == "ok" and m["cubench_rc"] == 0
        loop = sum(m["loop_median_s"]) / len(m["loop_median_s"])
        assert len(m["loop_median_s"]) == 2  # before and after cubench
        ratio = m["cubench_median_s"] / loop
        assert ratio == pytest.approx(m["cubench_over_loop"], rel=1e-9)
        assert abs(ratio - 1) < 0.01 and m["within_1pct"]


def test_small_n_overhead_rows_are_calls_not_kernels():
    got = rows("h200-runner-ahead/small-hot")
    assert {r["cache"] for r in got} == {"hot"}
    for r in got:
        assert r["status"] in ("ok", "noisy")
        per_call, kernel = float(r["median_s"]), float(r["cupti_median_s"])
        assert float(r["overhead_s"]) == pytest.approx(per_call - kernel, rel=1e-6, abs=1e-9)
        # Up to 2^20 elements every caller spends µs per call beyond its
        # kernel: the samples are the launch rate, not the GPU.
        assert per_call - kernel > 3e-6, (r["benchmark"], r["axes"])


def test_triton_rows_name_their_instruction_and_the_k_major_b_is_faster():
    got = {r["benchmark"]: r for r in rows("h200-python-mixed-matmul")}
    for name in ("triton/matmul_tf32", "triton/matmul_tf32_bkmajor", "triton/matmul_bf16"):
        assert "PTX: wgmma.mma_async" in got[name]["note"], got[name]["note"]
    assert "PTX: no mma (FMA)" in got["triton/matmul_fp32"]["note"]
    assert "B K-major" in got["triton/matmul_tf32_bkmajor"]["note"]
    row_major = float(got["triton/matmul_tf32"]["tflops"])
    k_major = float(got["triton/matmul_tf32_bkmajor"]["tflops"])
    assert k_major > 3 * row_major


def test_triton_probe_has_every_configuration_verified():
    doc = json.loads((DATA / "h200-python-session" / "triton-probe.json").read_text())
    assert doc["size"] == 4096 and len(doc["rows"]) >= 10
    for row in doc["rows"]:
        assert "error_text" not in row, row
        assert row["error"] <= matmul_tolerance(row["precision"], doc["size"]), row
