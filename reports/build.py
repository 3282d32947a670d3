"""Assemble the report: load every run, draw what each holds, write the page.

Every input is loaded and validated before anything is written, so a broken
directory leaves no half-made report behind. The page opens with the key
figures of each GPU; then each family that has figures tells its story
(vector add, the FP32 matmul ladder, the tensor-core ladder, transfers,
multi-GPU), and any other family gets a generic chart and its table. With
several runs the comparison comes first: an A/B page when every run is the
same GPU model, a hardware comparison when they differ (compare.py).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from . import compare, counters, distributions, environment, html, keyfigures, phases
from . import roofline, telemetry
from . import figures_generic, figures_matmul, figures_multigpu, figures_transfers, figures_vecadd
from .figure import slug
from .load import Run, display_text, load_run, split_devices
from .output import make_dir, write_file
from .page import Page, Paragraph, Section, Table
from .tables import not_measured, results_table, status_summary

# Families with figures of their own: (draw, section title). matmul_tc is
# drawn with every other precision's rows (tensor_figures).
FAMILY_FIGURES = {
    "vecadd": (figures_vecadd.figures, "Vector add"),
    "matmul": (figures_matmul.figures, "Matmul: the FP32 ladder"),
    "matmul_tc": (figures_matmul.tensor_figures, "Tensor-core ladder"),
    "transfers": (figures_transfers.figures, "Transfers"),
    "p2p": (figures_multigpu.p2p_figures, figures_multigpu.P2P_SECTION),
    "nccl": (figures_multigpu.NCCL.figures, figures_multigpu.NCCL_SECTION),
}


def _run_summary(run: Run, out_dir: Path, prefix: str) -> list:
    meta = run.meta
    text = (f"{run.label}: {len(run.results)} point(s) from {display_text(str(run.path))}. "
            f"Started {meta.get('started', '?')}, finished {meta.get('finished', '?')}.")
    blocks: list = [Paragraph(text)]
    if meta.get("complete") is False or meta.get("interrupted"):
        blocks.append(Paragraph("This run did not finish normally (meta.json: complete = "
                                f"{meta.get('complete')}, interrupted = "
                                f"{meta.get('interrupted')}); it holds the points that "
                                "finished."))
    if meta.get("synthetic"):
        blocks.append(Paragraph("SYNTHETIC DATA: this directory was written by a test "
                                "fixture, not measured on a GPU."))
    if not run.has_samples:
        blocks.append(Paragraph("samples.csv is missing: distributions are left out."))
    note = telemetry.missing_note(run)
    if note:
        blocks.append(note)
    blocks.append(status_summary(run))
    fig = phases.figure(run, out_dir, f"{prefix}phases")
    if fig:
        blocks.append(fig)
    return blocks


def _tensor_section_wanted(run: Run) -> bool:
    """The tensor-core section: the matmul_tc family, or a matmul of another
    precision than FP32 (cuBLAS TF32/BF16, a framework's BF16 matmul)."""
    return bool(figures_matmul.tensor_rows(run))


def family_section(run: Run, family: str, out_dir: Path, prefix: str) -> Section | None:
    rows = [r for r in run.results if r.family == family]
    table = results_table(rows, f"All {len(rows)} {family} point(s).", run=run)
    sentence = figures_multigpu.one_gpu_sentence(run, family)
    if sentence is not None:
        title = FAMILY_FIGURES[family][1]
        blocks: list = [Paragraph(sentence)]
        if family != "p2p":  # p2p's rows are all in the skipped table already
            blocks.append(table)
        return Section(title, blocks)
    if family in FAMILY_FIGURES:
        draw, title = FAMILY_FIGURES[family]
        blocks = draw(run, out_dir, prefix) or [Paragraph(f"No timed {family} point to draw.")]
        # The conditions beside the figures: clocks and power of these points.
        tele = telemetry.timeline_figure(run, out_dir, f"{prefix}telemetry_{family}", family)
        blocks += [tele] if tele else []
        return Section(title, blocks + [table])
    figs = figures_generic.figures(run, family, out_dir, prefix)
    tele = telemetry.timeline_figure(run, out_dir, f"{prefix}telemetry_{slug(family)}",
                                     family) if figs else None
    blocks = figs + ([tele] if tele else []) + [
        Paragraph(f"Every {family} point:" if figs else
                  f"No figures for this family; every {family} point:"),
        Table(table.headers, table.rows, table.caption, collapsed=len(rows) > 20,
              marked=table.marked)]
    # A stream-overlap benchmark may live in a family of its own.
    fig = figures_transfers.overlap_figure(run, out_dir, f"{prefix}{slug(family)}_overlap",
                                           family)
    return Section(f"Other: {family}", ([fig] if fig else []) + blocks)


def run_sections(run: Run, out_dir: Path, prefix: str) -> list[Section]:
    sections = [Section("Summary", _run_summary(run, out_dir, prefix))]
    families = run.families()
    if _tensor_section_wanted(run) and "matmul_tc" not in families:
        families.insert(families.index("matmul") + 1 if "matmul" in families else 0,
                        "matmul_tc")
    for family in families:
        section = family_section(run, family, out_dir, prefix)
        if section:
            sections.append(section)
    blocks = counters.figures(run, out_dir, prefix)
    if blocks:
        sections.append(Section("Hardware counters", blocks))
    fig = roofline.figure(run, out_dir, f"{prefix}roofline")
    if fig:
        sections.append(Section("Roofline", [fig]))
    fig = distributions.figure(run, out_dir, f"{prefix}noisy_distributions")
    noisy = sum(r.status == "noisy" for r in run.results)
    if fig:
        sections.append(Section("Noisy points", [fig]))
    elif noisy:
        sections.append(Section("Noisy points", [Paragraph(
            f"{noisy} noisy point(s), but samples.csv holds no samples for them.")]))
    table = not_measured(run)
    if table:
        sections.append(Section("Skipped and failed points", [table]))
    return sections


def key_figures_section(runs: list[Run], figures: list[list[dict]]) -> Section | None:
    tables = [keyfigures.table(run, figs) for run, figs in zip(runs, figures)]
    blocks = [t for t in tables if t]
    if not blocks:
        return None
    return Section("Key figures", blocks)


def build_page(runs: list[Run], out_dir: Path, warn=None) -> tuple[Page, list]:
    figures = [keyfigures.key_figures(run) for run in runs]
    sections = []
    key = key_figures_section(runs, figures)
    if key:
        sections.append(key)
    if len(runs) > 1:
        sections.append(compare.comparison_section(runs, out_dir, warn))
    for i, run in enumerate(runs, start=1):
        if len(runs) == 1:
            sections += run_sections(run, out_dir, "")
        else:
            prefix = f"run{i}_{slug(run.path.name)}/"
            sections.append(Section(f"Run {i}: {run.label}",
                                    run_sections(run, out_dir, prefix)))
    headers, rows, differs = environment.environment_table(runs)
    caption = "meta.json of each run" + (", rows that differ highlighted." if len(runs) > 1
                                         else ".")
    sections.append(Section("Environment", [Table(headers, rows, caption, collapsed=True,
                                                  marked=differs, numeric=False)]))
    labels = ", ".join(run.label for run in runs)
    title = "cubench report" + ("" if len(runs) == 1 else
                                f" — {compare.page_kind(runs)}")
    return Page(title=title, subtitle=labels, sections=sections), figures


def write_report(dirs: list[str], out_dir: str | Path, warn=None) -> Page:
    """Load `dirs`, write index.html, the figures and report.json (a manifest
    of every figure and its data files, and the key figures) under out_dir,
    return the page."""
    # A run over several devices becomes one Run per device: they are compared
    # side by side like runs of different machines.
    runs = [part for d in dirs for part in split_devices(load_run(d, warn))]
    out = Path(out_dir)
    make_dir(out)
    page, figures = build_page(runs, out, warn)
    write_file(out / "index.html", html.render(page))
    manifest = {"runs": [{"path": display_text(str(r.path)), "label": r.label, "gpu": r.gpu_name,
                          "key_figures": figs} for r, figs in zip(runs, figures)],
                "page": page.title, "figures": [asdict(f) for f in page.figures()]}
    write_file(out / "report.json", json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return page
