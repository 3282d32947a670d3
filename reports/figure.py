"""Figure plumbing shared by every section: chart specs, drawing, saving.

A chart is first described as data (LineChart: series of x/y values, each
point tied to the results.csv row it came from) and only then drawn. That
split lets the same description be drawn alone or side by side with another
run's, and be written next to the picture as JSON and CSV, so that tests and
readers can check the exact numbers behind every line.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless: reports are made on CI and GPU boxes
# The same data gives the same bytes: no random SVG ids, no dates in files
# (scripts/record/docs_figures.py and its staleness test rely on it).
matplotlib.rcParams["svg.hashsalt"] = "cubench"
# Text from the data (directory, GPU and CPU names, benchmark names) is
# drawn as it is: two '$' in a name must not start a formula (mathtext
# would fail on it). The report writes its exponents in Unicode instead.
matplotlib.rcParams["text.parse_math"] = False
# SVG text as text (searchable, a third of the size, faster to write), in
# the fonts the page asks for, rather than every glyph as a path.
matplotlib.rcParams["svg.fonttype"] = "none"

import matplotlib.pyplot as plt  # noqa: E402
# The Agg renderer's C extension, loaded with this module rather than at
# the first figure, which is drawn once the report's folder exists: a
# Ctrl-C that lands while an extension module initialises comes out as
# "ImportError: initialization failed" (reports/__main__.py still treats
# it as the interrupt it is), and here it can land only before any output.
import matplotlib.backends.backend_agg  # noqa: E402,F401
from matplotlib.ticker import FuncFormatter, NullLocator  # noqa: E402

from . import style as style_module  # noqa: E402
from .output import write_file  # noqa: E402

# Metadata written into the images: fixed, so that files are reproducible.
PNG_METADATA = {"Software": "cubench reports (matplotlib)"}
DPI = 110
SVG_METADATA = {"Date": None, "Creator": "cubench reports (matplotlib)"}


@dataclass
class Series:
    """One line: y against x, each point tied to its row (benchmark [axes])."""

    label: str
    x: list[float]
    y: list[float]
    ids: list[str] = field(default_factory=list)
    style: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # e.g. a transfer curve's fit
    # Per point: the throttle reasons that can have slowed it (schema 2,
    # reports/conditions.py), else "". Flagged points get a red ring.
    flags: list[str] = field(default_factory=list)
    # Per point: the 95 % CI of the median in y units (whiskers), and
    # whether the point is noisy (hollow marker). Empty lists: not known.
    lo: list = field(default_factory=list)
    hi: list = field(default_factory=list)
    noisy: list[bool] = field(default_factory=list)


@dataclass
class RefLine:
    """A horizontal reference (a peak, a best measured value)."""

    label: str
    value: float
    style: dict = field(default_factory=dict)


@dataclass
class LineChart:
    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    reflines: list[RefLine] = field(default_factory=list)
    xscale: str = "linear"  # "linear", "log2" or "log10"
    yscale: str = "linear"  # "linear" or "log10"

    def data(self) -> dict:
        return {"kind": "line", **asdict(self)}


@dataclass
class Figure:
    """A saved figure: what the HTML page and the manifest need to know."""

    name: str
    section: str
    title: str
    caption: str
    png: str
    svg: str
    data_json: str
    data_csv: str


def axis_scale(values: list[float], base: int = 10, span: float = 16.0) -> str:
    """'log<base>' when positive values span more than `span`x, else linear:
    sizes that cover decades are unreadable on a linear axis."""
    positive = [v for v in values if v is not None and v > 0]
    if not positive or any(v is not None and v <= 0 for v in values):
        return "linear"
    return f"log{base}" if max(positive) / min(positive) > span else "linear"


def _bytes_label(value: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if value >= size:
            return f"{value / size:g} {unit}"
    return f"{value:g} B"


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def power_text(base: int, exponent: int) -> str:
    """2^20 as '2²⁰': no mathtext, which text from the data could break."""
    return f"{base}{str(exponent).translate(_SUPERSCRIPT)}"


def _count_label(value: float, powers: bool) -> str:
    exponent = math.log2(value) if value > 0 else 0.5
    if powers and exponent.is_integer() and value >= 1024:
        return power_text(2, int(exponent))
    return f"{value:g}"


def count_text(value: float) -> str:
    """A count for titles: 268435456 -> '2^28 (268435456)'."""
    exponent = math.log2(value) if value > 0 else 0.5
    if exponent.is_integer() and value >= 1024:
        return f"2^{int(exponent)} ({int(value)})"
    return f"{value:g}"


def apply_scale(ax, which: str, scale: str, unit: str = "", largest: float = 0.0) -> None:
    """Set a log or linear scale. log2 axes get KiB/MiB ticks for bytes, and
    for counts 2^k ticks once the values pass 65536 (plain numbers below,
    where 4096 reads better than 2^12)."""
    setter = ax.set_xscale if which == "x" else ax.set_yscale
    axis = ax.xaxis if which == "x" else ax.yaxis
    if scale == "log2":
        setter("log", base=2)
        if unit == "bytes":
            axis.set_major_formatter(FuncFormatter(lambda v, _pos: _bytes_label(v)))
        else:
            powers = largest > 65536
            axis.set_major_formatter(FuncFormatter(lambda v, _pos: _count_label(v, powers)))
    elif scale == "log10":
        setter("log", base=10)
        axis.set_major_formatter(FuncFormatter(lambda v, _pos: _decade_label(v)))
    else:
        setter("linear")
    if scale in ("log2", "log10"):
        # No minor ticks (set after the scale, which installs its own): the
        # grid is drawn at the labelled ticks only, and the unlabelled minor
        # ones cost a quarter of drawing a log-log chart.
        axis.set_minor_locator(NullLocator())


def _decade_label(value: float) -> str:
    """Log-axis ticks as plain numbers (0.01, 100, 1e+06 beyond), no mathtext."""
    if value <= 0:
        return ""
    return f"{value:g}"


def _whiskers(ax, s: Series, color) -> None:
    """The CI of each point as a whisker: one artist for the whole series."""
    pts = [(x, y, lo, hi) for x, y, lo, hi in zip(s.x, s.y, s.lo, s.hi)
           if lo is not None and hi is not None]
    if pts:
        xs, ys, los, his = zip(*pts)
        # max(0, ...): a CI end equal to the median may differ in its last bit
        ax.errorbar(xs, ys, yerr=[[max(0.0, y - lo) for y, lo in zip(ys, los)],
                                  [max(0.0, hi - y) for y, hi in zip(ys, his)]],
                    fmt="none", ecolor=color, elinewidth=0.9, capsize=2.0, zorder=2)


def _draw_series(ax, s: Series) -> None:
    """A solid line with markers, its CI whiskers, its noisy points hollow."""
    style = {"marker": "o", "markersize": 3.5, "linewidth": 1.4, **s.style}
    (line,) = ax.plot(s.x, s.y, label=s.label, **style)
    _whiskers(ax, s, line.get_color())
    hollow = [(x, y) for x, y, n in zip(s.x, s.y, s.noisy) if n]
    if hollow:
        ax.plot([x for x, _ in hollow], [y for _, y in hollow], linestyle="none",
                marker=style["marker"], markersize=style["markersize"] + 1.5,
                markerfacecolor="white", markeredgecolor=line.get_color(), zorder=3)


def _ring_flagged(ax, chart: LineChart) -> None:
    flagged = [(x, y) for s in chart.series for x, y, f in zip(s.x, s.y, s.flags) if f]
    if flagged:
        ax.scatter([x for x, _ in flagged], [y for _, y in flagged], s=90, facecolors="none",
                   edgecolors=style_module.FLAG, linewidths=1.3, zorder=4,
                   label="a throttle reason can have slowed it")


def draw_line_chart(ax, chart: LineChart, xunit: str = "", legend: bool = True) -> None:
    """Draw a LineChart on a matplotlib Axes: each series a solid line with
    markers, its CI whiskers, noisy points hollow, flagged points ringed."""
    for s in chart.series:
        _draw_series(ax, s)
    _ring_flagged(ax, chart)
    for ref in chart.reflines:
        ax.axhline(ref.value, label=f"{ref.label}", **{**style_module.PEAK, **ref.style})
    largest = max((x for s in chart.series for x in s.x), default=0.0)
    apply_scale(ax, "x", chart.xscale, xunit, largest)
    apply_scale(ax, "y", chart.yscale)
    ax.set_xlabel(chart.xlabel)
    ax.set_ylabel(chart.ylabel)
    ax.set_title(chart.title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    if chart.xscale == "log2":
        ax.tick_params(axis="x", labelrotation=45)
    if legend and (chart.series or chart.reflines):
        # A fixed place: 'best' searches every point of every line (slow).
        ax.legend(fontsize=7, loc="upper left", framealpha=0.85)


def unify_scales(charts: list[LineChart]) -> None:
    """One scale for all panels of a figure, so that equal heights mean equal
    numbers: log when any panel is log."""
    for attr in ("xscale", "yscale"):
        logs = sorted(s for s in {getattr(c, attr) for c in charts} if s != "linear")
        if logs:
            for c in charts:
                setattr(c, attr, logs[0])


def bar_rows_frame(ax, labels: list[str], xmax: float, xlabel: str, legend_cols: int = 1) -> None:
    """The frame of a horizontal bar chart with a row per label: read top to
    bottom, x from 0 to `xmax` with a light grid, the legend lower right."""
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(0, xmax)
    ax.set_xlabel(xlabel)
    ax.grid(True, axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right", ncol=legend_cols)


def legend_outside(fig, ax, ncol: int = 1) -> None:
    """Put the legend right of the axes: long labels never cover the data."""
    handles, labels = ax.get_legend_handles_labels()
    if ax.get_legend():
        ax.get_legend().remove()
    if handles:
        ax.legend(handles, labels, fontsize=7, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, ncol=ncol)


def _flat_rows(data: dict) -> list[dict]:
    """The long-form table written as CSV next to the figure."""
    if "rows" in data:
        return data["rows"]
    rows = []
    for s in data.get("series", []):
        n = len(s["x"])
        ids = s.get("ids") or [""] * n
        lo, hi = s.get("lo") or [None] * n, s.get("hi") or [None] * n
        noisy = s.get("noisy") or [False] * n
        for x, y, ident, a, b, z in zip(s["x"], s["y"], ids, lo, hi, noisy):
            rows.append({"series": s["label"], "x": x, "y": y, "ci_lo": a, "ci_hi": b,
                         "noisy": z, "id": ident})
    for ref in data.get("reflines", []):
        rows.append({"series": ref["label"], "x": "", "y": ref["value"], "id": "reference"})
    return rows


def save(fig, out_dir: Path, name: str, data: dict, section: str,
         title: str, caption: str) -> Figure:
    """Write `name`.png, .svg, .json (the full spec) and .csv (long form) under
    out_dir, close the matplotlib figure, return the record for the page."""
    path = out_dir / name
    # The tight box (everything drawn, outside legends included) is laid out
    # once for both formats: each savefig(bbox_inches="tight") would lay the
    # whole figure out again (a quarter of a figure's cost).
    box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.1)
    for suffix, fmt_name, metadata in ((".png", "png", PNG_METADATA),
                                       (".svg", "svg", SVG_METADATA)):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt_name, dpi=DPI, bbox_inches=box, metadata=metadata)
        write_file(path.with_suffix(suffix), buf.getvalue())
    plt.close(fig)
    payload = {"figure": name, "section": section, "title": title, **data}
    write_file(path.with_suffix(".json"),
               json.dumps(payload, indent=1, default=str, ensure_ascii=False) + "\n")
    rows = _flat_rows(data)
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=columns or ["empty"])
    writer.writeheader()
    writer.writerows(rows)
    write_file(path.with_suffix(".csv"), text.getvalue())
    return Figure(name=name, section=section, title=title, caption=caption,
                  png=f"{name}.png", svg=f"{name}.svg",
                  data_json=f"{name}.json", data_csv=f"{name}.csv")


def new_figure(width: float = 7.5, height: float = 4.5, **kwargs):
    """A figure and its axes; one size convention for the whole report."""
    return plt.subplots(figsize=(width, height), **kwargs)


def palette() -> list[str]:
    """The report's qualitative palette (reports/style.py)."""
    return list(style_module.PALETTE)


def blank_figure(width: float, height: float):
    """A figure without axes, for layouts built with a grid spec."""
    return plt.figure(figsize=(width, height))


def save_line_chart(chart: LineChart, out_dir: Path, name: str, section: str,
                    caption: str, xunit: str = "", outside: bool = False) -> Figure:
    fig, ax = new_figure()
    draw_line_chart(ax, chart, xunit=xunit)
    if outside:
        legend_outside(fig, ax)
    return save(fig, out_dir, name, chart.data(), section, chart.title, caption)


def throttle_flags(rows) -> list[str]:
    """The flags of a series drawn from `rows` (load.Result): the throttle
    reasons that can have slowed each point (reports/conditions.py), else ''."""
    return [r.throttle_affects for r in rows]


def series(label: str, xs: list[float], rows, metric, style: dict | None = None,
           extra: dict | None = None) -> Series:
    """A series of `rows` at `xs`, y = metric(row) (a throughput: work /
    median time), with each point's id, CI whisker, noisy mark and flag."""
    ys = [metric(r) for r in rows]
    lo, hi = [], []
    for r, y in zip(rows, ys):
        a, b, med = r.num.get("ci_lo_s"), r.num.get("ci_hi_s"), r.median_s
        ok = y is not None and a and b and med and a <= med <= b
        # Throughput is work / time: the slow end of the time CI is the low one.
        lo.append(y * med / b if ok else None)
        hi.append(y * med / a if ok else None)
    return Series(label=label, x=list(xs), y=ys, ids=[r.label() for r in rows],
                  style=dict(style or {}), extra=dict(extra or {}),
                  flags=throttle_flags(rows), lo=lo, hi=hi,
                  noisy=[r.status == "noisy" for r in rows])


def flag_note(chart: LineChart) -> str:
    """The caption sentences for whiskers, hollow and flagged points: only
    what the chart draws."""
    text = ""
    if any(v is not None for s in chart.series for v in s.lo):
        text += " Whiskers: the 95 % confidence interval of the median."
    noisy = sum(bool(n) for s in chart.series for n in s.noisy)
    if noisy:
        text += (f" Hollow markers: {noisy} noisy point(s), whose interval was not as "
                 f"narrow as asked within their time budget.")
    count = sum(bool(f) for s in chart.series for f in s.flags)
    if count:
        text += (f" Red rings: {count} point(s) a throttle reason can have slowed (the SM "
                 f"clock fell while it ran; reasons that cannot slow a point are not ringed).")
    return text


def fmt(value: float | None, digits: int = 4) -> str:
    """A number for tables and labels; empty for 'not measured'."""
    if value is None:
        return ""
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
        return f"{value:.{digits - 1}e}"
    return f"{value:.{digits}g}"


def time_unit(seconds: float) -> tuple[str, float]:
    """The unit (and its size in seconds) in which `seconds` reads best."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return unit, scale
    return "ns", 1e-9


def fmt_time(seconds: float | None) -> str:
    """A time with a unit a person reads at once (ns, us, ms, s)."""
    if seconds is None:
        return ""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


def slug(text: str) -> str:
    """A file-name-safe form of a label (axis value, directory name)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "all"
