"""Hardware counters: each ladder's speed of light, when the run measured it.

Nsight Compute's SOL section says how close a kernel came to the peak of
each unit (DRAM, L2, L1, SM, tensor cores). When results.csv has the
sol_*_pct columns, or metrics.csv the metrics of those names, each ladder
(the benchmarks of a family) gets a figure: one group of bars per
benchmark at the size the ladder figures use, one bar per unit. A rung
limited by memory shows a tall DRAM bar; one that is neither (latency,
occupancy) shows no tall bar at all. Runs without counters get no figure.

metrics.csv (benchmark, axes, device, metric, value, unit) also gets its
own table: every metric of every point, as the run wrote it.
"""

from __future__ import annotations

from pathlib import Path

from . import figure as F
from . import style as S
from .load import SOL_COLUMNS, Result, Run
from .page import Table
from .pick import best_per, ordered_unique, size_axis

SECTION = "Hardware counters"
UNIT_NAMES = {"sol_dram_pct": "DRAM", "sol_l2_pct": "L2", "sol_l1_pct": "L1",
              "sol_sm_pct": "SM", "sol_tensor_pct": "tensor"}


def sol(run: Run, row: Result, column: str) -> float | None:
    """A row's speed of light of one unit: its column, else metrics.csv."""
    value = row.num.get(column)
    if value is not None:
        return value
    for m in run.metrics:
        if m.metric == column and (m.benchmark, m.axes) == row.identity and (
                not row.device or m.device in ("", row.device)):
            return m.value
    return None


def _has_sol(run: Run, row: Result) -> bool:
    return any(sol(run, row, c) is not None for c in SOL_COLUMNS)


def _largest(rows: list[Result]) -> tuple[str | None, float | None, list[Result]]:
    """The size axis, its largest value, and the rows at it (all rows when
    there is no size axis)."""
    xaxis = size_axis(rows)
    if xaxis is None:
        return None, None, rows
    size = max(r.axis(xaxis) for r in rows)
    return xaxis, size, [r for r in rows if r.axis(xaxis) == size]


def sol_data(run: Run, family: str) -> dict | None:
    with_sol = [r for r in run.rows(family) if not r.is_host and _has_sol(run, r)]
    if not with_sol:
        return None
    xaxis, size, at = _largest(with_sol)
    best = best_per(at, lambda r: r.benchmark, lambda r: r.tflops or r.gbps or 0.0)
    units = [c for c in SOL_COLUMNS if any(sol(run, r, c) is not None for r in best.values())]
    bars = [{"benchmark": b, "id": r.label(), **{c: sol(run, r, c) for c in units}}
            for b, r in best.items()]
    return {"kind": "sol", "family": family, "size_axis": xaxis, "size": size,
            "units": units, "rows": bars}


def sol_figure(run: Run, family: str, out_dir: Path, name: str) -> F.Figure | None:
    data = sol_data(run, family)
    if not data:
        return None
    bars, units = data["rows"], data["units"]
    fig, ax = F.new_figure(8.5, 0.22 * len(bars) * len(units) + 1.8)
    height = 0.8 / len(units)
    for j, unit in enumerate(units):
        ys = [i + (j - (len(units) - 1) / 2) * height for i in range(len(bars))]
        ax.barh(ys, [b[unit] or 0 for b in bars], height=height, color=S.color(j),
                label=UNIT_NAMES.get(unit, unit))
    ax.axvline(100.0, **S.PEAK)
    F.bar_rows_frame(ax, [b["benchmark"].partition("/")[2] for b in bars], 110,
                     "% of the unit's peak (speed of light, hardware counters)")
    where = f" at {data['size_axis']} = {data['size']:g}" if data["size_axis"] else ""
    title = f"Speed of light, {family}{where} — {run.label}"
    ax.set_title(title, fontsize=10)
    caption = (f"For each {family} benchmark at its best point{where}: how close each unit "
               f"came to its peak, from the hardware counters (results.csv sol_*_pct or "
               f"metrics.csv). Units: {', '.join(UNIT_NAMES.get(u, u) for u in units)}.")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)


def metrics_table(run: Run) -> Table | None:
    if not run.metrics:
        return None
    rows = [[m.benchmark, m.axes, m.device, m.metric, F.fmt(m.value), m.unit]
            for m in run.metrics]
    return Table(["benchmark", "axes", "device", "metric", "value", "unit"], rows,
                 f"metrics.csv: {len(rows)} measured figure(s) of "
                 f"{len(ordered_unique((m.benchmark, m.axes) for m in run.metrics))} point(s).",
                 collapsed=True)


def figures(run: Run, out_dir: Path, prefix: str) -> list:
    blocks: list = []
    for family in run.families():
        fig = sol_figure(run, family, out_dir, f"{prefix}sol_{F.slug(family)}")
        if fig:
            blocks.append(fig)
    table = metrics_table(run)
    if table:
        blocks.append(table)
    return blocks
