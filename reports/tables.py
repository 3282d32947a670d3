"""Tables of results: the status summary, what did not run, and the generic
per-benchmark table used for families the report has no figures for.

A benchmark the report does not know still deserves its numbers on the page;
and a point that was skipped or failed must be seen with its reason, never
silently missing from a chart. Skips that share a benchmark and a reason (80
p2p points of a one-GPU run, all "needs 2 devices") are one line with their
count.
"""

from __future__ import annotations

from . import conditions
from .figure import fmt, fmt_time
from .load import STATUSES, Result, Run
from .page import Table

RESULT_HEADERS = ["benchmark", "axes", "status", "samples", "median", "CI ±%",
                  "GB/s", "TFLOP/s", "% peak", "% ref", "occupancy", "reason / note"]
TELEMETRY_HEADERS = ["SM MHz (median)", "power W", "throttle"]


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


def throttle_text(run: Run, r: Result) -> str:
    """The throttle column: the reasons, and why they were not counted when
    they could not have slowed the point."""
    why = conditions.explain(run, r)
    return f"{r.throttle} (not counted: {why})" if why else r.throttle


def telemetry_cells(run: Run, r: Result) -> list[str]:
    clock, power = r.num.get("sm_clock_median_mhz"), r.num.get("power_mean_w")
    return ["" if clock is None else f"{clock:.0f}",
            "" if power is None else f"{power:.0f}", throttle_text(run, r)]


def results_table(rows: list[Result], caption: str, collapsed: bool = True,
                  run: Run | None = None) -> Table:
    """Every row; schema-2 runs add the clock, power and throttle columns, and
    a point a throttle reason can have slowed is marked like a noisy one."""
    telemetry = run is not None and any(r.throttle for r in rows)
    headers = RESULT_HEADERS + (TELEMETRY_HEADERS if telemetry else [])
    body = [result_row(r) + (telemetry_cells(run, r) if telemetry else []) for r in rows]
    if telemetry:
        affected = sum(bool(r.throttle_affects) for r in rows)
        active = sum(r.throttled for r in rows)
        caption += (f" A throttle reason was active during {active} point(s); {affected} of "
                    f"them can have been slowed by it (marked).")
    return Table(headers, body, caption, collapsed,
                 marked=[r.status in ("fail", "noisy") or bool(r.throttle_affects)
                         for r in rows])


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
                 "Points per family and status (ok: CI target met; noisy: not met within "
                 "the time budget; skip: could not run here; fail: wrong result, not timed).",
                 sortable=False)


def not_measured(run: Run) -> Table | None:
    """Skipped and failed points: failures one per line (each is news),
    skips grouped by benchmark and reason with their count and axes."""
    rows = [r for r in run.results if r.status in ("skip", "fail")]
    if not rows:
        return None
    body, marked = [], []
    groups: dict[tuple[str, str], list[Result]] = {}
    for r in rows:
        if r.status == "fail":
            body.append([r.benchmark, "1", r.axes_text, r.status, r.reason])
            marked.append(True)
        else:
            groups.setdefault((r.benchmark, r.reason), []).append(r)
    for (bench, reason), group in groups.items():
        axes = group[0].axes_text if len(group) == 1 else (
            f"{group[0].axes_text} … {group[-1].axes_text}")
        body.append([bench, str(len(group)), axes, "skip", reason])
        marked.append(False)
    fails = sum(r.status == "fail" for r in rows)
    return Table(["benchmark", "points", "axes", "status", "reason"], body,
                 f"{len(rows)} point(s) that were not timed ({fails} failed), with the reason "
                 f"the run gave; skips of one benchmark for one reason are one line.",
                 collapsed=len(body) > 15, marked=marked, numeric=False)
