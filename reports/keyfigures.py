"""Key figures: the numbers an engineer quotes, first on the page.

Computed from the run, per GPU: the best vector add and its share of the
DRAM peak, the best hand-written SGEMM and its share of cuBLAS FP32, the
best tensor-core rung of each precision against the cuBLAS of that
precision, cuBLAS against its peak, pinned copies against the PCIe link,
and so on; only those the run has. Each names the peak or reference it is
a share of and where that comes from (the run's peak column and
peak_source, meta.json's formula, or the datasheet table of peaks.py), the
point it was measured at, and the conditions (clock, throttle reasons that
can have slowed it, the CI of the median).
"""

from __future__ import annotations

from . import figure as F
from . import peaks as P
from .figure import fmt
from .hardware import cpu_name
from .figures_matmul import is_reference, precision_of, rung_name
from .load import Result, Run
from .page import Table
from .pick import ordered_unique

HEADERS = ["figure", "value", "share", "of (peak or reference, and its source)", "point",
           "conditions"]


def _best(rows: list[Result], metric) -> Result | None:
    rows = [r for r in rows if metric(r) is not None]
    return max(rows, key=metric) if rows else None


def conditions(r: Result) -> str:
    parts = []
    clock = r.num.get("sm_clock_median_mhz")
    if clock is not None and not r.is_host:
        parts.append(f"SM clock {clock:.0f} MHz median")
    if r.throttle_affects:
        parts.append(f"throttled: {r.throttle_affects}")
    ci = r.num.get("ci_rel_half")
    if ci is not None:
        parts.append(f"CI ±{100 * ci:.2f} %")
    if r.status == "noisy":
        parts.append("noisy")
    return "; ".join(parts)


def _peak_source(run: Run, r: Result, kind: str) -> str:
    """Where a row's peak comes from: its peak_source, else meta.json's formula."""
    if r.peak_source:
        return r.peak_source
    peaks = (run.device_info() or {}).get("peaks") or {}
    formula = peaks.get(f"{kind}_formula") if isinstance(peaks, dict) else None
    return f"meta.json: {formula}" if formula else "results.csv peak column"


def _entry(figure: str, r: Result, value: float, unit: str, share: float | None,
           of: str) -> dict:
    return {"figure": figure, "value": value, "unit": unit, "share_pct": share, "of": of,
            "point": r.label(), "conditions": conditions(r)}


def _stated_peak(run: Run, r: Result, value: float, kind: str, name: str,
                 unit: str) -> tuple[float | None, str]:
    """A row's share of the peak its own row states, and what that peak is."""
    if not r.num["peak"]:
        return None, ""
    return (100 * value / r.num["peak"],
            f"{name} {F.fmt(r.num['peak'])} {unit} ({_peak_source(run, r, kind)})")


def _reference(rows: list[Result], r: Result) -> str:
    """What a row's pct_ref is a share of: its reference at the same axes."""
    dims = ("m", "n", "k")  # the size; other axes (tile, config) are the rung's own
    ref = next((x for x in rows if x.benchmark == r.ref_benchmark
                and all(x.axes.get(d) == r.axes.get(d) for d in dims)), None)
    return f"{r.ref_benchmark} at the same size" + (
        f" ({ref.tflops:.4g} TFLOP/s, measured in this run)" if ref is not None else "")


def _vecadd(run: Run) -> list[dict]:
    r = _best([r for r in run.rows("vecadd") if not r.is_host], lambda r: r.gbps)
    if not r:
        return []
    share, of = (_stated_peak(run, r, r.gbps, "dram", "DRAM peak", "GB/s")
                 if r.peak_unit == "GB/s" else (None, ""))
    return [_entry("vector add, best (GB/s, bytes the work model counts)", r, r.gbps, "GB/s",
                   share, of)]


def _matmul_fp32(run: Run) -> list[dict]:
    out = []
    rows = [r for r in run.rows("matmul") if not r.is_host and r.tflops is not None
            and precision_of(r) == "FP32"]
    hand = _best([r for r in rows if not r.variant.startswith("cublas")], lambda r: r.tflops)
    if hand and hand.num["pct_ref"] is not None:
        out.append(_entry("hand-written SGEMM, best (TFLOP/s)", hand, hand.tflops, "TFLOP/s",
                          hand.num["pct_ref"], _reference(rows, hand)))
    cublas = _best([r for r in rows if r.variant == "cublas_fp32"], lambda r: r.tflops)
    if cublas:
        share, of = _stated_peak(run, cublas, cublas.tflops, "fp32", "FP32 peak", "TFLOP/s")
        out.append(_entry("cuBLAS FP32, best (TFLOP/s)", cublas, cublas.tflops, "TFLOP/s",
                          share, of))
    return out


def _tensor_peak_share(run: Run, r: Result, prec: str) -> tuple[float | None, str]:
    roof = P.tensor_peak(run, prec)
    if roof is None:
        return None, "no tensor peak for this GPU (peaks.py)"
    return (100 * r.tflops / roof.tflops,
            f"{roof.precision} peak {roof.tflops:.4g} TFLOP/s ({roof.clock}: {roof.source})")


def _tc_rung(rows: list[Result], refs: list[Result], prec: str) -> list[dict]:
    rung = _best(rows, lambda r: r.tflops)
    if not rung or rung.num["pct_ref"] is None:
        return []
    return [_entry(f"tensor-core rung, best {prec} (TFLOP/s)", rung, rung.tflops, "TFLOP/s",
                   rung.num["pct_ref"], _reference(refs, rung))]


def _tensor(run: Run) -> list[dict]:
    """Per precision: the best tensor-core rung against its cuBLAS, and
    that cuBLAS against the tensor peak of the precision."""
    out = []
    tc = [r for r in run.rows("matmul_tc") if r.tflops is not None]
    refs = [r for r in run.rows("matmul") if is_reference(r.benchmark)
            and r.tflops is not None and precision_of(r) != "FP32"]
    for prec in ordered_unique(precision_of(r) for r in tc + refs):
        out += _tc_rung([r for r in tc if precision_of(r) == prec], refs, prec)
        lib = _best([r for r in refs if precision_of(r) == prec], lambda r: r.tflops)
        if lib:
            share, of = _tensor_peak_share(run, lib, prec)
            out.append(_entry(f"{rung_name(lib.benchmark)}, best (TFLOP/s)", lib, lib.tflops,
                              "TFLOP/s", share, of))
    return out


def _pinned(run: Run, rows: list[Result], direction: str) -> list[dict]:
    r = _best([r for r in rows if r.axes.get("memory") == "pinned"
               and r.axes.get("direction") == direction and r.variant.startswith("memcpy")],
              lambda r: r.gbps)
    if not r:
        return []
    share, of = _stated_peak(run, r, r.gbps, "pcie", "PCIe peak per direction", "GB/s")
    return [_entry(f"pinned {direction.upper()} copy, best (GB/s)", r, r.gbps, "GB/s", share,
                   of)]


def _bidir(run: Run, rows: list[Result]) -> list[dict]:
    r = _best([r for r in rows if r.variant == "bidir" and r.axes.get("memory") == "pinned"],
              lambda r: r.gbps)
    if not r:
        return []
    pcie = run.device_peak("pcie")
    share = 100 * r.gbps / (2 * pcie) if pcie else None
    of = f"2 x the PCIe peak {pcie:.4g} GB/s per direction (meta.json)" if pcie else ""
    return [_entry("bidirectional pinned copies, best (GB/s, both directions)", r, r.gbps,
                   "GB/s", share, of)]


def _d2d(run: Run, rows: list[Result]) -> list[dict]:
    r = _best([r for r in rows if r.variant == "d2d"], lambda r: r.gbps)
    if not r:
        return []
    share, of = _stated_peak(run, r, r.gbps, "dram", "DRAM peak", "GB/s")
    return [_entry("device-to-device copy, best (GB/s, read + write)", r, r.gbps, "GB/s",
                   share, of)]


def _transfers(run: Run) -> list[dict]:
    rows = [r for r in run.rows("transfers") if r.gbps is not None]
    return (_pinned(run, rows, "h2d") + _pinned(run, rows, "d2h") + _bidir(run, rows)
            + _d2d(run, rows))


def _multi_gpu(run: Run) -> list[dict]:
    out = []
    r = _best(run.rows("p2p"), lambda r: r.gbps)
    if r:
        out.append(_entry("peer-to-peer copy, best (GB/s)", r, r.gbps, "GB/s", None, ""))
    multi = [r for r in run.rows("nccl") if (r.axis("ranks") or 1) > 1]
    r = _best([r for r in multi if r.variant == "all_reduce"], lambda r: r.gbps)
    if r:
        ranks = int(r.axis("ranks"))
        bus = r.gbps * 2 * (ranks - 1) / ranks
        out.append(_entry(f"NCCL all-reduce bus bandwidth, best (GB/s, {ranks} ranks)", r, bus,
                          "GB/s", None, "nccl-tests' bus bandwidth: algorithm x 2(n-1)/n"))
    return out


def _cpu(run: Run) -> list[dict]:
    cpu = cpu_name(run)
    out = []
    r = _best([r for r in run.rows("vecadd") if r.is_host], lambda r: r.gbps)
    if r:
        out.append(_entry(f"vector add on the CPU ({cpu}), best (GB/s)", r, r.gbps, "GB/s",
                          None, ""))
    r = _best([r for r in run.rows("matmul") if r.is_host], lambda r: r.tflops)
    if r:
        out.append(_entry(f"matmul on the CPU ({cpu}), best (TFLOP/s)", r, r.tflops,
                          "TFLOP/s", None, ""))
    return out


def key_figures(run: Run) -> list[dict]:
    return (_vecadd(run) + _matmul_fp32(run) + _tensor(run) + _transfers(run)
            + _multi_gpu(run) + _cpu(run))


def table(run: Run, figures: list[dict] | None = None) -> Table | None:
    figures = key_figures(run) if figures is None else figures
    if not figures:
        return None
    rows = [[f["figure"], f"{fmt(f['value'])} {f['unit']}",
             "" if f["share_pct"] is None else f"{f['share_pct']:.1f} %", f["of"], f["point"],
             f["conditions"]] for f in figures]
    return Table(HEADERS, rows,
                 f"{run.label}: the best point of each kind this run measured. Shares name "
                 f"the peak or reference they are of, and where it comes from; a reference "
                 f"is the library measured in the same run at the same size.",
                 numeric=False, sortable=False, css="key")

