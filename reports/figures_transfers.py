"""Transfer figures: bandwidth against size per copy kind, and stream overlap.

A copy costs a fixed latency plus its size over a bandwidth (t = alpha +
bytes / beta); that model is what people carry away from a transfer chart, so
each curve's legend states its alpha and beta. They come from the run's
fits.csv when it has one for the curve, else from a relative least-squares
fit made here (and the legend says which). The axis names (direction,
memory, mode, ...) are read from the data: one figure per direction, colour
by the first other axis, marker by the second, marker fill by the third.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from . import figure as F
from . import style as S
from .load import Result, Run, axis_number, parse_axes, InputError
from .pick import curve, ordered_unique

FAMILY = "transfers"
SECTION = "Transfers"
SIZE = "bytes"
PANEL = "direction"
COLORS = S.PALETTE
# Measured curves are all solid (dashed lines are peaks): every curve of a
# panel has its own colour, and the marker tells the benchmarks apart.
MARKERS = ["o", "s", "^", "v", "D", "X"]


def _bandwidth_rows(run: Run) -> list[Result]:
    return [r for r in run.rows(FAMILY) if r.axis(SIZE) is not None
            and "streams" not in r.axes and r.gbps is not None]


def _curve_axes(row: Result) -> dict[str, str]:
    return {k: v for k, v in row.axes.items() if k != SIZE}


# --- latency / bandwidth fits --------------------------------------------------

def _column(header: list[str], *words: str) -> str | None:
    for name in header:
        if any(w in name.lower() for w in words):
            return name
    return None


def _latency_us(value: float, column: str) -> float:
    name = column.lower()
    if name.endswith("_ns"):
        return value / 1e3
    if name.endswith("_ms"):
        return value * 1e3
    if name.endswith("_s") and not name.endswith("_us"):
        return value * 1e6
    return value  # alpha_us, latency_us: the expected unit


def _bandwidth_gbps(value: float, column: str) -> float:
    name = column.lower()
    if name.endswith("_bps") and not name.endswith("gbps"):
        return value / 1e9
    return value


def read_fits(run: Run) -> list[dict]:
    """fits.csv rows as {benchmark, axes (dict), alpha_us, beta_gbps}.

    Its columns are not fixed by the schema; this accepts a latency column
    named with alpha/latency (unit by suffix, default us), a bandwidth column
    named with beta/bandwidth/gbps (GB/s), an optional `benchmark` column,
    and the curve's identity either as one axes-like text column (curve, axes,
    key, series: `direction=h2d;memory=pinned;mode=sync`) or as one column per
    axis."""
    rows = run.side_csv.get("fits.csv", [])
    if not rows:
        return []
    header = list(rows[0])
    lat = _column(header, "alpha", "latency")
    bw = _column(header, "beta", "bandwidth", "gbps")
    if lat is None or bw is None:
        return []
    ident = next((c for c in header if c.lower() in ("curve", "axes", "key", "series")), None)
    fits = []
    for raw in rows:
        try:
            alpha, beta = float(raw[lat]), float(raw[bw])
        except ValueError:
            continue
        if ident is not None:
            try:
                axes = parse_axes(raw[ident])
            except InputError:
                continue
        else:
            axes = {k: v for k, v in raw.items()
                    if k not in (lat, bw, "benchmark") and v != ""}
        axes.pop(SIZE, None)
        fits.append({"benchmark": raw.get("benchmark", ""), "axes": axes,
                     "alpha_us": _latency_us(alpha, lat),
                     "beta_gbps": _bandwidth_gbps(beta, bw)})
    return fits


def fit_here(sizes: list[float], times: list[float]) -> tuple[float, float] | None:
    """t = alpha + bytes / beta by least squares on relative residuals (each
    point weighs the same whatever its size); alpha >= 0. Returns (alpha_us,
    beta_gbps) or None when the curve cannot be fitted."""
    if len(sizes) < 2:
        return None
    x, t = np.asarray(sizes, float), np.asarray(times, float)
    design = np.column_stack([1.0 / t, x / t])
    (alpha, inv_beta), *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    if alpha < 0:
        alpha = 0.0
        inv_beta = float(np.sum(x / t) / np.sum((x / t) ** 2))
    if inv_beta <= 0:
        return None
    return alpha * 1e6, 1.0 / inv_beta / 1e9


def physical(fit: dict) -> bool:
    """A latency + bandwidth fit means something only with alpha >= 0 and
    beta > 0: a negative latency says the curve is not one latency plus one
    bandwidth (pageable copies change regime where the staging buffer fills)."""
    return fit["alpha_us"] >= 0 and fit["beta_gbps"] > 0


def curve_fit(fits: list[dict], bench: str, axes: dict[str, str],
              sizes: list[float], times: list[float]) -> dict | None:
    for fit in fits:
        if fit["benchmark"] and fit["benchmark"] != bench:
            continue
        # Columns that are not axes of the curve (r2, notes) are ignored;
        # every axis of the curve must be named and equal.
        named = {k: v for k, v in fit["axes"].items() if k in axes}
        if named == axes:
            return {"alpha_us": fit["alpha_us"], "beta_gbps": fit["beta_gbps"],
                    "source": "fits.csv", "meaningful": physical(fit)}
    here = fit_here(sizes, times)
    if here is None:
        return None
    return {"alpha_us": here[0], "beta_gbps": here[1], "source": "fitted by the report",
            "meaningful": True}


# --- bandwidth against size ----------------------------------------------------

def _short(value: float) -> str:
    """Three significant digits without exponent notation (2100, 55.3, 8.02)."""
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def panel_of(row: Result) -> str:
    """The chart a row belongs to: its direction, or for a benchmark without
    a direction axis (bidir, d2d) its variant name."""
    return row.axes.get(PANEL) or row.variant


def panels(run: Run) -> dict[str, list[Result]]:
    """Rows per figure, in run order: one figure per direction (h2d, d2h),
    one per benchmark that has no direction axis."""
    groups: dict[str, list[Result]] = {}
    for r in _bandwidth_rows(run):
        groups.setdefault(panel_of(r), []).append(r)
    return groups


def _panel_peak(rows: list[Result]) -> float | None:
    peaks = [r.num["peak"] for r in rows if r.peak_unit == "GB/s" and r.num["peak"]]
    if peaks:
        return max(set(peaks), key=peaks.count)
    return None


def _fit_text(fit: dict | None) -> str:
    """The legend's α and β of a curve (* when fitted here), or why none."""
    if not fit:
        return ""
    if not fit["meaningful"]:
        return ": fit not meaningful (negative latency)"
    mark = "" if fit["source"] == "fits.csv" else "*"
    return f": α={_short(fit['alpha_us'])} µs, β={_short(fit['beta_gbps'])} GB/s{mark}"


def _curves(rows: list[Result]) -> dict[tuple, list[Result]]:
    """(benchmark, values of the other axes) -> its rows, in run order."""
    other = [k for k in ordered_unique(k for r in rows for k in _curve_axes(r)) if k != PANEL]
    out: dict[tuple, list[Result]] = {}
    for r in rows:
        out.setdefault((r.benchmark, tuple(r.axes.get(k, "") for k in other)), []).append(r)
    return out


def _curve_label(bench: str, key: tuple, several: bool) -> str:
    label = " ".join(v for v in key if v)
    return f"{bench.partition('/')[2]} {label}".strip() if several or not label else label


def line_chart(run: Run, panel: str, rows: list[Result] | None = None) -> F.LineChart | None:
    """GB/s against bytes for one panel: a curve per benchmark and value of
    every other axis (memory kind, ...), each its own colour, the marker by
    benchmark."""
    rows = rows if rows is not None else panels(run).get(panel, [])
    if not rows:
        return None
    fits = read_fits(run)
    benches = ordered_unique(r.benchmark for r in rows)
    series = []
    for i, ((bench, key), crows) in enumerate(_curves(rows).items()):
        xs, _, chosen = curve(crows, SIZE, lambda r: r.gbps)
        fit = curve_fit(fits, bench, _curve_axes(chosen[0]), xs, [r.median_s for r in chosen])
        # Every curve of a panel its own colour; the marker says the benchmark.
        style = {"color": S.color(i), "marker": MARKERS[benches.index(bench) % len(MARKERS)]}
        series.append(F.series(_curve_label(bench, key, len(benches) > 1) + _fit_text(fit),
                               xs, chosen, lambda r: r.gbps, style, {"fit": fit}))
    peak = _panel_peak(rows)
    refs = [F.RefLine(f"theoretical peak {peak:.4g} GB/s", peak, dict(S.PEAK))] if peak else []
    where = f"{PANEL} {panel}" if any(PANEL in r.axes for r in rows) else panel
    return F.LineChart(title=f"Transfers, {where} — {run.label}",
                       xlabel="transfer size (bytes)",
                       ylabel="bandwidth (GB/s, 1e9 B/s)", series=series,
                       reflines=refs, xscale="log2", yscale="log10")


def bandwidth_figure(run: Run, panel: str, out_dir: Path, name: str) -> F.Figure | None:
    chart = line_chart(run, panel)
    if chart is None:
        return None
    fig, ax = F.new_figure(8.0, 4.8)
    F.draw_line_chart(ax, chart, xunit="bytes")
    F.legend_outside(fig, ax)
    fitted_here = any((s.extra.get("fit") or {}).get("source") == "fitted by the report"
                      for s in chart.series)
    unphysical = [s.label.split(":")[0] for s in chart.series
                  if s.extra.get("fit") and not s.extra["fit"]["meaningful"]]
    caption = ("Bandwidth (bytes / median time) against transfer size, log-log. "
               "The legend gives each curve's latency α and bandwidth β of "
               "t = α + bytes/β"
               + (" (* = fitted by this report on the medians, relative least squares with "
                  "α ≥ 0; others from the run's fits.csv)" if fitted_here
                  else ", from the run's fits.csv")
               + ". Points are the best over any other axis."
               + (f" No α, β for {', '.join(unphysical)}: the run's fit has a negative "
                  f"latency, so the curve is not one latency plus one bandwidth (read it "
                  f"from the points)." if unphysical else "")
               + F.flag_note(chart))
    return F.save(fig, out_dir, name, chart.data(), SECTION, chart.title, caption)


# --- stream overlap -------------------------------------------------------------

_EFF_RE = re.compile(r"efficiency\s*[=:]\s*([0-9.]+)\s*(%?)", re.IGNORECASE)
STAGE = "stage"
STREAMS = "streams"
PIPELINE = "pipeline"


def _as_percent(value: float, percent_sign: bool = False) -> float:
    """Efficiency as a percentage (0.91 and 91 both read as 91%)."""
    return value if percent_sign or value > 1.5 else 100.0 * value


def overlap_rows(run: Run, family: str = FAMILY) -> list[Result]:
    """Timed rows with a numeric `streams` axis: the stream-overlap benchmark."""
    return [r for r in run.rows(family) if r.axis(STREAMS) is not None]


def _point_key(axes: dict[str, str], drop: tuple[str, ...]) -> str:
    return ";".join(f"{k}={v}" for k, v in axes.items() if k not in drop)


def _side_efficiency(run: Run) -> dict[tuple[str, str], float]:
    """overlap.csv as {(benchmark, point without stage): efficiency %}. Its
    point column holds the axes without `stage` (docs/schema.md)."""
    side = run.side_csv.get("overlap.csv", [])
    out = {}
    if not side:
        return out
    header = list(side[0])
    eff_col = "efficiency" if "efficiency" in header else _column(header, "eff")
    point_col = next((c for c in ("point", "axes", "curve") if c in header), None)
    if eff_col is None or point_col is None:
        return out
    for raw in side:
        value = axis_number(raw[eff_col])
        try:
            axes = parse_axes(raw[point_col])
        except InputError:
            continue
        if value is not None:
            out[(raw.get("benchmark", ""), _point_key(axes, (STAGE,)))] = _as_percent(value)
    return out


def overlap_data(run: Run, family: str = FAMILY) -> dict | None:
    """Time per stage and overlap efficiency against the number of streams.

    A curve is one benchmark at fixed values of its axes other than streams
    and stage. Efficiency (ideal / pipelined time, as a percentage) comes
    from overlap.csv; else from the stage rows themselves (ideal = the
    slowest of the non-pipeline stages); else from an `efficiency=X` in the
    row's note; failing all, the speedup over one stream is shown, and named
    so."""
    rows = overlap_rows(run, family)
    if not rows:
        return None
    side = _side_efficiency(run)
    stage_order = ordered_unique(r.axes.get(STAGE, "") for r in rows)  # as the run declares
    times, effs = [], []
    for bench in ordered_unique(r.benchmark for r in rows):
        brows = [r for r in rows if r.benchmark == bench]
        for crv in ordered_unique(_point_key(r.axes, (STAGE, STREAMS)) for r in brows):
            crows = [r for r in brows if _point_key(r.axes, (STAGE, STREAMS)) == crv]
            for r in sorted(crows, key=lambda r: (r.axis(STREAMS),
                                                  stage_order.index(r.axes.get(STAGE, "")))):
                times.append({"benchmark": bench, "curve": crv, "stage": r.axes.get(STAGE, ""),
                              "streams": r.axis(STREAMS), "median_s": r.median_s,
                              "gbps": r.gbps, "id": r.label()})
            piped = {r.axis(STREAMS): r for r in crows
                     if r.axes.get(STAGE, PIPELINE) == PIPELINE}
            t1 = piped[1.0].median_s if 1.0 in piped else None
            for s in sorted(piped):
                r = piped[s]
                stages = [o.median_s for o in crows if o.axis(STREAMS) == s
                          and o.axes.get(STAGE, PIPELINE) != PIPELINE]
                match = _EFF_RE.search(r.note)
                key = (bench, _point_key(r.axes, (STAGE,)))
                if key in side:
                    eff, source = side[key], "overlap.csv"
                elif stages:
                    eff, source = 100.0 * max(stages) / r.median_s, "stages"
                elif match:
                    eff, source = _as_percent(float(match.group(1)), bool(match.group(2))), "note"
                elif t1:
                    eff, source = t1 / r.median_s, "speedup"
                else:
                    continue
                effs.append({"benchmark": bench, "curve": crv, "streams": s,
                             "efficiency": eff, "efficiency_source": source, "id": r.label()})
    return {"kind": "overlap", "rows": times, "efficiency": effs}


def overlap_figure(run: Run, out_dir: Path, name: str,
                   family: str = FAMILY) -> F.Figure | None:
    data = overlap_data(run, family)
    if not data:
        return None
    fig, (left, right) = F.new_figure(11.0, 4.2, ncols=2)
    curves = ordered_unique((r["benchmark"], r["curve"]) for r in data["rows"])
    sources = {e["efficiency_source"] for e in data["efficiency"]}
    speedup = sources == {"speedup"}
    stages = ordered_unique(r["stage"] for r in data["rows"])
    unit, scale = F.time_unit(min(r["median_s"] for r in data["rows"]))
    for i, (bench, crv) in enumerate(curves):
        name_of = f"{bench.partition('/')[2]} {crv}".strip() if len(curves) > 1 else ""
        for j, stage in enumerate(stages):
            pts = [r for r in data["rows"] if (r["benchmark"], r["curve"], r["stage"])
                   == (bench, crv, stage)]
            if not pts:
                continue
            piped = stage in (PIPELINE, "")
            left.plot([p["streams"] for p in pts], [p["median_s"] / scale for p in pts],
                      marker="o" if piped else MARKERS[1 + j % (len(MARKERS) - 1)],
                      color=("black" if piped else COLORS[j % len(COLORS)]) if len(curves) == 1
                      else COLORS[i % len(COLORS)],
                      label=f"{name_of} {stage or 'time'}".strip())
        eff = [(e["streams"], e["efficiency"]) for e in data["efficiency"]
               if (e["benchmark"], e["curve"]) == (bench, crv)]
        if eff:
            right.plot(*zip(*eff), marker="o", color=COLORS[i % len(COLORS)],
                       label=name_of or crv or bench)
    streams = sorted({r["streams"] for r in data["rows"]})
    for ax in (left, right):
        F.apply_scale(ax, "x", "log2")
        ax.set_xticks(streams, [f"{int(s)}" for s in streams])
        ax.minorticks_off()
        ax.set_xlabel("streams (chunks in flight)")
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    left.set_ylabel(f"median time per run ({unit})")
    left.set_title("time per stage and pipelined" if len(stages) > 1 else "time per run",
                   fontsize=10)
    if speedup:
        right.set_ylabel("speedup over 1 stream (×)")
        right.set_title("speedup (no efficiency recorded)", fontsize=10)
    else:
        right.set_ylabel("overlap efficiency (%)")
        right.set_title("overlap efficiency: ideal / pipelined time", fontsize=10)
        right.set_ylim(0, 110)
    title = f"Copy/compute overlap against streams — {run.label}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    caption = ("Left: median time per run of each stage alone (coloured) and of the "
               "pipelined H2D → kernel → D2H chain (black) against the number of streams. "
               "Right: overlap efficiency = ideal time (the slowest stage) / pipelined "
               "time; 100% hides everything but the slowest stage. Efficiency from: "
               + (", ".join(sorted(sources)) or "nowhere") + ".")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)


def figures(run: Run, out_dir: Path, prefix: str) -> list[F.Figure]:
    figs = []
    groups = panels(run)
    order = {"h2d": 0, "d2h": 1, "d2d": 2, "bidir": 3}
    for panel in sorted(groups, key=lambda p: (order.get(p, 9), p)):
        fig = bandwidth_figure(run, panel, out_dir, f"{prefix}transfers_{F.slug(panel)}")
        if fig:
            figs.append(fig)
    fig = overlap_figure(run, out_dir, f"{prefix}transfers_overlap")
    if fig:
        figs.append(fig)
    return figs

