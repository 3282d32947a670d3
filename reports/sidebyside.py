"""Side-by-side charts: one panel per run, the same chart, the same scales.

Absolute values (GB/s, TFLOP/s against size) of each run next to each
other, with one y scale so that equal heights mean equal numbers and one
colour per series on every panel. Ratios are drawn elsewhere, once
(compare.py, hardware.py).
"""

from __future__ import annotations

import math
from pathlib import Path

from . import figure as F
from . import figures_matmul, figures_transfers, figures_vecadd, hardware
from .load import Run
from .pick import ordered_unique

SECTION = "Comparison"


def _same_colors(charts: list[F.LineChart]) -> None:
    """A series drawn on several panels gets one colour on all of them: the
    colour of its first panel."""
    first: dict[str, dict] = {}
    for c in charts:
        for s in c.series:
            if s.label in first:
                s.style = {**s.style, **first[s.label]}
            else:
                first[s.label] = {k: s.style[k] for k in ("color", "marker") if k in s.style}


def _name_cpus(runs: list[Run], charts: list[F.LineChart]) -> None:
    """A CPU series in a panel titled by a GPU says whose CPU it is."""
    for run, chart in zip(runs, charts):
        cpu = hardware.cpu_name(run)
        for s in chart.series:
            if s.ids and s.ids[0].split(" [")[0].partition("/")[2].startswith("host"):
                s.label = f"{s.label} (CPU: {cpu})"


def side_by_side(runs: list[Run], charts: list[F.LineChart | None], out_dir: Path,
                 name: str, title: str, caption: str, xunit: str = "") -> F.Figure | None:
    pairs = [(run, chart) for run, chart in zip(runs, charts) if chart is not None]
    if len(pairs) < 2:
        return None
    F.unify_scales([c for _, c in pairs])
    _same_colors([c for _, c in pairs])
    _name_cpus([r for r, _ in pairs], [c for _, c in pairs])
    # Legends get a row of their own under the plots: below the x label,
    # never over it, however long the labels (transfer fits) are.
    entries = max(len(c.series) + len(c.reflines) for _, c in pairs)
    legend_h = 0.2 * math.ceil(entries / 2) + 0.2
    fig = F.blank_figure(6.5 * len(pairs), 4.6 + legend_h)
    grid = fig.add_gridspec(2, len(pairs), height_ratios=[4.6, legend_h], hspace=0.45)
    first = None
    for i, (run, chart) in enumerate(pairs):
        ax = fig.add_subplot(grid[0, i], sharey=first)
        first = first or ax
        F.draw_line_chart(ax, chart, xunit=xunit, legend=False)
        ax.set_title(run.label, fontsize=9)
        ax.yaxis.set_tick_params(labelleft=True)
        slot = fig.add_subplot(grid[1, i])
        slot.axis("off")
        handles, labels = ax.get_legend_handles_labels()
        slot.legend(handles, labels, fontsize=6.5, loc="upper center", ncol=2,
                    frameon=False)
    fig.suptitle(title, fontsize=10)
    data = {"kind": "side_by_side",
            "panels": [{"run": run.label, **chart.data()} for run, chart in pairs],
            "rows": [{"run": run.label, "series": s.label, "x": x, "y": y, "id": i}
                     for run, chart in pairs for s in chart.series
                     for x, y, i in zip(s.x, s.y, s.ids)]}
    return F.save(fig, out_dir, name, data, SECTION, title, caption)


def _precision_chart(run: Run, prec: str) -> F.LineChart | None:
    rows = [x for x in figures_matmul.tensor_rows(run) if figures_matmul.precision_of(x) == prec]
    return figures_matmul.line_chart(run, rows, prec) if rows else None


def _tensor_figures(runs: list[Run], out_dir: Path, prefix: str) -> list:
    """One side-by-side chart per precision of the tensor-core ladder."""
    precisions = ordered_unique(p for r in runs
                                for p in figures_matmul.precisions(figures_matmul.tensor_rows(r)))
    return [side_by_side(runs, [_precision_chart(r, prec) for r in runs], out_dir,
                         f"{prefix}matmul_{prec.lower()}_tflops_vs_size",
                         f"Matmul {prec} (tensor-core ladder), side by side",
                         f"TFLOP/s against matrix size of every {prec} benchmark on each run, "
                         f"same y scale.") for prec in precisions]


def _transfer_figures(runs: list[Run], out_dir: Path, prefix: str) -> list:
    panels = ordered_unique(p for r in runs for p in figures_transfers.panels(r))
    return [side_by_side(runs, [figures_transfers.line_chart(r, panel) for r in runs], out_dir,
                         f"{prefix}transfers_{F.slug(panel)}",
                         f"Transfers {panel}, side by side".replace("  ", " "),
                         "GB/s against bytes per copy kind on each run, same y scale; legends "
                         "give each run's fitted latency and bandwidth.", xunit="bytes")
            for panel in panels]


def figures(runs: list[Run], out_dir: Path, prefix: str) -> list[F.Figure]:
    figs = [side_by_side(runs, [figures_vecadd.line_chart(r) for r in runs], out_dir,
                         f"{prefix}vecadd_gbps_vs_n", "Vector add bandwidth, side by side",
                         "GB/s against n per variant on each run, same y scale."),
            side_by_side(runs, [figures_matmul.line_chart(r) for r in runs], out_dir,
                         f"{prefix}matmul_tflops_vs_size", "Matmul FP32 ladder, side by side",
                         "TFLOP/s against matrix size per rung on each run, same y scale.")]
    figs += _tensor_figures(runs, out_dir, prefix) + _transfer_figures(runs, out_dir, prefix)
    return [f for f in figs if f]
