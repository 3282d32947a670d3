"""Hardware comparison: the same points on several runs, side by side.

The first directory given is the base; every other run is compared with it
point by point, a point being matched by its identity (benchmark + axes) and
only when both runs timed it. The ratios are plain ratios of the recorded
medians and throughputs (new / base): this is a description of two machines,
not the regression test of `cubench compare`, which decides from the raw
samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import figure as F
from . import figures_matmul, figures_transfers, figures_vecadd
from .load import Result, Run
from .page import Table
from .pick import ordered_unique, throughput

SECTION = "Comparison"


@dataclass
class Match:
    base: Result
    new: Result

    @property
    def benchmark(self) -> str:
        return self.base.benchmark

    @property
    def axes(self) -> str:
        return self.base.axes_text

    @property
    def time_ratio(self) -> float:
        """new median / base median: below 1 means the new run is faster."""
        return self.new.median_s / self.base.median_s

    @property
    def unit(self) -> str:
        return throughput(self.base)[1]

    @property
    def base_throughput(self) -> float | None:
        return throughput(self.base)[0]

    @property
    def new_throughput(self) -> float | None:
        value, unit = throughput(self.new)
        return value if unit == self.unit else None

    @property
    def throughput_ratio(self) -> float | None:
        """new / base throughput: above 1 means the new run does more per second."""
        if self.base_throughput and self.new_throughput is not None:
            return self.new_throughput / self.base_throughput
        return None

    def record(self) -> dict:
        return {"benchmark": self.benchmark, "axes": self.axes,
                "base_median_s": self.base.median_s, "new_median_s": self.new.median_s,
                "time_ratio": self.time_ratio, "unit": self.unit,
                "base_throughput": self.base_throughput,
                "new_throughput": self.new_throughput,
                "throughput_ratio": self.throughput_ratio}


def match_runs(base: Run, new: Run) -> tuple[list[Match], list[Result], list[Result]]:
    """(matched points in base order, points only base timed, only new timed)."""
    base_rows = {r.identity: r for r in base.results if r.measured}
    new_rows = {r.identity: r for r in new.results if r.measured}
    matches = [Match(r, new_rows[k]) for k, r in base_rows.items() if k in new_rows]
    missing = [r for k, r in base_rows.items() if k not in new_rows]
    added = [r for k, r in new_rows.items() if k not in base_rows]
    return matches, missing, added


def geomean(values: list[float]) -> float:
    return float(math.exp(np.mean(np.log(values))))


def summary_table(base: Run, new: Run, matches: list[Match], missing, added) -> Table:
    rows = []
    for bench in ordered_unique(m.benchmark for m in matches):
        ms = [m for m in matches if m.benchmark == bench]
        tr = [m.throughput_ratio for m in ms if m.throughput_ratio]
        times = [m.time_ratio for m in ms]
        rows.append([bench, str(len(ms)), f"{geomean(times):.3f}",
                     f"{geomean(tr):.3f}" if tr else "",
                     f"{min(tr):.3f}" if tr else "", f"{max(tr):.3f}" if tr else "",
                     ms[0].unit])
    caption = (f"{new.label} against {base.label}: per benchmark, the geometric mean "
               f"over matching points of new/base median time (below 1: new is faster) "
               f"and of new/base throughput (above 1: new is faster), with its range. "
               f"{len(matches)} point(s) matched, {len(missing)} only in the base, "
               f"{len(added)} only in the new run.")
    return Table(["benchmark", "points", "time new/base", "throughput new/base",
                  "min", "max", "unit"], rows, caption)


def ratio_table(base: Run, new: Run, matches: list[Match]) -> Table:
    rows = [[m.benchmark, m.axes, F.fmt_time(m.base.median_s), F.fmt_time(m.new.median_s),
             f"{m.time_ratio:.4f}", F.fmt(m.base_throughput), F.fmt(m.new_throughput),
             "" if m.throughput_ratio is None else f"{m.throughput_ratio:.4f}", m.unit]
            for m in matches]
    return Table(["benchmark", "axes", "base median", "new median", "time new/base",
                  "base", "new", "throughput new/base", "unit"], rows,
                 f"Every matching point (identity = benchmark + axes), {new.label} / {base.label}.",
                 collapsed=True)


def unmatched_table(missing: list[Result], added: list[Result]) -> Table | None:
    rows = ([[r.benchmark, r.axes_text, "base only"] for r in missing]
            + [[r.benchmark, r.axes_text, "new only"] for r in added])
    if not rows:
        return None
    return Table(["benchmark", "axes", "timed in"], rows,
                 "Points timed in one run only (absent, skipped or failed in the other).",
                 collapsed=len(rows) > 10, numeric=False)


def ratio_figure(base: Run, new: Run, matches: list[Match], out_dir: Path,
                 name: str) -> F.Figure | None:
    records = [m.record() for m in matches]
    usable = [r for r in records if r["throughput_ratio"]]
    if not usable:
        return None
    benches = ordered_unique(r["benchmark"] for r in usable)
    fig, ax = F.new_figure(8.5, 0.32 * len(benches) + 1.8)
    rng = np.random.default_rng(0)
    for i, bench in enumerate(benches):
        ratios = [r["throughput_ratio"] for r in usable if r["benchmark"] == bench]
        ax.scatter(ratios, i + rng.uniform(-0.15, 0.15, len(ratios)), s=10, alpha=0.6,
                   color="tab:blue")
        ax.scatter([geomean(ratios)], [i], marker="|", s=200, color="tab:red", zorder=3)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(benches)), benches, fontsize=8)
    ax.invert_yaxis()
    values = [r["throughput_ratio"] for r in usable] + [1.0]
    if max(values) / min(values) > 4:
        ax.set_xscale("log")
    ax.set_xlabel(f"throughput ratio new/base (>1: {new.gpu_name} faster)")
    title = f"{new.label} vs {base.label}"
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    caption = ("Throughput ratio (new / base, GB/s or TFLOP/s as each point reports) of "
               "every matching point, one row per benchmark; the red tick is the "
               "geometric mean.")
    return F.save(fig, out_dir, name, {"kind": "ratios", "base": base.label,
                                       "new": new.label, "rows": records},
                  SECTION, title, caption)


def _unify_scales(charts: list[F.LineChart]) -> None:
    """One scale for all panels, so that equal heights mean equal numbers."""
    for attr in ("xscale", "yscale"):
        scales = {getattr(c, attr) for c in charts}
        logs = sorted(s for s in scales if s != "linear")
        if logs:
            for c in charts:
                setattr(c, attr, logs[0])


def _same_colors(charts: list[F.LineChart]) -> None:
    """A series drawn on several panels gets one colour on all of them."""
    labels = ordered_unique(s.label for c in charts for s in c.series if "color" not in s.style)
    palette = F.palette()
    for c in charts:
        for s in c.series:
            if "color" not in s.style:
                s.style = {**s.style, "color": palette[labels.index(s.label) % len(palette)]}


def side_by_side(runs: list[Run], charts: list[F.LineChart | None], out_dir: Path,
                 name: str, title: str, caption: str, xunit: str = "") -> F.Figure | None:
    pairs = [(run, chart) for run, chart in zip(runs, charts) if chart is not None]
    if len(pairs) < 2:
        return None
    _unify_scales([c for _, c in pairs])
    _same_colors([c for _, c in pairs])
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


def side_by_side_figures(runs: list[Run], out_dir: Path, prefix: str) -> list[F.Figure]:
    figs = []
    fig = side_by_side(runs, [figures_vecadd.line_chart(r) for r in runs], out_dir,
                       f"{prefix}vecadd_gbps_vs_n", "Vector add bandwidth, side by side",
                       "GB/s against n per variant on each run, same y scale.")
    figs += [fig] if fig else []
    fig = side_by_side(runs, [figures_matmul.line_chart(r) for r in runs], out_dir,
                       f"{prefix}matmul_tflops_vs_size", "Matmul ladder, side by side",
                       "TFLOP/s against matrix size per rung on each run, same y scale.")
    figs += [fig] if fig else []
    panels = ordered_unique(p for r in runs for p in figures_transfers.panels(r))
    for panel in panels:
        charts = [figures_transfers.line_chart(r, panel) for r in runs]
        slug = F.slug(panel)
        fig = side_by_side(runs, charts, out_dir, f"{prefix}transfers_{slug}",
                           f"Transfers {panel}, side by side".replace("  ", " "),
                           "GB/s against bytes per copy kind on each run, same y scale; "
                           "legends give each run's fitted latency and bandwidth.",
                           xunit="bytes")
        figs += [fig] if fig else []
    return figs


# --- hardware comparison: the same points on different GPUs -------------------

def device_id(run: Run) -> tuple[str, str]:
    device = run.device_info() or {}
    return (run.gpu_name, str(device.get("uuid", "")))


def different_gpus(runs: list[Run]) -> bool:
    """True when the runs come from more than one GPU (name or UUID differ)."""
    return len({device_id(r) for r in runs}) > 1


def _cell(row: Result) -> dict:
    value, unit = throughput(row)
    pct = row.num["pct_peak"]
    if pct is None and value is not None and row.num["peak"] and row.peak_unit == unit:
        pct = 100.0 * value / row.num["peak"]
    return {"value": value, "unit": unit, "pct_peak": pct, "peak": row.num["peak"],
            "peak_unit": row.peak_unit, "peak_source": row.peak_source,
            "median_s": row.median_s, "throttle": row.throttle, "id": row.label()}


def common_points(runs: list[Run]) -> list[dict]:
    """Points timed in every run (identity = benchmark + axes), base order,
    each with every run's throughput, share of that GPU's own peak and peak."""
    timed = [{r.identity: r for r in run.results if r.measured} for run in runs]
    points = []
    for ident, row in timed[0].items():
        if all(ident in t for t in timed[1:]):
            points.append({"benchmark": ident[0], "axes": ident[1],
                           "runs": [_cell(t[ident]) for t in timed]})
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


def _pct_text(cell: dict) -> str:
    return "" if cell["pct_peak"] is None else f"{cell['pct_peak']:.1f}"


def hardware_table(runs: list[Run], points: list[dict]) -> Table:
    headers = ["benchmark", "axes"]
    for i, run in enumerate(runs, start=1):
        headers += [f"GPU{i} value", f"GPU{i} % own peak", f"GPU{i} peak (source)"]
    rows, marked = [], []
    for p in points:
        row = [p["benchmark"], p["axes"]]
        for cell in p["runs"]:
            peak = (f"{F.fmt(cell['peak'])} {cell['peak_unit']}"
                    + (f" ({cell['peak_source']})" if cell["peak_source"] else "")
                    if cell["peak"] else "")
            flag = f" [throttled: {cell['throttle']}]" if cell["throttle"] not in ("", "none") else ""
            row += [f"{F.fmt(cell['value'])} {cell['unit']}{flag}", _pct_text(cell), peak]
        rows.append(row)
        marked.append(any(c["throttle"] not in ("", "none") for c in p["runs"]))
    legend = "; ".join(f"GPU{i} = {run.label}" for i, run in enumerate(runs, start=1))
    return Table(headers, rows,
                 f"Every point timed on all GPUs ({len(points)}), lined up by benchmark + "
                 f"axes: throughput in absolute units and as a share of that GPU's own "
                 f"stated peak (results.csv pct_peak, peak, peak_unit, peak_source). "
                 f"{legend}. Rows measured while a GPU was throttled are marked.",
                 collapsed=len(rows) > 12, marked=marked, numeric=False)


def hardware_figure(runs: list[Run], points: list[dict], out_dir: Path,
                    name: str) -> F.Figure | None:
    """Left: each GPU's throughput relative to the base GPU at the same point;
    right: each GPU's share of its own peak. One row per benchmark, at the
    point where the base GPU did best."""
    best = best_common_points(points)
    if not best:
        return None
    benches = [p["benchmark"] for p in best]
    fig, (left, right) = F.new_figure(12.0, 0.5 * len(best) * len(runs) / 2 + 2.2, ncols=2,
                                      sharey=True)
    height = 0.8 / len(runs)
    colors = F.palette()
    records = []
    for i, run in enumerate(runs):
        ys = [j + (i - (len(runs) - 1) / 2) * height for j in range(len(best))]
        rel, pct = [], []
        for p in best:
            base, cell = p["runs"][0], p["runs"][i]
            ratio = (cell["value"] / base["value"]
                     if cell["value"] is not None and base["value"] and cell["unit"] == base["unit"]
                     else None)
            rel.append(ratio)
            pct.append(cell["pct_peak"])
            records.append({"run": run.label, "benchmark": p["benchmark"], "axes": p["axes"],
                            "value": cell["value"], "unit": cell["unit"],
                            "relative_to_base": ratio, "pct_peak": cell["pct_peak"],
                            "peak": cell["peak"], "peak_source": cell["peak_source"],
                            "throttle": cell["throttle"], "id": cell["id"]})
        color = colors[i % len(colors)]
        left.barh(ys, [r or 0 for r in rel], height=height, color=color, label=run.label)
        right.barh(ys, [v or 0 for v in pct], height=height, color=color, label=run.label)
        for y, p, r, v in zip(ys, best, rel, pct):
            cell = p["runs"][i]
            hot = " !" if cell["throttle"] not in ("", "none") else ""
            if r is not None:
                left.text(r, y, f" {F.fmt(cell['value'])} {cell['unit']}{hot}",
                          va="center", fontsize=6.5, color="red" if hot else "black")
            right.text(v or 0, y, " n/a" if v is None else f" {v:.0f}%{hot}", va="center",
                       fontsize=6.5, color="red" if hot else "black")
    left.set_yticks(range(len(best)), benches, fontsize=7)
    left.invert_yaxis()
    left.axvline(1.0, color="black", linewidth=0.8)
    left.set_xlabel(f"throughput relative to {runs[0].gpu_name} (same point)")
    left.set_xlim(0, max([r["relative_to_base"] or 0 for r in records] + [1.0]) * 1.45)
    right.set_xlabel("% of that GPU's own stated peak")
    right.set_xlim(0, max([r["pct_peak"] or 0 for r in records] + [100.0]) * 1.2)
    for ax in (left, right):
        ax.grid(True, axis="x", alpha=0.3)
    left.legend(fontsize=7, loc="lower right")
    title = "Same points on each GPU: absolute and share of own peak"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    throttled = sum(r["throttle"] not in ("", "none") for r in records)
    caption = ("One row per benchmark at the point (axes) where the first GPU did best, "
               "every GPU at those same axes. Left: throughput relative to the first GPU, "
               "labelled with the absolute value (GB/s or TFLOP/s as the row reports). "
               "Right: the share of each GPU's own peak as the run stated it (see the "
               "table for each peak and its source)."
               + (f" Red labels with '!': {throttled} value(s) measured while throttled."
                  if throttled else ""))
    return F.save(fig, out_dir, name, {"kind": "hardware", "runs": [r.label for r in runs],
                                       "rows": records}, SECTION, title, caption)
