"""Figures for families the report has no page of its own for (torch, cupy,
jax, triton, numpy, numba, ... as the Python front end adds them): the figure
of merit against the problem size, one line per benchmark.

Nothing is assumed but what every row carries: a numeric size axis (the
first of size, m, n, bytes, elements that every row has, else the first
numeric axis), and GB/s or TFLOP/s (the unit the row's peak is stated in).
Rows of each unit get a chart of their own, with the peak the rows state.
"""

from __future__ import annotations

from pathlib import Path

from . import figure as F
from . import style as S
from .load import Result, Run
from .pick import curve, has_other_configs, ordered_unique, size_axis, throughput

SECTION = "Other families"
UNITS = {"GB/s": ("gbps", "bandwidth (GB/s, 1e9 B/s)"),
         "TFLOP/s": ("tflops", "TFLOP/s (1e12 FLOP/s)")}


def merit(row: Result) -> tuple[float | None, str]:
    """The row's figure of merit: as pick.throughput, except that a row with
    no stated peak whose work model does over 10 FLOP per byte (a GEMM, not a
    copy or an add) is judged in TFLOP/s."""
    flops, moved = row.num["flops"] or 0.0, row.num["bytes"] or 0.0
    if not row.peak_unit and row.tflops is not None and flops > 10 * moved:
        return row.tflops, "TFLOP/s"
    return throughput(row)


def _rows(run: Run, family: str, unit: str) -> list[Result]:
    return [r for r in run.rows(family) if merit(r)[1] == unit and merit(r)[0] is not None]


def groups(run: Run, family: str, unit: str) -> list[tuple[str, list[Result]]]:
    """(size axis, rows) per set of benchmarks that share a size axis: a copy
    swept over `bytes` and an add swept over `n` get a chart each."""
    by_axis: dict[str, list[Result]] = {}
    for bench in ordered_unique(r.benchmark for r in _rows(run, family, unit)):
        brows = [r for r in _rows(run, family, unit) if r.benchmark == bench]
        xaxis = size_axis(brows)
        if xaxis is not None:
            by_axis.setdefault(xaxis, []).extend(brows)
    return list(by_axis.items())


def line_chart(run: Run, family: str, unit: str, xaxis: str,
               rows: list[Result]) -> tuple[F.LineChart, bool]:
    metric = lambda r: merit(r)[0]  # noqa: E731
    series = []
    for i, bench in enumerate(ordered_unique(r.benchmark for r in rows)):
        brows = [r for r in rows if r.benchmark == bench]
        xs, _, chosen = curve(brows, xaxis, metric)
        style = S.cpu_style(0) if chosen[0].is_host else S.series_style(i)
        series.append(F.series(bench.partition("/")[2], xs, chosen, metric, style))
    peaks = [r.num["peak"] for r in rows if r.peak_unit == unit and r.num["peak"]
             and not r.is_host]
    refs = []
    if peaks:
        peak = max(set(peaks), key=peaks.count)
        # Say whose peak it is: an FP32 peak is no roof for a BF16 GEMM beside it.
        owners = ordered_unique(r.variant for r in rows if r.num["peak"] == peak)
        refs.append(F.RefLine(f"theoretical peak {peak:.4g} {unit} (of {', '.join(owners)})",
                              peak, dict(S.PEAK)))
    best_of = any(has_other_configs([r for r in rows if r.benchmark == b], xaxis)
                  for b in ordered_unique(r.benchmark for r in rows))
    xs = [r.axis(xaxis) for r in rows]
    chart = F.LineChart(
        title=f"{family}, {unit} against {xaxis} — {run.label}",
        xlabel=f"{xaxis} (problem size axis)", ylabel=UNITS[unit][1], series=series,
        reflines=refs, xscale="log2" if F.axis_scale(xs, 2) != "linear" else "linear",
        yscale=F.axis_scale([metric(r) for r in rows], 10, 100.0))
    return chart, best_of


def figures(run: Run, family: str, out_dir: Path, prefix: str) -> list[F.Figure]:
    figs = []
    for unit, (suffix, _) in UNITS.items():
        found = groups(run, family, unit)
        for xaxis, rows in found:
            chart, best_of = line_chart(run, family, unit, xaxis, rows)
            caption = (f"{unit} against the {xaxis} axis, one solid line per {family} "
                       f"benchmark"
                       + (", each point the best over the other axes" if best_of else "") + ".")
            if any(s.style.get("marker") == "s" for s in chart.series):
                caption += " CPU benchmarks have square markers."
            if chart.reflines:
                owners = chart.reflines[0].label.partition("(of ")[2].rstrip(")")
                caption += (f" The dashed line is the theoretical peak the rows of {owners} "
                            f"state (results.csv peak)"
                            + ("; the other lines state none." if len(owners.split(", "))
                               < len(chart.series) else "."))
            caption += F.flag_note(chart)
            name = f"{prefix}{F.slug(family)}_{suffix}" + (
                f"_vs_{F.slug(xaxis)}" if len(found) > 1 else "")
            figs.append(F.save_line_chart(chart, out_dir, name, SECTION, caption,
                                          outside=True))
    return figs
