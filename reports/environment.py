"""The environment table: meta.json flattened to key -> value, one column per run.

A comparison of two GPUs is only as good as what else was equal (driver,
clocks, build flags, settings), so every key of every run's meta.json is
shown, side by side, with the keys whose values differ marked.
"""

from __future__ import annotations

from .load import Run


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
