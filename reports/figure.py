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

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

from .output import write_file  # noqa: E402

# Metadata written into the images: fixed, so that files are reproducible.
PNG_METADATA = {"Software": "cubench reports (matplotlib)"}
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
    # Per point: the throttle reasons when the GPU reported any while the
    # point was measured (schema 2), else "". Flagged points get a red ring.
    flags: list[str] = field(default_factory=list)


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


def _count_label(value: float, powers: bool) -> str:
    exponent = math.log2(value) if value > 0 else 0.5
    if powers and exponent.is_integer() and value >= 1024:
        return f"$2^{{{int(exponent)}}}$"
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
    else:
        setter("linear")


def draw_line_chart(ax, chart: LineChart, xunit: str = "", legend: bool = True) -> None:
    """Draw a LineChart on a matplotlib Axes."""
    for s in chart.series:
        style = {"marker": "o", "markersize": 3.5, "linewidth": 1.4, **s.style}
        ax.plot(s.x, s.y, label=s.label, **style)
    flagged = [(x, y) for s in chart.series for x, y, f in zip(s.x, s.y, s.flags) if f]
    if flagged:
        ax.scatter([x for x, _ in flagged], [y for _, y in flagged], s=90, facecolors="none",
                   edgecolors="red", linewidths=1.3, zorder=4, label="throttled while measured")
    for ref in chart.reflines:
        style = {"linestyle": "--", "linewidth": 1.0, "color": "0.35", **ref.style}
        ax.axhline(ref.value, label=f"{ref.label}", **style)
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
        ax.legend(fontsize=7, loc="best", framealpha=0.85)


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
        ids = s.get("ids") or [""] * len(s["x"])
        for x, y, ident in zip(s["x"], s["y"], ids):
            rows.append({"series": s["label"], "x": x, "y": y, "id": ident})
    for ref in data.get("reflines", []):
        rows.append({"series": ref["label"], "x": "", "y": ref["value"], "id": "reference"})
    return rows


def save(fig, out_dir: Path, name: str, data: dict, section: str,
         title: str, caption: str) -> Figure:
    """Write `name`.png, .svg, .json (the full spec) and .csv (long form) under
    out_dir, close the matplotlib figure, return the record for the page."""
    path = out_dir / name
    for suffix, fmt_name, metadata in ((".png", "png", PNG_METADATA),
                                       (".svg", "svg", SVG_METADATA)):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt_name, dpi=110, bbox_inches="tight", metadata=metadata)
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
    """The default colour cycle, for code that assigns colours itself."""
    return plt.rcParams["axes.prop_cycle"].by_key()["color"]


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
    """The flags of a series drawn from `rows` (load.Result): their throttle
    reasons where the GPU reported any, else ''."""
    return [r.throttle if r.throttled else "" for r in rows]


def flag_note(chart: LineChart) -> str:
    """The caption sentence for flagged points, empty when there are none."""
    count = sum(bool(f) for s in chart.series for f in s.flags)
    if not count:
        return ""
    return (f" Red rings: {count} point(s) measured while the GPU reported a clock-event "
            f"(throttle) reason.")


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
