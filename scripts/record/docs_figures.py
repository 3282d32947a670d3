#!/usr/bin/env python3
"""docs_figures.py [--check] [--screenshots] - the README's measured H200 table
and the docs images, made from the recorded runs in tests/data and nothing else.

    .venv/bin/python scripts/record/docs_figures.py                  # rewrite them
    .venv/bin/python scripts/record/docs_figures.py --check          # exit 1 if stale
    .venv/bin/python scripts/record/docs_figures.py --screenshots    # + report page shots

What it writes:
- README.md, between the `docs_figures.py: h200 table` markers: every figure
  computed from the recorded results.csv / samples.csv / meta.json (and the
  A/A row from `cubench compare` on the recorded pairs: CUBENCH_BIN, or
  build-ci/cubench, or build/cubench);
- docs/img/h200-*.png: report figures of the recorded runs, drawn by the
  reports package with fixed metadata (the same data gives the same bytes);
- docs/img/figures.json: for each image the run and figure it comes from and
  the SHA-256 of the data drawn and of the PNG. reports/tests/test_docs.py
  fails when the README table or a sidecar entry differs from what this
  script makes now, i.e. when the docs show an older run than tests/data.
- with --screenshots, docs/img/h200-report-*.png: headless-Chromium shots of
  the report pages of recorded runs (reports/browser.py), 900 px wide. These
  depend on the browser's fonts, so the sidecar records the page they show
  (the SHA-256 of its index.html) rather than their pixels.
"""

from __future__ import annotations

import argparse
import csv
import functools
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from recorded import metric_values, open_csv  # noqa: E402

DATA = Path("tests/data")  # relative: the report pages name their runs by this path
IMG = REPO / "docs" / "img"
SIDECAR = IMG / "figures.json"
BEGIN = "<!-- docs_figures.py: h200 table begin (generated from tests/data; do not edit) -->"
END = "<!-- docs_figures.py: h200 table end -->"


# --- reading the recorded runs --------------------------------------------------
def open_recorded(run: str, name: str):
    """A recorded run's CSV file `name` (recorded.py: plain or NAME.xz)."""
    return open_csv(REPO / DATA / run, name)


def open_samples(run: str):
    return open_recorded(run, "samples.csv")


def rows(run: str) -> list[dict]:
    with open_recorded(run, "results.csv") as fh:
        return list(csv.DictReader(fh))


def meta(run: str) -> dict:
    return json.loads((REPO / DATA / run / "meta.json").read_text())


@functools.lru_cache(maxsize=None)
def tar_files(tarball: str) -> dict[str, str]:
    """Every file of a recorded tarball (tests/data/TARBALL, .tar.xz) as text,
    read once: the table takes several members of the same tarballs."""
    with tarfile.open(REPO / DATA / tarball) as tar:
        return {m.name.removeprefix("./"): tar.extractfile(m).read().decode("utf-8", "replace")
                for m in tar.getmembers() if m.isfile()}


def tar_text(tarball: str, member: str) -> str:
    files = tar_files(tarball)
    if member not in files:
        raise SystemExit(f"docs_figures.py: {tarball}: no file {member}")
    return files[member]


def tar_rows(tarball: str, member: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(tar_text(tarball, member), newline="")))


def axis(row: dict, name: str) -> str | None:
    for pair in row["axes"].split(";"):
        key, _, value = pair.partition("=")
        if key == name:
            return value
    return None


def timed(rs, pred=lambda r: True) -> list[dict]:
    return [r for r in rs if r["status"] in ("ok", "noisy") and r["median_s"] and pred(r)]


def best(rs, column: str, pred=lambda r: True) -> dict:
    found = [r for r in timed(rs, pred) if r[column]]
    if not found:
        raise SystemExit(f"docs_figures.py: no row for {column} in the recorded runs")
    return max(found, key=lambda r: float(r[column]))


def gpu(r: dict) -> bool:
    return r["cache"] != "n/a" and not r["benchmark"].partition("/")[2].startswith("host")


def at(bench: str, **axes) -> callable:
    return lambda r: r["benchmark"] == bench and all(axis(r, k) == str(v) for k, v in axes.items())


def seconds(stamp: str) -> float:
    from datetime import datetime
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def cubench_binary() -> str | None:
    for candidate in (os.environ.get("CUBENCH_BIN"), REPO / "build-ci" / "cubench",
                      REPO / "build" / "cubench"):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def _cubench(*args: str) -> subprocess.CompletedProcess:
    binary = cubench_binary()
    if not binary:
        raise SystemExit("docs_figures.py: the A/A row needs cubench (CUBENCH_BIN, "
                         "build-ci/cubench or build/cubench): run scripts/build.sh ci")
    return subprocess.run([binary, *args], capture_output=True, text=True, timeout=300)


def compare(base: str, new: str, *extra: str) -> list[dict]:
    proc = _cubench("compare", str(REPO / DATA / base), str(REPO / DATA / new), "--csv", "-",
                    *extra)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"docs_figures.py: cubench compare failed: {proc.stderr.strip()}")
    return list(csv.DictReader(proc.stdout.splitlines()))


def calibration(pairs: tuple[str, ...], out: Path) -> Path:
    """The between-run spread of recorded A/A pairs (cubench compare --calibrate
    needs at least three runs: one pair cannot tell a run's shift from noise)."""
    runs = [str(REPO / DATA / f"{pair}-{side}") for pair in pairs for side in "AB"]
    proc = _cubench("compare", "--calibrate", *runs, "-o", str(out))
    if proc.returncode != 0:
        raise SystemExit(f"docs_figures.py: cubench compare --calibrate failed: "
                         f"{proc.stderr.strip()}")
    return out


# --- the table ----------------------------------------------------------------

def vecadd_rows() -> list[str]:
    va = rows("h200-vecadd-large")
    out = []
    top = best(va, "gbps", lambda r: gpu(r) and axis(r, "n") == str(2**28))
    out.append(f"| vector add, best variant, n = 2^28 | **{float(top['gbps']):.0f} GB/s** "
               f"({float(top['pct_peak']):.0f} % of the {float(top['peak']):.0f} GB/s DRAM "
               f"peak): `{top['benchmark'].partition('/')[2]}`, block {axis(top, 'block')} "
               f"| h200-vecadd-large |")
    top30 = best(va, "gbps", lambda r: gpu(r) and axis(r, "n") == str(2**30))
    out.append(f"| vector add, best variant, n = 2^30 | **{float(top30['gbps']):.0f} GB/s** "
               f"| h200-vecadd-large |")
    per = {}
    for r in timed(va, lambda r: gpu(r) and axis(r, "n") == str(2**28)):
        per[r["benchmark"]] = max(per.get(r["benchmark"], 0.0), float(r["gbps"]))
    ladder = " · ".join(f"{b.partition('/')[2]} {v:.0f}" for b, v in
                        sorted(per.items(), key=lambda kv: kv[1]))
    out.append(f"| vector add ladder at 2^28 | {ladder} GB/s | h200-vecadd-large |")
    one, two = rows("h200-vecadd-defaults"), rows("h200-vecadd-defaults-run2")
    walls = [seconds(meta(r)["finished"]) - seconds(meta(r)["started"])
             for r in ("h200-vecadd-defaults", "h200-vecadd-defaults-run2")]
    second = {(r["benchmark"], r["axes"]): float(r["median_s"]) for r in timed(two)}

    def spread(min_n: int):
        diffs = [(abs(second[(r["benchmark"], r["axes"])] / float(r["median_s"]) - 1) * 100,
                  int(axis(r, "n")))
                 for r in timed(one, lambda r: gpu(r) and int(axis(r, "n") or 0) >= min_n)
                 if (r["benchmark"], r["axes"]) in second]
        within = sum(d <= 1.0 for d, _ in diffs)
        worst = max(diffs)
        outside_n = {n for d, n in diffs if d > 1.0}
        return within, len(diffs), worst, outside_n

    w24, n24, worst24, out24 = spread(2**24)
    w26, n26, worst26, _ = spread(2**26)
    where = (f", all at n = 2^{(next(iter(out24))).bit_length() - 1}" if len(out24) == 1 else "")
    out.append(f"| `cubench run 'vecadd*'` ({len(one)} points) | {walls[0]:.0f} s and "
               f"{walls[1]:.0f} s from start to finish (meta.json); medians of the two runs "
               f"within 1 % for {w24} of {n24} GPU points with n ≥ 2^24 (worst "
               f"{worst24[0]:.1f} %{where}), {w26} of {n26} with n ≥ 2^26 (worst "
               f"{worst26[0]:.1f} %) | h200-vecadd-defaults, -run2 |")
    return out


def matmul_rows() -> list[str]:
    mm = rows("h200-matmul-defaults")
    naive = best(mm, "tflops", at("matmul/naive_coalesced", m=4096))
    smem = best(mm, "tflops", at("matmul/smem_tiled", m=4096))
    hand = best(mm, "tflops", lambda r: gpu(r) and axis(r, "m") == "4096"
                and not r["benchmark"].startswith("matmul/cublas"))
    fp32 = best(mm, "tflops", at("matmul/cublas_fp32", m=4096))
    sustained = rows("h200-tf32-sustained")
    tf32 = best(sustained, "tflops", at("matmul/cublas_tf32", m=8192))
    with open_samples("h200-tf32-sustained") as fh:
        first = sorted((int(s["sample"]), float(s["time_s"])) for s in csv.DictReader(fh)
                       if s["benchmark"] == tf32["benchmark"] and s["axes"] == tf32["axes"])[:3]
    rates = [float(tf32["flops"]) / t / 1e12 for _, t in first]
    earlier = best(rows("h200-matmul-defaults-first"), "tflops", at("matmul/cublas_tf32", m=8192))
    return [
        f"| matmul 4096³: naive coalesced · smem tiled · best hand-written | "
        f"{float(naive['tflops']):.2f} · {float(smem['tflops']):.2f} · "
        f"**{float(hand['tflops']):.2f} TFLOP/s** ({hand['benchmark'].partition('/')[2]}, "
        f"{float(hand['pct_ref']):.1f} % of cuBLAS) | h200-matmul-defaults |",
        f"| cuBLAS FP32 (pedantic) 4096³ · TF32 8192³ | {float(fp32['tflops']):.2f} · "
        f"{float(tf32['tflops']):.1f} TFLOP/s sustained (first samples "
        f"{min(rates):.0f}–{max(rates):.0f}; {float(earlier['tflops']):.1f} in an earlier run "
        f"on another H200) | h200-matmul-defaults(-first), h200-tf32-sustained |",
    ]


# The tensor-core ladder of h200-matmul-tc, in ladder order: benchmark variant
# (without the precision suffix) -> how the table names the rung.
TC_RUNGS = {"mma": "mma.sync", "ldmatrix": "ldmatrix + cp.async", "wgmma": "wgmma",
            "wgmma_ws": "warp-specialised persistent"}


def tensor_core_rows() -> list[str]:
    tc = rows("h200-matmul-tc")
    value = lambda bench, m: float(best(tc, "tflops", at(bench, m=m))["tflops"])  # noqa: E731
    out = []
    for m, head in ((8192, "tensor-core ladder, BF16 8192³: "
                            + " · ".join(TC_RUNGS.values())), (4096, "the same at 4096³")):
        rates = [value(f"matmul_tc/{rung}_bf16", m) for rung in TC_RUNGS]
        top = best(tc, "tflops", at(f"matmul_tc/{list(TC_RUNGS)[-1]}_bf16", m=m))
        cublas = value("matmul/cublas_bf16", m)
        bold = f"**{rates[-1]:.1f} TFLOP/s**" if m == 8192 else f"**{rates[-1]:.1f}**"
        tail = (f"({float(top['pct_ref']):.1f} % of cuBLAS BF16, {cublas:.1f}, in the same run)"
                if m == 8192 else f"({float(top['pct_ref']):.1f} % of cuBLAS BF16, {cublas:.1f})")
        run = "h200-matmul-tc (not yet printed by targets.py)" if m == 8192 else "h200-matmul-tc"
        out.append(f"| {head} | {' · '.join(f'{r:.1f}' for r in rates[:-1])} · {bold} "
                   f"{tail} | {run} |")
    tf32 = {m: best(tc, "tflops", lambda r, m=m: r["benchmark"].startswith("matmul_tc/")
                    and r["benchmark"].endswith("_tf32") and axis(r, "m") == str(m))
            for m in (4096, 8192)}
    names = {TC_RUNGS.get(r["benchmark"].partition("/")[2][:-len("_tf32")], r["benchmark"])
             for r in tf32.values()}
    cublas = best(tc, "tflops", at("matmul/cublas_tf32", m=8192))
    with open_samples("h200-matmul-tc") as fh:
        first = sorted((int(s["sample"]), float(s["time_s"])) for s in csv.DictReader(fh)
                       if s["benchmark"] == cublas["benchmark"] and s["axes"] == cublas["axes"]
                       and s.get("replicate", "0") in ("", "0"))[:3]
    rates = [float(cublas["flops"]) / t / 1e12 for _, t in first]
    out.append(f"| tensor-core ladder, TF32, best rung ({' / '.join(sorted(names))}) "
               f"4096³ · 8192³ | {float(tf32[4096]['tflops']):.1f} · "
               f"{float(tf32[8192]['tflops']):.1f} TFLOP/s: {float(tf32[4096]['pct_ref']):.1f} % "
               f"and {float(tf32[8192]['pct_ref']):.1f} % of cuBLAS TF32 in the same run, which "
               f"sustained {float(cublas['tflops']):.1f} at 8192³ (its first samples "
               f"{min(rates):.0f}–{max(rates):.0f}) | h200-matmul-tc |")
    return out


def transfer_rows() -> list[str]:
    tr = rows("h200-transfers-defaults")

    def span(direction):
        vals = [float(r["gbps"]) for r in timed(tr, lambda r: r["benchmark"] ==
                                                "transfers/memcpy_async"
                                                and axis(r, "direction") == direction
                                                and axis(r, "memory") == "pinned"
                                                and int(axis(r, "bytes")) >= 2**28)]
        return f"{min(vals):.2f}–{max(vals):.2f}"

    bidir = {int(axis(r, "bytes")): float(r["gbps"]) for r in
             timed(tr, lambda r: r["benchmark"] == "transfers/bidir"
                   and axis(r, "memory") == "pinned")}
    d2d = best(tr, "gbps", at("transfers/d2d", bytes=2**30))
    return [
        f"| pinned H2D · D2H (≥ 256 MiB, async) | {span('h2d')} · {span('d2h')} GB/s "
        f"| h200-transfers-defaults |",
        f"| bidirectional pinned | {bidir[2**28]:.1f} GB/s combined at 256 MiB "
        f"({bidir[2**30]:.1f} at 1 GiB) | h200-transfers-defaults |",
        f"| D2D 1 GiB (read + write counted) | {float(d2d['gbps']):.0f} GB/s "
        f"| h200-transfers-defaults |",
    ]


def profiling_and_compare_rows() -> list[str]:
    on = {(r["benchmark"], r["axes"]): float(r["median_s"]) for r in timed(rows("h200-cupti-on"))}
    off = {(r["benchmark"], r["axes"]): float(r["median_s"]) for r in timed(rows("h200-cupti-off"))}
    common = [k for k in on if k in off]
    worst = max(abs(on[k] / off[k] - 1) * 100 for k in common)
    times = sorted(off[k] for k in common)
    with tempfile.TemporaryDirectory(prefix="docs-figures-cal-") as tmp:
        cal = str(calibration(("h200-aa1", "h200-aa3"), Path(tmp) / "h200.csv"))
        aa = compare("h200-aa2-A", "h200-aa2-B", "--calibration", cal)
        ab = compare("h200-ab-A", "h200-ab-B", "--calibration", cal)
    ab_plain = compare("h200-ab-A", "h200-ab-B")
    count = lambda rs, v: sum(r["verdict"] == v for r in rs)  # noqa: E731
    slow = [(float(r["ratio"]) - 1) * 100 for r in ab]
    others = ", ".join(f"{n} {v}" for v, n in sorted(
        {r["verdict"]: count(aa, r["verdict"]) for r in aa
         if r["verdict"] not in ("slower", "faster", "same")}.items()))
    return [
        f"| CUPTI on vs off ({len(common)} vecadd points, {times[0] * 1e6:.1f} µs … "
        f"{times[-1] * 1e6:.0f} µs) | event medians within {worst:.2f} % "
        f"| h200-cupti-on/-off |",
        f"| A/A compare, {len(aa)} points, calibrated on two other A/A pairs | "
        f"{count(aa, 'slower')} slower, {count(aa, 'faster')} faster, "
        f"{count(aa, 'same')} same" + (f", {others}" if others else "")
        + f"; a known {min(slow):.1f}–{max(slow):.1f} % slowdown: {count(ab, 'slower')} "
        f"of {len(ab)} flagged ("
        + ("as many without the calibration" if count(ab_plain, "slower") == count(ab, "slower")
           else f"{count(ab_plain, 'slower')} without the calibration, whose default "
                f"widening for between-run spread is wider")
        + ") | h200-aa2 (calibration h200-aa1 + h200-aa3), h200-ab |",
    ]


def round2_rows() -> list[str]:
    """Schema 2: the whole default suite after the layering work, telemetry's
    explanation of the TF32 fall, the five A/A pairs, Python frameworks."""
    suite = rows("h200-defaults-r2")
    m = meta("h200-defaults-r2")
    wall = seconds(m["finished"]) - seconds(m["started"])
    count = {s: sum(r["status"] == s for r in suite) for s in ("ok", "noisy", "skip", "fail")}
    tf = rows("h200-tf32-telemetry")[0]
    py = {}
    for run, bench in (("h200-python-torch", "torch/add"), ("h200-python-cupy", "cupy/add"),
                       ("h200-python-cupy", "cupy/raw_kernel")):
        py[bench] = float(best(rows(run), "gbps", at(bench, n=2**28))["gbps"])
    aa_lines = (REPO / DATA / "h200-aa-r2" / "summary.txt").read_text().splitlines()
    aa = next(line for line in aa_lines if line.startswith("A/A pairs:"))
    loop = json.loads((REPO / DATA / "h200-runner-ahead" / "event_loop.json").read_text())
    per_call = {r["benchmark"]: float(r["median_s"]) * 1e6
                for r in rows("h200-runner-ahead/small-hot") if r["axes"].startswith("n=1024")}
    calls = " · ".join(f"{per_call[name]:.1f}" for name in
                       ("vecadd/float4_per_thread", "cupy/raw_kernel", "cupy/add", "torch/add",
                        "triton/add", "numba/jit_kernel", "jax/add", "numba/vectorize"))
    return [
        f"| `cubench run --device all`: the default suite ({len(suite)} points, "
        f"{count['ok']} ok, {count['noisy']} noisy, {count['skip']} skip, {count['fail']} fail) "
        f"| {wall:.0f} s wall (meta.json started → finished) | h200-defaults-r2 |",
        f"| cuBLAS TF32 8192³, 1000 samples with telemetry | median "
        f"{float(tf['tflops']):.1f} TFLOP/s; SM clock {float(tf['sm_clock_min_mhz']):.0f}/"
        f"{float(tf['sm_clock_median_mhz']):.0f}/{float(tf['sm_clock_max_mhz']):.0f} MHz "
        f"(min/median/max), {float(tf['power_mean_w']):.0f} W mean, throttle "
        f"`{tf['throttle']}` | h200-tf32-telemetry |",
        f"| A/A, five pairs of processes × 200 vecadd points, `--replicates 5` | "
        f"{aa.partition(':')[2].strip()} | h200-aa-r2 |",
        f"| vector add 2^28 from Python: torch.add · cupy.add · CuPy float4 RawKernel | "
        f"{py['torch/add']:.0f} · {py['cupy/add']:.0f} · {py['cupy/raw_kernel']:.0f} GB/s "
        f"(CuPy's elementwise kernel: docs/python.md) | h200-python-torch, -cupy |",
        f"| torch.add 2^28 through cubench ÷ a plain CUDA-event loop, same process (cold · hot) | "
        f"{loop['modes']['cold']['cubench_over_loop']:.4f} · "
        f"{loop['modes']['hot']['cubench_over_loop']:.4f} | h200-runner-ahead |",
        f"| cost of one add at n = 2^10 from each caller, hot (µs per call; kernel ~0.9 µs): "
        f"C (cubench) · cupy RawKernel · cupy.add · torch.add · Triton · Numba @cuda.jit · "
        f"JAX (host-timed) · Numba @vectorize | {calls} | h200-runner-ahead/small-hot |",
    ]


def tflops_of(rs: list[dict], bench: str, column: str = "tflops") -> float:
    """`column` of the fastest row of `bench` in `rs`."""
    return float(best(rs, "tflops", at(bench))[column])


def suite_account(rs: list[dict]) -> str:
    """A default suite's noisy share and where its time went, summed over rows."""
    timed_rows = timed(rs)
    noisy = sum(r["status"] == "noisy" for r in timed_rows)
    setup = sum(float(r["setup_s"] or 0) + float(r["verify_s"] or 0) for r in rs)
    sampling = sum(float(r["sampling_s"] or 0) for r in rs)
    return (f"{noisy} of {len(timed_rows)} timed rows noisy "
            f"({100 * noisy / len(timed_rows):.1f} %), setup + verify {setup:.0f} s, "
            f"sampling {sampling:.0f} s")


def round3_rows() -> list[str]:
    """Round 3 (tests/data/h200-r3, schema 3): the GEMM ladders beside their
    references in one run, the default suite's time account and noise, and
    the recorded compare of its two runs."""
    g8, g40 = rows("h200-r3/gemm8192"), rows("h200-r3/gemm4093")
    tf = tflops_of
    pct = lambda rs, b: tflops_of(rs, b, "pct_ref")  # noqa: E731
    suites = {name: rows(f"h200-r3/{name}") for name in ("suiteB", "suiteC")}
    account = [suite_account(rs) for rs in suites.values()]
    with open_recorded("h200-r3", "compare-suiteB-suiteC.csv") as fh:
        verdicts = [r["verdict"] for r in csv.DictReader(fh)]
    count = lambda v: sum(x == v for x in verdicts)  # noqa: E731
    return [
        f"| GEMM 8192³ in one run: cuBLAS BF16 · wgmma_ws_bf16; cuBLASLt FP8 · wgmma_fp8 · "
        f"wgmma_cluster_fp8 | {tf(g8, 'matmul/cublas_bf16'):.1f} · "
        f"**{tf(g8, 'matmul_tc/wgmma_ws_bf16'):.1f}** ({pct(g8, 'matmul_tc/wgmma_ws_bf16'):.1f} %); "
        f"{tf(g8, 'matmul/cublaslt_fp8'):.0f} · **{tf(g8, 'matmul_tc/wgmma_fp8'):.0f}** "
        f"({pct(g8, 'matmul_tc/wgmma_fp8'):.1f} %) · {tf(g8, 'matmul_tc/wgmma_cluster_fp8'):.0f} "
        f"({pct(g8, 'matmul_tc/wgmma_cluster_fp8'):.1f} %) TFLOP/s | h200-r3/gemm8192 |",
        f"| BF16 at 4093³ (ragged): cuBLAS · wgmma_ws_bf16 (staged) | "
        f"{tf(g40, 'matmul/cublas_bf16'):.1f} · **{tf(g40, 'matmul_tc/wgmma_ws_bf16'):.1f} TFLOP/s** "
        f"({pct(g40, 'matmul_tc/wgmma_ws_bf16'):.0f} % of cuBLAS) | h200-r3/gemm4093 |",
        f"| the default suite after round 3 ({len(suites['suiteB'])} points), two runs stopped "
        f"at 150 s with every first round done | {account[0]}; {account[1]} | "
        f"h200-r3/suiteB, suiteC |",
        f"| those two runs compared, one run per side, two H200 boards | {count('slower')} "
        f"slower, {count('faster')} faster, {count('same')} same, {count('throttled')} "
        f"throttled, {count('inconclusive')} inconclusive | h200-r3/compare-suiteB-suiteC |",
    ] + round3_late_rows()


def round3_late_rows() -> list[str]:
    """The default suite run to its end, the GEMM run at every shape
    (tests/data/h200-r3/gemm) and the A/A pairs over every kind
    (tests/data/h200-aa-r3)."""
    suite = rows("h200-r3/suiteD")
    m = meta("h200-r3/suiteD")
    wall = seconds(m["finished"]) - seconds(m["started"])
    # the newest build's GEMM record (scripts/record/gemm.sh, one run per shape):
    # every row below reads it and names it
    gemm_dir = "h200-r3/gemm-r4"
    final_gemm = f"{gemm_dir}/runs.tar.xz"
    gemm = {shape: tar_rows(final_gemm, f"run-{shape}/results.csv")
            for shape in ("8191x8193x4095", "1000x3000x200", "4096", "torch-fp8", "4096x1x4096",
                          "4093", "8192")}
    top = lambda rs: max((r for r in rs if r["benchmark"].startswith("matmul_tc/wgmma_")  # noqa: E731
                          and r["benchmark"].endswith("_bf16") and r["tflops"]),
                         key=lambda r: float(r["tflops"]))
    tf = tflops_of
    odd, small = top(gemm["8191x8193x4095"]), top(gemm["1000x3000x200"])
    fp8 = [r for r in gemm["torch-fp8"] if axis(r, "m") == "8192"]
    torch_fp8 = tf(fp8, "torch/matmul_fp8")
    lt_fp8 = tf(fp8, "matmul/cublaslt_fp8")
    tf32 = gemm["4096"]
    mhz = lambda bench: best(tf32, "tflops", at(bench))["sm_clock_median_mhz"]  # noqa: E731
    per_cycle = tf32_per_cycle(f"{gemm_dir}/metrics-tf32", "m=4096")
    # a reference row that missed its precision is said beside the ratio
    small_ref = best(gemm["1000x3000x200"], "tflops", at("matmul/cublas_bf16"))
    small_ref_note = "; cuBLAS row noisy" if small_ref["status"] == "noisy" else ""
    simt = " · ".join(f"{tflops_of(gemm[s], 'matmul/pipelined', 'pct_ref'):.1f}"
                      for s in ("4096x1x4096", "8191x8193x4095", "4093", "4096", "8192"))
    clean, mde = aa_summary("h200-aa-r3")
    # the stream-K tail's record: `auto` runs it at 8192^3, `m128n128k8` whole tiles
    sk_runs = [tar_rows("h200-r3/fp32-streamk/final.tar.xz", f"sq{p}/results.csv")
               for p in (1, 2, 3)]

    def streamk(config: str, column: str) -> str:
        """matmul/pipelined 8192^3 at `config`, `column` of each process."""
        digits = 2 if column == "tflops" else 1
        pick = at("matmul/pipelined", m="8192", config=config)
        return " · ".join(f"{float(best(rs, column, pick)[column]):.{digits}f}" for rs in sk_runs)

    return [
        f"| the default suite run to its end (674 points) | {wall:.0f} s wall (meta.json started → "
        f"finished); {suite_account(suite)} | h200-r3/suiteD |",
        f"| BF16, best top rung against cuBLAS BF16 in one run: 8191 x 8193 x 4095 · "
        f"1000 x 3000 x 200 | {float(odd['tflops']):.1f} ({float(odd['pct_ref']):.0f} %, "
        f"{odd['benchmark'].split('/')[1]}) · {float(small['tflops']):.1f} "
        f"({float(small['pct_ref']):.1f} %, {small['benchmark'].split('/')[1]}{small_ref_note}) "
        f"TFLOP/s | {gemm_dir} |",
        f"| TF32 4096³ in one run (SM clock median): cuBLAS TF32 · wgmma_ws_tf32 | "
        f"{tf(tf32, 'matmul/cublas_tf32'):.1f} ({mhz('matmul/cublas_tf32')} MHz) · "
        f"{tf(tf32, 'matmul_tc/wgmma_ws_tf32'):.1f} ({mhz('matmul_tc/wgmma_ws_tf32')} MHz) "
        f"TFLOP/s ({tflops_of(tf32, 'matmul_tc/wgmma_ws_tf32', 'pct_ref'):.1f} %) "
        f"| {gemm_dir} |",
        f"| TF32 4096³ per clock cycle (GPC cycles of one run each, "
        f"`--metrics`): wgmma_ws_tf32 against cuBLAS TF32 | {per_cycle:.1f} % "
        f"| {gemm_dir} |",
        f"| FP32 SIMT, matmul/pipelined against cuBLAS FP32 in one run: 4096 x 1 x 4096 · "
        f"8191 x 8193 x 4095 · 4093³ · 4096³ · 8192³ | {simt} % | {gemm_dir} |",
        f"| FP32 SIMT 8192³ with the stream-K tail, three processes: matmul/pipelined against "
        f"cuBLAS FP32 | {streamk('auto', 'tflops')} TFLOP/s = {streamk('auto', 'pct_ref')} % "
        f"(whole tiles {streamk('m128n128k8', 'pct_ref')} %) | h200-r3/fp32-streamk |",
        f"| FP8 8192³ in one run: cuBLASLt · torch._scaled_mm | {lt_fp8:.1f} · {torch_fp8:.1f} "
        f"TFLOP/s | {gemm_dir} (run-torch-fp8) |",
        f"| A/A over every kind (five pairs, three processes per side, 179 points a pair) | "
        f"{clean.group(1)} of {clean.group(2)} exit 0 with 0 slower and 0 faster; median MDE of "
        f"device kernels from one run per side {mde['<16us']} % (< 16.4 µs) · "
        f"{mde['16-65us']} % · {mde['>65us']} % (> 65.5 µs) | h200-aa-r3 |",
    ] + suite_one_at_a_time_rows()


def tf32_per_cycle(run: str, size: str) -> float:
    """cuBLAS TF32's GPC cycles over wgmma_ws_tf32's at `size` (metrics.csv
    of gemm.sh's TF32 metric pass), in %: > 100 is fewer cycles than cuBLAS."""
    cycles = {bench: v for (bench, axes), v in
              metric_values(REPO / DATA / run, "gpc__cycles_elapsed.max").items()
              if axes.split(";")[0] == size}
    return 100 * cycles["matmul/cublas_tf32"] / cycles["matmul_tc/wgmma_ws_tf32"]


def aa_summary(name: str) -> tuple[re.Match, dict[str, str]]:
    """An aa_pairs.sh summary.txt in tests/data/NAME: the clean-pairs line
    (pairs exiting 0, pairs) and the device kernels' median MDE by tier."""
    summary = (REPO / DATA / name / "summary.txt").read_text()
    clean = re.search(r"A/A pairs: (\d+) of (\d+) exit 0 with 0 slower and 0 faster", summary)
    mde = {k: re.search(rf"device {k}\s.*MDE median ([\d.]+)%", summary).group(1)
           for k in ("<16us", "16-65us", ">65us")}
    return clean, mde


def wall_and_account(m: dict, rs: list[dict]) -> tuple[str, str]:
    """A default suite's wall seconds (meta.json started -> finished) and
    its account (suite_account)."""
    return f"{seconds(m['finished']) - seconds(m['started']):.0f}", suite_account(rs)


def suite_pair(folder: str, runs: tuple[str, str], compare: str) -> tuple[list, list, str]:
    """Two default suites in FOLDER: each run's wall seconds and account,
    and their compare's verdict counts."""
    walls, accounts = zip(*(wall_and_account(meta(f"{folder}/{run}"), rows(f"{folder}/{run}"))
                            for run in runs))
    with open_recorded(folder, compare) as fh:
        verdicts = [r["verdict"] for r in csv.DictReader(fh)]
    count = lambda v: sum(x == v for x in verdicts)  # noqa: E731
    return walls, accounts, (f"{count('slower')} slower, {count('faster')} faster, "
                             f"{count('same')} same, {count('throttled')} throttled, "
                             f"{count('inconclusive')} inconclusive")


def suite_one_at_a_time_rows() -> list[str]:
    """The default suite after cold samples were taken one at a time: two
    runs in separate processes on one board (tests/data/h200-r3/suiteE), and
    their compare."""
    walls, accounts, verdicts = suite_pair("h200-r3/suiteE", ("E1", "E2"), "compare-E1-E2.csv")
    f = meta("h200-r3/suiteF")
    return suite_final_rows() + suite_early_stop_rows() + suite_pooled_rows() + [
        f"| the default suite with cold samples one at a time (674 points), two processes | "
        f"{walls[0]} s · {walls[1]} s wall; {accounts[0]}; {accounts[1]} | h200-r3/suiteE |",
        f"| the same, with budget-ended rounds judged by their interval, on another board | "
        f"{seconds(f['finished']) - seconds(f['started']):.0f} s wall; "
        f"{suite_account(rows('h200-r3/suiteF'))} | h200-r3/suiteF |",
        f"| those two runs compared, one run per side | {verdicts} "
        f"| h200-r3/suiteE/compare-E1-E2 |",
    ]


def suite_final_rows() -> list[str]:
    """The default suite on the final round-3 runner: two runs in separate
    processes on one board (tests/data/h200-r3/r3-final/suites: each run's
    meta.json and its results.csv trimmed to the status and phase columns)."""
    tarball = "h200-r3/r3-final/suites/runs.tar.xz"
    walls, accounts = zip(*(wall_and_account(json.loads(tar_text(tarball, f"{run}/meta.json")),
                                             tar_rows(tarball, f"{run}-results-trimmed.csv"))
                            for run in ("suiteA", "suiteB")))
    return [
        f"| the default suite on the final round-3 runner (674 points), two processes on one "
        f"board | {walls[0]} s · {walls[1]} s wall; {accounts[0]}; {accounts[1]} "
        f"| h200-r3/r3-final/suites |",
    ]


def suite_early_stop_rows() -> list[str]:
    """The default suite with the early stop of hopeless rounds, one wait
    for a throttled GPU per point and the FP8 set-up on the device: two runs
    in separate processes on one board (tests/data/h200-r3/suiteH) and their
    compare."""
    walls, accounts, verdicts = suite_pair("h200-r3/suiteH", ("H3", "H4"), "compare-H3-H4.csv")
    return [
        f"| the default suite with hopeless rounds stopped at half their budget and FP8 inputs "
        f"made on the device (674 points), two processes | {walls[0]} s · {walls[1]} s wall; "
        f"{accounts[0]}; {accounts[1]} | h200-r3/suiteH |",
        f"| those two runs compared, one run per side | {verdicts} "
        f"| h200-r3/suiteH/compare-H3-H4 |",
    ]


def suite_pooled_rows() -> list[str]:
    """The default suite after the stopping rule's checks were spaced out and
    points of several rounds were judged by their pooled interval: two runs
    in separate processes on one board (tests/data/h200-r3/suiteG), their
    compare, and pinned copies alone in two more processes; and the A/A
    pairs of that runner (tests/data/h200-aa-r3b)."""
    walls, accounts, verdicts = suite_pair("h200-r3/suiteG", ("G1", "G2"), "compare-G1-G2.csv")
    pinned = [r for p in ("pinned1", "pinned2") for r in rows(f"h200-r3/suiteG/{p}")]
    one_way = [float(r["gbps"]) for r in pinned if r["benchmark"] == "transfers/memcpy_async"]
    from_64 = [float(r["gbps"]) for r in pinned if r["benchmark"] == "transfers/memcpy_async"
               and int(axis(r, "bytes")) >= 64 << 20]
    bidir_1g = [float(r["gbps"]) for r in pinned if r["benchmark"] == "transfers/bidir"
                and axis(r, "bytes") == str(1 << 30)]
    clean, mde = aa_summary("h200-aa-r3b")
    return [
        f"| the default suite with rule checks spaced out and rounds judged pooled (674 points), "
        f"two processes | {walls[0]} s · {walls[1]} s wall; {accounts[0]}; {accounts[1]} "
        f"| h200-r3/suiteG |",
        f"| those two runs compared, one run per side | {verdicts} "
        f"| h200-r3/suiteG/compare-G1-G2 |",
        f"| pinned copies alone, two processes: H2D and D2H 16 MiB–1 GiB · from 64 MiB · "
        f"bidirectional 1 GiB | {min(one_way):.1f}–{max(one_way):.1f} · "
        f"{min(from_64):.1f}–{max(from_64):.1f} · "
        f"{' and '.join(f'{x:.1f}' for x in bidir_1g)} GB/s (1e9 bytes/s of payload each way) "
        f"| h200-r3/suiteG/pinned* |",
        f"| A/A over every kind on that runner (five pairs, three processes per side) | "
        f"{clean.group(1)} of {clean.group(2)} exit 0 with 0 slower and 0 faster; median MDE of "
        f"device kernels from one run per side {mde['<16us']} % (< 16.4 µs) · "
        f"{mde['16-65us']} % · {mde['>65us']} % (> 65.5 µs) | h200-aa-r3b |",
    ]


def table() -> str:
    lines = ["| figure | measured | run |", "|---|---|---|"]
    lines += (vecadd_rows() + matmul_rows() + tensor_core_rows() + transfer_rows()
              + profiling_and_compare_rows() + round2_rows() + round3_rows())
    return "\n".join(lines)


def readme_with(text: str, new_table: str) -> str:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"docs_figures.py: README.md lacks the markers {BEGIN!r} ... {END!r}")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{new_table}\n{END}{tail}"


# --- the images -----------------------------------------------------------------

# docs image -> (recorded run, report figure)
IMAGES = {
    "h200-vecadd.png": ("h200-vecadd-defaults", "vecadd_gbps_vs_n"),
    "h200-matmul-ladder.png": ("h200-matmul-defaults", "matmul_ladder"),
    "h200-matmul-tc-ladder.png": ("h200-matmul-tc", "matmul_tc_ladder"),
    "h200-roofline.png": ("h200-defaults-r2", "roofline"),
    "h200-transfers-h2d.png": ("h200-transfers-defaults", "transfers_h2d"),
    "h200-tf32-telemetry.png": ("h200-tf32-telemetry", "telemetry_matmul"),
    "h200-python-matmul-ladder.png": ("h200-python-mixed-matmul", "matmul_ladder_all"),
}

# docs screenshot -> recorded runs whose report page it shows
# docs screenshot -> (recorded runs whose report page it shows, the section
# the browser scrolls to: "" for the top of the page)
SCREENSHOTS = {
    "h200-report-suite.png": (["h200-defaults-r2"], ""),
    "h200-report-tensor-cores.png": (["h200-defaults-r2"], "tensor-core-ladder"),
    "h200-report-ab.png": (["h200-aa3-A", "h200-aa3-B"], "a-b-comparison"),
    "h200-report-vecadd.png": (["h200-vecadd-large"], ""),
    "h200-report-matmul.png": (["h200-matmul-defaults"], "matmul-the-fp32-ladder"),
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def draw_images(out: Path) -> dict:
    """Draw every docs image into `out`; return the sidecar entries."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    from reports import figures_matmul, figures_transfers, figures_vecadd, roofline, telemetry
    from reports.load import load_run

    makers = {
        "vecadd_gbps_vs_n": lambda run, d: next(
            f for f in figures_vecadd.figures(run, d, "") if f.name == "vecadd_gbps_vs_n"),
        "matmul_ladder": lambda run, d: figures_matmul.ladder_figure(run, d, "matmul_ladder"),
        "matmul_tc_ladder": lambda run, d: figures_matmul.ladder_figure(
            run, d, "matmul_tc_ladder", figures_matmul.tensor_rows(run),
            figures_matmul.TC_SECTION, "Tensor-core ladder"),
        # every precision in one figure: the frameworks' matmuls beside cuBLAS
        "matmul_ladder_all": lambda run, d: figures_matmul.ladder_figure(
            run, d, "matmul_ladder_all", figures_matmul.matmul_rows(run),
            what="Matmul, every precision"),
        "roofline": lambda run, d: roofline.figure(run, d, "roofline"),
        "transfers_h2d": lambda run, d: figures_transfers.bandwidth_figure(
            run, "h2d", d, "transfers_h2d"),
        "telemetry_matmul": lambda run, d: telemetry.timeline_figure(
            run, d, "telemetry_matmul", "matmul"),
    }
    entries = {}
    cwd = os.getcwd()
    os.chdir(REPO)  # runs are named by their path relative to the repository
    try:
        for image, (run_name, figure) in IMAGES.items():
            work = out / "work" / run_name
            fig = makers[figure](load_run(DATA / run_name), work)
            png = (work / fig.png).read_bytes()
            data = (work / fig.data_json).read_bytes()
            (out / image).write_bytes(png)
            entries[image] = {"run": str(DATA / run_name), "figure": figure,
                              "caption": fig.caption, "data_sha256": sha256(data),
                              "png_sha256": sha256(png)}
    finally:
        os.chdir(cwd)
    shutil.rmtree(out / "work")
    return entries


def report_pages(out: Path) -> dict:
    """The SHA-256 of each screenshot's report page as the reports package
    makes it now (no browser needed)."""
    from reports.build import write_report

    pages, drawn = {}, {}
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        for image, (runs, _) in SCREENSHOTS.items():
            if tuple(runs) not in drawn:  # two shots of one page: drawn once
                site = out / "pages" / image
                write_report([str(DATA / r) for r in runs], site)
                drawn[tuple(runs)] = sha256((site / "index.html").read_bytes())
            pages[image] = drawn[tuple(runs)]
    finally:
        os.chdir(cwd)
    shutil.rmtree(out / "pages")
    return pages


def take_screenshots(out: Path) -> dict:
    from PIL import Image

    from reports.browser import Chromium, ReportServer
    from reports.build import write_report

    entries = {}
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        with Chromium(width=1200, height=1500) as browser:
            for image, (runs, anchor) in SCREENSHOTS.items():
                site = out / "site" / image
                write_report([str(DATA / r) for r in runs], site)
                with ReportServer(site) as server:
                    page = browser.check(f"{server.base}index.html"
                                         + (f"#{anchor}" if anchor else ""))
                if page.console or page.failed:
                    raise SystemExit(f"docs_figures.py: {image}: the page has errors: "
                                     f"{page.console + page.failed}")
                shot = Image.open(io.BytesIO(page.screenshot)).convert("RGB")
                shot = shot.resize((900, round(shot.height * 900 / shot.width)),
                                   Image.LANCZOS)
                buf = io.BytesIO()
                shot.quantize(colors=128).save(buf, format="PNG", optimize=True)
                (out / image).write_bytes(buf.getvalue())
                entries[image] = {"runs": [str(DATA / r) for r in runs],
                                  "page_sha256": sha256((site / "index.html").read_bytes())}
    finally:
        os.chdir(cwd)
    shutil.rmtree(out / "site")
    return entries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when README.md or docs/img is stale")
    parser.add_argument("--screenshots", action="store_true",
                        help="also take the report page screenshots (needs Chromium)")
    parser.add_argument("--no-page-check", action="store_true",
                        help="with --check: leave out the screenshots' pages (drawing them "
                             "takes most of the check's time)")
    parser.add_argument("--docs-root", type=Path, default=REPO, metavar="DIR",
                        help="where README.md and docs/img are (default: this repository; "
                             "the staleness test checks a copy)")
    args = parser.parse_args()
    global IMG, SIDECAR
    IMG = args.docs_root / "docs" / "img"
    SIDECAR = IMG / "figures.json"

    readme = (args.docs_root / "README.md").read_text(encoding="utf-8")
    new_readme = readme_with(readme, table())
    old_sidecar = json.loads(SIDECAR.read_text()) if SIDECAR.exists() else {}
    with tempfile.TemporaryDirectory(prefix="docs-figures-") as tmp:
        tmp = Path(tmp)
        images = draw_images(tmp)
        shots = take_screenshots(tmp) if args.screenshots else old_sidecar.get("screenshots", {})
        sidecar = {"note": "written by scripts/record/docs_figures.py; checked by "
                           "reports/tests/test_docs.py",
                   "images": images, "screenshots": shots}
        if args.check:
            stale = []
            if new_readme != readme:
                stale.append("README.md (the measured H200 table)")
            for image, entry in images.items():
                if old_sidecar.get("images", {}).get(image) != entry:
                    stale.append(f"docs/img/{image} (sidecar)")
                elif sha256((IMG / image).read_bytes()) != entry["png_sha256"]:
                    stale.append(f"docs/img/{image} (pixels)")
            for image, page in ({} if args.no_page_check else report_pages(tmp)).items():
                if old_sidecar.get("screenshots", {}).get(image, {}).get("page_sha256") != page:
                    stale.append(f"docs/img/{image} (a screenshot of an older page: run "
                                 f"with --screenshots)")
            if stale:
                print("docs_figures.py: stale: " + ", ".join(stale)
                      + "; run .venv/bin/python scripts/record/docs_figures.py", file=sys.stderr)
                return 1
            print("docs_figures.py: README table and docs images match tests/data",
                  file=sys.stderr)
            return 0
        IMG.mkdir(parents=True, exist_ok=True)
        for image in list(images) + (list(shots) if args.screenshots else []):
            shutil.copyfile(tmp / image, IMG / image)
    (args.docs_root / "README.md").write_text(new_readme, encoding="utf-8")
    SIDECAR.write_text(json.dumps(sidecar, indent=1, ensure_ascii=False) + "\n")
    print(f"docs_figures.py: wrote README.md's table, {len(images)} images"
          + (f", {len(shots)} screenshots" if args.screenshots else ""), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
