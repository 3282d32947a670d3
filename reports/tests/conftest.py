"""Fixtures for the report tests.

SYNTHETIC DATA. `write_synthetic_run` writes a result directory in the exact
shape of schema version 1 (docs/schema.md): every documented column, `%.9g`
numbers, RFC 4180 quoting, statistics computed from the raw samples it also
writes, skip/fail/noisy rows with reasons. Its numbers come from a simple
latency + size / rate model, not from a GPU: they exist to exercise the
report's structure (every family, every figure, the error paths, a
comparison with known ratios) and say nothing about any hardware. The device
name says so, and meta.json carries `"synthetic": true`.

Real recorded runs live in tests/data/<name>/ and are picked up by
`real_run_dirs()`; the tests run over them too.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import math
import os
import runpy
import subprocess
import sys
import tempfile
import traceback
import zlib
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from reports.load import RESULTS_COLUMNS, SAMPLES_COLUMNS  # noqa: E402

SYNTHETIC_GPU = "SYNTHETIC test GPU (not a measurement)"
DRAM_PEAK = 4800.0
FP32_PEAK = 66.9
PCIE_PEAK = 63.0


def real_run_dirs() -> list[Path]:
    """Every recorded run under tests/data/ (a directory with results.csv),
    plus any listed in CUBENCH_REPORT_RUNS (colon-separated), to check the
    report against a fresh run before it is recorded."""
    dirs = sorted(p.parent for p in (REPO / "tests" / "data").glob("*/results.csv"))
    extra = os.environ.get("CUBENCH_REPORT_RUNS", "")
    return dirs + [Path(p) for p in extra.split(":") if p]


def _shape(run: Path) -> tuple:
    """What decides which code a report of `run` runs: its schema, its set
    of benchmarks and statuses, and whether it has samples. (Side files are
    left out: the fits a run lacks, the report computes, and the synthetic
    runs cover that path.)"""
    with (run / "results.csv").open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    schema = json.loads((run / "meta.json").read_text()).get("schema_version")
    samples = any((run / name).exists() for name in ("samples.csv", "samples.csv.xz"))
    return (schema, frozenset(r["benchmark"] for r in rows),
            frozenset(r["status"] for r in rows), samples)


def recorded_runs() -> list[Path]:
    """The recorded runs the report tests draw: one per shape (_shape), the
    first in name order. Runs of one shape (the six A/A runs of 140 vecadd
    points, the five-point CUPTI checks) take the same paths through the
    report, so drawing each would repeat the same checks on other numbers at
    minutes of CI time; CUBENCH_REPORT_ALL_RUNS=1 draws every one, and
    CUBENCH_REPORT_RUNS adds fresh runs (never deduplicated)."""
    recorded = sorted(p.parent for p in (REPO / "tests" / "data").glob("*/results.csv"))
    extra = [Path(p) for p in os.environ.get("CUBENCH_REPORT_RUNS", "").split(":") if p]
    if os.environ.get("CUBENCH_REPORT_ALL_RUNS") == "1":
        return recorded + extra
    seen, chosen = set(), []
    for run in recorded:
        shape = _shape(run)
        if shape not in seen:
            seen.add(shape)
            chosen.append(run)
    return chosen + extra


def pytest_configure(config):
    # also registered by tests/pytest_plugins/cb_shard.py, which reads it
    config.addinivalue_line("markers", "shard_group(name): the group cb_shard.py keeps the "
                                       "test in (tests that draw the same report)")


_DRAWN: dict[tuple[str, ...], Path] = {}


def draw(dirs, root: Path) -> Path:
    """The report of `dirs`, drawn once per test session, in-process (the
    CLI is tested by the tests that run it); its folder under `root`."""
    key = tuple(str(d) for d in dirs)
    if key not in _DRAWN:
        from reports.build import write_report
        out = root / f"report{len(_DRAWN)}"
        write_report([str(d) for d in dirs], out, warn=lambda message: None)
        _DRAWN[key] = out
    return _DRAWN[key]


@contextlib.contextmanager
def unrendered():
    """Reports drawn in here are the reports as made (every figure laid out,
    its data, caption and the page written) but with empty PNG and SVG
    files: rendering them is about half of a report's time. For tests that
    read no pixels; test_report checks the images of every kind of run and
    test_browser those of the comparison and CPU-only pages."""
    from matplotlib.figure import Figure

    def savefig(self, fname, *args, **kwargs):
        if isinstance(fname, (str, os.PathLike)):
            Path(fname).write_bytes(b"")

    real = Figure.savefig
    Figure.savefig = savefig
    try:
        yield
    finally:
        Figure.savefig = real


def reports_cli(*args, cwd=REPO, check: bool = False) -> subprocess.CompletedProcess:
    """`python3 -m reports ARGS` as a child process, forked from this one:
    the module runs as __main__ with its own stdout, stderr and exit
    status, but without an interpreter start and the report's imports
    (matplotlib's alone takes over a second on a small machine, and most
    error cases finish in milliseconds). The child inherits this process's
    state: a report made in unrendered() is unrendered there too. The tests
    of the interpreter itself (a Python without matplotlib, no arguments,
    Ctrl-C) start a real one."""
    import reports.build  # noqa: F401 (imported here once, not in every child)
    argv = [str(a) for a in args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:  # the child: never returns
            code = 1
            try:
                os.dup2(out.fileno(), 1)
                os.dup2(err.fileno(), 2)
                sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False),
                                              encoding=sys.__stdout__.encoding,
                                              line_buffering=True)
                sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False),
                                              encoding=sys.__stderr__.encoding,
                                              errors="backslashreplace", line_buffering=True)
                os.chdir(cwd)
                sys.argv = ["-m", *argv]
                try:
                    runpy.run_module("reports", run_name="__main__", alter_sys=True)
                    code = 0
                except SystemExit as exc:
                    if exc.code is None or isinstance(exc.code, int):
                        code = exc.code or 0
                    else:
                        print(exc.code, file=sys.stderr)
                except BaseException:  # as the interpreter reports an uncaught one
                    traceback.print_exc()
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        _, status = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        proc = subprocess.CompletedProcess(["python3", "-m", "reports", *argv],
                                           os.waitstatus_to_exitcode(status),
                                           out.read().decode(sys.__stdout__.encoding),
                                           err.read().decode(sys.__stderr__.encoding,
                                                             "backslashreplace"))
    if check:
        proc.check_returncode()
    return proc


@pytest.fixture(scope="session")
def drawn_root(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("drawn")


def g9(value) -> str:
    """A number as the engine writes it (%.9g); empty for None."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return "%.9g" % value


# --- the synthetic model ------------------------------------------------------
# Benchmark and axis names follow bench/*.c as of this writing (vecadd,
# matmul with m and n=k=`m`, transfers/memcpy_sync ... /overlap with a
# stage axis), so the report meets the shapes real runs have.

SM = 132


def _vecadd_points():
    ns = [2**e for e in range(10, 29, 2)]
    rate = {"thread_per_elem": 3.7e12, "grid_stride": 3.9e12,
            "grid_stride_float4": 4.1e12, "host": 2.0e10}
    occ = {32: 0.5, 64: 1.0, 128: 1.0, 256: 1.0, 512: 1.0, 1024: 1.0}

    def point(variant, axes, n, bw):
        host = variant == "host"
        t = (5e-7 if host else 3e-6) + 12.0 * n / bw
        return (f"vecadd/{variant}", axes, 12.0 * n, float(n), t,
                {"occupancy": None if host else occ.get(axes.get("block"), 1.0)})

    def shaped(variant, block, grid, n):
        threads = block * (grid if grid != "auto" else SM * 2048 // block)
        fill = min(1.0, threads / (SM * 2048.0)) ** 0.25
        return rate[variant] * fill * (0.9 + 0.1 * occ[block])

    big = ns[-1]
    for n in ns:  # the n sweep at the default launch shape
        yield point("thread_per_elem", {"n": n, "block": 256}, n, rate["thread_per_elem"])
        yield point("grid_stride", {"n": n, "block": 256, "grid": "auto"}, n, rate["grid_stride"])
        yield point("grid_stride_float4", {"n": n, "block": 256, "grid": "auto", "ilp": 1,
                                           "hint": "none"}, n, rate["grid_stride_float4"])
        if n <= 2**24:
            yield point("host", {"n": n, "threads": "all"}, n, rate["host"])
    for block in (32, 64, 128, 512, 1024):
        yield point("thread_per_elem", {"n": big, "block": block}, big,
                    rate["thread_per_elem"] * (0.9 + 0.1 * occ[block]))
    for block in (128, 256, 512, 1024, 2048):  # grids: auto and 2, 8, 32 x SMs
        for grid in ("auto", 2 * SM, 8 * SM, 32 * SM):
            if block == 256 and grid == "auto":
                continue  # in the n sweep
            axes = {"n": big, "block": block, "grid": grid}
            if block == 2048:
                if grid == "auto":
                    yield ("vecadd/grid_stride", axes, 12.0 * big, float(big), None,
                           {"status": "skip",
                            "reason": "block 2048 exceeds the device limit (1024 threads)"})
                continue
            yield point("grid_stride", axes, big, shaped("grid_stride", block, grid, big))
    for block in (256, 1024):
        for grid in ("auto", 32 * SM):
            for ilp in (1, 4):
                for hint in ("none", "stream"):
                    axes = {"n": big, "block": block, "grid": grid, "ilp": ilp, "hint": hint}
                    if axes == {"n": big, "block": 256, "grid": "auto", "ilp": 1, "hint": "none"}:
                        continue
                    bw = shaped("grid_stride_float4", block, grid, big) * (1 + 0.01 * ilp)
                    yield point("grid_stride_float4", axes, big, bw)


MATMUL_RATE = {"cublas_fp32": 50e12, "cublas_tf32": 400e12, "cublas_bf16": 600e12,
               "naive_uncoalesced": 0.4e12, "naive_coalesced": 2.5e12,
               "smem_tiled": 6e12, "regblock_1d": 14e12, "regblock_2d": 24e12,
               "vectorized": 30e12, "warptiled": 40e12,
               "host_blocked": 0.08e12, "host_cblas": 1.2e12}


def _matmul_axes(s, size_axes):
    if size_axes == "size":
        return {"size": s}
    if size_axes == "mnk":
        return {"m": s, "n": s, "k": s}
    return {"m": s, "n": "m", "k": "m"}  # as the engine writes its defaults


def _matmul_points(size_axes="words"):
    sizes = [256, 512, 1024, 2048, 4096]
    for variant, rate in MATMUL_RATE.items():
        host = variant.startswith("host")
        for s in (sizes[:3] if variant == "host_blocked" else sizes[:4] if host else sizes):
            tiles = (16, 32, 64) if variant == "smem_tiled" else (None,)
            for tile in tiles:
                axes = _matmul_axes(s, size_axes)
                if tile is not None:
                    axes["tile"] = tile
                elem = 2 if variant == "cublas_bf16" else 4
                flops = 2.0 * s**3
                bytes_ = elem * 3.0 * s * s
                if tile == 64:
                    yield (f"matmul/{variant}", axes, bytes_, flops, None,
                           {"status": "fail",
                            "reason": "verification failed:\nnormwise relative error "
                                      "3.2e-02 > 1e-05, first bad element (3, 17)"})
                    continue
                eff = s * s / (s * s + 700.0**2)
                r = rate * eff * (0.8 if tile == 16 else 1.0)
                extra = {"occupancy": None if host else 0.5}
                if not variant.startswith("cublas") and not host:
                    extra["ref"] = "matmul/cublas_fp32"
                yield (f"matmul/{variant}", axes, bytes_, flops,
                       (1e-6 if host else 6e-6) + flops / r, extra)


MEMORY = ("pageable", "pinned", "registered", "wc")


def transfer_alpha_beta(bench: str, direction: str, memory: str):
    """The model's latency (s) and bandwidth (B/s) of one transfer curve."""
    if bench == "d2d":
        return 4e-6, 4.1e12
    if bench == "zero_copy":
        return 6e-6, 50e9
    alpha, beta = (14e-6, 9e9) if memory == "pageable" else (8e-6, 55e9)
    if bench == "memcpy_async":
        alpha *= 0.7
    if bench == "bidir":
        beta *= 1.8
    if direction == "d2h":
        beta *= 0.98
    return alpha, beta


def transfer_curves():
    """(benchmark, axes without bytes) of every transfer curve, run order."""
    for bench, directions, memories in (("memcpy_sync", ("h2d", "d2h"), MEMORY[:2]),
                                        ("memcpy_async", ("h2d", "d2h"), MEMORY),
                                        ("bidir", (None,), MEMORY[:2]),
                                        ("zero_copy", ("h2d", "d2h"), (None,)),
                                        ("d2d", (None,), (None,))):
        for direction in directions:
            for memory in memories:
                axes = {}
                if direction:
                    axes["direction"] = direction
                if memory:
                    axes["memory"] = memory
                yield bench, axes


def _transfer_points():
    for bench, axes in transfer_curves():
        lo = 20 if bench == "bidir" else 10
        for b in (2**e for e in range(lo, 31, 2)):
            # the engine's axis order: direction, memory, bytes
            full = {**axes, "bytes": b}
            name = f"transfers/{bench}"
            if bench == "memcpy_async" and axes["memory"] == "registered" and b == 2**30:
                yield (name, full, float(b), None, None,
                       {"status": "skip",
                        "reason": "cudaHostRegister: out of memory (1 GiB, locked-memory limit)"})
                continue
            alpha, beta = transfer_alpha_beta(bench, axes.get("direction"), axes.get("memory"))
            bytes_ = 2.0 * b if bench in ("bidir", "d2d") else float(b)
            # A note with a comma and quotes: RFC 4180 quoting is exercised.
            note = ('pageable async copies are staged by the driver, so "async" '
                    'blocks the host' if bench == "memcpy_async"
                    and axes["memory"] == "pageable" else "")
            peak = {"d2d": DRAM_PEAK, "bidir": None}.get(bench, PCIE_PEAK)
            extra = {"note": note}
            if peak:
                extra["peak"] = peak
            yield (name, full, bytes_, None, alpha + bytes_ / beta, extra)
    yield from _overlap_points()


OVERLAP_STAGE_S = {"h2d": 2**28 / 55e9, "kernel": 2**28 / 60e9, "d2h": 2**28 / 54e9}
OVERLAP_EFFICIENCY = {1: 0.34, 2: 0.62, 4: 0.86, 8: 0.93}


def _overlap_points():
    b = 2**28
    for streams in (1, 2, 4, 8):
        for stage in ("h2d", "kernel", "d2h", "pipeline"):
            slow = 1 + 0.01 * streams  # smaller chunks cost a little more
            if stage == "pipeline":
                t = max(OVERLAP_STAGE_S.values()) * slow / OVERLAP_EFFICIENCY[streams]
            else:
                t = OVERLAP_STAGE_S[stage] * slow
            yield ("transfers/overlap",
                   {"stage": stage, "streams": streams, "bytes": b, "fma": 2048},
                   2.0 * b, 2.0 * 2048 * b / 4, t, {})


def _scan_points():
    for n in (2**16, 2**20, 2**24):
        yield ("scan/decoupled_lookback", {"n": n}, 8.0 * n, float(n), 2e-6 + 8.0 * n / 3e12,
               {"note": "unknown family for the report: generic table"})


def _stats(samples: np.ndarray) -> dict:
    s = np.sort(samples)
    n = len(s)
    half = 0.98 * math.sqrt(n)
    lo = max(0, int(math.floor(n / 2 - half)) - 1)
    hi = min(n - 1, int(math.ceil(n / 2 + half)))
    median = float(np.median(s))
    return {"median_s": median, "min_s": float(s[0]), "max_s": float(s[-1]),
            "q1_s": float(np.percentile(s, 25)), "q3_s": float(np.percentile(s, 75)),
            "mean_s": float(s.mean()), "stddev_s": float(s.std(ddof=1)),
            "ci_lo_s": float(s[lo]), "ci_hi_s": float(s[hi]),
            "ci_rel_half": float((s[hi] - s[lo]) / (2 * median))}


def _write_side_files(path: Path, results: list[dict]) -> None:
    """fits.csv and overlap.csv with the columns of docs/schema.md. Fits give
    the model's own alpha and beta (so tests know them exactly); overlap.csv
    is computed from the stage medians as the engine does."""
    with (path / "fits.csv").open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["benchmark", "curve", "points", "bytes_min", "bytes_max", "alpha_us",
                    "beta_gbps", "n_half_bytes", "r2", "max_rel_err"])
        for bench, axes in transfer_curves():
            a, b = transfer_alpha_beta(bench, axes.get("direction"), axes.get("memory"))
            curve = ";".join(f"{k}={v}" for k, v in axes.items())
            w.writerow([f"transfers/{bench}", curve, 11, 1024, 2**30, g9(a * 1e6),
                        g9(b / 1e9), g9(a * b), "0.9999", "0.004"])
    med = {}
    for r in results:
        if r["benchmark"] == "transfers/overlap" and r["median_s"]:
            med[r["axes"]] = float(r["median_s"])
    if not med:
        return
    with (path / "overlap.csv").open("w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["benchmark", "point", "bytes", "streams", "h2d_s", "kernel_s", "d2h_s",
                    "pipeline_s", "serial_s", "ideal_s", "efficiency", "hidden_fraction",
                    "speedup_vs_1_stream"])
        t1 = None
        for streams in (1, 2, 4, 8):
            point = f"streams={streams};bytes={2**28};fma=2048"
            st = {s: med[f"stage={s};{point}"] for s in ("h2d", "kernel", "d2h", "pipeline")}
            serial = st["h2d"] + st["kernel"] + st["d2h"]
            ideal = max(st["h2d"], st["kernel"], st["d2h"])
            t1 = t1 or st["pipeline"]
            w.writerow(["transfers/overlap", point, 2**28, streams] +
                       [g9(st[s]) for s in ("h2d", "kernel", "d2h", "pipeline")] +
                       [g9(serial), g9(ideal), g9(ideal / st["pipeline"]),
                        g9((serial - st["pipeline"]) / (serial - ideal)),
                        g9(t1 / st["pipeline"])])


def write_synthetic_run(path: Path, *, gpu_name: str = SYNTHETIC_GPU,
                        time_scale=None, drop=(), add_only=(),
                        families=("vecadd", "matmul", "transfers", "scan"),
                        fits: bool = True, seed: int = 7, matmul_axes: str = "words",
                        keep=None, no_device: bool = False) -> Path:
    """Write a schema-1 result directory with synthetic numbers.

    time_scale: {family: factor} multiplies every time of a family (so a
    comparison of two such runs has known ratios); drop: identities
    (benchmark, axes text) left out; add_only: extra (benchmark, axes dict)
    points present only in this run; matmul_axes: "words" (m=256;n=m;k=m,
    as the engine writes), "mnk" (three numbers) or "size"; fits: write
    fits.csv and overlap.csv; keep: a predicate on benchmark names; no_device: meta.json as
    written on a machine without a GPU (device null)."""
    time_scale = time_scale or {}
    path.mkdir(parents=True, exist_ok=True)
    makers = {"vecadd": _vecadd_points, "matmul": lambda: _matmul_points(matmul_axes),
              "transfers": _transfer_points, "scan": _scan_points}
    points = [p for fam in families for p in makers[fam]()]
    points += [(b, a, 1e6, 1e6, 1e-4, {}) for b, a in add_only]
    if keep is not None:
        points = [p for p in points if keep(p[0])]
    results, samples = [], []
    medians: dict = {}
    for index, (bench, axes, bytes_, flops, t, extra) in enumerate(points):
        family = bench.partition("/")[0]
        axes_text = ";".join(f"{k}={v}" for k, v in axes.items())
        if (bench, axes_text) in drop:
            continue
        status = extra.get("status", "ok")
        host = bench.partition("/")[2].startswith("host")
        row = {c: "" for c in RESULTS_COLUMNS}
        row.update({"schema_version": "1", "benchmark": bench, "family": family,
                    "axes": axes_text, "status": status,
                    "reason": extra.get("reason", ""),
                    "timer": "host" if host else "event",
                    "cache": "n/a" if host else "cold",
                    "batch": "1", "bytes": g9(bytes_), "flops": g9(flops),
                    "note": extra.get("note", "")})
        if status == "ok":
            count = 30 if t > 1e-4 else 200  # before scaling: same draws in every run
            t = t * time_scale.get(family, 1.0)
            noisy = index % 23 == 5
            sigma = 0.06 if noisy else 0.008
            # One seeded stream per identity: runs with other scales hold the
            # same samples times the factor, whatever else they drop or add.
            rng = np.random.default_rng([seed, zlib.crc32(f"{bench}|{axes_text}".encode())])
            draws = t * np.exp(rng.normal(0.0, sigma, count))
            stats = _stats(draws)
            med = stats["median_s"]
            medians[(bench, axes_text)] = med
            row.update({k: g9(v) for k, v in stats.items()})
            row["samples"] = str(count)
            if noisy:
                row["status"] = "noisy"
                row["reason"] = (f"time budget spent before the CI target held "
                                 f"(ci_rel_half {stats['ci_rel_half']:.3f} > 0.010)")
            row["gbps"] = g9(bytes_ / med / 1e9) if bytes_ else ""
            row["tflops"] = g9(flops / med / 1e12) if flops else ""
            if not host:
                row["cupti_median_s"] = g9(med * 0.97)
                row["overhead_s"] = g9(med * 0.03)
                row["kernels"] = f"{bench.partition('/')[2]}_kernel|flush_l2"
            occ = extra.get("occupancy")
            row["occupancy"] = g9(occ)
            if family == "matmul" and not host:
                row.update({"peak": g9(FP32_PEAK), "peak_unit": "TFLOP/s",
                            "pct_peak": g9(100 * flops / med / 1e12 / FP32_PEAK)})
            elif family in ("vecadd", "scan") and not host:
                row.update({"peak": g9(DRAM_PEAK), "peak_unit": "GB/s",
                            "pct_peak": g9(100 * bytes_ / med / 1e9 / DRAM_PEAK)})
            elif "peak" in extra:
                row.update({"peak": g9(extra["peak"]), "peak_unit": "GB/s",
                            "pct_peak": g9(100 * bytes_ / med / 1e9 / extra["peak"])})
            if "ref" in extra:
                row["ref_benchmark"] = extra["ref"]
                ref_axes = ";".join(f"{k}={v}" for k, v in axes.items() if k != "tile")
                ref = medians.get((extra["ref"], ref_axes))
                row["pct_ref"] = g9(100 * ref / med) if ref else ""
            row["verify_error"] = g9(0.0 if family != "matmul" else 2.1e-7)
            for i, s in enumerate(draws):
                samples.append({"benchmark": bench, "axes": axes_text, "sample": str(i),
                                "time_s": g9(float(s)),
                                "cupti_s": "" if host else g9(float(s) * 0.97),
                                "batch": "1"})
        results.append(row)
    with (path / "results.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=RESULTS_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(results)
    with (path / "samples.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=SAMPLES_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(samples)
    if fits and "transfers" in families:
        _write_side_files(path, results)
    meta = {
        "schema_version": 1, "synthetic": True,
        "note": "SYNTHETIC fixture written by reports/tests/conftest.py; not a measurement",
        "cubench_version": "0.0.0-synthetic", "git_sha": "0000000",
        "build": {"type": "Release", "c_flags": "-O2", "cuda_flags": "-O3",
                  "cuda_architectures": "90"},
        "command_line": ["cubench", "run", "--preset", "synthetic"],
        "started": "2026-11-29T17:00:00Z", "finished": "2026-11-29T17:05:00Z",
        "complete": True, "interrupted": False,
        "host": {"hostname": "fixture", "os": "Linux", "kernel": "6.1",
                 "cpu_model": "synthetic CPU", "cores": 16},
        "cuda": {"driver_version": "13.0", "runtime_version": "13.0",
                 "cublas_version": "13.0.0", "cupti_version": "13.0",
                 "cupti_state": "on"},
        "device": {"name": gpu_name, "uuid": "GPU-00000000-synthetic",
                   "pci_bus_id": "0000:00:00.0", "cc": "9.0", "sm_count": 132,
                   "l2_bytes": 52428800, "memory_bytes": 150754820096,
                   "mem_bus_width_bits": 6144, "mem_clock_khz": 2619000,
                   "sm_clock_khz": 1980000, "pcie": {"gen": 5, "width": 16},
                   "peaks": {"dram_gbps": DRAM_PEAK, "pcie_gbps": PCIE_PEAK,
                             "fp32_tflops": FP32_PEAK}},
        "settings": {"cache": "cold", "min_samples": 10, "ci_rel_half": 0.01,
                     "point_budget_s": 2.0, "seed": seed},
    }
    if no_device:
        meta["device"] = None
        meta["no_device_reason"] = "cudaGetDeviceCount: no CUDA-capable device is detected"
    (path / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return path


@pytest.fixture(scope="module")
def cubench() -> str:
    """The cubench binary as the reports find it (CUBENCH_BIN, else the
    source tree's builds); skips the test without one."""
    from reports.binary import find_cubench
    from reports.load import InputError
    try:
        return find_cubench(None)
    except InputError:
        pytest.skip("no cubench binary (build it, or set CUBENCH_BIN)")


@pytest.fixture(scope="module")
def browser():
    """A headless Chromium, installed by scripts/setup_browser.sh when the
    machine has none; skips where it cannot be installed."""
    import subprocess

    from reports.browser import Chromium, find_browser
    path = find_browser()
    if not path:
        proc = subprocess.run([str(REPO / "scripts" / "setup_browser.sh")],
                              capture_output=True, text=True)
        if proc.returncode == 3:
            pytest.skip(f"no Chromium and no apt-get to install it: {proc.stderr.strip()}")
        assert proc.returncode == 0, f"scripts/setup_browser.sh failed: {proc.stderr}"
        path = proc.stdout.strip().splitlines()[-1]
    with Chromium(path) as chromium:
        yield chromium


@pytest.fixture(scope="session")
def synthetic_run(tmp_path_factory) -> Path:
    return write_synthetic_run(tmp_path_factory.mktemp("synthetic") / "synthetic_h200like")


PAIR_GPU = "SYNTHETIC GPU (not a measurement)"
PAIR_LEFT_OUT = ("vecadd/grid_stride_float4", "transfers/zero_copy", "transfers/memcpy_sync",
                 "transfers/overlap")


@pytest.fixture(scope="session")
def synthetic_pair(tmp_path_factory):
    """Two synthetic runs of one GPU model (an A/B page) with known ratios:
    the new one is 2x faster on vecadd (time x 0.5), 1.25x slower on matmul
    (time x 1.25), equal on transfers; one point exists only in base, one
    only in new; the new one's build (git_sha) differs."""
    root = tmp_path_factory.mktemp("pair")
    # Every family, without the biggest sweeps (a comparison of them draws
    # nothing the others do not).
    keep = lambda bench: bench not in PAIR_LEFT_OUT  # noqa: E731
    base = write_synthetic_run(root / "base_run", gpu_name=PAIR_GPU, keep=keep,
                               families=("vecadd", "matmul", "transfers"))
    new = write_synthetic_run(
        root / "new_run", gpu_name=PAIR_GPU,
        families=("vecadd", "matmul", "transfers"), keep=keep,
        time_scale={"vecadd": 0.5, "matmul": 1.25},
        drop={("matmul/naive_uncoalesced", "m=256;n=m;k=m")},
        add_only=[("vecadd/new_variant", {"n": 1024})])
    meta = json.loads((new / "meta.json").read_text())
    meta["git_sha"] = "1111111"  # an A/B of two builds: the condition that differs
    (new / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return base, new
