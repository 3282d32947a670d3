"""Vector add figures: bandwidth against size, and the launch-shape heatmap.

Vector add is the bandwidth yardstick of the suite, so its chart carries the
two numbers every other GB/s figure is judged against: the theoretical DRAM
peak the run stated and the best bandwidth it actually measured. The heatmap
shows how the launch shape (block x grid) moves bandwidth, with theoretical
occupancy beside it, because occupancy is the usual (and often wrong) first
guess for why one shape beats another.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from . import figure as F
from . import frameworks
from . import style as S
from .load import Run
from .pick import (best_per, curve, has_other_configs, ordered_unique,
                     sorted_axis_values)

FAMILY = "vecadd"
SECTION = "Vector add"


def dram_peak(run: Run) -> float | None:
    """The theoretical DRAM peak the run stated: the `peak` column of its GB/s
    rows, else meta.json's device peaks."""
    for row in run.rows(FAMILY):
        if row.peak_unit == "GB/s" and row.num["peak"] and not row.is_host:
            return row.num["peak"]
    return run.device_peak("dram")


def best_measured(run: Run) -> tuple[float | None, str]:
    """The highest GPU GB/s of the family and the row that reached it."""
    best = best_per([r for r in run.rows(FAMILY) if not r.is_host],
                    lambda r: 0, lambda r: r.gbps)
    if not best:
        return None, ""
    row = best[0]
    return row.gbps, row.label()


def _series(variant: str, rows, gpu_index: int) -> F.Series:
    """One variant's curve. Measured curves are solid (dashed lines are
    peaks); the CPU baseline is told apart by its brown squares and its name,
    a framework by triangles, its family and the kernel CUPTI saw at the
    largest n (reports/style.py)."""
    xs, _, chosen = curve(rows, "n", lambda r: r.gbps)
    if chosen[0].is_host:
        return F.series(variant.partition("/")[2], xs, chosen, lambda r: r.gbps,
                        S.cpu_style(0))
    style = S.series_style(gpu_index)
    label = variant.partition("/")[2]
    if frameworks.is_framework(chosen[0]):
        style["marker"] = "^"
        kernel = frameworks.kernel_text(chosen[-1])
        label = frameworks.label(variant) + (f" [{kernel}]" if kernel else "")
    return F.series(label, xs, chosen, lambda r: r.gbps, style)


def _reflines(run: Run) -> list[F.RefLine]:
    refs = []
    peak = dram_peak(run)
    if peak:
        refs.append(F.RefLine(f"theoretical DRAM peak {peak:.0f} GB/s", peak, dict(S.PEAK)))
    best, _ = best_measured(run)
    if best:
        refs.append(F.RefLine(f"best measured {best:.0f} GB/s", best, dict(S.BEST)))
    return refs


def _chart_rows(run: Run) -> list:
    """The family's rows with n and GB/s and, when there are any, the Python
    frameworks' adds of the same run (reports/frameworks.py)."""
    rows = [r for r in run.rows(FAMILY) if r.axis("n") is not None and r.gbps is not None]
    return rows + frameworks.vecadd_rows(run) if rows else rows


def line_chart(run: Run) -> F.LineChart | None:
    rows = _chart_rows(run)
    if not rows:
        return None
    groups = {v: [r for r in rows if r.benchmark == v]
              for v in ordered_unique(r.benchmark for r in rows)}
    gpu = [v for v, vrows in groups.items() if not vrows[0].is_host]
    series = [_series(v, vrows, gpu.index(v) if v in gpu else 0) for v, vrows in groups.items()]
    return F.LineChart(
        title=f"Vector add bandwidth — {run.label}",
        xlabel="n (elements per vector)", ylabel="bandwidth (GB/s, 1e9 B/s)",
        series=series, reflines=_reflines(run),
        xscale="log2" if F.axis_scale([r.axis("n") for r in rows], 2) != "linear" else "linear",
        yscale=F.axis_scale([r.gbps for r in rows], 10, 100.0))


def line_caption(chart: F.LineChart, best_of: bool) -> str:
    """Say what is drawn, and only that: a CPU-only run has no DRAM peak and
    no GPU best, and its caption must not describe those lines."""
    text = ("Bandwidth (bytes the work model counts / median time) against vector "
            "length, one solid line per variant"
            + (", each point the best over the block and grid values measured at that n"
               if best_of else "") + ".")
    if any(s.style.get("marker") == "s" for s in chart.series):
        text += " The CPU baseline (host) has brown square markers."
    if any(s.style.get("marker") == "^" for s in chart.series):
        text += (" Python frameworks of the same run (triangles) are labelled family: "
                 "benchmark [the kernel CUPTI saw it launch at the largest n].")
    for ref in chart.reflines:
        if ref.label.startswith("theoretical DRAM peak"):
            text += " The dashed line is the theoretical DRAM peak the run stated."
        elif ref.label.startswith("best measured"):
            text += " The dotted line is the best GPU bandwidth measured in this run."
    return text + F.flag_note(chart)


def heatmap_choice(run: Run):
    """For each variant with block and grid axes: the largest n at which more
    than one block and more than one grid value were measured."""
    choices = []
    rows = [r for r in run.rows(FAMILY, measured=False)
            if "block" in r.axes and "grid" in r.axes and r.axis("n") is not None]
    for bench in ordered_unique(r.benchmark for r in rows):
        brows = [r for r in rows if r.benchmark == bench]
        good = []
        for n in {r.axis("n") for r in brows}:
            at_n = [r for r in brows if r.axis("n") == n and r.measured]
            if len({r.axes["block"] for r in at_n}) > 1 and len({r.axes["grid"] for r in at_n}) > 1:
                good.append(n)
        if good:
            n = max(good)
            choices.append((bench, n, [r for r in brows if r.axis("n") == n]))
    return choices


def heatmap_data(bench: str, n: float, rows) -> dict:
    blocks = sorted_axis_values(r.axes["block"] for r in rows)
    grids = sorted_axis_values(r.axes["grid"] for r in rows)
    best = best_per([r for r in rows if r.measured],
                    lambda r: (r.axes["block"], r.axes["grid"]), lambda r: r.gbps)
    # A cell that never ran shows why: its first skip or fail.
    untimed = {}
    for r in rows:
        untimed.setdefault((r.axes["block"], r.axes["grid"]), r)
    cells = []
    for b in blocks:
        for g in grids:
            row = best.get((b, g)) or untimed.get((b, g))
            cells.append({"block": b, "grid": g,
                          "gbps": row.gbps if row and row.measured else None,
                          "occupancy": row.num["occupancy"] if row else None,
                          "status": row.status if row else "absent",
                          "id": row.label() if row else ""})
    return {"kind": "heatmap", "benchmark": bench, "n": n, "blocks": blocks,
            "grids": grids, "rows": cells}


def _draw_heatmap(ax, data: dict, key: str, scale: float, cmap: str, label: str,
                  fig, vmin=None, vmax=None) -> None:
    blocks, grids = data["blocks"], data["grids"]
    grid = np.full((len(blocks), len(grids)), np.nan)
    for cell in data["rows"]:
        if cell[key] is not None:
            grid[blocks.index(cell["block"]), grids.index(cell["grid"])] = cell[key] * scale
    image = ax.imshow(grid, cmap=cmap, aspect="auto", origin="lower", vmin=vmin, vmax=vmax)
    fig.colorbar(image, ax=ax, label=label, shrink=0.9)
    for cell in data["rows"]:
        i, j = blocks.index(cell["block"]), grids.index(cell["grid"])
        value = grid[i, j]
        if math.isfinite(value):
            # white text on dark cells, black on light ones
            r, g, b, _ = image.cmap(image.norm(value))
            dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
            ax.text(j, i, f"{value:.0f}", ha="center", va="center", fontsize=7,
                    color="white" if dark else "black")
        else:
            text = "–" if cell["status"] == "absent" else cell["status"]
            ax.text(j, i, text, ha="center", va="center", fontsize=7, color="0.4")
    ax.set_xticks(range(len(grids)), grids, rotation=45)
    ax.set_yticks(range(len(blocks)), blocks)
    ax.set_xlabel("grid (blocks; auto = runner's choice)")
    ax.set_ylabel("block (threads)")


def heatmap_figure(run: Run, bench: str, n: float, rows, out_dir: Path, name: str) -> F.Figure:
    data = heatmap_data(bench, n, rows)
    width = max(9.0, 1.1 * len(data["grids"]) * 2 + 3)
    fig, (left, right) = F.new_figure(width, 0.55 * len(data["blocks"]) + 2.6, ncols=2)
    # Colours from 0 to the DRAM peak: a 0.3% spread must not look like 2x.
    values = [c["gbps"] for c in data["rows"] if c["gbps"] is not None]
    top = max([dram_peak(run) or 0.0] + values)
    _draw_heatmap(left, data, "gbps", 1.0, "viridis", "GB/s (1e9 B/s)", fig, vmin=0, vmax=top)
    left.set_title("bandwidth (GB/s)", fontsize=10)
    _draw_heatmap(right, data, "occupancy", 100.0, "Blues", "theoretical occupancy (%)", fig,
                  vmin=0, vmax=100)
    right.set_title("theoretical occupancy (%)", fontsize=10)
    title = f"{bench} launch shape at n = {F.count_text(n)} — {run.label}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    others = [k for k in rows[0].axes if k not in ("n", "block", "grid")]
    caption = (f"GB/s of {bench} for every block × grid measured at n = {F.count_text(n)} "
               f"(the largest n with more than one block and grid value), with "
               f"the theoretical occupancy of each launch on the right"
               + (f"; each cell is the best over {', '.join(others)}" if others else "")
               + ". Colours run from 0 to the theoretical DRAM peak. "
                 "Cells that did not run show their status.")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)


def figures(run: Run, out_dir: Path, prefix: str) -> list[F.Figure]:
    figs = []
    chart = line_chart(run)
    if chart:
        rows = [r for r in run.rows(FAMILY) if r.axis("n") is not None]
        best_of = any(has_other_configs([r for r in rows if r.benchmark == b], "n")
                      for b in {r.benchmark for r in rows})
        caption = line_caption(chart, best_of)
        figs.append(F.save_line_chart(chart, out_dir, f"{prefix}vecadd_gbps_vs_n",
                                      SECTION, caption, outside=True))
    for bench, n, rows in heatmap_choice(run):
        variant = bench.partition("/")[2]
        figs.append(heatmap_figure(run, bench, n, rows, out_dir,
                                   f"{prefix}vecadd_heatmap_{variant}"))
    return figs
