"""The history dashboard's drawings, as SVG text: a sparkline per point for
the index, and a point's trend chart with its CIs, change points, changes of
conditions, throttled runs and outliers. Hand-written SVG (no matplotlib): a
1,000-run x 700-point history is 700 charts, and the dashboard must draw them
in well under a minute. Every value shown comes from `cubench history
export`; nothing here is a statistic, only where to put it.
"""

from __future__ import annotations

import math
from html import escape

import numpy as np

SLOWER, FASTER, CONDITIONS = "#c0392b", "#1e8449", "#7d3c98"
DOT, THROTTLED, OUTLIER, BAND = "#1f5fa8", "#e67e22", "#c0392b", "#cfe0f3"


def time_unit(seconds: list[float]) -> tuple[float, str]:
    """The scale and unit that put the typical value between 1 and 1000."""
    finite = sorted(s for s in seconds if s and math.isfinite(s) and s > 0)
    if not finite:
        return 1.0, "s"
    mid = finite[len(finite) // 2]
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us")):
        if mid >= scale:
            return scale, unit
    return 1e-9, "ns"


def fmt_time(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds) or seconds <= 0:
        return "-"
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.4g} {unit}"
    return "-"


def fmt_pct(ratio: float | None) -> str:
    if ratio is None or not math.isfinite(ratio):
        return "-"
    return f"{(ratio - 1.0) * 100:+.2f}%"


def _bounds(values: list[float]) -> tuple[float, float]:
    lo, hi = min(values), max(values)
    if hi <= lo:
        pad = abs(lo) * 0.01 or 1.0
        return lo - pad, hi + pad
    pad = (hi - lo) * 0.08
    return lo - pad, hi + pad


def sparkline(points: list[tuple[int, float]], span: int, changes: list[int],
              width: int = 160, height: int = 28) -> str:
    """A standalone SVG document: the medians against run position
    (0..span-1), a dot at each change point's first bad run."""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">')
    if len(points) < 1:
        return head + "</svg>\n"
    lo, hi = _bounds([y for _, y in points])
    step = (width - 4) / max(span - 1, 1)

    def xy(x: int, y: float) -> tuple[float, float]:
        return 2 + x * step, height - 2 - (y - lo) / (hi - lo) * (height - 4)

    # a pixel column holds at most its lowest and highest run: 1,000 runs
    # drawn in 160 pixels need no more than 320 vertices
    per_px: dict[int, list] = {}
    for x, y in points:
        col = per_px.setdefault(int(x * step), [(x, y), (x, y)])
        if y < col[0][1]:
            col[0] = (x, y)
        if y > col[1][1]:
            col[1] = (x, y)
    kept = sorted({p for col in per_px.values() for p in col})
    path = " ".join(f"{'M' if i == 0 else 'L'}{px:.1f},{py:.1f}"
                    for i, (px, py) in enumerate(xy(x, y) for x, y in kept))
    dots = []
    by_x = dict(points)
    for x in changes:
        if x in by_x:
            px, py = xy(x, by_x[x])
            dots.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.5" fill="{SLOWER}"/>')
    return (head + f'<path d="{path}" fill="none" stroke="{DOT}" stroke-width="1.2"/>'
            + "".join(dots) + "</svg>\n")


class TrendChart:
    """A point's runs on one machine: x is the run's position among the
    machine's runs, y the median (the CI as a band), markers for the newest
    runs with a tooltip each, lines at change points and changes of
    conditions."""

    W, H, LEFT, RIGHT, TOP, BOTTOM = 960, 340, 70, 20, 24, 40

    def __init__(self, values: list[dict], span: int):
        self.values = values  # {x, median, lo, hi, throttled, outlier, title()}
        self.span = max(span, 2)
        timed = [v for v in values if v["median"]]
        self.scale, self.unit = time_unit([v["median"] for v in timed])
        ys = [v["median"] / self.scale for v in timed if not v["outlier"]]
        ys += [v[k] / self.scale for v in timed if not v["outlier"] for k in ("lo", "hi")
               if v[k]]
        self.lo, self.hi = _bounds(ys or [0.0, 1.0])

    def px(self, x: float) -> float:
        return self.LEFT + x * (self.W - self.LEFT - self.RIGHT) / (self.span - 1)

    def py(self, y: float) -> float:
        y = min(max(y, self.lo), self.hi)  # an outlier sits on the edge, marked
        return self.TOP + (self.hi - y) / (self.hi - self.lo) * (self.H - self.TOP - self.BOTTOM)

    def _xy_text(self, points: list[tuple[float, float]]) -> list[str]:
        """\"x,y\" of each (run position, seconds), in whole pixels, mapped
        with numpy: a 1,000-run chart has 3,000 of them, 700 charts 2 million."""
        if not points:
            return []
        xs, ys = np.array(points, dtype=float).T
        kx = (self.W - self.LEFT - self.RIGHT) / (self.span - 1)
        ky = (self.H - self.TOP - self.BOTTOM) / (self.hi - self.lo)
        px = np.rint(self.LEFT + xs * kx).astype(int).tolist()
        yv = np.clip(ys / self.scale, self.lo, self.hi)  # an outlier sits on the edge
        py = np.rint(self.TOP + (self.hi - yv) * ky).astype(int).tolist()
        return [f"{a},{b}" for a, b in zip(px, py)]

    def _axes(self) -> list[str]:
        out = [f'<rect x="{self.LEFT}" y="{self.TOP}" width="{self.W - self.LEFT - self.RIGHT}" '
               f'height="{self.H - self.TOP - self.BOTTOM}" fill="#fff" stroke="#bbb"/>']
        for i in range(5):
            y = self.lo + (self.hi - self.lo) * i / 4
            py = self.py(y)
            out.append(f'<line x1="{self.LEFT}" x2="{self.W - self.RIGHT}" y1="{py:.1f}" '
                       f'y2="{py:.1f}" stroke="#eee"/>'
                       f'<text x="{self.LEFT - 6}" y="{py + 4:.1f}" text-anchor="end" '
                       f'font-size="11">{y:.4g}</text>')
        out.append(f'<text x="14" y="{self.TOP + 10}" font-size="11" '
                   f'transform="rotate(-90 14 {self.TOP + 10})" text-anchor="end">median, '
                   f'{self.unit}</text>')
        out.append(f'<text x="{(self.W + self.LEFT) / 2:.0f}" y="{self.H - 6}" font-size="11" '
                   f'text-anchor="middle">run on this machine (oldest left)</text>')
        return out

    def _band_and_line(self) -> list[str]:
        timed = [v for v in self.values if v["median"] and not v["outlier"]
                 and not v["throttled"]]
        out = []
        band = [v for v in timed if v["lo"] and v["hi"]]
        if band:
            upper = self._xy_text([(v["x"], v["hi"]) for v in band])
            lower = self._xy_text([(v["x"], v["lo"]) for v in reversed(band)])
            out.append(f'<polygon points="{" ".join(upper)} {" ".join(lower)}" fill="{BAND}" '
                       f'stroke="none"><title>95% CI of each run\'s median (results.csv)'
                       f"</title></polygon>")
        if timed:
            line = self._xy_text([(v["x"], v["median"]) for v in timed])
            out.append(f'<path d="M{" L".join(line)}" fill="none" stroke="{DOT}" '
                       f'stroke-width="1"/>')
        return out

    def _markers(self, newest: int) -> list[str]:
        out = []
        timed = [v for v in self.values if v["median"]]
        recent = {id(v) for v in timed[-newest:]}
        for v in timed:
            special = v["throttled"] or v["outlier"]
            if not special and id(v) not in recent:
                continue
            x, y = self.px(v["x"]), self.py(v["median"] / self.scale)
            title = f"<title>{escape(v['title']())}</title>"
            if v["outlier"]:
                out.append(f'<g class="outlier"><path d="M{x - 4:.1f},{y - 4:.1f}l8,8m0,-8l-8,8" '
                           f'stroke="{OUTLIER}" stroke-width="2"/>{title}</g>')
            elif v["throttled"]:
                out.append(f'<path class="throttled" d="M{x:.1f},{y - 5:.1f}l5,9h-10z" '
                           f'fill="{THROTTLED}">{title}</path>')
            else:
                out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" fill="{DOT}">{title}'
                           f'</circle>')
        return out

    def mark(self, x_before: int, x_after: int, label: str, colour: str, dashed: bool,
             title: str) -> str:
        x = (self.px(x_before) + self.px(x_after)) / 2
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        # the label on the side with room for it
        right = x > self.W * 0.75
        tx, anchor = (x - 3, "end") if right else (x + 3, "start")
        return (f'<g class="change"><line x1="{x:.1f}" x2="{x:.1f}" y1="{self.TOP}" '
                f'y2="{self.H - self.BOTTOM}" stroke="{colour}" stroke-width="1.6"{dash}/>'
                f'<text x="{tx:.1f}" y="{self.TOP + 12}" font-size="11" fill="{colour}" '
                f'text-anchor="{anchor}">{escape(label)}</text><title>{escape(title)}</title></g>')

    def event(self, x: int, title: str) -> str:
        """A change of conditions on the machine (a thin dotted line)."""
        px = self.px(x - 0.5)
        return (f'<g class="event"><line x1="{px:.1f}" x2="{px:.1f}" y1="{self.TOP}" '
                f'y2="{self.H - self.BOTTOM}" stroke="#999" stroke-dasharray="1,3"/>'
                f'<title>{escape(title)}</title></g>')

    def ends(self, first: str, last: str) -> str:
        """The dates of the machine's first and newest runs under the axis."""
        y = self.H - self.BOTTOM + 14
        return (f'<text x="{self.LEFT}" y="{y}" font-size="10" fill="#666">{escape(first)}</text>'
                f'<text x="{self.W - self.RIGHT}" y="{y}" font-size="10" fill="#666" '
                f'text-anchor="end">{escape(last)}</text>')

    def svg(self, marks: list[str], newest: int = 60) -> str:
        parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.W}" height="{self.H}" '
                 f'viewBox="0 0 {self.W} {self.H}" role="img">']
        parts += self._axes()
        parts += self._band_and_line()
        parts += marks
        parts += self._markers(newest)
        parts.append("</svg>")
        return "".join(parts)
