"""Sample distributions of the points the stopping rule could not settle.

A `noisy` point ran out of its time budget before the confidence interval of
its median was narrow enough. Its median alone hides why: a second mode
(clock changes, another process), a long tail, or plain spread. The raw
samples show which, so the noisiest few are drawn as box plots with every
sample on top, each in its own panel with its own time unit (the points
differ by orders of magnitude).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from . import figure as F
from .load import Run

SECTION = "Noisy points"
LIMIT = 12


def noisy_points(run: Run, limit: int = LIMIT):
    """The noisiest `limit` noisy points that have samples, widest CI first."""
    rows = [r for r in run.results if r.status == "noisy" and run.samples.get(r.identity)]
    rows.sort(key=lambda r: -(r.num["ci_rel_half"] or 0.0))
    return rows[:limit]


def _title(benchmark: str, axes: str, width: int = 36) -> str:
    """Benchmark on the first line, axes packed on the next ones, broken only
    between name=value pairs so that no pair is cut in two."""
    lines, line = [benchmark], ""
    for pair in axes.split(";") if axes else []:
        candidate = f"{line};{pair}" if line else pair
        if line and len(candidate) > width:
            lines.append(line)
            candidate = pair
        line = candidate
    if line:
        lines.append(line)
    return "\n".join(lines[:4])


def distribution_data(run: Run, limit: int = LIMIT) -> dict | None:
    rows = noisy_points(run, limit)
    if not rows:
        return None
    records = []
    for r in rows:
        s = np.asarray(run.samples[r.identity])
        records.append({"id": r.label(), "benchmark": r.benchmark, "axes": r.axes_text,
                        "samples": len(s), "sample_median_s": float(np.median(s)),
                        "sample_q1_s": float(np.percentile(s, 25)),
                        "sample_q3_s": float(np.percentile(s, 75)),
                        "results_median_s": r.median_s,
                        "ci_rel_half": r.num["ci_rel_half"], "reason": r.reason})
    return {"kind": "distributions", "rows": records,
            "samples_s": {r.label(): list(run.samples[r.identity]) for r in rows}}


def figure(run: Run, out_dir: Path, name: str) -> F.Figure | None:
    data = distribution_data(run)
    if not data:
        return None
    rows = data["rows"]
    ncols = min(4, len(rows))
    nrows = math.ceil(len(rows) / ncols)
    fig, axes = F.new_figure(3.0 * ncols, 2.9 * nrows, ncols=ncols, nrows=nrows,
                             squeeze=False)
    rng = np.random.default_rng(0)  # fixed jitter: the same report twice is the same
    for ax, rec in zip(axes.flat, rows):
        samples = np.asarray(data["samples_s"][rec["id"]])
        unit, scale = F.time_unit(float(np.median(samples)))
        values = samples / scale
        ax.boxplot(values, widths=0.5, showfliers=False,
                   medianprops={"color": "tab:red"})
        shown = values if len(values) <= 2000 else rng.choice(values, 2000, replace=False)
        ax.scatter(1 + rng.uniform(-0.18, 0.18, len(shown)), shown, s=4, alpha=0.35,
                   color="tab:blue", zorder=3)
        ax.set_xticks([])
        ax.set_ylabel(f"time per run ({unit})", fontsize=8)
        ax.tick_params(labelsize=7)
        title = _title(rec["benchmark"], rec["axes"])
        ax.set_title(title, fontsize=7)
        ci = rec["ci_rel_half"]
        ax.text(0.02, 0.98, f"n={rec['samples']}" + (f"\nCI ±{100 * ci:.1f}%" if ci else ""),
                transform=ax.transAxes, va="top", fontsize=7)
    for ax in list(axes.flat)[len(rows):]:
        ax.set_visible(False)
    title = f"Sample distributions of noisy points — {run.label}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    total = len([r for r in run.results if r.status == "noisy"])
    caption = (f"Box (quartiles, red median, whiskers at 1.5 IQR) and every raw sample "
               f"of the {len(rows)} noisiest of {total} noisy point(s), widest "
               f"confidence interval of the median first.")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)
