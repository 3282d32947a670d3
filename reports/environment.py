"""The environment table: meta.json flattened to key -> value, one column per run.

A comparison of two GPUs is only as good as what else was equal (driver,
clocks, build flags, settings), so every key of every run's meta.json is
shown, side by side, with the keys whose values differ marked.
"""

from __future__ import annotations

from .load import Run
from .page import Table


def flatten(obj, prefix: str = "") -> list[tuple[str, str]]:
    """Nested JSON to dotted keys; lists of scalars joined (argv by spaces)."""
    items: list[tuple[str, str]] = []
    if isinstance(obj, dict):
        for key, value in obj.items():
            items += flatten(value, f"{prefix}{key}.")
    elif isinstance(obj, list) and all(not isinstance(v, (dict, list)) for v in obj):
        sep = " " if prefix.startswith("command_line") else ", "
        items.append((prefix.rstrip("."), sep.join(str(v) for v in obj)))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            items += flatten(value, f"{prefix}{i}.")
    elif obj is None:
        items.append((prefix.rstrip("."), "null"))
    elif isinstance(obj, bool):
        items.append((prefix.rstrip("."), "true" if obj else "false"))
    else:
        items.append((prefix.rstrip("."), str(obj)))
    return items


def environment_table(runs: list[Run]) -> tuple[list[str], list[list[str]], list[bool]]:
    """Headers, rows (key then one value per run) and, per row, whether the
    runs disagree on it."""
    flat = [dict(flatten(run.meta)) for run in runs]
    keys: list[str] = []
    for f in flat:
        keys += [k for k in f if k not in keys]
    rows, differs = [], []
    for key in keys:
        values = [f.get(key, "") for f in flat]
        rows.append([key] + values)
        differs.append(len(runs) > 1 and len(set(values)) > 1)
    return ["key"] + [run.label for run in runs], rows, differs


# What an A/B or hardware comparison must show first, in this order: the
# prefixes of meta.json keys whose values differing can explain a
# difference in the numbers. Keys that differ in every pair of runs
# (timestamps, counts of what happened) are left to the environment table.
CONDITION_ORDER = ("settings.", "command_line", "build.", "git_sha", "cubench_version",
                   "cuda.", "telemetry.driver_version", "telemetry.nvml_version",
                   "telemetry.devices.", "device.", "devices.", "telemetry.power_source",
                   "telemetry.period_ms", "host.", "python.")
NOT_CONDITIONS = ("started", "finished", "totals.", "telemetry.sampling.", "write_failed",
                  "stopped_early_because", "note", "synthetic")


def _condition_rank(key: str) -> int | None:
    if any(key == k.rstrip(".") or key.startswith(k) for k in NOT_CONDITIONS):
        return None
    for i, prefix in enumerate(CONDITION_ORDER):
        if key == prefix.rstrip(".") or key.startswith(prefix):
            return i
    return len(CONDITION_ORDER)


def differences_table(runs: list[Run]) -> Table | None:
    """The meta.json keys whose values differ between the runs, settings
    and build first, then driver, device (clocks, power limits), host; None
    when nothing that matters differs."""
    headers, rows, differs = environment_table(runs)
    ranked = []
    for order, (row, differ) in enumerate(zip(rows, differs)):
        rank = _condition_rank(row[0]) if differ else None
        if rank is not None:
            ranked.append((rank, order, row))
    if not ranked:
        return None
    ranked.sort()
    return Table(headers, [row for _, _, row in ranked],
                 "What differs between the runs (meta.json): settings and build first, then "
                 "driver, device (clocks, power limits, link), host. Every other key is in "
                 "the environment table at the end.", numeric=False, sortable=False)
