"""Which conditions can have changed a point: throttle reasons judged per point.

NVML reports clock-event (throttle) reasons for the whole GPU, and a reason
can stay active long after the work that caused it: the pageable copies
measured right after a power-capped GEMM all read `sw_power_cap`. Ringing
them "throttled" tells the reader the wrong thing, because every reason
cubench counts lowers the SM clock, and a copy-engine copy does not run on
the SMs. So a point is flagged only when a reason can have affected it:

1. a reason was active while the point was measured (results.csv
   `throttle`), and, where the run says so (`throttled_samples`), while at
   least one of its samples was taken;
2. the point's work runs on the SMs: not a copy-engine copy (the transfers
   and p2p copies; zero-copy and the overlap's kernel and pipeline stages do
   use the SMs) and not a CPU point;
3. the SM clock really fell: its minimum over the point lies more than the
   run's clock-spread threshold (meta.json telemetry.sm_clock_spread_flag,
   2 % when absent) below the GPU's maximum SM clock.

A reason that fails 2 or 3 is still shown in the tables, with why it was
not counted (`explain`).
"""

from __future__ import annotations

DEFAULT_SPREAD = 0.02


def max_sm_clock_mhz(run, row=None) -> float | None:
    """The GPU's maximum SM clock: NVML's max clock of the row's device from
    meta.json's telemetry block, else the device's sm_clock_khz."""
    tele = run.meta.get("telemetry") if isinstance(run.meta.get("telemetry"), dict) else {}
    uuid = row.raw.get("device_uuid", "") if row is not None else ""
    for dev in tele.get("devices") or []:
        if isinstance(dev, dict) and dev.get("max_clock_sm_mhz") and (
                not uuid or dev.get("uuid") == uuid):
            return float(dev["max_clock_sm_mhz"])
    device = run.device_info() or {}
    if device.get("sm_clock_khz"):
        return float(device["sm_clock_khz"]) / 1e3
    return None


def spread(run) -> float:
    tele = run.meta.get("telemetry")
    value = tele.get("sm_clock_spread_flag") if isinstance(tele, dict) else None
    return float(value) if isinstance(value, (int, float)) and value > 0 else DEFAULT_SPREAD


def runs_on_sms(row) -> bool:
    """Whether the point's work runs on the GPU's SMs (so an SM clock cut can
    slow it): every GPU point but the copy-engine copies."""
    if row.is_host or row.raw.get("kind") == "host":
        return False
    if row.family in ("transfers", "p2p"):
        if row.variant == "zero_copy":
            return True  # a kernel reads mapped host memory
        stage = row.axes.get("stage")
        return stage in ("kernel", "pipeline") if stage is not None else False
    return True


def explain(run, row) -> str:
    """Why an active reason was not counted against the point ('' when it
    was counted, or when none was active)."""
    if not row.throttled:
        return ""
    samples = row.num.get("throttled_samples")
    if samples is not None and samples == 0:
        return "no sample taken while it was active"
    if not runs_on_sms(row):
        return "cannot slow a copy-engine copy or a CPU point"
    top = max_sm_clock_mhz(run, row)
    low = row.num.get("sm_clock_min_mhz")
    if top and low is not None and low >= top * (1 - spread(run)):
        return (f"SM clock stayed within {100 * spread(run):g} % of its maximum "
                f"({low:.0f} of {top:.0f} MHz)")
    return ""


def judge_throttle(run) -> None:
    """Set each row's throttle_affects: its reasons when they can have
    changed its time, else ''."""
    for row in run.results:
        row.throttle_affects = row.throttle if row.throttled and not explain(run, row) else ""
