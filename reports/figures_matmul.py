"""Matmul figures: the optimisation ladder against cuBLAS.

The matmul family is a tutorial ladder (naive -> tiled -> register-blocked ->
warp-tiled), so the figures answer the two questions a reader of the ladder
asks: how does each rung scale with the problem size, and how far is each rung
from the library at the largest size they all ran. Rung and reference names
are taken from the data: a reference is any benchmark another row names in
`ref_benchmark`, or a cuBLAS variant.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl

from . import figure as F
from . import frameworks
from .load import Result, Run
from .pick import best_per, curve, has_other_configs, ordered_unique, size_axis

FAMILY = "matmul"
SECTION = "Matmul"


def _rows(run: Run) -> list[Result]:
    """The family's timed rows, and the Python frameworks' matmuls of the
    same run (reports/frameworks.py) when the family has any."""
    own = [r for r in run.rows(FAMILY) if r.tflops is not None]
    return own + frameworks.matmul_rows(run) if own else own


def references(rows: list[Result]) -> list[str]:
    """Benchmarks that others are measured against (cuBLAS), in run order."""
    named = {r.ref_benchmark for r in rows if r.ref_benchmark}
    return [b for b in ordered_unique(r.benchmark for r in rows)
            if b in named or b.partition("/")[2].startswith("cublas")]


def fp32_reference(rows: list[Result]) -> str | None:
    """The reference `pct_ref` is taken against: the most named one, else a
    cuBLAS variant with fp32 in its name."""
    # The C rungs' reference: frameworks name one per precision.
    named = [r.ref_benchmark for r in rows if r.ref_benchmark and r.family == FAMILY]
    if named:
        return max(set(named), key=named.count)
    for bench in references(rows):
        if "fp32" in bench:
            return bench
    return None


def _pretty(bench: str) -> str:
    if frameworks.is_framework_bench(bench):
        return frameworks.label(bench)
    variant = bench.partition("/")[2]
    if variant.startswith("cublas_"):
        return f"cuBLAS {variant[7:].upper()}"
    return variant


def _is_host(bench: str) -> bool:
    return bench.partition("/")[2].startswith("host")


def kinds(rows: list[Result]) -> tuple[list[str], list[str], list[str]]:
    """(GPU rungs, GPU references such as cuBLAS, CPU baselines) among the
    benchmarks of rows. A host BLAS that other host rows name as their
    reference is still a CPU baseline."""
    refs = references(rows)
    benches = ordered_unique(r.benchmark for r in rows)
    hosts = [b for b in benches if _is_host(b)]
    gpu_refs = [b for b in refs if not _is_host(b)]
    rungs = [b for b in benches if b not in gpu_refs and b not in hosts
             and not frameworks.is_framework_bench(b)]
    return rungs, gpu_refs, hosts


def _styles(rows: list[Result]) -> dict[str, dict]:
    """Rungs coloured along the ladder (light to dark = later rung), GPU
    references in greys with diamonds, CPU baselines in browns with squares:
    the legend then reads as a ladder. Every measured curve is solid; dashed
    lines are reserved for peaks."""
    rungs, refs, hosts = kinds(rows)
    cmap = mpl.colormaps["plasma"]
    styles = {}
    for i, b in enumerate(rungs):
        styles[b] = {"color": cmap(0.05 + 0.8 * i / max(1, len(rungs) - 1))}
    greys = ["black", "0.4", "0.6", "0.75"]
    for i, b in enumerate(refs):
        styles[b] = {"color": greys[i % len(greys)], "marker": "D", "markersize": 3.5}
    browns = ["tab:brown", "tab:olive", "tab:cyan"]
    for i, b in enumerate(hosts):
        styles[b] = {"color": browns[i % len(browns)], "marker": "s"}
    # Python frameworks: one colour per framework, triangles.
    family_colors = {}
    for b in ordered_unique(r.benchmark for r in rows):
        if b not in styles and frameworks.is_framework_bench(b):
            family = b.partition("/")[0]
            color = family_colors.setdefault(family, f"C{len(family_colors) % 10}")
            styles[b] = {"color": color, "marker": "^"}
    return styles


def _dims(row: Result) -> tuple[str, ...]:
    """m, n, k of a row as text; the word `m` (n or k defaulting to m) is m."""
    m = row.axes.get("m", "")
    return tuple(m if row.axes.get(d) == "m" else row.axes.get(d, "") for d in ("m", "n", "k"))


def _size_label(rows: list[Result], xaxis: str) -> str:
    if xaxis == "size" or all(len(set(_dims(r))) == 1 and _dims(r)[0] for r in rows):
        return "matrix size (m = n = k)"
    return f"{xaxis} (matrix dimension; other dimensions as measured)"


def line_chart(run: Run) -> F.LineChart | None:
    rows = _rows(run)
    xaxis = size_axis(rows)
    if not rows or xaxis is None:
        return None
    styles = _styles(rows)
    refs = references(rows)
    series = []
    for bench in ordered_unique(r.benchmark for r in rows):
        xs, ys, chosen = curve([r for r in rows if r.benchmark == bench], xaxis,
                               lambda r: r.tflops)
        label = _pretty(bench) + (" (reference)" if bench in refs else "")
        series.append(F.Series(label=label, x=xs, y=ys, ids=[r.label() for r in chosen],
                               style=styles[bench], flags=F.throttle_flags(chosen)))
    xs = [r.axis(xaxis) for r in rows]
    ys = [r.tflops for r in rows]
    return F.LineChart(
        title=f"Matmul ladder — {run.label}",
        xlabel=_size_label(rows, xaxis),
        ylabel="TFLOP/s (1e12 FLOP/s)", series=series,
        xscale="log2" if F.axis_scale(xs, 2, 4.0) != "linear" else "linear",
        yscale=F.axis_scale(ys, 10, 100.0))


def ladder_size(rows: list[Result], xaxis: str) -> float | None:
    """The largest size every GPU benchmark measured; when there is none, the
    size most benchmarks measured (the larger on a tie)."""
    gpu = [r for r in rows if not r.is_host]
    sizes_of = {}
    for r in gpu or rows:
        sizes_of.setdefault(r.benchmark, set()).add(r.axis(xaxis))
    if not sizes_of:
        return None
    common = set.intersection(*sizes_of.values())
    if common:
        return max(common)
    counts = {}
    for sizes in sizes_of.values():
        for s in sizes:
            counts[s] = counts.get(s, 0) + 1
    return max(counts, key=lambda s: (counts[s], s))


def ladder_data(run: Run) -> dict | None:
    rows = _rows(run)
    xaxis = size_axis(rows)
    if not rows or xaxis is None:
        return None
    size = ladder_size(rows, xaxis)
    at = [r for r in rows if r.axis(xaxis) == size]
    best = best_per(at, lambda r: r.benchmark, lambda r: r.tflops)
    ref = fp32_reference(rows)
    ref_row = best.get(ref)
    others = set(references(rows)) - {ref}
    bars = []
    for bench, row in best.items():
        # A row's own pct_ref is against its own ref_benchmark (host rungs
        # may name the host BLAS); otherwise it is computed against cuBLAS FP32.
        pct, source, against = row.num["pct_ref"], "pct_ref", row.ref_benchmark
        if bench == ref:
            pct, source, against = 100.0, "reference", ref
        elif pct is None and ref_row is not None and bench not in others:
            # (another reference, e.g. cuBLAS TF32, is no share of cuBLAS FP32)
            pct, source, against = 100.0 * ref_row.median_s / row.median_s, "computed", ref
        bars.append({"benchmark": bench, "label": _pretty(bench), "tflops": row.tflops,
                     "pct_ref": pct, "ref_benchmark": against if pct is not None else "",
                     "pct_source": source, "kernel": frameworks.kernel_text(row, 40),
                     "id": row.label()})
    return {"kind": "bars", "size_axis": xaxis, "size": size, "reference": ref,
            "rows": bars}


def ladder_figure(run: Run, out_dir: Path, name: str) -> F.Figure | None:
    data = ladder_data(run)
    if not data or not data["rows"]:
        return None
    bars = data["rows"]
    styles = _styles(_rows(run))
    fig, ax = F.new_figure(8.5, 0.38 * len(bars) + 1.6)
    labels = [b["label"] for b in bars]
    values = [b["tflops"] for b in bars]
    colors = [styles[b["benchmark"]]["color"] for b in bars]
    ypos = range(len(bars))
    ax.barh(ypos, values, color=colors, edgecolor="0.2", linewidth=0.5)
    ax.set_yticks(ypos, labels, fontsize=8)
    ax.invert_yaxis()  # run order top to bottom: the ladder reads downwards
    log = F.axis_scale(values, 10, 100.0) != "linear"
    if log:
        ax.set_xscale("log")
    ref_name = _pretty(data["reference"]) if data["reference"] else "the reference"
    for y, b in zip(ypos, bars):
        text = f" {b['tflops']:.3g}"
        if b["pct_ref"] is not None:
            text += f"  ({b['pct_ref']:.1f}% of {_pretty(b['ref_benchmark'])})"
        if b["kernel"]:
            text += f"  {b['kernel']}"
        ax.text(b["tflops"], y, text, va="center", fontsize=7)
    lo, hi = min(values), max(values)
    # Room for the text right of the longest bar (kernel names included).
    ax.set_xlim(lo / 2 if log else 0, hi * (60 if log else 2.4))
    ax.set_xlabel("TFLOP/s (1e12 FLOP/s)" + (", log scale" if log else ""))
    size = int(data["size"])
    where = ("m = n = k" if "m = n = k" in _size_label(_rows(run), data["size_axis"])
             else data["size_axis"])
    title = f"Matmul ladder at {where} = {size} — {run.label}"
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    gpu = any(not r.is_host for r in _rows(run))
    caption = (f"Every matmul benchmark at {where} = {size}, the largest size "
               + ("all GPU rungs measured" if gpu else "every benchmark measured")
               + " (best over other axes such as the tile). Labels give TFLOP/s")
    if any(b["pct_ref"] is not None for b in bars):
        caption += (f" and percent of {ref_name} at the same size (the run's pct_ref "
                    f"column, or reference median / median"
                    + ("; a Python framework's row against the cuBLAS of its own precision"
                       if any(frameworks.is_framework(r) for r in _rows(run)) else "")
                    + ")")
    if any(b["kernel"] for b in bars):
        caption += ", then the kernel CUPTI saw the benchmark launch"
    caption += "."
    return F.save(fig, out_dir, name, data, SECTION, title, caption)


def figures(run: Run, out_dir: Path, prefix: str) -> list[F.Figure]:
    figs = []
    chart = line_chart(run)
    if chart:
        rows = _rows(run)
        xaxis = size_axis(rows)
        best_of = any(has_other_configs([r for r in rows if r.benchmark == b], xaxis)
                      for b in {r.benchmark for r in rows})
        rungs, refs, hosts = kinds(rows)
        drawn = []
        if rungs:
            drawn.append("every rung of the ladder (coloured light to dark along the ladder)")
        if refs:
            drawn.append("the cuBLAS references (greys, diamonds)")
        if hosts:
            drawn.append("the CPU baselines (browns, squares)")
        if any(frameworks.is_framework(r) for r in rows):
            drawn.append("the Python frameworks' matmuls of the same run (one colour per "
                         "framework, triangles)")
        caption = ("TFLOP/s against matrix size, solid lines: " + ", ".join(drawn)
                   + ("; each point is the best over the other axes (e.g. tile)"
                      if best_of else "") + "." + F.flag_note(chart))
        figs.append(F.save_line_chart(chart, out_dir, f"{prefix}matmul_tflops_vs_size",
                                      SECTION, caption, outside=True))
        ladder = ladder_figure(run, out_dir, f"{prefix}matmul_ladder")
        if ladder:
            figs.append(ladder)
    return figs
