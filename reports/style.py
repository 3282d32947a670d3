"""One colour and line convention for every chart, matplotlib and gnuplot alike.

- Measured curves are solid lines with markers, coloured from one
  qualitative palette (Tableau's, without its grey and brown, which mean
  something here): neighbours on a ladder never share a hue, and a series
  keeps its colour on every panel of a page.
- Library references (cuBLAS) are black or grey, with diamonds.
- CPU baselines are brown, with squares.
- Python frameworks keep their palette colour and get triangles.
- Theoretical peaks are black dashed lines; the best value measured in the
  run is a grey dotted line.
- Hollow markers: noisy points (the time budget ran out before the stopping
  rule held); whiskers: the 95 % confidence interval of the median; red rings:
  points a throttle reason can have slowed (reports/conditions.py).

reports/gnuplot/style.gp sets the same colours as gnuplot line types;
reports/tests/test_gnuplot.py checks that the two agree.
"""

from __future__ import annotations

# Qualitative: hues far apart in order, so rung i and rung i+1 differ.
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#e377c2",
           "#bcbd22", "#17becf"]
MARKERS = ["o", "s", "^", "v", "D", "P", "X", "<", ">", "h"]
REFERENCE_COLORS = ["#000000", "#555555", "#888888", "#aaaaaa"]
CPU_COLORS = ["#8c564b", "#a0522d", "#6b4226"]
PEAK = {"color": "#000000", "linestyle": "--", "linewidth": 1.0}
BEST = {"color": "#737373", "linestyle": ":", "linewidth": 1.2}
FLAG = "#d62728"  # throttle rings and flagged labels


def color(i: int) -> str:
    """The i-th colour of the palette (cycling)."""
    return PALETTE[i % len(PALETTE)]


def series_style(i: int) -> dict:
    """Colour i, and after a full round of colours the next marker, so that
    no two of the first len(PALETTE) x len(MARKERS) series look alike."""
    return {"color": color(i), "marker": MARKERS[(i // len(PALETTE)) % len(MARKERS)]}


def reference_style(i: int) -> dict:
    return {"color": REFERENCE_COLORS[i % len(REFERENCE_COLORS)], "marker": "D",
            "markersize": 4.0}


def cpu_style(i: int) -> dict:
    return {"color": CPU_COLORS[i % len(CPU_COLORS)], "marker": "s"}


def gnuplot_linetypes() -> str:
    """style.gp's body: the palette as gnuplot line types 1..N."""
    return "\n".join(f'set linetype {i + 1} lc rgb "{c}" lw 1.5 pt 7 ps 0.6'
                     for i, c in enumerate(PALETTE))
