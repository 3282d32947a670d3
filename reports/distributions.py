"""Sample distributions of the points the stopping rule could not settle.

A `noisy` point's time budget ran out, or was seen to be too short, before the
confidence interval of its median was narrow enough. Its median alone hides why: a second mode
(clock changes, another process), a long tail, or plain spread. The raw
samples show which, so the noisiest few are drawn as box plots with every
sample on top, each in its own panel with its own time unit (the points
differ by orders of magnitude).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import figure as F
from . import style as S
from .load import Run

SECTION = "Noisy points"
LIMIT = 12
SHOWN = 400  # samples drawn per panel (a fixed random subset beyond that)


def noisy_points(run: Run, limit: int = LIMIT):
    """The noisiest `limit` noisy points that have samples, widest CI first."""
    rows = [r for r in run.results if r.status == "noisy" and run.samples.get(r.identity)]
    rows.sort(key=lambda r: -(r.num["ci_rel_half"] or 0.0))
    return rows[:limit]


def _whiskers(s: np.ndarray) -> dict:
    """The box plot's whiskers: the most extreme samples within 1.5 IQR."""
    q1, q3 = np.percentile(s, 25), np.percentile(s, 75)
    inside = s[(s >= q1 - 1.5 * (q3 - q1)) & (s <= q3 + 1.5 * (q3 - q1))]
    return {"whisker_lo_s": float(inside.min()), "whisker_hi_s": float(inside.max())}


def distribution_data(run: Run, limit: int = LIMIT) -> dict | None:
    rows = noisy_points(run, limit)
    if not rows:
        return None
    records = []
    shown = {}
    rng = np.random.default_rng(0)  # a fixed subset: the same report twice is the same
    for r in rows:
        s = np.asarray(run.samples[r.identity])
        pick = s if len(s) <= SHOWN else np.sort(rng.choice(s, SHOWN, replace=False))
        shown[r.label()] = [float(v) for v in pick]
        records.append({"id": r.label(), "benchmark": r.benchmark, "axes": r.axes_text,
                        "samples": len(s), "sample_median_s": float(np.median(s)),
                        "sample_q1_s": float(np.percentile(s, 25)),
                        "sample_q3_s": float(np.percentile(s, 75)),
                        **_whiskers(s),
                        "results_median_s": r.median_s,
                        "ci_rel_half": r.num["ci_rel_half"], "reason": r.reason})
    return {"kind": "distributions", "rows": records,
            "samples_shown": f"every sample up to {SHOWN} per point, else a fixed random "
                             f"{SHOWN} of them; every sample is in samples.csv",
            "samples_s": shown}


def figure(run: Run, out_dir: Path, name: str) -> F.Figure | None:
    """The noisiest points side by side on one axis: each sample over its
    point's median (the points differ by orders of magnitude; their spread
    is what is compared), a box from every sample, the drawn samples on it."""
    data = distribution_data(run)
    if not data:
        return None
    rows = data["rows"]
    fig, ax = F.new_figure(max(7.5, 0.75 * len(rows) + 2.5), 4.8)
    rng = np.random.default_rng(0)  # fixed jitter: the same report twice is the same
    stats = []
    for rec in rows:
        med = rec["sample_median_s"]
        stats.append({"med": 1.0, "q1": rec["sample_q1_s"] / med, "q3": rec["sample_q3_s"] / med,
                      "whislo": rec["whisker_lo_s"] / med, "whishi": rec["whisker_hi_s"] / med,
                      "fliers": []})
    ax.bxp(stats, widths=0.55, showfliers=False, medianprops={"color": S.FLAG})
    xs, ys = [], []
    for i, rec in enumerate(rows, start=1):
        shown = np.asarray(data["samples_s"][rec["id"]]) / rec["sample_median_s"]
        xs += list(i + rng.uniform(-0.2, 0.2, len(shown)))
        ys += list(shown)
    ax.scatter(xs, ys, s=4, alpha=0.35, color=S.color(0), zorder=3, rasterized=True)
    labels = [f"{i}. {rec['benchmark'].partition('/')[2]}\n"
              + (f"CI ±{100 * rec['ci_rel_half']:.1f}%" if rec["ci_rel_half"] else "")
              for i, rec in enumerate(rows, start=1)]
    ax.set_xticks(range(1, len(rows) + 1), labels, fontsize=7, rotation=35, ha="right")
    ax.set_ylabel("sample time / the point's median sample time")
    ax.axhline(1.0, color="0.6", linewidth=0.8)
    if max(ys) / min(ys) > 8:
        F.apply_scale(ax, "y", "log10")
    ax.grid(True, axis="y", alpha=0.3)
    title = f"Sample distributions of noisy points — {run.label}"
    ax.set_title(title, fontsize=10)
    total = len([r for r in run.results if r.status == "noisy"])
    points = "; ".join(f"{i}. {rec['id']} (n = {rec['samples']}, median "
                       f"{F.fmt_time(rec['sample_median_s'])})"
                       for i, rec in enumerate(rows, start=1))
    caption = (f"The {len(rows)} noisiest of {total} noisy point(s), widest confidence "
               f"interval of the median first, each sample divided by its point's median: "
               f"box (quartiles, red median, whiskers at 1.5 IQR, from every sample) and the "
               f"raw samples (up to {SHOWN} per point, a fixed random subset beyond). "
               f"Points: {points}.")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)
