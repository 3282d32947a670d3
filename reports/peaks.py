"""Compute roofs per precision: FP32 from the run, tensor-core roofs from a table.

The FP32 peak is the one the run stated (results `peak`, with schema 2's
`peak_source`, else meta.json's device peaks). Tensor-core peaks are no
attribute a program can read, so they come from this per-architecture table
of dense (no sparsity) tensor throughput per SM per clock, taken from
NVIDIA's architecture whitepapers, times the SM count and a clock: the clock
the datasheet states its figures at, for the GPUs listed in DATASHEETS (the
roof then is the datasheet's dense figure, which the source names), else
the maximum boost clock meta.json recorded, and the roof says "max boost".
A roof drawn at 1980 MHz beside a caption citing the 1830 MHz datasheet
figure would contradict its own source.

Only architectures whose datacenter and consumer parts share one rate are
listed: on sm_86 and sm_89 GeForce parts run FP32-accumulate tensor math at
half the rate of the professional ones, and the compute capability alone
cannot tell them apart.
"""

from __future__ import annotations

from dataclasses import dataclass

# compute capability -> {precision: dense FLOP per clock per SM}: the tensor
# rate of the architecture (whitepapers).
TENSOR_RATES = {
    "8.0": {"TF32 tensor": 1024, "BF16 tensor": 2048},
    "9.0": {"TF32 tensor": 2048, "BF16 tensor": 4096, "FP8 tensor": 8192},
}

# (compute capability, SM count) -> (the clock in MHz the datasheet's tensor
# figures are stated at, the datasheet): the roof is SMs x rate x this clock,
# which reproduces the datasheet's dense figures exactly. A GPU not listed
# gets roofs at its maximum boost clock (meta.json sm_clock_khz), labelled so.
DATASHEETS = {
    ("8.0", 108): (1410.0, "the NVIDIA A100 datasheet's 156 TF32 / 312 BF16 dense TFLOP/s"),
    ("9.0", 132): (1830.0, "the NVIDIA H100 SXM5 and H200 datasheets' 989 TF32 / 1979 BF16 / "
                           "3958 FP8 TFLOP/s with sparsity, i.e. 494.7 / 989.4 / 1978.9 dense"),
}

@dataclass
class Roof:
    precision: str   # "FP32", "TF32 tensor", "BF16 tensor", "FP8 tensor"
    tflops: float
    source: str      # where the number comes from
    kind: str        # "run" (the run's own peak column or meta.json) or "table"
    clock: str = ""  # the clock it holds at: "datasheet, 1830 MHz", "max boost, 1980 MHz"


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


def _fp32_clock(run, source: str, value: float) -> str:
    """The clock an FP32 peak holds at: cubench states it at the maximum
    boost clock, as its peak_source says, or as meta.json's formula says of
    the device peak the rows' value equals."""
    device = run.device_info() or {}
    mhz = _sm_clock_mhz(device) if device else None
    peaks = device.get("peaks") if isinstance(device.get("peaks"), dict) else {}
    formula = str(peaks.get("fp32_formula", ""))
    stated = peaks.get("fp32_tflops")
    from_formula = ("sm_clock" in formula and isinstance(stated, (int, float))
                    and abs(stated - value) <= 1e-6 * value)
    if "boost" in source or "sm_clock" in source or from_formula:
        return f"max boost, {mhz:g} MHz" if mhz else "max boost"
    return ""


def _stated_fp32(run, rows) -> Roof:
    """The FP32 peak most rows state, with the first peak_source given."""
    peaks = [r.num["peak"] for r in rows]
    value = max(set(peaks), key=peaks.count)
    sources = [r.peak_source for r in rows if r.num["peak"] == value and r.peak_source]
    source = sources[0] if sources else "results.csv peak column"
    return Roof("FP32", value, source, "run", _fp32_clock(run, source, value))


def fp32_roof(run) -> Roof | None:
    """The FP32 peak the run's GPU rows state (the most common one), with its
    peak_source; else meta.json's device peak and formula."""
    rows = [r for r in run.rows() if r.peak_unit == "TFLOP/s" and r.num["peak"]
            and not r.is_host]
    if rows:
        return _stated_fp32(run, rows)
    value = run.device_peak("fp32")
    if value:
        peaks = (run.device_info() or {}).get("peaks") or {}
        formula = peaks.get("fp32_formula") if isinstance(peaks, dict) else None
        source = f"meta.json: {formula}" if formula else "meta.json"
        return Roof("FP32", value, source, "run", _fp32_clock(run, source, value))
    return None


def tensor_roofs(run) -> tuple[list[Roof], str]:
    """Tensor-core roofs of the run's GPU, and a sentence saying why there
    are none when there are none. At the datasheet's clock when the GPU is
    in DATASHEETS (the roof then equals the datasheet's figure), else at the
    maximum boost clock meta.json recorded, and the source says which."""
    device = run.device_info()
    cc = _cc(device)
    if not device or not cc:
        return [], "no GPU in meta.json: no tensor-core roofs"
    if cc not in TENSOR_RATES:
        return [], (f"compute capability {cc} is not in the tensor-core table "
                    f"(reports/peaks.py): no tensor-core roofs")
    sms, boost = device.get("sm_count"), _sm_clock_mhz(device)
    if not sms:
        return [], "meta.json lacks the SM count: no tensor-core roofs"
    sheet = DATASHEETS.get((cc, int(sms)))
    if sheet is None and not boost:
        return [], "meta.json lacks the SM clock: no tensor-core roofs"
    roofs = []
    for precision, per_sm in TENSOR_RATES[cc].items():
        arch = f"sm_{cc.replace('.', '')} {per_sm} dense FLOP/clk/SM x {sms} SMs"
        if sheet:
            mhz, name = sheet
            roofs.append(Roof(precision, sms * per_sm * mhz * 1e6 / 1e12,
                              f"{arch} x {mhz:g} MHz = {name}", "table",
                              f"datasheet, {mhz:g} MHz"))
        else:
            roofs.append(Roof(precision, sms * per_sm * boost * 1e6 / 1e12,
                              f"max boost: {arch} x {boost:g} MHz (meta.json sm_clock_khz; "
                              f"no datasheet figure for this GPU in reports/peaks.py)",
                              "table", f"max boost, {boost:g} MHz"))
    return roofs, ""


def tensor_peak(run, precision: str) -> Roof | None:
    """The tensor roof of `precision` ('BF16', 'TF32', 'FP8'), or None."""
    for roof in tensor_roofs(run)[0]:
        if roof.precision.split()[0] == precision.upper():
            return roof
    return None


def roofs(run) -> tuple[list[Roof], str]:
    """Every compute roof of the run: FP32 first, then the tensor-core ones."""
    found = []
    fp32 = fp32_roof(run)
    if fp32:
        found.append(fp32)
    tensor, why = tensor_roofs(run)
    return found + tensor, why
