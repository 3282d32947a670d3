"""Tables of results: the status summary, what did not run, and the generic
per-benchmark table used for families the report has no figures for.

A benchmark the report does not know still deserves its numbers on the page;
and a point that was skipped or failed must be seen with its reason, never
silently missing from a chart.
"""

from __future__ import annotations

from .figure import fmt, fmt_time
from .load import STATUSES, Result, Run
from .page import Table

RESULT_HEADERS = ["benchmark", "axes", "status", "samples", "median", "CI ±%",
                  "GB/s", "TFLOP/s", "% peak", "% ref", "occupancy", "reason / note"]


def _pct(value: float | None) -> str:
    return "" if value is None else f"{value:.1f}"


def result_row(r: Result) -> list[str]:
    ci = r.num["ci_rel_half"]
    samples = r.num["samples"]
    occ = r.num["occupancy"]
    return [r.benchmark, r.axes_text, r.status,
            "" if samples is None else f"{samples:.0f}",
            fmt_time(r.median_s), "" if ci is None else f"{100 * ci:.2f}",
            fmt(r.gbps), fmt(r.tflops), _pct(r.num["pct_peak"]), _pct(r.num["pct_ref"]),
            "" if occ is None else f"{100 * occ:.0f}%",
            " ".join(t for t in (r.reason, r.note) if t)]


def results_table(rows: list[Result], caption: str, collapsed: bool = True) -> Table:
    """Every row; schema-2 runs add the clock, power and throttle columns, and
    a throttled point is marked like a noisy one."""
    telemetry = any(r.throttle for r in rows)
    headers = RESULT_HEADERS + (TELEMETRY_HEADERS if telemetry else [])
    body = [result_row(r) + (telemetry_cells(r) if telemetry else []) for r in rows]
    if telemetry:
        caption += (f" {sum(r.throttled for r in rows)} point(s) measured while throttled "
                    f"(marked).")
    return Table(headers, body, caption, collapsed,
                 marked=[r.status in ("fail", "noisy") or r.throttled for r in rows])


TELEMETRY_HEADERS = ["SM MHz (median)", "power W", "throttle"]


def telemetry_cells(r: Result) -> list[str]:
    clock, power = r.num.get("sm_clock_median_mhz"), r.num.get("power_mean_w")
    return ["" if clock is None else f"{clock:.0f}",
            "" if power is None else f"{power:.0f}", r.throttle]


def status_summary(run: Run) -> Table:
    rows = []
    for family in run.families():
        frows = [r for r in run.results if r.family == family]
        counts = [sum(r.status == s for r in frows) for s in STATUSES]
        rows.append([family, str(len({r.benchmark for r in frows}))]
                    + [str(c) for c in counts] + [str(len(frows))])
    total = [sum(int(row[i]) for row in rows) for i in range(1, 7)]
    rows.append(["all"] + [str(t) for t in total])
    return Table(["family", "benchmarks", *STATUSES, "points"], rows,
                 "Points per family and status (ok: CI target met; noisy: time budget "
                 "spent first; skip: could not run here; fail: wrong result, not timed).")


def not_measured(run: Run) -> Table | None:
    rows = [r for r in run.results if r.status in ("skip", "fail")]
    if not rows:
        return None
    return Table(["benchmark", "axes", "status", "reason"],
                 [[r.benchmark, r.axes_text, r.status, r.reason] for r in rows],
                 f"{len(rows)} point(s) that were not timed, with the reason the run gave.",
                 collapsed=len(rows) > 15, marked=[r.status == "fail" for r in rows],
                 numeric=False)
