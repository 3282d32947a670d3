"""Assemble the report: load every run, draw what each holds, write the page.

Every input is loaded and validated before anything is written, so a broken
directory leaves no half-made report behind. Sections appear only for the
families a run holds; benchmarks of a family the report has no figures for
still get their table. With several runs, the first is the base of the
comparison and each run gets its own sections below it.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from . import compare, distributions, environment, html, roofline, telemetry
from . import figures_generic, figures_matmul, figures_multigpu, figures_transfers, figures_vecadd
from .figure import slug
from .load import Run, load_run, split_devices
from .output import make_dir, write_file
from .page import Page, Paragraph, Section, Table
from .tables import not_measured, results_table, status_summary

# Families with figures of their own: (module, section title).
FAMILY_FIGURES = {
    "vecadd": (figures_vecadd, "Vector add"),
    "matmul": (figures_matmul, "Matmul"),
    "transfers": (figures_transfers, "Transfers"),
    "p2p": (figures_multigpu.P2P, figures_multigpu.P2P_SECTION),
    "nccl": (figures_multigpu.NCCL, figures_multigpu.NCCL_SECTION),
}


def _run_summary(run: Run) -> list:
    meta = run.meta
    text = (f"{run.label}: {len(run.results)} point(s) from {run.path}. "
            f"Started {meta.get('started', '?')}, finished {meta.get('finished', '?')}.")
    blocks = [Paragraph(text)]
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
    return blocks


def run_sections(run: Run, out_dir: Path, prefix: str) -> list[Section]:
    sections = [Section("Summary", _run_summary(run))]
    for family in run.families():
        rows = [r for r in run.results if r.family == family]
        table = results_table(rows, f"All {len(rows)} {family} point(s).")
        if family in FAMILY_FIGURES:
            module, title = FAMILY_FIGURES[family]
            figs = module.figures(run, out_dir, prefix)
            blocks = figs or [Paragraph(f"No timed {family} point to draw.")]
            # The conditions beside the figures: clocks and power of these points.
            tele = telemetry.timeline_figure(run, out_dir, f"{prefix}telemetry_{family}", family)
            blocks += [tele] if tele else []
            sections.append(Section(title, blocks + [table]))
        else:
            figs = figures_generic.figures(run, family, out_dir, prefix)
            tele = telemetry.timeline_figure(run, out_dir, f"{prefix}telemetry_{slug(family)}",
                                             family) if figs else None
            blocks = figs + ([tele] if tele else []) + [
                Paragraph("Its points:" if figs else "No figures for this family; its points:"),
                Table(table.headers, table.rows, table.caption,
                      collapsed=len(rows) > 20, marked=table.marked)]
            # A stream-overlap benchmark may live in a family of its own.
            fig = figures_transfers.overlap_figure(run, out_dir,
                                                   f"{prefix}{slug(family)}_overlap", family)
            sections.append(Section(f"Other: {family}", ([fig] if fig else []) + blocks))
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


def comparison_section(runs: list[Run], out_dir: Path) -> Section:
    base = runs[0]
    blocks: list = [Paragraph(f"Base: {base.label}. Ratios are new / base for each "
                              f"matching point (identity = benchmark + axes).")]
    for i, new in enumerate(runs[1:], start=2):
        matches, missing, added = compare.match_runs(base, new)
        name = f"compare/ratios_run{i}_{slug(new.path.name)}"
        sub: list = [compare.summary_table(base, new, matches, missing, added)]
        fig = compare.ratio_figure(base, new, matches, out_dir, name)
        if fig:
            sub.append(fig)
        sub.append(compare.ratio_table(base, new, matches))
        unmatched = compare.unmatched_table(missing, added)
        if unmatched:
            sub.append(unmatched)
        blocks.append(Section(f"{new.label} vs {base.label}", sub))
    if compare.different_gpus(runs):  # first: what a comparison of GPUs is for
        blocks.insert(1, hardware_section(runs, out_dir))
    figs = compare.side_by_side_figures(runs, out_dir, "compare/")
    if figs:
        blocks.append(Section("Side by side", figs))
    return Section("Comparison", blocks)


def hardware_section(runs: list[Run], out_dir: Path) -> Section:
    """Different GPUs: every common point in absolute units and as a share of
    each GPU's own peak, with the conditions (telemetry) each was measured under."""
    points = compare.common_points(runs)
    blocks: list = [Paragraph(
        f"{len(points)} point(s) were timed on all {len(runs)} GPUs. Each GPU is judged "
        f"against its own stated peak; the roofline of each run (below) adds its "
        f"per-precision roofs (FP32 from the run, TF32 and BF16 tensor from a table).")]
    fig = compare.hardware_figure(runs, points, out_dir, "compare/hardware_best_points")
    if fig:
        blocks.append(fig)
    if points:
        blocks.append(compare.hardware_table(runs, points))
    blocks.append(Table(telemetry.SUMMARY_HEADERS, [telemetry.summary_row(r) for r in runs],
                        "The conditions of each run (schema-2 telemetry): median SM clock "
                        "over points, mean power, hottest temperature, and GPU points "
                        "measured while throttled.", numeric=False))
    blocks += [n for n in (telemetry.missing_note(r) for r in runs) if n]
    for i, run in enumerate(runs, start=1):
        fig = telemetry.timeline_figure(run, out_dir, f"compare/telemetry_run{i}")
        if fig:
            blocks.append(fig)
    return Section("Hardware: the same points on each GPU", blocks)


def build_page(runs: list[Run], out_dir: Path) -> Page:
    sections = []
    if len(runs) > 1:
        sections.append(comparison_section(runs, out_dir))
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
    sections.append(Section("Environment", [Table(headers, rows, caption,
                                                  marked=differs, numeric=False)]))
    labels = ", ".join(run.label for run in runs)
    title = "cubench report" + ("" if len(runs) == 1 else " — hardware comparison"
                                if compare.different_gpus(runs) else " — comparison")
    return Page(title=title, subtitle=labels, sections=sections)


def write_report(dirs: list[str], out_dir: str | Path, warn=None) -> Page:
    """Load `dirs`, write index.html, the figures and report.json (a manifest
    of every figure and its data files) under out_dir, return the page."""
    # A run over several devices becomes one Run per device: they are compared
    # side by side like runs of different machines.
    runs = [part for d in dirs for part in split_devices(load_run(d, warn))]
    out = Path(out_dir)
    make_dir(out)
    page = build_page(runs, out)
    write_file(out / "index.html", html.render(page))
    manifest = {"runs": [{"path": str(r.path), "label": r.label, "gpu": r.gpu_name}
                         for r in runs],
                "figures": [asdict(f) for f in page.figures()]}
    write_file(out / "report.json", json.dumps(manifest, indent=1) + "\n")
    return page
