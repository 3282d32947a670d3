"""Choosing which measured points a chart shows.

Benchmark names and axis names are discovered from the data, never listed
here: the families grow new variants and axes, and the report should draw
them without being taught. These helpers hold the few rules used to reduce a
sweep to a curve (the best point per x over the other axes, the natural
order of axis values, which axis is the problem size).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from .load import Result, axis_number

# Axis names that mean "problem size", in order of preference.
SIZE_AXES = ("size", "m", "n", "bytes", "elements")


def ordered_unique(values: Iterable) -> list:
    seen: list = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


_LEADING_NUMBER = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(.*)$")


def axis_sort_key(value: str):
    """Numbers first in numeric order, then words that start with a number
    (`2sm` before `32sm`), then other words (`auto`) alphabetically."""
    number = axis_number(value)
    if number is not None:
        return (0, number, "")
    match = _LEADING_NUMBER.match(value)
    if match:
        return (1, float(match.group(1)), match.group(2))
    return (2, 0.0, value)


def sorted_axis_values(values: Iterable[str]) -> list[str]:
    return sorted(set(values), key=axis_sort_key)


def size_axis(rows: list[Result], preferred: tuple[str, ...] = SIZE_AXES) -> str | None:
    """The axis that is the problem size: the first of `preferred` that every
    row has with a numeric value, else the first numeric axis."""
    if not rows:
        return None
    for name in preferred:
        if all(r.axis(name) is not None for r in rows):
            return name
    for name in rows[0].axes:
        if all(r.axis(name) is not None for r in rows):
            return name
    return None


def best_per(rows: list[Result], key: Callable[[Result], object],
             metric: Callable[[Result], float | None]) -> dict:
    """For each key, the row with the largest metric (None metrics ignored).
    The returned dict keeps the first-seen key order."""
    best: dict = {}
    for row in rows:
        value = metric(row)
        if value is None:
            continue
        k = key(row)
        if k not in best or value > metric(best[k]):
            best[k] = row
    return best


def curve(rows: list[Result], xaxis: str,
          metric: Callable[[Result], float | None]) -> tuple[list[float], list[float], list[Result]]:
    """x ascending, y = the best metric at that x over every other axis."""
    best = best_per([r for r in rows if r.axis(xaxis) is not None],
                    lambda r: r.axis(xaxis), metric)
    xs = sorted(best)
    chosen = [best[x] for x in xs]
    return xs, [metric(r) for r in chosen], chosen


def has_other_configs(rows: list[Result], xaxis: str) -> bool:
    """True when some x has several points (other axes swept): the curve is
    then a best-of, and the caption must say so."""
    xs = [r.axis(xaxis) for r in rows]
    return len(xs) != len(set(xs))


def throughput(row: Result) -> tuple[float | None, str]:
    """The figure of merit of a row and its unit: the unit its peak is stated
    in, else TFLOP/s for matmul-like rows with flops, else GB/s."""
    if row.peak_unit == "TFLOP/s" and row.tflops is not None:
        return row.tflops, "TFLOP/s"
    if row.peak_unit == "GB/s" and row.gbps is not None:
        return row.gbps, "GB/s"
    if row.family == "matmul" and row.tflops is not None:
        return row.tflops, "TFLOP/s"
    if row.gbps is not None:
        return row.gbps, "GB/s"
    if row.tflops is not None:
        return row.tflops, "TFLOP/s"
    return None, ""
