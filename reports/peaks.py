"""Compute roofs per precision: FP32 from the run, tensor-core roofs from a table.

The FP32 peak is the one the run stated (results `peak`, with schema 2's
`peak_source`, else meta.json's device peaks). Tensor-core peaks are no
attribute a program can read, so they come from this per-architecture table
of dense (no sparsity) tensor throughput per SM per clock, taken from
NVIDIA's architecture whitepapers and datasheets, times the SM count and the
SM clock meta.json recorded. Every roof built from it says "table" and gives
the datasheet figure it reproduces, so a reader can check it.

Only architectures whose datacenter and consumer parts share one rate are
listed: on sm_86 and sm_89 GeForce parts run FP32-accumulate tensor math at
half the rate of the professional ones, and the compute capability alone
cannot tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass

# compute capability -> {precision: dense FLOP per clock per SM}, and the
# datasheet figure the rate reproduces (SMs x rate x clock).
TENSOR_TABLE = {
    "8.0": ({"TF32 tensor": 1024, "BF16 tensor": 2048},
            "NVIDIA A100 datasheet: 156 TF32 / 312 BF16 dense TFLOP/s at 108 SMs x 1410 MHz"),
    "9.0": ({"TF32 tensor": 2048, "BF16 tensor": 4096},
            "NVIDIA H100 SXM5 datasheet: 494.7 TF32 / 989.4 BF16 dense TFLOP/s "
            "at 132 SMs x 1830 MHz"),
}


@dataclass
class Roof:
    precision: str   # "FP32", "TF32 tensor", "BF16 tensor"
    tflops: float
    source: str      # where the number comes from
    kind: str        # "run" (the run's own peak column or meta.json) or "table"


def _cc(device: dict | None) -> str:
    if not device:
        return ""
    for key in ("compute_capability", "cc"):
        if device.get(key):
            return str(device[key])
    return ""


def _sm_clock_mhz(device: dict) -> float | None:
    if device.get("sm_clock_khz"):
        return float(device["sm_clock_khz"]) / 1e3
    return None


def fp32_roof(run) -> Roof | None:
    """The FP32 peak the run's GPU rows state (the most common one), with its
    peak_source; else meta.json's device peak and formula."""
    rows = [r for r in run.rows() if r.peak_unit == "TFLOP/s" and r.num["peak"]
            and not r.is_host]
    if rows:
        peaks = [r.num["peak"] for r in rows]
        value = max(set(peaks), key=peaks.count)
        sources = [r.peak_source for r in rows if r.num["peak"] == value and r.peak_source]
        return Roof("FP32", value, sources[0] if sources else "results.csv peak column", "run")
    value = run.device_peak("fp32")
    if value:
        peaks = (run.device_info() or {}).get("peaks") or {}
        formula = peaks.get("fp32_formula") if isinstance(peaks, dict) else None
        return Roof("FP32", value, f"meta.json: {formula}" if formula else "meta.json", "run")
    return None


def tensor_roofs(run) -> tuple[list[Roof], str]:
    """Tensor-core roofs of the run's GPU from TENSOR_TABLE, and a sentence
    saying why there are none when there are none."""
    device = run.device_info()
    cc = _cc(device)
    if not device or not cc:
        return [], "no GPU in meta.json: no tensor-core roofs"
    if cc not in TENSOR_TABLE:
        return [], (f"compute capability {cc} is not in the tensor-core table "
                    f"(reports/peaks.py): no tensor-core roofs")
    rates, datasheet = TENSOR_TABLE[cc]
    sms, mhz = device.get("sm_count"), _sm_clock_mhz(device)
    if not sms or not mhz:
        return [], "meta.json lacks the SM count or SM clock: no tensor-core roofs"
    roofs = []
    for precision, per_sm in rates.items():
        value = sms * per_sm * mhz * 1e6 / 1e12
        roofs.append(Roof(precision, value,
                          f"table: sm_{cc.replace('.', '')} {per_sm} dense FLOP/clk/SM x "
                          f"{sms} SMs x {mhz:g} MHz ({datasheet})", "table"))
    return roofs, ""


def roofs(run) -> tuple[list[Roof], str]:
    """Every compute roof of the run: FP32 first, then the tensor-core ones."""
    found = []
    fp32 = fp32_roof(run)
    if fp32:
        found.append(fp32)
    tensor, why = tensor_roofs(run)
    return found + tensor, why
