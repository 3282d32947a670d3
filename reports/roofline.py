"""The roofline: every GPU kernel's best point against the machine's roofs.

The slope is the bandwidth this run measured (the best vector add, else
device-to-device copy, GB/s), so a kernel under it is limited by memory the
run showed it can reach, not by a datasheet number; the theoretical DRAM
peak is drawn dotted for scale. The ceilings are the stated peaks, each
labelled with the clock it holds at and its source (reports/peaks.py):
FP32 from the run (max boost clock), the tensor-core roofs at the clock of
the datasheet they reproduce.

Arithmetic intensity is the work model's flops / bytes: the minimum traffic
(every input read once, every output written once). Real kernels move more,
so they sit further left than drawn. Where the run measured the DRAM traffic
(hardware counters: `sol_dram_pct`, or metrics.csv), the point is drawn at
its measured intensity, joined to its work-model position. Where it did
not, a point far under the roof at its work-model intensity (below a
quarter of it) is drawn hollow and named: the model places it in a region
whose limit it does not reach, so something the model does not count limits
it (the uncoalesced naive matmul re-reads its inputs many times over).
Points are coloured by family (matmuls by precision), so the legend has a
line per family, not one per benchmark.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import figure as F
from . import peaks as P
from . import style as S
from .figures_matmul import FAMILIES as MATMUL_FAMILIES, precision_of
from .figures_vecadd import dram_peak
from .frameworks import is_framework
from .load import Result, Run
from .pick import best_per, ordered_unique

SECTION = "Roofline"
FAR_BELOW = 0.25  # a point under this share of its roof is "not explained by the model"
ROOF_STYLES = {"FP32": {"color": "#000000"}, "TF32 tensor": {"color": "#9467bd"},
               "BF16 tensor": {"color": "#2ca02c"}, "FP8 tensor": {"color": "#8c564b"}}
# The other groups' colours: the palette without the roofs' own.
_OTHER_COLORS = [c for c in S.PALETTE if c not in {v["color"] for v in ROOF_STYLES.values()}]


def bandwidth_roof(run: Run) -> tuple[float | None, str]:
    """Best measured GPU bandwidth: vector add first, else a d2d copy."""
    for label, rows in (
            ("best vecadd", [r for r in run.rows("vecadd") if not r.is_host]),
            ("best d2d copy", [r for r in run.rows("transfers")
                               if r.axes.get("direction") == "d2d" or r.variant == "d2d"])):
        best = best_per(rows, lambda r: 0, lambda r: r.gbps)
        if best:
            return best[0].gbps, f"{label} ({best[0].label()})"
    return None, ""


def _group(row: Result) -> str:
    """The legend entry a point belongs to: matmuls by precision (each under
    the roof of its precision, cuBLAS and rungs alike), frameworks as one,
    any other by family."""
    if is_framework(row):
        return "Python frameworks"
    if row.family in MATMUL_FAMILIES:
        return f"{precision_of(row)} matmul"
    return row.family


def _precision(row: Result) -> str:
    if row.family in MATMUL_FAMILIES or is_framework(row):
        return precision_of(row)
    return "FP32"


def _measured_bytes(run: Run, row: Result, dram: float | None) -> float | None:
    """DRAM bytes the hardware counters saw for the point, when the run has
    them: metrics.csv `dram_bytes` (unit bytes), else sol_dram_pct of the
    DRAM peak over the median time."""
    for m in run.metrics:
        if (m.benchmark, m.axes) == row.identity and m.metric in ("dram_bytes",
                                                                   "dram__bytes.sum"):
            return m.value if m.value > 0 else None
    pct = row.num.get("sol_dram_pct")
    if pct is None:
        pct = next((m.value for m in run.metrics if (m.benchmark, m.axes) == row.identity
                    and m.metric == "sol_dram_pct"), None)
    if pct and dram and row.median_s:
        return pct / 100.0 * dram * 1e9 * row.median_s
    return None


def _point(run: Run, r: Result, roof_here: float) -> dict:
    """A benchmark's best point, its roof at its work-model intensity, and
    its measured intensity when the counters give its DRAM traffic."""
    moved = _measured_bytes(run, r, dram_peak(run))
    return {"benchmark": r.benchmark, "family": r.family, "group": _group(r),
            "precision": _precision(r), "intensity": r.num["flops"] / r.num["bytes"],
            "measured_intensity": r.num["flops"] / moved if moved else None,
            "tflops": r.tflops, "roof_at_intensity": roof_here,
            "share_of_roof": r.tflops / roof_here, "throttle": r.throttle_affects,
            "noisy": r.status == "noisy", "id": r.label()}


def _placeable(r: Result) -> bool:
    """A GPU point with flops and bytes: it has an intensity."""
    return (not r.is_host and r.tflops is not None and (r.num["flops"] or 0) > 0
            and (r.num["bytes"] or 0) > 0)


def _slope(run: Run) -> tuple[float | None, str]:
    bw, source = bandwidth_roof(run)
    if not bw and dram_peak(run):
        # No bandwidth measured (a matmul-only run): the datasheet roof, said so.
        return dram_peak(run), "theoretical DRAM peak: no bandwidth measured in this run"
    return bw, source


def roofline_data(run: Run) -> dict | None:
    rows = [r for r in run.rows() if _placeable(r)]
    bw, bw_source = _slope(run)
    roofs, no_tensor = P.roofs(run)
    fp32 = next((r for r in roofs if r.precision == "FP32"), None)
    if not rows or not bw or not fp32:
        return None
    ceilings = {r.precision.split()[0]: r.tflops for r in roofs}
    best = best_per(rows, lambda r: r.benchmark, lambda r: r.tflops)
    points = [_point(run, r, min(ceilings.get(_precision(r), fp32.tflops),
                                 bw * r.num["flops"] / r.num["bytes"] / 1e3))
              for r in best.values()]
    return {"kind": "roofline", "intensity": "work model (flops / bytes of the work model)",
            "bandwidth_gbps": bw, "bandwidth_source": bw_source,
            "fp32_tflops": fp32.tflops, "fp32_source": fp32.source,
            "dram_peak_gbps": dram_peak(run), "ridge_intensity": fp32.tflops * 1e12 / (bw * 1e9),
            "roofs": [vars(r) for r in roofs], "no_tensor_roofs": no_tensor, "rows": points}


def _roof_label(roof: dict) -> str:
    return (f"{roof['precision']} {roof['tflops']:.4g} TFLOP/s"
            + (f" ({roof['clock']})" if roof.get("clock") else ""))


def _explained(p: dict) -> bool:
    """Drawn filled: a point the work model places honestly (within reach of
    its roof), or one the counters place at its measured intensity."""
    return p["share_of_roof"] >= FAR_BELOW or bool(p["measured_intensity"])


def _x_range(data: dict) -> tuple[float, float]:
    points = data["rows"]
    xs = [p["intensity"] for p in points] + [data["ridge_intensity"]]
    xs += [p["measured_intensity"] for p in points if p["measured_intensity"]]
    xs += [r["tflops"] * 1e12 / (data["bandwidth_gbps"] * 1e9) for r in data["roofs"]]
    return min(xs) / 4, max(xs) * 4


def _draw_roofs(ax, data: dict, grid, measured: bool) -> None:
    bw = data["bandwidth_gbps"]
    for roof in data["roofs"]:
        style = ROOF_STYLES.get(roof["precision"], {"color": "0.4"})
        ax.plot(grid, np.minimum(roof["tflops"], bw * grid / 1e3), linestyle="--",
                linewidth=1.3, label=_roof_label(roof), **style)
    ax.plot([], [], color="none",
            label=f"slope: {bw:.0f} GB/s {'measured' if measured else 'theoretical'}")
    if data["dram_peak_gbps"] and measured:
        dram = data["dram_peak_gbps"]
        ax.plot(grid, np.minimum(data["fp32_tflops"], dram * grid / 1e3), **S.BEST,
                label=f"theoretical DRAM peak {dram:.0f} GB/s")


def _draw_group(ax, group: str, mine: list[dict], style: dict) -> None:
    """One family's points: filled where explained, hollow at the work-model
    intensity where not, a thin line from work model to measured intensity."""
    solid = [p for p in mine if _explained(p)]
    empty = [p for p in mine if not _explained(p)]
    ax.scatter([p["measured_intensity"] or p["intensity"] for p in solid],
               [p["tflops"] for p in solid], marker=style["marker"], color=style["color"],
               edgecolor="black", linewidth=0.4, s=36, zorder=3, label=f"{group} ({len(mine)})")
    ax.scatter([p["intensity"] for p in empty], [p["tflops"] for p in empty],
               marker=style["marker"], facecolors="white", edgecolors=style["color"],
               linewidth=1.2, s=36, zorder=3)
    for p in [p for p in mine if p["measured_intensity"]]:
        ax.plot([p["intensity"], p["measured_intensity"]], [p["tflops"]] * 2,
                color=style["color"], linewidth=0.7, alpha=0.7)


def _group_style(group: str, other: int) -> dict:
    """A matmul group of one precision ("TF32 matmul") in its roof's colour,
    so a point sits under the roof drawn like it; every other group in a
    colour no roof uses."""
    word = group.split()[0]
    roof = ROOF_STYLES.get("FP32" if word == "FP32" else f"{word} tensor")
    if group.endswith(" matmul") and roof:
        return {"color": roof["color"], "marker": "o"}
    return {"color": _OTHER_COLORS[other % len(_OTHER_COLORS)],
            "marker": S.MARKERS[(other // len(_OTHER_COLORS)) % len(S.MARKERS)]}


def _draw_points(ax, points: list[dict]) -> None:
    other = 0
    for group in ordered_unique(p["group"] for p in points):
        style = _group_style(group, other)
        if style["color"] in _OTHER_COLORS:
            other += 1
        _draw_group(ax, group, [p for p in points if p["group"] == group], style)
    flagged = [p for p in points if p["throttle"]]
    if flagged:
        ax.scatter([p["measured_intensity"] or p["intensity"] for p in flagged],
                   [p["tflops"] for p in flagged], s=120, facecolors="none",
                   edgecolors=S.FLAG, linewidths=1.3, zorder=4,
                   label="a throttle reason can have slowed it")


def _caption(data: dict, measured: bool) -> str:
    points = data["rows"]
    roofs = "; ".join(f"{r['precision']} {r['tflops']:.4g} TFLOP/s"
                      + (f", {r['clock']}" if r.get("clock") else "") + f" ({r['source']})"
                      for r in data["roofs"])
    text = (f"Each GPU benchmark's best point (highest TFLOP/s), coloured by family (matmuls "
            f"by precision), at its work-model arithmetic intensity (flops / bytes, the "
            f"minimum traffic: real kernels move more and sit further left). The slope of "
            f"every roof is the bandwidth "
            + ("measured in this run" if measured else "the run stated")
            + f" ({data['bandwidth_source']}); the dashed ceilings are the peaks: {roofs}.")
    if data["dram_peak_gbps"] and measured:
        text += " The dotted line is the theoretical DRAM peak."
    if not any(r["kind"] == "table" for r in data["roofs"]):
        text += f" No tensor-core roofs: {data['no_tensor_roofs'].split(': no ')[0]}."
    if any(p["measured_intensity"] for p in points):
        text += (" Points with hardware counters sit at their measured intensity, a thin "
                 "line back to their work-model intensity.")
    hollow = [p["benchmark"] for p in points if not _explained(p)]
    if hollow:
        text += (f" Hollow: {', '.join(hollow)} reach less than {100 * FAR_BELOW:.0f} % of "
                 f"the roof at their work-model intensity, so the model does not explain "
                 f"them: they move far more than the minimum traffic (or wait on latency), "
                 f"and their real intensity is lower than drawn.")
    flagged = sum(bool(p["throttle"]) for p in points)
    if flagged:
        text += f" Red rings: {flagged} point(s) a throttle reason can have slowed."
    return text


def figure(run: Run, out_dir: Path, name: str) -> F.Figure | None:
    data = roofline_data(run)
    if not data:
        return None
    lo, hi = _x_range(data)
    grid = np.logspace(np.log10(lo), np.log10(hi), 256)
    measured = not data["bandwidth_source"].startswith("theoretical")
    fig, ax = F.new_figure(8.5, 5.0)
    _draw_roofs(ax, data, grid, measured)
    _draw_points(ax, data["rows"])
    F.apply_scale(ax, "x", "log10")
    F.apply_scale(ax, "y", "log10")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity, FLOP/byte of the work model (minimum traffic)")
    ax.set_ylabel("TFLOP/s (1e12 FLOP/s)")
    title = f"Roofline — {run.label}"
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    F.legend_outside(fig, ax)
    return F.save(fig, out_dir, name, data, SECTION, title, _caption(data, measured))
