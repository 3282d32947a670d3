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


def sample_times(run: Run, family: str | None) -> tuple[np.ndarray, list, dict, str]:
    """(x in seconds per selected sample, the selected sample indexes, per
    point identity its (start, end) in seconds, the axis label)."""
    tele = run.telemetry
    idx = tele.indexes(family)
    elapsed = np.array([tele.time_s[i] * tele.batch[i] for i in idx], dtype=float)
    keys = [tele.key[i] for i in idx]
    rows = {r.identity: r for r in run.results
            if family is None or r.family == family}
    spans: dict = {}
    if _wall_clock(list(rows.values())) and keys:
        x = np.empty(len(keys))
        cursor, pos = 0.0, 0
        order = ordered_unique(keys)
        for key in order:
            r = rows.get(key)
            n = 0
            while pos + n < len(keys) and keys[pos + n] == key:
                n += 1
            if r is None or n == 0:
                x[pos:pos + n] = cursor + np.cumsum(elapsed[pos:pos + n])
                cursor = x[pos + n - 1] if n else cursor
                pos += n
                continue
            start = cursor
            begin = cursor + sum(r.num[c] for c in ("setup_s", "verify_s", "warmup_s"))
            within = np.cumsum(elapsed[pos:pos + n])
            scale = r.num["sampling_s"] / within[-1] if within[-1] > 0 else 1.0
            x[pos:pos + n] = begin + within * scale
            cursor = begin + r.num["sampling_s"] + r.num["teardown_s"]
            spans[key] = (start, cursor)
            pos += n
        return x, idx, spans, "run time (s, wall clock: setup, verification and sampling)"
    x = np.cumsum(elapsed) if len(elapsed) else elapsed
    for j, key in enumerate(keys):
        start = x[j] - elapsed[j]
        if key in spans:
            spans[key] = (spans[key][0], x[j])
        else:
            spans[key] = (start, x[j])
    return x, idx, spans, ("time sampled (s): the samples' own time end to end; setup, "
                           "verification and the gaps between samples left out")


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


def timeline_figure(run: Run, out_dir: Path, name: str,
                    family: str | None = None) -> F.Figure | None:
    data = timeline_data(run, family)
    if not data:
        return None
    buckets, points = data["buckets"], data["rows"]
    fig, (top, bottom) = F.new_figure(9.0, 4.6, nrows=2, sharex=True)
    clocked = [b for b in buckets if b["sm_clock_min_mhz"] is not None]
    if clocked:
        ts = [b["t_s"] for b in clocked]
        top.fill_between(ts, [b["sm_clock_min_mhz"] for b in clocked],
                         [b["sm_clock_max_mhz"] for b in clocked], step="mid",
                         color=S.color(0), alpha=0.55, linewidth=0.8,
                         label="SM clock of the samples (lowest to highest per bucket)")
        hot = [b for b in clocked if b["throttled_samples"]]
        if hot:
            top.scatter([b["t_s"] for b in hot], [b["sm_clock_min_mhz"] for b in hot],
                        color=S.FLAG, marker="x", s=14, zorder=3,
                        label="throttle reason active (" + ", ".join(
                            ordered_unique(b["throttle"] for b in hot))[:60] + ")")
        top.legend(fontsize=7, loc="lower left")
    top.set_ylabel("SM clock (MHz)")
    top.grid(True, alpha=0.3)
    xs, ys = _power_steps(points)
    if xs:
        bottom.plot(xs, ys, color=S.color(1), linewidth=1.2, label="mean power per point")
        flagged = [p for p in points if p["throttle_affects"] and p["start_s"] is not None
                   and p["power_mean_w"] is not None]
        if flagged:
            bottom.scatter([(p["start_s"] + p["end_s"]) / 2 for p in flagged],
                           [p["power_mean_w"] for p in flagged], color=S.FLAG, marker="o",
                           s=18, zorder=3, label="point a throttle reason can have slowed")
        bottom.legend(fontsize=7, loc="lower left")
    bottom.set_ylabel("power (W)")
    bottom.set_xlabel(data["x_label"])
    bottom.grid(True, alpha=0.3)
    span = [b["t_s"] for b in buckets] + [v for v in xs if v == v]
    if span:
        bottom.set_xlim(0, max(span) * 1.01 or 1.0)  # both panels: one extent
    what = f"{family} points" if family else "all points"
    title = f"Clocks and power, {what} — {run.label}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    affected = sum(bool(p["throttle_affects"]) for p in points)
    active = sum(p["throttle"] not in ("", "none") for p in points)
    top_text = (f"Top: the SM clock NVML reported with each of {data['clocked_samples']} "
                f"samples, as the lowest and highest of each of {len(buckets)} time buckets, "
                f"red crosses where a clock-event (throttle) reason was active."
                if clocked else "Top: empty, no per-sample clock in samples.csv.")
    caption = (f"{top_text} Bottom: mean board power of each point (results.csv "
               f"power_mean_w) over its span. X: {data['x_label']}. A throttle reason was "
               f"active during {active} of {len(points)} point(s); {affected} of them can "
               f"have been slowed by it (reports/conditions.py: the SM clock fell and the "
               f"work runs on the SMs) and are marked in the tables and ringed in the "
               f"figures.")
    return F.save(fig, out_dir, name, data, SECTION, title, caption)


def summary_row(run: Run) -> list[str]:
    """Median SM clock, mean power, hottest temperature, throttled points."""
    if missing_note(run):
        return [run.label, "not recorded", "", "", ""]
    clocks = sorted(r.num["sm_clock_median_mhz"] for r in run.results
                    if r.num.get("sm_clock_median_mhz") is not None)
    power = [r.num["power_mean_w"] for r in run.results if r.num.get("power_mean_w") is not None]
    temps = [r.num["temp_max_c"] for r in run.results if r.num.get("temp_max_c") is not None]
    timed = [r for r in run.results if r.measured and not r.is_host]
    return [run.label,
            f"{clocks[len(clocks) // 2]:.0f}" if clocks else "",
            f"{sum(power) / len(power):.0f}" if power else "",
            f"{max(temps):.0f}" if temps else "",
            f"{sum(bool(r.throttle_affects) for r in timed)} of {len(timed)} "
            f"({sum(r.throttled for r in timed)} with a reason active)"]


SUMMARY_HEADERS = ["run", "median SM clock (MHz)", "mean power (W)", "max temp (°C)",
                   "GPU points a throttle reason can have slowed"]
