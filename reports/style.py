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
- Hollow markers: noisy points (the stopping rule did not hold within the
  time budget); whiskers: the 95 % confidence interval of the median; red rings:
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


# gnuplot point types of the markers above (pngcairo/svg terminals).
GNUPLOT_POINTS = {"o": 7, "s": 5, "^": 9, "v": 11, "D": 13}
GNUPLOT_CPU = len(PALETTE) + 1  # first line type of the CPU baselines (one per CPU colour)
GNUPLOT_REFERENCE = GNUPLOT_CPU + len(CPU_COLORS)  # first of the references (cuBLAS)


def gnuplot_style() -> str:
    """reports/gnuplot/style.gp as it must read: the palette as line types
    1..N (filled circles), then the CPU and the reference line types, and the
    peak's dashed black (test_gnuplot.py checks the file against this)."""
    lines = ["# style.gp - written from reports/style.py (one convention for matplotlib and",
             "# gnuplot); reports/tests/test_gnuplot.py checks that the two agree.",
             f"# Line types 1..{len(PALETTE)}: measured curves; {GNUPLOT_CPU}.."
             f"{GNUPLOT_REFERENCE - 1}: CPU baselines; {GNUPLOT_REFERENCE}.."
             f"{GNUPLOT_REFERENCE + len(REFERENCE_COLORS) - 1}: references."]
    lines += [f'set linetype {i + 1} lc rgb "{c}" lw 1.5 dt 1 pt {GNUPLOT_POINTS["o"]} ps 0.6'
              for i, c in enumerate(PALETTE)]
    lines += [f'set linetype {GNUPLOT_CPU + i} lc rgb "{c}" lw 1.5 dt 1 '
              f'pt {GNUPLOT_POINTS["s"]} ps 0.6' for i, c in enumerate(CPU_COLORS)]
    lines += [f'set linetype {GNUPLOT_REFERENCE + i} lc rgb "{c}" lw 1.5 dt 1 '
              f'pt {GNUPLOT_POINTS["D"]} ps 0.7' for i, c in enumerate(REFERENCE_COLORS)]
    lines.append(f'peak_style = "dt 2 lw 1.2 lc rgb \'{PEAK["color"]}\'"')
    return "\n".join(lines) + "\n"


def gnuplot_linetypes(titles: list[str]) -> list[int]:
    """The line type of each gnuplot curve, by its title (the variant name):
    CPU baselines (host...) and references (cublas...) by kind, each the next
    of its kind, every other curve the next palette colour.
    scripts/plot_gnuplot.sh's linetypes() applies this rule."""
    counts = {"cpu": 0, "ref": 0, "other": 0}
    out = []
    for title in titles:
        if title.startswith("host"):
            out.append(GNUPLOT_CPU + counts["cpu"] % len(CPU_COLORS))
            counts["cpu"] += 1
        elif title.startswith("cublas"):
            out.append(GNUPLOT_REFERENCE + counts["ref"] % len(REFERENCE_COLORS))
            counts["ref"] += 1
        else:
            out.append(counts["other"] % len(PALETTE) + 1)
            counts["other"] += 1
    return out
