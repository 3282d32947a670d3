"""The roofline: every GPU kernel's best point against the machine's roofs.

The roof is drawn from what this run measured for bandwidth (the best vector
add, or device-to-device copy, GB/s) and from the stated FP32 peak for
compute, so a kernel sitting under the slanted part is limited by memory the
run showed it can reach, not by a datasheet number. The theoretical DRAM peak
is drawn dotted for scale, and the tensor-core roofs (TF32, BF16) of the
per-architecture table in peaks.py dashed, each labelled as a table value. Arithmetic intensity is the work model's flops /
bytes (the minimum traffic), so real kernels that move more sit further left
than drawn: the chart is an upper bound, as rooflines are.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import figure as F
from . import peaks as P
from .figures_vecadd import dram_peak
from .load import Run
from .pick import best_per

SECTION = "Roofline"
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "*", "p"]


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


def roofline_data(run: Run) -> dict | None:
    rows = [r for r in run.rows() if not r.is_host and r.tflops is not None
            and (r.num["flops"] or 0) > 0 and (r.num["bytes"] or 0) > 0]
    bw, bw_source = bandwidth_roof(run)
    if not bw and dram_peak(run):
        # No bandwidth measured (a matmul-only run): the datasheet roof, said so.
        bw, bw_source = dram_peak(run), "theoretical DRAM peak: no bandwidth measured in this run"
    roofs, no_tensor = P.roofs(run)
    fp32 = next((r for r in roofs if r.precision == "FP32"), None)
    if not rows or not bw or not fp32:
        return None
    peak = fp32.tflops
    best = best_per(rows, lambda r: r.benchmark, lambda r: r.tflops)
    points = [{"benchmark": b, "family": r.family,
               "intensity": r.num["flops"] / r.num["bytes"], "tflops": r.tflops,
               "throttle": r.throttle, "id": r.label()} for b, r in best.items()]
    return {"kind": "roofline", "bandwidth_gbps": bw, "bandwidth_source": bw_source,
            "fp32_tflops": peak, "fp32_source": fp32.source, "dram_peak_gbps": dram_peak(run),
            "ridge_intensity": peak * 1e12 / (bw * 1e9),
            "roofs": [vars(r) for r in roofs], "no_tensor_roofs": no_tensor, "rows": points}


def figure(run: Run, out_dir: Path, name: str) -> F.Figure | None:
    data = roofline_data(run)
    if not data:
        return None
    points = data["rows"]
    tensor = [r for r in data["roofs"] if r["kind"] == "table"]
    xs = [p["intensity"] for p in points] + [data["ridge_intensity"]]
    xs += [r["tflops"] * 1e12 / (data["bandwidth_gbps"] * 1e9) for r in tensor]
    lo, hi = min(xs) / 4, max(xs) * 4
    grid = np.logspace(np.log10(lo), np.log10(hi), 256)
    fig, ax = F.new_figure(8.5, 5.0)
    bw, peak = data["bandwidth_gbps"], data["fp32_tflops"]
    measured = not data["bandwidth_source"].startswith("theoretical")
    ax.plot(grid, np.minimum(peak, bw * grid / 1e3), color="black", linewidth=1.8,
            label=f"roof: {bw:.0f} GB/s {'measured' if measured else 'theoretical'}, "
                  f"{peak:.3g} TFLOP/s FP32 peak")
    if data["dram_peak_gbps"] and measured:
        dram = data["dram_peak_gbps"]
        ax.plot(grid, np.minimum(peak, dram * grid / 1e3), color="0.5", linestyle=":",
                label=f"theoretical DRAM peak {dram:.0f} GB/s")
    for roof, style in zip(tensor, ({"color": "tab:purple"}, {"color": "tab:green"},
                                    {"color": "tab:olive"})):
        ax.plot(grid, np.minimum(roof["tflops"], bw * grid / 1e3), linestyle="--",
                linewidth=1.1, label=f"{roof['precision']} roof {roof['tflops']:.4g} TFLOP/s "
                                     f"(table value)", **style)
    colors = F.palette()
    for i, p in enumerate(points):
        color = colors[i % len(colors)]  # with the marker: unique for 60 benchmarks
        ax.scatter(p["intensity"], p["tflops"], marker=MARKERS[i % len(MARKERS)],
                   color=color, edgecolor="black", linewidth=0.4, s=38, zorder=3,
                   label=p["benchmark"])
    flagged = [p for p in points if p["throttle"] not in ("", "none")]
    if flagged:
        ax.scatter([p["intensity"] for p in flagged], [p["tflops"] for p in flagged], s=140,
                   facecolors="none", edgecolors="red", linewidths=1.4, zorder=4,
                   label="throttled while measured")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_xlabel("arithmetic intensity (FLOP/byte, work model)")
    ax.set_ylabel("TFLOP/s (1e12 FLOP/s)")
    title = f"Roofline — {run.label}"
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    F.legend_outside(fig, ax)
    caption = (f"Each GPU benchmark's best point (highest TFLOP/s) at its arithmetic "
               f"intensity flops/bytes. The solid roof is the bandwidth "
               + ("measured in this run" if measured else "the run stated")
               + f" ({data['bandwidth_source']}) and the FP32 peak ({data['fp32_source']}).")
    if data["dram_peak_gbps"] and measured:
        caption += " The dotted line is the theoretical DRAM peak."
    if tensor:
        caption += (" Dashed: the " + " and ".join(
            f"{r['precision']} roof ({r['tflops']:.4g} TFLOP/s)" for r in tensor)
            + ", table values, not measured: " + "; ".join(r["source"] for r in tensor) + ".")
    if not tensor:
        caption += f" No tensor-core roofs: {data['no_tensor_roofs'].split(': no ')[0]}."
    if flagged:
        caption += (f" Red rings: {len(flagged)} point(s) measured while the GPU "
                    f"reported throttling.")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)
