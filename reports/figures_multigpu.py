"""Multi-GPU figures: the p2p family's device x device bandwidth matrix and
the NCCL collectives' bus bandwidth against size.

p2p: one heatmap per (peer, direction) mode, each cell the GB/s of
`p2p/copy` at the largest size timed for that ordered pair (what
nvbandwidth prints as its matrix; the run's p2p_matrix.csv holds the same
cells). Pairs that were not timed (a single-GPU run: every row is a skip
"needs 2 devices") leave the figure out and the page says why.

NCCL: bus bandwidth = algorithm bandwidth (results.csv gbps: size / time)
x the nccl-tests factor, 2(n-1)/n for all-reduce, (n-1)/n for all-gather and
reduce-scatter, 1 for broadcast; one curve per collective, rank count and
type. One rank moves nothing over a bus (factor 0 for the reductions and
gathers), so a one-GPU run plots the algorithm bandwidth and says so.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import figure as F
from .load import Run

P2P_SECTION = "Peer-to-peer copies"
NCCL_SECTION = "NCCL collectives"

_FACTORS = {
    "all_reduce": lambda n: 2.0 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
}


def bus_factor(benchmark: str, ranks: int) -> float | None:
    """The nccl-tests bus factor of a nccl/* benchmark (None: not one)."""
    op = benchmark.partition("/")[2]
    f = _FACTORS.get(op)
    return f(ranks) if f and ranks >= 1 else None


def p2p_cells(run: Run) -> dict[tuple[str, str], dict[tuple[int, int], float]]:
    """(peer, direction) -> {(src, dst): GB/s at the largest timed size}."""
    best: dict[tuple[str, str], dict[tuple[int, int], tuple[float, float]]] = {}
    for r in run.rows("p2p"):
        src, dst, size = r.axis("src"), r.axis("dst"), r.axis("bytes")
        if src is None or dst is None or size is None or r.gbps is None:
            continue
        mode = (r.axes.get("peer", "?"), r.axes.get("direction", "?"))
        cell = (int(src), int(dst))
        have = best.setdefault(mode, {}).get(cell)
        if have is None or size >= have[0]:
            best[mode][cell] = (size, r.gbps)
    return {m: {c: v[1] for c, v in cells.items()} for m, cells in best.items()}


def p2p_figures(run: Run, out_dir: Path, prefix: str) -> list[F.Figure]:
    figs = []
    for (peer, direction), cells in sorted(p2p_cells(run).items()):
        devs = sorted({d for pair in cells for d in pair})
        grid = np.full((len(devs), len(devs)), np.nan)
        for (src, dst), gbps in cells.items():
            grid[devs.index(src), devs.index(dst)] = gbps
        fig, ax = F.new_figure(1.2 * len(devs) + 3.0, 1.0 * len(devs) + 2.2)
        im = ax.imshow(grid, cmap="viridis")
        ax.set_xticks(range(len(devs)), [str(d) for d in devs])
        ax.set_yticks(range(len(devs)), [str(d) for d in devs])
        ax.set_xlabel("destination device")
        ax.set_ylabel("source device")
        for i in range(len(devs)):
            for j in range(len(devs)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.1f}", ha="center", va="center", color="w")
        fig.colorbar(im, ax=ax, label="GB/s (1e9 bytes/s)")
        title = f"p2p/copy, peer access {peer}, {direction} way(s): GB/s by pair"
        ax.set_title(title, fontsize=9)
        data = {"kind": "p2p_matrix", "peer": peer, "direction": direction,
                "cells": [{"src": s, "dst": d, "gbps": v} for (s, d), v in sorted(cells.items())]}
        caption = ("Each cell: cudaMemcpyPeerAsync bandwidth from the row's device to the "
                   "column's at the largest size timed for the pair (bytes counted once per "
                   "direction; both ways count twice). Empty cells: the pair was not timed.")
        figs.append(F.save(fig, out_dir, f"{prefix}p2p_{peer}_{direction}", data, P2P_SECTION,
                           title, caption))
    return figs


def _nccl_point(r) -> tuple[str, float, float, bool] | None:
    """(curve label, size, bandwidth, more than one rank) of a nccl row:
    bus bandwidth for several ranks, algorithm bandwidth for one."""
    ranks, size = r.axis("ranks"), r.axis("bytes")
    if ranks is None or size is None or r.gbps is None:
        return None
    factor = bus_factor(r.benchmark, int(ranks))
    if factor is None:
        return None
    multi = int(ranks) > 1
    label = f"{r.benchmark.partition('/')[2]} {r.axes.get('dtype', '')} x{int(ranks)}"
    return label, size, r.gbps * factor if multi else r.gbps, multi


def _nccl_curves(run: Run) -> tuple[dict[str, list[tuple[float, float]]], bool]:
    """Curves per collective, type and rank count, and whether they are all
    one-rank (algorithm bandwidth). With several ranks in the run, its
    one-rank rows are left out: they move nothing over a link."""
    points = [p for p in (_nccl_point(r) for r in run.rows("nccl")) if p]
    any_multi = any(p[3] for p in points)
    curves: dict[str, list[tuple[float, float]]] = {}
    for label, size, y, multi in points:
        if multi or not any_multi:
            curves.setdefault(label, []).append((size, y))
    return curves, not any_multi


def nccl_figure(run: Run, out_dir: Path, prefix: str) -> F.Figure | None:
    curves, single_rank_only = _nccl_curves(run)
    if not curves:
        return None
    fig, ax = F.new_figure()
    for label, pts in sorted(curves.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label)
    F.apply_scale(ax, "x", "log2", "bytes")
    F.apply_scale(ax, "y", "log10")  # 1 KiB to 1 GiB spans four decades of bandwidth
    ax.set_xlabel("size (bytes, nccl-tests' definition)")
    what = "algorithm bandwidth" if single_rank_only else "bus bandwidth"
    ax.set_ylabel(f"{what}, GB/s (1e9 bytes/s)")
    title = f"NCCL collectives: {what} against size"
    ax.set_title(title, fontsize=9)
    F.legend_outside(fig, ax)
    caption = ("Bus bandwidth = size / time x the nccl-tests factor (all-reduce 2(n-1)/n, "
               "all-gather and reduce-scatter (n-1)/n, broadcast 1), the figure to set "
               "against a link's speed.")
    if single_rank_only:
        caption = ("A one-GPU run: every communicator has one rank, which moves nothing over "
                   "a bus, so the curves show the algorithm bandwidth (size / time) of the "
                   "in-device copy or reduction instead.")
    data = {"kind": "nccl_bandwidth", "y": what,
            "series": [{"label": k, "x": [p[0] for p in v], "y": [p[1] for p in v]}
                       for k, v in sorted(curves.items())]}
    return F.save(fig, out_dir, f"{prefix}nccl_busbw", data, NCCL_SECTION, title, caption)


def _p2p_sentence(rows: list) -> str:
    reasons = "; ".join(sorted({r.reason for r in rows if r.reason}))[:160]
    return (f"No peer-to-peer pair was timed: {len(rows)} point(s), "
            + (f"all skipped ({reasons})" if reasons else "none timed")
            + ". They are listed, one line per reason, under the skipped points.")


def _one_rank(rows: list) -> bool:
    timed = [r for r in rows if r.measured]
    return bool(timed) and all((r.axis("ranks") or 1) <= 1 for r in timed)


def one_gpu_sentence(run: Run, family: str) -> str | None:
    """On a run that had one GPU to offer, the family's section is one
    sentence instead of 80 skip rows or eight identical one-rank curves;
    None when the family has something to draw."""
    rows = [r for r in run.results if r.family == family]
    if family == "p2p" and rows and not p2p_cells(run):
        return _p2p_sentence(rows)
    if family == "nccl" and _one_rank(rows):
        timed = sum(r.measured for r in rows)
        return (f"One GPU: the {timed} timed NCCL point(s) ran with one rank, which moves "
                f"nothing over a link, so there is no bus bandwidth to draw; their times (the "
                f"in-device copy or reduction) are in the table.")
    return None


class FamilyFigures:
    """What build.py's FAMILY_FIGURES expects of a family: figures(run,
    out_dir, prefix) -> list of figures."""

    def __init__(self, draw):
        self.figures = draw


def _nccl_figures(run: Run, out_dir: Path, prefix: str) -> list[F.Figure]:
    fig = nccl_figure(run, out_dir, prefix)
    return [fig] if fig else []


P2P = FamilyFigures(p2p_figures)
NCCL = FamilyFigures(_nccl_figures)
