"""Comparing runs: an A/B page for one GPU model, a hardware page for several.

The first directory given is the base; every other run is compared with it
point by point, a point being matched by its identity (benchmark + axes) and
only when both runs timed it. What the page is depends on what is compared:

- the same GPU model in every run (two H200s, two builds on one GPU): an A/B
  comparison. Its question is "did something change", so it shows, first,
  every condition that differs (settings, build, driver, clocks, power,
  what the GPU did while measured), then each point's time ratio with the
  verdict and confidence interval of `cubench compare` (the test CI runs),
  when the binary is there;
- different GPU models: a hardware comparison (hardware.py), with the same
  conditions first, then each point in absolute units and as a share of each
  GPU's own peak.

Each ratio is drawn once: by the A/B figure, or by the hardware figure.
The side-by-side charts below draw absolute values, one panel per run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import binary, environment, hardware, sidebyside, telemetry
from . import figure as F
from . import style as S
from .load import Result, Run
from .page import Paragraph, Section, Table
from .pick import ordered_unique, throughput

SECTION = "Comparison"
VERDICT_COLORS = {"slower": "#d62728", "faster": "#2ca02c", "same": "#737373",
                  "inconclusive": "#1f77b4"}


@dataclass
class Match:
    base: Result
    new: Result

    @property
    def benchmark(self) -> str:
        return self.base.benchmark

    @property
    def axes(self) -> str:
        return self.base.axes_text

    @property
    def time_ratio(self) -> float:
        """new median / base median: below 1 means the new run is faster."""
        return self.new.median_s / self.base.median_s

    @property
    def unit(self) -> str:
        return throughput(self.base)[1]

    @property
    def base_throughput(self) -> float | None:
        return throughput(self.base)[0]

    @property
    def new_throughput(self) -> float | None:
        value, unit = throughput(self.new)
        return value if unit == self.unit else None

    @property
    def throughput_ratio(self) -> float | None:
        """new / base throughput: above 1 means the new run does more per second."""
        if self.base_throughput and self.new_throughput is not None:
            return self.new_throughput / self.base_throughput
        return None

    def record(self) -> dict:
        return {"benchmark": self.benchmark, "axes": self.axes,
                "base_median_s": self.base.median_s, "new_median_s": self.new.median_s,
                "time_ratio": self.time_ratio, "unit": self.unit,
                "base_throughput": self.base_throughput,
                "new_throughput": self.new_throughput,
                "throughput_ratio": self.throughput_ratio}


def match_runs(base: Run, new: Run) -> tuple[list[Match], list[Result], list[Result]]:
    """(matched points in base order, points only base timed, only new timed)."""
    base_rows = {r.identity: r for r in base.results if r.measured}
    new_rows = {r.identity: r for r in new.results if r.measured}
    matches = [Match(r, new_rows[k]) for k, r in base_rows.items() if k in new_rows]
    missing = [r for k, r in base_rows.items() if k not in new_rows]
    added = [r for k, r in new_rows.items() if k not in base_rows]
    return matches, missing, added


def geomean(values: list[float]) -> float:
    return float(math.exp(np.mean(np.log(values))))


def geomean(values: list[float]) -> float:
    return float(math.exp(np.mean(np.log(values))))


def same_model(runs: list[Run]) -> bool:
    """Whether every run is the same GPU model (by name; CPU-only runs by
    their CPU): an A/B comparison rather than a hardware one."""
    names = {(r.gpu_name, hardware.cpu_name(r) if r.gpu_name == "no GPU" else "")
             for r in runs}
    return len(names) == 1


def different_gpus(runs: list[Run]) -> bool:
    return not same_model(runs)


def page_kind(runs: list[Run]) -> str:
    return "A/B comparison" if same_model(runs) else "hardware comparison"


def ratio_table(base: Run, new: Run, matches: list[Match],
                verdicts: dict | None = None) -> Table:
    rows = []
    for m in matches:
        v = (verdicts or {}).get((m.benchmark, m.axes), {})
        ci = (f"[{float(v['ci_lo']):.4f}, {float(v['ci_hi']):.4f}]"
              if v.get("ci_lo") and v.get("ci_hi") else "")
        rows.append([m.benchmark, m.axes, F.fmt_time(m.base.median_s),
                     F.fmt_time(m.new.median_s), f"{m.time_ratio:.4f}",
                     v.get("verdict", ""), ci, F.fmt(m.base_throughput),
                     F.fmt(m.new_throughput), m.unit])
    return Table(["benchmark", "axes", "base median", "new median", "time new/base",
                  "verdict", "ratio CI (compare)", "base", "new", "unit"], rows,
                 f"Every matching point (identity = benchmark + axes), {new.label} / "
                 f"{base.label}: median times, their ratio, and cubench compare's verdict "
                 f"and interval where it ran.", collapsed=True)


def unmatched_table(missing: list[Result], added: list[Result]) -> Table | None:
    rows = ([[r.benchmark, r.axes_text, "base only"] for r in missing]
            + [[r.benchmark, r.axes_text, "new only"] for r in added])
    if not rows:
        return None
    return Table(["benchmark", "axes", "timed in"], rows,
                 "Points timed in one run only (absent, skipped or failed in the other).",
                 collapsed=len(rows) > 10, numeric=False)


def _verdicts(base: Run, new: Run) -> tuple[dict, str]:
    """{(benchmark, axes): compare's row} and why it is empty when it is."""
    if base.path == new.path:
        return {}, "both sides come from one run directory (its devices): no verdicts"
    rows, why = binary.compare_verdicts(base.path, new.path)
    if rows is None:
        return {}, why
    return {(r["benchmark"], r["axes"]): r for r in rows}, ""


def _number(row: dict | None, column: str) -> float | None:
    """A number of compare's CSV row, None when there is no row or no value."""
    text = (row or {}).get(column, "")
    return float(text) if text else None


def ab_record(m: Match, v: dict | None) -> dict:
    """One point of the A/B figure: compare's ratio, CI and verdict where it
    ran (v), else the ratio of the medians."""
    ratio = _number(v, "ratio")
    return {"benchmark": m.benchmark, "axes": m.axes,
            "time_ratio": m.time_ratio if ratio is None else ratio,
            "ci_lo": _number(v, "ci_lo"), "ci_hi": _number(v, "ci_hi"),
            "verdict": (v or {}).get("verdict", ""),
            "source": "cubench compare" if v else "medians",
            "base_median_s": m.base.median_s, "new_median_s": m.new.median_s,
            "throughput_ratio": m.throughput_ratio, "unit": m.unit}


def _draw_verdict(ax, pick: list[tuple[dict, float]], verdict: str, label: str | None) -> None:
    """The points of one verdict on one benchmark's row, with their CIs."""
    color = VERDICT_COLORS.get(verdict, S.color(0))
    withci = [(r, y) for r, y in pick if r["ci_lo"] and r["ci_hi"]]
    if withci:
        ax.errorbar([r["time_ratio"] for r, _ in withci], [y for _, y in withci],
                    xerr=[[r["time_ratio"] - r["ci_lo"] for r, _ in withci],
                          [r["ci_hi"] - r["time_ratio"] for r, _ in withci]],
                    fmt="none", ecolor=color, elinewidth=0.7, alpha=0.6)
    ax.scatter([r["time_ratio"] for r, _ in pick], [y for _, y in pick], s=12, color=color,
               zorder=3, label=label)


def _draw_ratios(ax, usable: list[dict], benches: list[str]) -> None:
    rng = np.random.default_rng(0)  # fixed jitter: the same report twice is the same
    labelled: set[str] = set()
    for i, bench in enumerate(benches):
        mine = [r for r in usable if r["benchmark"] == bench]
        ys = i + rng.uniform(-0.18, 0.18, len(mine))
        for verdict in ordered_unique(r["verdict"] for r in mine):
            pick = [(r, y) for r, y in zip(mine, ys) if r["verdict"] == verdict]
            _draw_verdict(ax, pick, verdict,
                          verdict if verdict and verdict not in labelled else None)
            labelled.add(verdict)
        ax.scatter([geomean([r["time_ratio"] for r in mine])], [i], marker="|", s=220,
                   color="black", zorder=4)


def ab_figure(base: Run, new: Run, matches: list[Match], verdicts: dict, out_dir: Path,
              name: str) -> F.Figure | None:
    """Each point's time ratio new/base, one row per benchmark: compare's
    ratio, interval and verdict (colour) where it ran, else the ratio of the
    medians; a tick at each benchmark's geometric mean."""
    records = [ab_record(m, verdicts.get((m.benchmark, m.axes))) for m in matches]
    usable = [r for r in records if r["time_ratio"] > 0]
    if not usable:
        return None
    benches = ordered_unique(r["benchmark"] for r in usable)
    fig, ax = F.new_figure(8.5, 0.32 * len(benches) + 1.9)
    _draw_ratios(ax, usable, benches)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(benches)), benches, fontsize=8)
    ax.invert_yaxis()
    values = [r["time_ratio"] for r in usable] + [1.0]
    if max(values) / min(values) > 4:
        F.apply_scale(ax, "x", "log10")
    ax.set_xlabel("time ratio new / base (above 1: new is slower)")
    title = f"{new.label} vs {base.label}"
    ax.set_title(title, fontsize=10)
    ax.grid(True, axis="x", alpha=0.3)
    judged = any(r["source"] == "cubench compare" for r in usable)
    if judged:
        ax.legend(fontsize=7, loc="lower right", title="cubench compare", title_fontsize=7)
    caption = ("Time ratio new / base of every matching point, one row per benchmark; the "
               "black tick is the benchmark's geometric mean. "
               + ("Ratios, whiskers (the ratio's confidence interval) and colours (the "
                  "verdict) are cubench compare's: its test on the replicate medians with a "
                  "minimum effect and a between-run spread (docs/compare.md)."
                  if judged else "Ratios of the medians; no verdicts (see above)."))
    return F.save(fig, out_dir, name, {"kind": "ratios", "base": base.label,
                                       "new": new.label, "rows": records},
                  SECTION, title, caption)


def verdict_summary(verdicts: dict) -> Paragraph | None:
    if not verdicts:
        return None
    counts: dict[str, int] = {}
    for v in verdicts.values():
        counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
    order = ("slower", "faster", "same", "inconclusive", "missing", "new", "untimed")
    text = ", ".join(f"{counts[k]} {k}" for k in order if k in counts)
    return Paragraph(f"cubench compare: {text} (slower and faster: a confirmed change of at "
                     f"least its minimum effect, after the false-discovery-rate correction).")


def ab_section(base: Run, new: Run, out_dir: Path, name: str) -> Section:
    matches, missing, added = match_runs(base, new)
    verdicts, why = _verdicts(base, new)
    blocks: list = []
    summary = verdict_summary(verdicts)
    blocks.append(summary or Paragraph(f"No verdicts: {why}. The ratios below are of the "
                                       f"medians; `cubench compare` tests them."))
    fig = ab_figure(base, new, matches, verdicts, out_dir, name)
    if fig:
        blocks.append(fig)
    blocks.append(ratio_table(base, new, matches, verdicts))
    unmatched = unmatched_table(missing, added)
    if unmatched:
        blocks.append(unmatched)
    return Section(f"{new.label} vs {base.label}", blocks)


def conditions_blocks(runs: list[Run]) -> list:
    """What differs between the runs, first: meta.json's settings, build,
    driver and device fields, then what each GPU did while measured."""
    base = runs[0]
    lead = (f"An A/B comparison: every run is {base.gpu_name}, so what differs is the "
            f"software, the settings or the conditions; they come first."
            if same_model(runs) else
            f"A hardware comparison of {len(ordered_unique(r.gpu_name for r in runs))} GPU "
            f"models: each is judged against its own peaks. The conditions that differ come "
            f"first.")
    blocks: list = [Paragraph(f"Base: {base.label}. {lead}")]
    blocks.append(environment.differences_table(runs) or Paragraph(
        "No setting, build, driver or device field of meta.json differs between the runs."))
    if any(r.has_telemetry for r in runs):
        blocks.append(Table(telemetry.SUMMARY_HEADERS, [telemetry.summary_row(r) for r in runs],
                            "What each GPU did while measured (schema-2 telemetry): median "
                            "SM clock over points, mean power, hottest temperature, points a "
                            "throttle reason can have slowed.", numeric=False, sortable=False))
    return blocks + [n for n in (telemetry.missing_note(r) for r in runs) if n]


def hardware_blocks(runs: list[Run], out_dir: Path) -> list:
    """Different GPU models: each point in absolute units and as a share of
    each GPU's own peak, then the points one run lacks."""
    points = hardware.common_points(runs)
    blocks: list = [Paragraph(f"{len(points)} point(s) were timed on all {len(runs)} runs.")]
    fig = hardware.hardware_figure(runs, points, out_dir, "compare/hardware_best_points")
    blocks += [fig, hardware.hardware_table(runs, points)] if fig else []
    for new in runs[1:]:
        missing, added = match_runs(runs[0], new)[1:]
        unmatched = unmatched_table(missing, added)
        if unmatched:
            blocks.append(Section(f"{new.label} vs {runs[0].label}: unmatched points",
                                  [unmatched]))
    return blocks


def comparison_section(runs: list[Run], out_dir: Path, warn=None) -> Section:
    blocks = conditions_blocks(runs)
    if same_model(runs):
        blocks += [ab_section(runs[0], new, out_dir,
                              f"compare/ratios_run{i}_{F.slug(new.path.name)}")
                   for i, new in enumerate(runs[1:], start=2)]
    else:
        blocks += hardware_blocks(runs, out_dir)
    # Each run's clocks and power are drawn once, in its own sections: the
    # table above sums them up here (a second timeline would repeat the data).
    side = sidebyside.figures(runs, out_dir, "compare/")
    if side:
        blocks.append(Section("Side by side", side))
    kind = page_kind(runs)
    return Section(kind[0].upper() + kind[1:], blocks)
