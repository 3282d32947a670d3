"""Where the time went: seconds per phase of each point, summed by family.

A run's wall time is mostly not sampling: buffers are allocated and filled,
every point is verified before it is timed, and warmed up. When results.csv
has the phase columns (setup_s, verify_s, warmup_s, sampling_s, teardown_s),
this figure stacks them per family, so a reader sees what a faster run
would have to cut. Runs without the columns get no figure (and no word:
nothing is missing from what they promise).
"""

from __future__ import annotations

from pathlib import Path

from . import figure as F
from . import style as S
from .load import PHASE_COLUMNS, Run

SECTION = "Summary"


def phase_data(run: Run) -> dict | None:
    rows = [r for r in run.results if any(r.num.get(c) is not None for c in PHASE_COLUMNS)]
    if not rows:
        return None
    families = []
    for r in rows:
        if r.family not in families:
            families.append(r.family)
    out = []
    for fam in families:
        frows = [r for r in rows if r.family == fam]
        out.append({"family": fam, "points": len(frows),
                    **{c: sum(r.num.get(c) or 0.0 for r in frows) for c in PHASE_COLUMNS}})
    return {"kind": "phases", "phases": list(PHASE_COLUMNS), "rows": out,
            "total_s": sum(sum(r[c] for c in PHASE_COLUMNS) for r in out)}


def figure(run: Run, out_dir: Path, name: str) -> F.Figure | None:
    data = phase_data(run)
    if not data:
        return None
    rows = data["rows"]
    fig, ax = F.new_figure(8.5, 0.36 * len(rows) + 1.8)
    ypos = list(range(len(rows)))
    left = [0.0] * len(rows)
    for i, phase in enumerate(data["phases"]):
        widths = [r[phase] for r in rows]
        ax.barh(ypos, widths, left=left, color=S.color(i), label=phase.removesuffix("_s"),
                edgecolor="white", linewidth=0.4)
        left = [a + b for a, b in zip(left, widths)]
    for y, total, r in zip(ypos, left, rows):
        ax.text(total, y, f" {total:.1f} s ({r['points']} points)", va="center", fontsize=7)
    F.bar_rows_frame(ax, [r["family"] for r in rows], max(left + [1e-9]) * 1.3,
                     "seconds (sum over the family's points)", legend_cols=len(data["phases"]))
    title = f"Where the time went — {run.label}"
    ax.set_title(title, fontsize=10)
    caption = (f"Seconds spent per phase of each point (results.csv setup_s, verify_s, "
               f"warmup_s, sampling_s, teardown_s), summed over each family's points: "
               f"{data['total_s']:.1f} s in all.")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)
