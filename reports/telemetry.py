"""Telemetry: the clocks and power a run's points were measured under.

A number means little without the conditions: an H200 capped by power runs
its SMs at 1.6 GHz instead of 1.98, and every TFLOP/s of that stretch is 20%
low. Schema-2 runs record, per sample, the SM clock and the clock-event
(throttle) reasons, and per point the clock range, mean power and hottest
temperature. This module draws them against time, in seconds, under each
family's figures, and says plainly when a run has none (schema 1, or a
machine without NVML).

Time: where results.csv has the phase columns (setup_s ... teardown_s), a
point's samples are placed in its sampling phase on the run's wall clock;
otherwise the axis is the time the samples themselves measured, end to end
(setup, verification and the gaps between samples left out), and its label
says so. Both panels share that axis and its extent.

A run holds up to hundreds of thousands of samples: the figure and its data
file carry them decimated to at most BUCKETS time buckets, each with its
lowest and highest SM clock and its count of throttled samples, so a dip
of one sample still shows, and the page stays light. The raw samples are in
the run's samples.csv.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from . import figure as F
from . import style as S
from .load import PHASE_COLUMNS, Result, Run
from .page import Paragraph
from .pick import ordered_unique

SECTION = "Telemetry"
BUCKETS = 600


def missing_note(run: Run) -> Paragraph | None:
    """The sentence a page shows when the run has no telemetry; None when it has."""
    if run.schema < 2:
        return Paragraph(f"Telemetry was not recorded for {run.label}: schema-1 run "
                         f"(clocks, power and throttle reasons arrived with schema 2).")
    if not run.has_telemetry:
        why = ("a run without a GPU" if run.device_info() is None
               else "no NVML where it ran")
        return Paragraph(f"Telemetry was not recorded for {run.label}: the schema-2 "
                         f"telemetry columns are empty ({why}).")
    return None


def _wall_clock(rows: list[Result]) -> bool:
    """Whether every row has the phase columns (and one replicate: with
    rounds interleaved, a point's phases are not one stretch of time)."""
    return bool(rows) and all(
        all(r.num.get(c) is not None for c in PHASE_COLUMNS)
        and (r.num.get("replicates") or 1) <= 1 for r in rows)


WALL_LABEL = "run time (s, wall clock: setup, verification and sampling)"
SAMPLED_LABEL = ("time sampled (s): the samples' own time end to end; setup, verification and "
                 "the gaps between samples left out")


def _on_wall_clock(keys: list, elapsed: np.ndarray, rows: dict) -> tuple[np.ndarray, dict]:
    """Each point's samples spread over its sampling phase, the phases of
    the points one after another from 0: x per sample, (start, end) per point."""
    x = np.empty(len(keys))
    spans: dict = {}
    cursor, pos = 0.0, 0
    for key, group in itertools.groupby(keys):
        n = len(list(group))
        within = np.cumsum(elapsed[pos:pos + n])
        r = rows.get(key)
        if r is None:  # samples of a point results.csv does not have: back to back
            x[pos:pos + n] = cursor + within
            cursor = float(x[pos + n - 1])
        else:
            begin = cursor + sum(r.num[c] for c in ("setup_s", "verify_s", "warmup_s"))
            scale = r.num["sampling_s"] / within[-1] if within[-1] > 0 else 1.0
            x[pos:pos + n] = begin + within * scale
            end = begin + r.num["sampling_s"] + r.num["teardown_s"]
            spans[key] = (cursor, end)
            cursor = end
        pos += n
    return x, spans


def _back_to_back(keys: list, elapsed: np.ndarray) -> tuple[np.ndarray, dict]:
    """The samples' own times end to end: x per sample, (start, end) per point."""
    x = np.cumsum(elapsed) if len(elapsed) else elapsed
    spans: dict = {}
    for j, key in enumerate(keys):
        start = spans[key][0] if key in spans else x[j] - elapsed[j]
        spans[key] = (start, x[j])
    return x, spans


def sample_times(run: Run, family: str | None) -> tuple[np.ndarray, list, dict, str]:
    """(x in seconds per selected sample, the selected sample indexes, per
    point identity its (start, end) in seconds, the axis label)."""
    tele = run.telemetry
    idx = tele.indexes(family)
    elapsed = np.array([tele.time_s[i] * tele.batch[i] for i in idx], dtype=float)
    keys = [tele.key[i] for i in idx]
    rows = {r.identity: r for r in run.results if family is None or r.family == family}
    if keys and _wall_clock(list(rows.values())):
        x, spans = _on_wall_clock(keys, elapsed, rows)
        return x, idx, spans, WALL_LABEL
    x, spans = _back_to_back(keys, elapsed)
    return x, idx, spans, SAMPLED_LABEL


def _buckets(x: np.ndarray, clocks: np.ndarray, hot: np.ndarray,
             reasons: list[str]) -> list[dict]:
    """At most BUCKETS equal spans of x: each with its lowest and highest
    clock, its sample count and its throttled samples (and their reasons)."""
    if not len(x):
        return []
    lo, hi = float(x[0]), float(x[-1])
    edges = np.linspace(lo, hi, min(BUCKETS, len(x)) + 1)
    starts = np.unique(np.searchsorted(x, edges[:-1], side="left"))
    starts = starts[starts < len(x)]
    cmin = np.fmin.reduceat(clocks, starts)
    cmax = np.fmax.reduceat(clocks, starts)
    hot_count = np.add.reduceat(hot.astype(int), starts)
    ends = list(starts[1:]) + [len(x)]
    out = []
    for s, e, a, b, h in zip(starts, ends, cmin, cmax, hot_count):
        out.append({"t_s": float(x[s:e].mean()), "samples": int(e - s),
                    "sm_clock_min_mhz": None if np.isnan(a) else float(a),
                    "sm_clock_max_mhz": None if np.isnan(b) else float(b),
                    "throttled_samples": int(h),
                    "throttle": "+".join(ordered_unique(
                        reasons[i] for i in range(s, e) if hot[i]))[:80] if h else ""})
    return out


def timeline_data(run: Run, family: str | None = None) -> dict | None:
    tele = run.telemetry
    rows = [r for r in run.results if (family is None or r.family == family)
            and (r.num.get("power_mean_w") is not None
                 or r.num.get("sm_clock_median_mhz") is not None)]
    x, idx, spans, xlabel = sample_times(run, family)
    clocks = np.array([np.nan if tele.sm_clock_mhz[i] is None else tele.sm_clock_mhz[i]
                       for i in idx], dtype=float)
    if not np.isfinite(clocks).any() and not rows:
        return None
    reasons = [tele.throttle[i] for i in idx]
    hot = np.array([t not in ("", "none") for t in reasons], dtype=bool)
    points = []
    for i, r in enumerate(rows):
        start, end = spans.get(r.identity, (None, None))
        points.append({"id": r.label(), "start_s": start, "end_s": end,
                       "sm_clock_min_mhz": r.num.get("sm_clock_min_mhz"),
                       "sm_clock_median_mhz": r.num.get("sm_clock_median_mhz"),
                       "sm_clock_max_mhz": r.num.get("sm_clock_max_mhz"),
                       "power_mean_w": r.num.get("power_mean_w"),
                       "temp_max_c": r.num.get("temp_max_c"), "throttle": r.throttle,
                       "throttle_affects": r.throttle_affects})
    return {"kind": "telemetry", "x_label": xlabel, "samples": int(len(idx)),
            "clocked_samples": int(np.isfinite(clocks).sum()),
            "throttled_samples": int(hot.sum()),
            "decimated": f"at most {BUCKETS} time buckets (lowest and highest clock of "
                         f"each); every sample is in samples.csv",
            "buckets": _buckets(x, clocks, hot, reasons), "rows": points}


def _power_steps(points: list[dict]) -> tuple[list, list]:
    """Each point's mean power as a level over its span: one line, NaN gaps."""
    xs, ys = [], []
    for p in points:
        if p["power_mean_w"] is None or p["start_s"] is None:
            continue
        xs += [p["start_s"], p["end_s"], np.nan]
        ys += [p["power_mean_w"], p["power_mean_w"], np.nan]
    return xs, ys


def _draw_clock(ax, buckets: list[dict]) -> bool:
    """The SM clock band (lowest to highest per bucket) and red crosses where
    a reason was active; False when no sample has a clock."""
    clocked = [b for b in buckets if b["sm_clock_min_mhz"] is not None]
    if clocked:
        ax.fill_between([b["t_s"] for b in clocked], [b["sm_clock_min_mhz"] for b in clocked],
                        [b["sm_clock_max_mhz"] for b in clocked], step="mid",
                        color=S.color(0), alpha=0.55, linewidth=0.8,
                        label="SM clock of the samples (lowest to highest per bucket)")
        hot = [b for b in clocked if b["throttled_samples"]]
        if hot:
            reasons = ", ".join(ordered_unique(b["throttle"] for b in hot))[:60]
            ax.scatter([b["t_s"] for b in hot], [b["sm_clock_min_mhz"] for b in hot],
                       color=S.FLAG, marker="x", s=14, zorder=3,
                       label=f"throttle reason active ({reasons})")
        ax.legend(fontsize=7, loc="lower left")
    ax.set_ylabel("SM clock (MHz)")
    ax.grid(True, alpha=0.3)
    return bool(clocked)


def _draw_power(ax, points: list[dict]) -> list:
    """Each point's mean power over its span, red dots on the points a
    throttle reason can have slowed; the x values drawn."""
    xs, ys = _power_steps(points)
    if xs:
        ax.plot(xs, ys, color=S.color(1), linewidth=1.2, label="mean power per point")
        flagged = [p for p in points if p["throttle_affects"] and p["start_s"] is not None
                   and p["power_mean_w"] is not None]
        if flagged:
            ax.scatter([(p["start_s"] + p["end_s"]) / 2 for p in flagged],
                       [p["power_mean_w"] for p in flagged], color=S.FLAG, marker="o",
                       s=18, zorder=3, label="point a throttle reason can have slowed")
        ax.legend(fontsize=7, loc="lower left")
    ax.set_ylabel("power (W)")
    ax.grid(True, alpha=0.3)
    return [v for v in xs if v == v]  # without the NaN gaps


def _caption(data: dict, clocked: bool) -> str:
    points = data["rows"]
    affected = sum(bool(p["throttle_affects"]) for p in points)
    active = sum(p["throttle"] not in ("", "none") for p in points)
    top = (f"Top: the SM clock NVML reported with each of {data['clocked_samples']} samples, "
           f"as the lowest and highest of each of {len(data['buckets'])} time buckets, red "
           f"crosses where a clock-event (throttle) reason was active."
           if clocked else "Top: empty, no per-sample clock in samples.csv.")
    return (f"{top} Bottom: mean board power of each point (results.csv power_mean_w) over "
            f"its span. X: {data['x_label']}. A throttle reason was active during {active} "
            f"of {len(points)} point(s); {affected} of them can have been slowed by it "
            f"(reports/conditions.py: the SM clock fell and the work runs on the SMs) and are "
            f"marked in the tables and ringed in the figures.")


def timeline_figure(run: Run, out_dir: Path, name: str,
                    family: str | None = None) -> F.Figure | None:
    data = timeline_data(run, family)
    if not data:
        return None
    fig, (top, bottom) = F.new_figure(9.0, 4.6, nrows=2, sharex=True)
    clocked = _draw_clock(top, data["buckets"])
    span = [b["t_s"] for b in data["buckets"]] + _draw_power(bottom, data["rows"])
    bottom.set_xlabel(data["x_label"])
    if span:
        bottom.set_xlim(0, max(span) * 1.01 or 1.0)  # both panels: one extent
    what = f"{family} points" if family else "all points"
    title = f"Clocks and power, {what} — {run.label}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return F.save(fig, out_dir, name, data, SECTION, title, _caption(data, clocked))


def _values(run: Run, column: str) -> list[float]:
    return [r.num[column] for r in run.results if r.num.get(column) is not None]


def summary_row(run: Run) -> list[str]:
    """Median SM clock, mean power, hottest temperature, throttled points."""
    if missing_note(run):
        return [run.label, "not recorded", "", "", ""]
    clocks = sorted(_values(run, "sm_clock_median_mhz"))
    power, temps = _values(run, "power_mean_w"), _values(run, "temp_max_c")
    timed = [r for r in run.results if r.measured and not r.is_host]
    return [run.label,
            f"{clocks[len(clocks) // 2]:.0f}" if clocks else "",
            f"{sum(power) / len(power):.0f}" if power else "",
            f"{max(temps):.0f}" if temps else "",
            f"{sum(bool(r.throttle_affects) for r in timed)} of {len(timed)} "
            f"({sum(r.throttled for r in timed)} with a reason active)"]


SUMMARY_HEADERS = ["run", "median SM clock (MHz)", "mean power (W)", "max temp (°C)",
                   "GPU points a throttle reason can have slowed"]
