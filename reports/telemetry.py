"""Telemetry: the clocks and power a run's points were measured under.

A number means little without the conditions: an H200 capped by power runs
its SMs at 1.6 GHz instead of 1.98, and every TFLOP/s of that stretch is 20%
low. Schema-2 runs record, per sample, the SM clock and the clock-event
(throttle) reasons, and per point the clock range, mean power and hottest
temperature. This module draws them as a timeline (samples in the order the
run took them) under each family's figures, and says plainly when a run has
none (schema 1, or a machine without NVML).
"""

from __future__ import annotations

from pathlib import Path

from . import figure as F
from .load import Run
from .page import Paragraph
from .pick import ordered_unique

SECTION = "Telemetry"


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


def timeline_data(run: Run, family: str | None = None) -> dict | None:
    samples = [t for t in run.telemetry
               if family is None or t.benchmark.partition("/")[0] == family]
    rows = [r for r in run.results if (family is None or r.family == family)
            and (r.num.get("power_mean_w") is not None
                 or r.num.get("sm_clock_median_mhz") is not None)]
    if not any(t.sm_clock_mhz is not None for t in samples) and not rows:
        return None
    first_sample: dict = {}
    for i, t in enumerate(samples):
        first_sample.setdefault((t.benchmark, t.axes), i)
    points = [{"id": r.label(), "first_sample": first_sample.get(r.identity),
               "sm_clock_min_mhz": r.num.get("sm_clock_min_mhz"),
               "sm_clock_median_mhz": r.num.get("sm_clock_median_mhz"),
               "sm_clock_max_mhz": r.num.get("sm_clock_max_mhz"),
               "power_mean_w": r.num.get("power_mean_w"),
               "temp_max_c": r.num.get("temp_max_c"), "throttle": r.throttle}
              for r in rows]
    return {"kind": "telemetry",
            "samples": [{"index": i, "id": f"{t.benchmark} [{t.axes}]",
                         "replicate": t.replicate, "sm_clock_mhz": t.sm_clock_mhz,
                         "throttle": t.throttle} for i, t in enumerate(samples)],
            "rows": points}


def timeline_figure(run: Run, out_dir: Path, name: str,
                    family: str | None = None) -> F.Figure | None:
    data = timeline_data(run, family)
    if not data:
        return None
    samples, points = data["samples"], data["rows"]
    fig, (top, bottom) = F.new_figure(9.0, 4.6, nrows=2, sharex=bool(samples))
    clocked = [s for s in samples if s["sm_clock_mhz"] is not None]
    if clocked:
        top.plot([s["index"] for s in clocked], [s["sm_clock_mhz"] for s in clocked],
                 color="tab:blue", linewidth=0.8, label="SM clock per sample")
        hot = [s for s in clocked if s["throttle"] not in ("", "none")]
        if hot:
            top.scatter([s["index"] for s in hot], [s["sm_clock_mhz"] for s in hot],
                        color="red", marker="x", s=14, zorder=3,
                        label="throttled sample (" + ", ".join(
                            ordered_unique(s["throttle"] for s in hot))[:60] + ")")
        top.legend(fontsize=7, loc="lower left")
    top.set_ylabel("SM clock (MHz)")
    top.grid(True, alpha=0.3)
    powered = [p for p in points if p["power_mean_w"] is not None]
    xs = [p["first_sample"] if p["first_sample"] is not None and samples else i
          for i, p in enumerate(powered)]
    if powered:
        # Each point's level runs to the end of its samples (the last to the end).
        end = len(samples) if samples else len(powered)
        bottom.step(xs + [end], [p["power_mean_w"] for p in powered] + [powered[-1]["power_mean_w"]],
                    where="post", color="tab:orange", linewidth=1.0, label="mean power per point")
        flagged = [(x, p) for x, p in zip(xs, powered) if p["throttle"] not in ("", "none")]
        if flagged:
            bottom.scatter([x for x, _ in flagged], [p["power_mean_w"] for _, p in flagged],
                           color="red", marker="o", s=18, zorder=3,
                           label="point measured while throttled")
        bottom.legend(fontsize=7, loc="lower left")
    bottom.set_ylabel("power (W)")
    bottom.set_xlabel("sample, in the order the run took them" if samples
                      else "point, in run order")
    bottom.grid(True, alpha=0.3)
    what = f"{family} points" if family else "all points"
    title = f"Clocks and power, {what} — {run.label}"
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    throttled = sum(p["throttle"] not in ("", "none") for p in points)
    top_text = (f"Top: the SM clock NVML reported with each sample ({len(clocked)} samples), "
                f"red crosses where a clock-event (throttle) reason was active."
                if clocked else "Top: empty, no per-sample clock in samples.csv.")
    caption = (f"{top_text} Bottom: mean board power of each point (results.csv "
               f"power_mean_w)" + (", starting at the point's first sample" if samples else
                                   ", in run order")
               + f". {throttled} of {len(points)} point(s) were measured while throttled; "
               f"their rows are marked in the tables and ringed in red in the figures.")
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
            f"{sum(r.throttled for r in timed)} of {len(timed)}"]


SUMMARY_HEADERS = ["run", "median SM clock (MHz)", "mean power (W)", "max temp (°C)",
                   "throttled GPU points"]
