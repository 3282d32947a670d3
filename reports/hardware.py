"""Hardware comparison: the same points on different GPU models.

Runs of different GPUs are compared point by point (identity = benchmark +
axes) in absolute units and as a share of each GPU's own peak, since "B is
1.6x slower" means little until one knows B's peak is 0.65x. Every share
names its peak: the run's own peak column where the row states one, the
tensor-core peak of the row's precision (reports/peaks.py) for tensor-core
rungs and cuBLAS TF32/BF16, twice the per-direction PCIe peak for a
bidirectional copy; a point with none (NCCL, CPU timings) says so. CPU
points are labelled by the host CPU, not by the GPU of their run.
"""

from __future__ import annotations

from pathlib import Path

from . import figure as F
from . import peaks as P
from . import style as S
from .figures_matmul import precision_of
from .load import Result, Run
from .page import Table
from .pick import throughput

SECTION = "Comparison"


def cpu_name(run: Run) -> str:
    """The host CPU as meta.json names it (`cpu`, or `cpu_model` in older runs)."""
    host = run.meta.get("host") if isinstance(run.meta.get("host"), dict) else {}
    return str(host.get("cpu") or host.get("cpu_model") or "host CPU")


def own_peak(run: Run, row: Result, unit: str) -> tuple[float | None, str]:
    """The peak a row is a share of on its own GPU, and where it comes from."""
    if row.is_host:
        return None, f"CPU point ({cpu_name(run)}): no stated peak"
    if row.num["peak"] and row.peak_unit == unit:
        return row.num["peak"], row.peak_source or "results.csv peak column"
    if unit == "TFLOP/s" and row.family.startswith("matmul"):
        prec = precision_of(row)
        roof = P.tensor_peak(run, prec) if prec != "FP32" else None
        if roof:
            return roof.tflops, f"{roof.precision} peak, {roof.clock} (reports/peaks.py)"
        return None, f"no {prec} peak for this GPU in reports/peaks.py"
    if row.variant == "bidir" and unit == "GB/s":
        pcie = run.device_peak("pcie")
        if pcie:
            return 2 * pcie, "2 x the PCIe peak per direction (meta.json)"
    return None, "no peak stated for this point"


def _cell(run: Run, row: Result) -> dict:
    value, unit = throughput(row)
    peak, source = own_peak(run, row, unit)
    pct = row.num["pct_peak"] if row.num["peak"] and row.peak_unit == unit else None
    if pct is None and value is not None and peak:
        pct = 100.0 * value / peak
    return {"value": value, "unit": unit, "pct_peak": pct, "peak": peak, "peak_unit": unit,
            "peak_source": source, "median_s": row.median_s,
            "throttle": row.throttle_affects, "host": row.is_host,
            "who": cpu_name(run) if row.is_host else run.gpu_name, "id": row.label()}


def common_points(runs: list[Run]) -> list[dict]:
    """Points timed in every run (identity = benchmark + axes), base order,
    each with every run's throughput, share of its own peak and the peak."""
    timed = [{r.identity: r for r in run.results if r.measured} for run in runs]
    points = []
    for ident in timed[0]:
        if all(ident in t for t in timed[1:]):
            points.append({"benchmark": ident[0], "axes": ident[1],
                           "runs": [_cell(run, t[ident]) for run, t in zip(runs, timed)]})
    return points


def best_common_points(points: list[dict]) -> list[dict]:
    """Per benchmark, the common point where the base GPU did best: one line
    per benchmark, every GPU at the same axes."""
    best: dict = {}
    for p in points:
        value = p["runs"][0]["value"]
        if value is None:
            continue
        if p["benchmark"] not in best or value > best[p["benchmark"]]["runs"][0]["value"]:
            best[p["benchmark"]] = p
    return list(best.values())


def hardware_table(runs: list[Run], points: list[dict]) -> Table:
    headers = ["benchmark", "axes"]
    for i, _ in enumerate(runs, start=1):
        headers += [f"run {i} value", f"run {i} % own peak", f"run {i} peak (source)"]
    rows, marked = [], []
    for p in points:
        row = [p["benchmark"], p["axes"]]
        for cell in p["runs"]:
            peak = (f"{F.fmt(cell['peak'])} {cell['peak_unit']} ({cell['peak_source']})"
                    if cell["peak"] else cell["peak_source"])
            flag = f" [throttled: {cell['throttle']}]" if cell["throttle"] else ""
            who = f" on {cell['who']}" if cell["host"] else ""
            row += [f"{F.fmt(cell['value'])} {cell['unit']}{who}{flag}",
                    "" if cell["pct_peak"] is None else f"{cell['pct_peak']:.1f}", peak]
        rows.append(row)
        marked.append(any(c["throttle"] for c in p["runs"]))
    legend = "; ".join(f"run {i} = {run.label}" for i, run in enumerate(runs, start=1))
    return Table(headers, rows,
                 f"Every point timed on all runs ({len(points)}), lined up by benchmark + "
                 f"axes: throughput in absolute units and as a share of that GPU's own peak, "
                 f"with the peak and its source. {legend}. CPU points name their CPU. Rows "
                 f"a throttle reason can have slowed are marked.",
                 collapsed=len(rows) > 12, marked=marked, numeric=False)


def _relative(cell: dict, base: dict) -> float | None:
    """A run's throughput over the base's at the same point (same unit)."""
    if cell["value"] is None or not base["value"] or cell["unit"] != base["unit"]:
        return None
    return cell["value"] / base["value"]


def hardware_records(runs: list[Run], best: list[dict]) -> list[dict]:
    """Per run and benchmark: the value, its ratio to the base, its share of
    that GPU's own peak and the peak's source."""
    records = []
    for i, run in enumerate(runs):
        for p in best:
            cell = p["runs"][i]
            records.append({"run": run.label, "index": i, "benchmark": p["benchmark"],
                            "axes": p["axes"], "who": cell["who"], "host": cell["host"],
                            "value": cell["value"], "unit": cell["unit"],
                            "relative_to_base": _relative(cell, p["runs"][0]),
                            "pct_peak": cell["pct_peak"], "peak": cell["peak"],
                            "peak_source": cell["peak_source"], "throttle": cell["throttle"],
                            "id": cell["id"]})
    return records


def _label(ax, x: float, y: float, text: str, hot: bool) -> None:
    ax.text(x, y, text + (" !" if hot else ""), va="center", fontsize=6.5,
            color=S.FLAG if hot else "black")


def _draw_run(left, right, mine: list[dict], ys: list[float], height: float,
              label: str, color: str) -> None:
    """One run's bars: relative throughput (left), share of own peak (right)."""
    left.barh(ys, [r["relative_to_base"] or 0 for r in mine], height=height, color=color,
              label=label)
    right.barh(ys, [r["pct_peak"] or 0 for r in mine], height=height, color=color,
               label=label)
    for y, r in zip(ys, mine):
        who = f" on {r['who']}" if r["host"] else ""
        if r["relative_to_base"] is not None:
            _label(left, r["relative_to_base"], y, f" {F.fmt(r['value'])} {r['unit']}{who}",
                   bool(r["throttle"]))
        _label(right, r["pct_peak"] or 0, y,
               " no peak" if r["pct_peak"] is None else f" {r['pct_peak']:.0f}%",
               bool(r["throttle"]))


def _axes(left, right, best: list[dict], records: list[dict], base_gpu: str) -> None:
    left.set_yticks(range(len(best)), [p["benchmark"] + (" (CPU)" if p["runs"][0]["host"]
                                                         else "") for p in best], fontsize=7)
    left.invert_yaxis()
    left.axvline(1.0, color="black", linewidth=0.8)
    left.set_xlabel(f"throughput relative to run 1 ({base_gpu}), same point")
    left.set_xlim(0, max([r["relative_to_base"] or 0 for r in records] + [1.0]) * 1.45)
    right.set_xlabel("% of that GPU's own peak (the table names each peak)")
    right.set_xlim(0, max([r["pct_peak"] or 0 for r in records] + [100.0]) * 1.2)
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
    left.legend(fontsize=7, loc="lower right")


def hardware_figure(runs: list[Run], points: list[dict], out_dir: Path,
                    name: str) -> F.Figure | None:
    """Left: each run's throughput relative to the base at the same point;
    right: each run's share of its own peak. One row per benchmark, at the
    point where the base did best. The only place the page draws the ratios
    of a hardware comparison."""
    best = best_common_points(points)
    if not best:
        return None
    records = hardware_records(runs, best)
    fig, (left, right) = F.new_figure(12.0, 0.25 * len(best) * len(runs) + 2.2, ncols=2,
                                      sharey=True)
    height = 0.8 / len(runs)
    for i, run in enumerate(runs):
        ys = [j + (i - (len(runs) - 1) / 2) * height for j in range(len(best))]
        _draw_run(left, right, [r for r in records if r["index"] == i], ys, height,
                  run.label, S.color(i))
    _axes(left, right, best, records, runs[0].gpu_name)
    title = "Same points on each GPU: relative throughput and share of own peak"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    throttled = sum(bool(r["throttle"]) for r in records)
    caption = ("One row per benchmark at the point (axes) where the first run did best, "
               "every run at those same axes. Left: throughput relative to the first run, "
               "labelled with the absolute value (CPU points name their CPU). Right: the "
               "share of each GPU's own peak: the run's stated peak, the tensor-core peak of "
               "the row's precision, or twice the PCIe peak for a bidirectional copy; 'no "
               "peak' where none applies."
               + (f" Red labels with '!': {throttled} value(s) a throttle reason can have "
                  f"slowed." if throttled else ""))
    return F.save(fig, out_dir, name, {"kind": "hardware", "runs": [r.label for r in runs],
                                       "rows": records}, SECTION, title, caption)
