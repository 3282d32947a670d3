"""Matmul figures: each ladder told as a ladder, against the library of its precision.

The matmul families are tutorial ladders: the FP32 one (naive -> tiled ->
register-blocked -> warp-tiled -> pipelined, against cuBLAS FP32) and the
tensor-core one (mma.sync -> ldmatrix -> wgmma -> warp-specialised ->
clusters, in BF16 and TF32, against cuBLAS BF16 and TF32). A rung is only
meaningful against the library doing the same arithmetic, so every bar is a
share of the cuBLAS of its own precision at the same size, and cuBLAS is the
labelled 100 % line. Two figures per ladder answer the reader's two
questions: how each rung scales with the size (TFLOP/s against size, one
panel per precision), and how far each rung is from the library (bars).

Rungs are named by their benchmark, never by the kernel: CUPTI reports
kernel names without template arguments, and two rungs may launch one
template (`warptiled` and `pipelined` both run cb_matmul_warptile_kernel
with other tiles). The kernel table below the bars names the kernels, with
their template arguments where the run recorded them, and each rung's
configuration (its note).

A row's precision is the one its reference names (`ref_benchmark`
matmul/cublas_bf16 -> BF16), else its name's suffix (_bf16, _tf32, _fp16,
_fp8), else FP32.
"""

from __future__ import annotations

import re
from pathlib import Path

from . import figure as F
from . import frameworks
from . import style as S
from .load import Result, Run
from .page import Table
from .pick import best_per, curve, has_other_configs, ordered_unique, size_axis

FAMILIES = ("matmul", "matmul_tc")
SECTION = "Matmul"
TC_SECTION = "Tensor-core ladder"
PRECISION_ORDER = ("FP32", "BF16", "TF32", "FP16", "FP8")  # the headline first
_SUFFIX = re.compile(r"_(fp32|tf32|bf16|fp16|fp8|f16|f32)$")


# The library references of the ladders: cuBLAS per precision, cuBLASLt for FP8.
_LIBRARIES = (("cublaslt_", "cuBLASLt"), ("cublas_", "cuBLAS"))


def _library(variant: str) -> tuple[str, str] | None:
    """(prefix, library name) of a reference variant, else None."""
    return next((lib for lib in _LIBRARIES if variant.startswith(lib[0])), None)


def precision_of(row: Result) -> str:
    """FP32, TF32, BF16, ... (see the module's docstring)."""
    variant = row.variant
    lib = _library(variant)
    if row.family == "matmul" and lib:
        return variant[len(lib[0]):].upper()
    ref_family, _, ref_variant = row.ref_benchmark.partition("/")
    ref_lib = _library(ref_variant)
    if ref_family == "matmul" and ref_lib:
        return ref_variant[len(ref_lib[0]):].upper()
    match = _SUFFIX.search(variant)
    if match:
        word = match.group(1).upper()
        return {"F16": "FP16", "F32": "FP32"}.get(word, word)
    return "FP32"


def is_reference(bench: str) -> bool:
    family, _, variant = bench.partition("/")
    return family == "matmul" and _library(variant) is not None


def _is_host(bench: str) -> bool:
    return bench.partition("/")[2].startswith("host")


def matmul_rows(run: Run) -> list[Result]:
    """Every timed row of the matmul families with TFLOP/s, and the Python
    frameworks' matmuls of the same run (reports/frameworks.py)."""
    own = [r for r in run.rows() if r.family in FAMILIES and r.tflops is not None]
    return own + frameworks.matmul_rows(run) if own else own


def fp32_rows(run: Run) -> list[Result]:
    return [r for r in matmul_rows(run) if precision_of(r) == "FP32"]


def tensor_rows(run: Run) -> list[Result]:
    """The rows of every precision but FP32: the tensor-core ladder, its
    cuBLAS references and the frameworks' matmuls of those precisions."""
    return [r for r in matmul_rows(run) if precision_of(r) != "FP32"]


def precisions(rows: list[Result]) -> list[str]:
    found = {precision_of(r) for r in rows}
    return [p for p in PRECISION_ORDER if p in found] + sorted(found - set(PRECISION_ORDER))


def rung_name(bench: str, precision: str | None = None) -> str:
    """How a bar or line is called: cuBLAS BF16, `torch: matmul_bf16`, or
    the benchmark's variant (without its precision suffix inside a panel of
    that precision)."""
    family, _, variant = bench.partition("/")
    if is_reference(bench):
        prefix, name = _library(variant)
        return f"{name} {variant[len(prefix):].upper()}"
    if precision and variant.lower().endswith("_" + precision.lower()):
        variant = variant[:-len(precision) - 1]
    if frameworks.is_framework_bench(bench):
        return frameworks.label(f"{family}/{variant}")
    return variant


def _rung_order(rows: list[Result]) -> list[str]:
    """Rung names (suffix dropped) in run order: a rung keeps its colour in
    every precision panel."""
    return ordered_unique(rung_name(r.benchmark, precision_of(r)) for r in rows
                          if not is_reference(r.benchmark) and not _is_host(r.benchmark)
                          and not frameworks.is_framework(r))


def styles(rows: list[Result]) -> dict[str, dict]:
    """benchmark -> style: rungs from the qualitative palette by rung (the
    BF16 and TF32 variants of a rung share it), cuBLAS black and greys with
    diamonds, CPU baselines brown squares, frameworks one colour per
    framework with triangles (reports/style.py)."""
    rungs = _rung_order(rows)
    benches = ordered_unique(r.benchmark for r in rows)
    refs = [b for b in benches if is_reference(b)]
    hosts = [b for b in benches if _is_host(b)]
    out: dict[str, dict] = {}
    frames: dict[str, int] = {}
    for b in benches:
        if b in refs:  # one reference per precision, and a panel per precision: black
            out[b] = S.reference_style(0)
        elif b in hosts:
            out[b] = S.cpu_style(hosts.index(b))
        elif frameworks.is_framework_bench(b):
            i = frames.setdefault(b.partition("/")[0], len(frames))
            out[b] = {"color": S.color(len(rungs) + i), "marker": "^"}
        else:
            row = next(r for r in rows if r.benchmark == b)
            out[b] = S.series_style(rungs.index(rung_name(b, precision_of(row))))
    return out


def _dims(row: Result) -> tuple[str, ...]:
    """m, n, k of a row as text; the word `m` (n or k defaulting to m) is m."""
    m = row.axes.get("m", "")
    return tuple(m if row.axes.get(d) == "m" else row.axes.get(d, "") for d in ("m", "n", "k"))


def _size_label(rows: list[Result], xaxis: str) -> str:
    if xaxis == "size" or all(len(set(_dims(r))) == 1 and _dims(r)[0] for r in rows):
        return "matrix size (m = n = k)"
    return f"{xaxis} (matrix dimension; other dimensions as measured)"


def line_chart(run: Run, rows: list[Result] | None = None, precision: str = "",
               title: str = "") -> F.LineChart | None:
    """TFLOP/s against size, one line per benchmark of `rows` (default: the
    FP32 ladder), in the convention of reports/style.py."""
    rows = fp32_rows(run) if rows is None else rows
    xaxis = size_axis(rows)
    if not rows or xaxis is None:
        return None
    style_of = styles(rows)
    series = []
    for bench in ordered_unique(r.benchmark for r in rows):
        xs, _, chosen = curve([r for r in rows if r.benchmark == bench], xaxis,
                              lambda r: r.tflops)
        label = rung_name(bench, precision) + (" (reference)" if is_reference(bench) else "")
        series.append(F.series(label, xs, chosen, lambda r: r.tflops, style_of[bench]))
    xs = [r.axis(xaxis) for r in rows]
    ys = [r.tflops for r in rows]
    return F.LineChart(
        title=title or f"Matmul FP32 ladder — {run.label}",
        xlabel=_size_label(rows, xaxis), ylabel="TFLOP/s (1e12 FLOP/s)", series=series,
        xscale="log2" if F.axis_scale(xs, 2, 4.0) != "linear" else "linear",
        yscale=F.axis_scale(ys, 10, 100.0))


def ladder_size(rows: list[Result], xaxis: str) -> float | None:
    """The largest size every GPU benchmark measured; when there is none, the
    size most benchmarks measured (the larger on a tie)."""
    gpu = [r for r in rows if not r.is_host]
    sizes_of: dict[str, set] = {}
    for r in gpu or rows:
        sizes_of.setdefault(r.benchmark, set()).add(r.axis(xaxis))
    if not sizes_of:
        return None
    common = set.intersection(*sizes_of.values())
    if common:
        return max(common)
    counts: dict = {}
    for sizes in sizes_of.values():
        for s in sizes:
            counts[s] = counts.get(s, 0) + 1
    return max(counts, key=lambda s: (counts[s], s))


def _share(row: Result, ref_row: Result | None, ref: str | None) -> tuple[float | None, str]:
    """Percent of the reference at the same size, and where it comes from."""
    if ref_row is not None and row.benchmark == ref_row.benchmark:
        return 100.0, "reference"
    if row.num["pct_ref"] is not None and row.ref_benchmark == ref:
        return row.num["pct_ref"], "pct_ref"
    if ref_row is not None and row.median_s:
        return 100.0 * ref_row.median_s / row.median_s, "computed"
    return None, ""


def panel_data(rows: list[Result], precision: str) -> dict | None:
    """The bars of one precision: every benchmark of it at the ladder size,
    with its share of the cuBLAS of that precision."""
    prows = [r for r in rows if precision_of(r) == precision]
    xaxis = size_axis(prows)
    if not prows or xaxis is None:
        return None
    size = ladder_size(prows, xaxis)
    at = [r for r in prows if r.axis(xaxis) == size]
    best = best_per(at, lambda r: r.benchmark, lambda r: r.tflops)
    ref = next((b for b in best if is_reference(b)), f"matmul/cublas_{precision.lower()}")
    ref_row = best.get(ref)
    bars = []
    for bench, row in best.items():
        if bench == ref:
            continue
        pct, source = _share(row, ref_row, ref)
        bars.append({"benchmark": bench, "label": rung_name(bench, precision),
                     "tflops": row.tflops, "pct_ref": pct, "pct_source": source,
                     "noisy": row.status == "noisy", "throttle": row.throttle_affects,
                     "kernel": frameworks.kernel_text(row, 60), "id": row.label()})
    return {"precision": precision, "size_axis": xaxis, "size": size,
            "reference": ref if ref_row is not None else None,
            "reference_tflops": ref_row.tflops if ref_row is not None else None,
            "reference_id": ref_row.label() if ref_row is not None else "", "rows": bars}


def ladder_data(run: Run, rows: list[Result] | None = None) -> dict | None:
    rows = fp32_rows(run) if rows is None else rows
    panels = [p for p in (panel_data(rows, prec) for prec in precisions(rows)) if p]
    if not panels:
        return None
    flat = [{**bar, "precision": p["precision"], "size": p["size"],
             "reference": p["reference"] or ""} for p in panels for bar in p["rows"]]
    return {"kind": "ladder", "panels": panels, "rows": flat}


def _panel_bars(panel: dict) -> list[dict]:
    """The rungs of a panel, and its reference as the last bar at 100 %."""
    bars = list(panel["rows"])
    if panel["reference"] is not None:
        bars.append({"benchmark": panel["reference"], "tflops": panel["reference_tflops"],
                     "label": rung_name(panel["reference"]) + " (reference)",
                     "pct_ref": 100.0, "noisy": False, "throttle": ""})
    return bars


def _bar_text(bar: dict, has_ref: bool) -> str:
    if has_ref and bar["pct_ref"] is not None:
        return f" {bar['pct_ref']:.1f} % ({bar['tflops']:.4g} TFLOP/s)"
    return f" {bar['tflops']:.3g} TFLOP/s"


def _panel_axis(ax, panel: dict, top: float) -> None:
    where = "m = n = k" if panel["size_axis"] in ("m", "size") else panel["size_axis"]
    ax.set_xlim(0, top * 1.45)
    if panel["reference"] is not None:
        ax.axvline(100.0, color="black", linewidth=0.9, zorder=0)
        ax.set_xlabel(f"% of {rung_name(panel['reference'])} at the same size "
                      f"({where} = {int(panel['size'])})")
    else:
        ax.set_xlabel(f"TFLOP/s at {where} = {int(panel['size'])} (no library reference "
                      f"of {panel['precision']} in this run)")
    ax.set_title(f"{panel['precision']}", fontsize=9, loc="left")
    ax.grid(True, axis="x", alpha=0.3)


def _draw_panel(ax, panel: dict, style_of: dict) -> None:
    """One precision: a bar per rung (share of the reference, or TFLOP/s
    without one), the reference itself as the black bar at 100 % under them
    and a line at 100 % through them; noisy bars hatched, as hollow markers
    elsewhere."""
    bars = _panel_bars(panel)
    has_ref = panel["reference"] is not None
    ypos = list(range(len(bars)))
    values = [(b["pct_ref"] if has_ref else b["tflops"]) or 0 for b in bars]
    ax.barh(ypos, values, color=[style_of[b["benchmark"]]["color"] for b in bars],
            edgecolor="0.2", linewidth=0.5)
    hollow = [y for y, b in zip(ypos, bars) if b["noisy"]]
    ax.barh(hollow, [values[y] for y in hollow], color="none", edgecolor="white",
            hatch="///", linewidth=0)
    ax.set_yticks(ypos, [b["label"] for b in bars], fontsize=8)
    ax.invert_yaxis()  # run order top to bottom: the ladder reads downwards
    for y, b, v in zip(ypos, bars, values):
        flag = " !" if b["throttle"] else ""
        ax.text(v, y, _bar_text(b, has_ref) + flag, va="center", fontsize=7,
                color=S.FLAG if flag else "black")
    _panel_axis(ax, panel, max(values + [100.0 if has_ref else 0.0]))


def _ladder_caption(panels: list[dict], gpu: bool) -> str:
    refs = any(p["reference"] for p in panels)
    text = ("Every benchmark at the largest size all GPU benchmarks of its precision "
            "measured" if gpu else "Every benchmark at the largest size they all measured")
    text += " (best over other axes such as the tile)"
    text += ", one panel per precision" if len(panels) > 1 else ""
    if refs:
        text += (", as a share of the cuBLAS of the same precision at that size (the black "
                 "bar and line at 100 %; the run's pct_ref column, or reference median / "
                 "median)")
    text += ". Labels give " + ("the share and TFLOP/s." if refs else "TFLOP/s.")
    if gpu:
        text += (" Rungs are named by benchmark; the kernel table below names the kernels "
                 "each launched.")
    bars = [b for p in panels for b in p["rows"]]
    text += " Hatched bars: noisy points." if any(b["noisy"] for b in bars) else ""
    if any(b["throttle"] for b in bars):
        text += " Red labels with '!': a throttle reason can have slowed the point."
    return text


def ladder_figure(run: Run, out_dir: Path, name: str, rows: list[Result] | None = None,
                  section: str = SECTION, what: str = "Matmul FP32 ladder") -> F.Figure | None:
    rows = fp32_rows(run) if rows is None else rows
    data = ladder_data(run, rows)
    panels = [p for p in data["panels"] if p["rows"]] if data else []
    if not panels:
        return None
    style_of = styles(rows)
    heights = [0.34 * (len(p["rows"]) + 1) + 1.3 for p in panels]
    fig = F.blank_figure(8.5, sum(heights) + 0.5)
    grid = fig.add_gridspec(len(panels), 1, height_ratios=heights)
    for i, panel in enumerate(panels):
        _draw_panel(fig.add_subplot(grid[i, 0]), panel, style_of)
    title = f"{what}: each rung against the cuBLAS of its precision — {run.label}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    caption = _ladder_caption(panels, any(not r.is_host for r in rows))
    return F.save(fig, out_dir, name, data, section, title, caption)


def kernel_table(rows: list[Result], caption_what: str = "ladder") -> Table | None:
    """Rung, precision, the kernels CUPTI saw (template arguments where the
    run recorded them) and the rung's configuration (its note), one line per
    benchmark in run order."""
    body = []
    for bench in ordered_unique(r.benchmark for r in rows):
        row = next(r for r in rows if r.benchmark == bench)
        kernels = " | ".join(frameworks.kernel_text_full(k) for k in row.kernels.split("|")
                             if k.strip())
        note = row.note.split("; throttled:")[0]
        body.append([rung_name(bench), precision_of(row), bench, kernels or "(none recorded)",
                     note])
    if not body:
        return None
    return Table(["rung", "precision", "benchmark", "kernels CUPTI saw", "configuration (note)"],
                 body, f"What each {caption_what} rung launched. CUPTI names a kernel without "
                       f"its template arguments unless the run recorded them, so two rungs "
                       f"of one template show one name: their configurations tell them apart.",
                 collapsed=len(body) > 16, numeric=False)


def _kind(bench: str) -> str:
    """What a benchmark is on a ladder chart: rung, reference, cpu, framework."""
    if is_reference(bench):
        return "reference"
    if _is_host(bench):
        return "cpu"
    return "framework" if frameworks.is_framework_bench(bench) else "rung"


def _caption(rows: list[Result], chart: F.LineChart, precision_word: str) -> str:
    xaxis = size_axis(rows)
    best_of = any(has_other_configs([r for r in rows if r.benchmark == b], xaxis)
                  for b in {r.benchmark for r in rows})
    kinds = {_kind(b) for b in ordered_unique(r.benchmark for r in rows)}
    words = {"rung": f"every rung of the {precision_word} ladder (one colour per rung)",
             "reference": "the cuBLAS reference (black diamonds)",
             "cpu": "the CPU baselines (browns, squares)",
             "framework": "the Python frameworks' matmuls of the same run (triangles)"}
    drawn = [text for kind, text in words.items() if kind in kinds]
    return ("TFLOP/s against matrix size, solid lines: " + ", ".join(drawn)
            + ("; each point is the best over the other axes (e.g. tile)" if best_of else "")
            + "." + F.flag_note(chart))


def _ladder_blocks(run: Run, out_dir: Path, name: str, rows: list[Result], kernels_what: str,
                   *section) -> list:
    """What ends a ladder's section: its bars and its kernel table, those
    that have anything. `section`: ladder_figure's section and heading where
    they are not the FP32 ladder's."""
    ladder = ladder_figure(run, out_dir, name, rows, *section)
    table = kernel_table([r for r in rows if not r.is_host], kernels_what)
    return [block for block in (ladder, table) if block]


def figures(run: Run, out_dir: Path, prefix: str) -> list:
    """The FP32 ladder: TFLOP/s against size, the bars, the kernel table."""
    rows = fp32_rows(run)
    chart = line_chart(run, rows)
    if not chart:
        return []
    blocks: list = [F.save_line_chart(chart, out_dir, f"{prefix}matmul_tflops_vs_size", SECTION,
                                      _caption(rows, chart, "FP32"), outside=True)]
    return blocks + _ladder_blocks(run, out_dir, f"{prefix}matmul_ladder", rows, "FP32")


def tensor_figures(run: Run, out_dir: Path, prefix: str) -> list:
    """The tensor-core ladder and every other precision: one TFLOP/s panel
    per precision, the bars against cuBLAS of each precision, the kernels."""
    rows = tensor_rows(run)
    precs = precisions(rows)
    if not rows or not precs:
        return []
    charts = [line_chart(run, [r for r in rows if precision_of(r) == p], p,
                         title=f"{p}") for p in precs]
    pairs = [(p, c) for p, c in zip(precs, charts) if c]
    F.unify_scales([c for _, c in pairs])
    blocks: list = []
    if pairs:
        blocks.append(_panels_figure(run, pairs, out_dir, f"{prefix}matmul_tc_tflops_vs_size",
                                     rows))
    return blocks + _ladder_blocks(run, out_dir, f"{prefix}matmul_tc_ladder", rows, "tensor-core",
                                   TC_SECTION, "Tensor-core ladder")


def _panels_figure(run: Run, pairs: list, out_dir: Path, name: str,
                   rows: list[Result]) -> F.Figure:
    """One TFLOP/s-against-size panel per precision, side by side, each with
    its own legend under it (its cuBLAS labelled as the reference)."""
    width = 5.2 * len(pairs)
    entries = max(len(c.series) for _, c in pairs)
    legend_h = 0.19 * entries + 0.3
    fig = F.blank_figure(max(width, 7.0), 3.9 + legend_h)
    grid = fig.add_gridspec(2, len(pairs), height_ratios=[3.9, legend_h], hspace=0.35)
    for i, (prec, chart) in enumerate(pairs):
        ax = fig.add_subplot(grid[0, i])
        F.draw_line_chart(ax, chart, legend=False)
        ax.set_title(prec, fontsize=10)
        slot = fig.add_subplot(grid[1, i])
        slot.axis("off")
        handles, labels = ax.get_legend_handles_labels()
        slot.legend(handles, labels, fontsize=7, loc="upper center", frameon=False)
    title = f"Tensor-core ladder and other precisions: TFLOP/s against size — {run.label}"
    fig.suptitle(title, fontsize=10)
    data = {"kind": "panels", "panels": [{"precision": p, **c.data()} for p, c in pairs],
            "rows": [{"precision": p, "series": s.label, "x": x, "y": y, "id": i}
                     for p, c in pairs for s in c.series for x, y, i in zip(s.x, s.y, s.ids)]}
    caption = ("One panel per precision: every rung of that precision (one colour per rung, "
               "the same in every panel), its cuBLAS reference (black diamonds)"
               + (" and the Python frameworks' matmuls (triangles)"
                  if any(frameworks.is_framework(r) for r in rows) else "")
               + ", TFLOP/s against size."
               + F.flag_note(F.LineChart("", "", "", [s for _, c in pairs for s in c.series])))
    return F.save(fig, out_dir, name, data, TC_SECTION, title, caption)
