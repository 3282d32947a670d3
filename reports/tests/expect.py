"""Expected values for the report tests, computed straight from the CSV files.

Deliberately independent of the `reports` package (plain csv module, its own
axes parsing): a test that recomputes what a figure should show with the
code that drew it would prove nothing.
"""

from __future__ import annotations

import csv
import io
import json
import math
import lzma
from pathlib import Path


def rows(run_dir: Path) -> list[dict]:
    with (run_dir / "results.csv").open(newline="", encoding="utf-8") as fh:
        out = list(csv.DictReader(fh))
    for r in out:
        r["_axes"] = dict(p.split("=", 1) for p in r["axes"].split(";")) if r["axes"] else {}
        r["_id"] = f"{r['benchmark']} [{r['axes']}]"
    return out


def timed(run_dir: Path, family: str | None = None) -> list[dict]:
    return [r for r in rows(run_dir) if r["status"] in ("ok", "noisy") and r["median_s"]
            and (family is None or r["family"] == family)]


def samples(run_dir: Path) -> dict[tuple[str, str], list[float]]:
    """Raw sample times per (benchmark, axes), in (replicate, sample) order;
    from samples.csv, or samples.csv.xz where a recorded run keeps it so."""
    out: dict = {}
    path = run_dir / "samples.csv"
    if path.exists():
        text = path.read_text(encoding="utf-8")
    elif path.with_suffix(".csv.xz").exists():
        text = lzma.decompress(path.with_suffix(".csv.xz").read_bytes()).decode("utf-8")
    else:
        return out
    for r in csv.DictReader(io.StringIO(text, newline="")):
        replicate = int(r["replicate"]) if r.get("replicate") else 0
        out.setdefault((r["benchmark"], r["axes"]), []).append(
            ((replicate, int(r["sample"])), float(r["time_s"])))
    return {k: [t for _, t in sorted(v)] for k, v in out.items()}


def number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def best_curves(rs: list[dict], xaxis: str, metric: str, key=lambda r: r["benchmark"]):
    """{curve key: {x: max metric over every other axis}}."""
    out: dict = {}
    for r in rs:
        x, y = number(r["_axes"].get(xaxis, "")), number(r[metric])
        if x is None or y is None:
            continue
        curve = out.setdefault(key(r), {})
        curve[x] = max(curve.get(x, y), y)
    return out


def figure_data(out_dir: Path, name: str) -> dict:
    return json.loads((out_dir / f"{name}.json").read_text())


def manifest(out_dir: Path) -> dict:
    return json.loads((out_dir / "report.json").read_text())


def is_host(r: dict) -> bool:
    return r["cache"] == "n/a" or r["benchmark"].partition("/")[2].startswith("host")


# The Python framework families (bench/python/__init__.py's FAMILIES), whose
# vector adds and matmuls the C figures draw beside their own rows.
FRAMEWORKS = ("numpy", "torch", "cupy", "jax", "numba", "triton", "pycuda", "torch_ext",
              "torch_dist", "tensorflow", "rapids", "opencv")


def framework_vecadds(run_dir: Path) -> list[dict]:
    """Timed framework rows with vector add's work model (12 bytes per n)."""
    out = []
    for r in timed(run_dir):
        n = number(r["_axes"].get("n", ""))
        if (r["family"] in FRAMEWORKS and n and r["gbps"] and r["bytes"]
                and math.isclose(float(r["bytes"]), 12 * n, rel_tol=1e-6)):
            out.append(r)
    return out


def framework_matmuls(run_dir: Path) -> list[dict]:
    """Timed framework rows with matmul's axes and 2mnk flops."""
    out = []
    for r in timed(run_dir):
        a = r["_axes"]
        if r["family"] not in FRAMEWORKS or not r["tflops"] or "m" not in a:
            continue
        m = number(a["m"])
        n = m if a.get("n") == "m" else number(a.get("n", ""))
        k = m if a.get("k") == "m" else number(a.get("k", ""))
        if m and n and k and r["flops"] and math.isclose(float(r["flops"]), 2 * m * n * k,
                                                         rel_tol=1e-6):
            out.append(r)
    return out
