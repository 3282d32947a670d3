"""Bad input, end to end: every --axis value is checked with or without a GPU,
--device names a device that exists, --dry-run lists GPU points, sizes too
large for memory are skip rows with the numbers, written identities can be
typed back, and --quick takes enough samples for a 95% CI of the median."""
import json
import subprocess
from math import comb

import pytest
from host_runs import run_host


def run(cubench, *args, timeout=120, **kw):
    return subprocess.run([cubench, *args], capture_output=True, text=True, timeout=timeout, **kw)


@pytest.mark.parametrize(
    "args, message",
    [
        (("vecadd/grid_stride", "--axis", "n=garbage"), "axis 'n': 'garbage' is not a number"),
        (("vecadd/grid_stride", "--axis", "grid=4smx"), "axis 'grid'"),
        (("--axis", "grid=garbage"), "axis 'grid': 'garbage' is not a number"),
        (("matmul/cublas_fp32", "--axis", "m=2^63"), "too large"),
        (("vecadd/host", "--axis", "n=2^3^4"), "unexpected"),
    ],
)
def test_every_override_is_checked(cubench, args, message, tmp_path):
    for extra in ((), ("--dry-run",)):
        p = run(cubench, "run", *args, *extra, cwd=tmp_path)
        assert p.returncode == 2, (args, extra, p.stderr)
        assert message in p.stderr
    assert not (tmp_path / "results").exists()


def test_gpu_only_axis_means_the_same_everywhere(cubench, tmp_path):
    p = run(cubench, "run", "--axis", "block=64", "--axis", "n=2^10", "--dry-run", cwd=tmp_path)
    assert p.returncode == 0, p.stderr


def test_device_ordinal_that_does_not_exist(cubench, has_gpu, tmp_path):
    p = run(cubench, "run", "vecadd/host", "--device", "99", "--dry-run", cwd=tmp_path)
    assert p.returncode == 2
    if has_gpu:
        assert "--device 99: only" in p.stderr
    else:
        assert "no CUDA device; --device 99 cannot be used" in p.stderr
    # Left out, the CPU points run on either kind of machine.
    assert run(cubench, "run", "vecadd/host", "--dry-run").returncode == 0


def test_dry_run_lists_gpu_points(cubench, has_gpu):
    p = run(cubench, "run", "vecadd/grid_stride", "--axis", "n=2^20", "--axis", "block=256",
            "--axis", "grid=auto,4sm,64", "--dry-run")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("vecadd/grid_stride n=1048576;block=256;grid=auto")
    if has_gpu:
        assert "sm" not in lines[1].split()[1] and "skip" not in p.stdout
    else:
        assert lines[1] == "vecadd/grid_stride n=1048576;block=256;grid=4sm (skip: no CUDA device)"


def test_huge_exponents_parse_at_once(cubench):
    for spec, n in (("1^999999999999999999", 1), ("2^62", 2**62), ("1^" + "9" * 100000, 1)):
        p = run(cubench, "run", "vecadd/host", "--axis", f"n={spec}", "--axis", "threads=1",
                "--dry-run", timeout=10)
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == f"vecadd/host n={n};threads=1"


def test_too_large_for_memory_is_a_skip_that_can_be_typed_back(cubench, tmp_path):
    rows = run_host(cubench, tmp_path / "run", "2^62,2^40", "--quick", "--quiet", timeout=120)
    assert [r["status"] for r in rows] == ["skip", "skip"]
    assert "more than 16 EiB of host memory (the byte count overflows 64 bits)" in rows[0]["reason"]
    assert rows[1]["reason"].startswith("needs 12.0 TiB of host memory; ")
    assert "available (" in rows[1]["reason"]
    # Every identity written can be run again: each name=value parses back.
    for r in rows:
        args = []
        for pair in r["axes"].split(";"):
            args += ["--axis", pair]
        again = run(cubench, "run", r["benchmark"], *args, "--dry-run")
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == f"{r['benchmark']} {r['axes']}"


def smallest_n_for_median_ci(level):
    """Fewest samples whose widest order-statistic interval [x(1), x(n)]
    covers the median with probability >= level: 1 - 2 P(B = 0), B ~ Bin(n, 1/2)."""
    n = 1
    while 1 - 2 * comb(n, 0) / 2**n < level:
        n += 1
    return n


def test_quick_takes_enough_samples_for_a_95_percent_ci(cubench, tmp_path):
    floor = smallest_n_for_median_ci(0.95)
    assert floor == 6  # 5 samples cover 93.75% at best, 6 cover 96.9%
    out = tmp_path / "q"
    rows = run_host(cubench, out, "2^10", "--quick", "--quiet", timeout=120)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["settings"]["min_samples"] == floor
    assert int(rows[0]["samples"]) >= floor
    low = run(cubench, "run", "vecadd/host", "--min-samples", str(floor - 1), "--dry-run")
    assert low.returncode == 2
    assert f"needs at least {floor} samples" in low.stderr and "93.75%" in low.stderr
    assert run(cubench, "run", "vecadd/host", "--min-samples", str(floor), "--dry-run").returncode == 0


def test_small_address_space_does_not_hang(cubench, tmp_path):
    """Under `ulimit -v` of 1 GiB every command used to hang at exit in
    OpenBLAS's thread pool, started at load for commands that do no host
    BLAS; the BLAS is now opened only when a host BLAS benchmark needs it."""
    for args in (["--version"], ["list", "--names"], ["run", "vecadd/host", "--axis", "n=2^10",
                                                      "--quick", "--out", str(tmp_path / "v")]):
        p = subprocess.run(["bash", "-c", 'ulimit -v 1048576; exec "$@"', "cb", cubench, *args],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, (args, p.stderr)


@pytest.mark.parametrize("bench, axis", [("vecadd/host", "n=4sm"), ("matmul/host_blocked", "m=2sm"),
                                         ("vecadd/host", "n=1sm:4sm:x2")])
def test_sm_multiples_are_refused_for_host_benchmarks(cubench, bench, axis, tmp_path):
    """A host benchmark has no SM count: `4sm` used to reach it as a
    placeholder (bytes = -24) instead of a refusal."""
    p = subprocess.run([cubench, "run", bench, "--axis", axis, "--out", str(tmp_path / "r")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2, p.stderr
    assert "needs a GPU's SM count" in p.stderr
    assert not (tmp_path / "r").exists()
