"""Derived runs for tests: a recorded H200 run turned into another GPU's run
and/or a schema-2 run with telemetry, written into a test's tmp directory.

SYNTHETIC DATA. The rows and samples are the recorded ones, transformed:
times multiplied by `time_scale` (so GB/s and TFLOP/s divide by it), the
device renamed and its compute capability and peaks changed, and for schema 2
the new columns filled with made-up telemetry (clocks, power, temperature,
throttle reasons on every seventh timed GPU point). meta.json says so
(`synthetic`, `note`). The numbers describe no real GPU; they exercise the
comparison page, the telemetry figures and the multi-device layout with the
shapes real runs have.
"""

from __future__ import annotations

import csv
import json
import lzma
from pathlib import Path

from reports.load import RESULTS_COLUMNS, RESULTS_COLUMNS_V2, SAMPLES_COLUMNS, SAMPLES_COLUMNS_V2

TIME_COLUMNS = ("median_s", "min_s", "max_s", "q1_s", "q3_s", "mean_s", "stddev_s",
                "ci_lo_s", "ci_hi_s", "cupti_median_s", "overhead_s")
THROTTLE_EVERY = 7  # every seventh timed GPU point is marked throttled
THROTTLE_WORDS = "sw_power_cap+hw_slowdown"


def g9(value: float) -> str:
    return "%.9g" % value


def _read(path: Path) -> list[dict]:
    """A CSV of a recorded run, or its .xz beside it (as tests/data keeps
    the large samples.csv files)."""
    packed = path.with_name(path.name + ".xz")
    if not path.exists() and packed.exists():
        with lzma.open(packed, "rt", newline="", encoding="utf-8") as fh:
            return list(csv.DictReader(fh))
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _has(path: Path) -> bool:
    return path.exists() or path.with_name(path.name + ".xz").exists()


def _write(path: Path, columns, rows) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def derive_run(sources: list[Path], dst: Path, *, schema: int = 1, gpu_name: str | None = None,
               cc: str | None = None, time_scale: float = 1.0, peak_scale: float = 1.0,
               devices: tuple[str, ...] = ("0",), telemetry: bool = True,
               uuid: str = "GPU-SYNTHETIC-0000") -> Path:
    """Write `dst` from the recorded run(s) `sources` (their rows one after the
    other, meta.json of the first). devices: with several, every GPU row is
    repeated per device, the k-th device 10% slower per k; host rows appear
    once, with an empty device, as cubench writes them. telemetry=False
    writes the schema-2 columns empty (a run without NVML)."""
    dst.mkdir(parents=True)
    meta = json.loads((sources[0] / "meta.json").read_text())
    device = meta["device"]
    if gpu_name:
        device["name"] = gpu_name
    if cc:
        device["compute_capability"] = cc
    device["uuid"] = uuid
    for key in ("dram_gbps", "fp32_tflops", "pcie_gbps"):
        device["peaks"][key] = device["peaks"][key] * peak_scale
    meta["schema_version"] = schema
    meta["synthetic"] = True
    meta["note"] = (f"SYNTHETIC: derived by reports/tests/derive.py from "
                    f"{', '.join(p.name for p in sources)} (times x {time_scale:g}, "
                    f"peaks x {peak_scale:g}); not a measurement")
    if len(devices) > 1:
        meta["devices"] = [{**device, "ordinal": int(d), "uuid": f"{uuid}-{d}"}
                           for d in devices]
    (dst / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")

    results = [r for src in sources for r in _read(src / "results.csv")]
    samples = [s for src in sources if _has(src / "samples.csv")
               for s in _read(src / "samples.csv")]
    out_rows, out_samples, throttled = [], [], set()
    timed = 0
    for k, dev in enumerate(devices):
        scale = time_scale * (1 + 0.1 * k)
        for row in results:
            if k > 0 and row["cache"] == "n/a":
                continue  # host points run once, not per device (as cubench writes them)
            row = dict(row, schema_version=str(schema))
            for col in TIME_COLUMNS:
                if row[col]:
                    row[col] = g9(float(row[col]) * scale)
            for col in ("gbps", "tflops"):
                if row[col]:
                    row[col] = g9(float(row[col]) / scale)
            if row["peak"]:
                row["peak"] = g9(float(row["peak"]) * peak_scale)
                value = row["gbps"] if row["peak_unit"] == "GB/s" else row["tflops"]
                row["pct_peak"] = g9(100 * float(value) / float(row["peak"])) if value else ""
            gpu = row["cache"] != "n/a"
            is_timed = row["status"] in ("ok", "noisy") and gpu
            if schema >= 2:
                hot = False
                if is_timed:
                    timed += 1
                    hot = timed % THROTTLE_EVERY == 0
                if hot:
                    throttled.add((dev, row["benchmark"], row["axes"]))
                tele = telemetry and is_timed
                clock = 1590.0 if hot else 1980.0
                own_uuid = f"{uuid}-{dev}" if len(devices) > 1 else uuid
                row.update({
                    "device": dev if gpu else "", "device_uuid": own_uuid if gpu else "",
                    "replicates": "1",
                    "sm_clock_min_mhz": g9(clock - 15) if tele else "",
                    "sm_clock_median_mhz": g9(clock) if tele else "",
                    "sm_clock_max_mhz": g9(1980.0) if tele else "",
                    "mem_clock_median_mhz": "3201" if tele else "",
                    "power_mean_w": g9(700.0 if hot else 380.0 + 0.05 * timed) if tele else "",
                    "temp_max_c": g9(78.0 if hot else 55.0) if tele else "",
                    "throttle": (THROTTLE_WORDS if hot else "none") if tele else "",
                    "peak_source": ("attribute: 2 x mem clock x bus width"
                                    if row["peak_unit"] == "GB/s" else
                                    f"table: sm_{(cc or '9.0').replace('.', '')} FP32 lanes"
                                    if row["peak_unit"] == "TFLOP/s" else ""),
                })
            out_rows.append(row)
        host = {(r["benchmark"], r["axes"]) for r in results if r["cache"] == "n/a"}
        for s in samples:
            is_host = (s["benchmark"], s["axes"]) in host
            if k > 0 and is_host:
                continue
            s = dict(s)
            s["time_s"] = g9(float(s["time_s"]) * scale)
            if s["cupti_s"]:
                s["cupti_s"] = g9(float(s["cupti_s"]) * scale)
            if schema >= 2:
                hot = (dev, s["benchmark"], s["axes"]) in throttled
                s.update({"device": "" if is_host else dev, "replicate": "0",
                          "sm_clock_mhz": (g9(1590.0 if hot else 1980.0) if telemetry else ""),
                          "throttle": ((THROTTLE_WORDS if hot else "none") if telemetry else "")})
            out_samples.append(s)
    res_cols = RESULTS_COLUMNS + (RESULTS_COLUMNS_V2 if schema >= 2 else ())
    sam_cols = SAMPLES_COLUMNS + (SAMPLES_COLUMNS_V2 if schema >= 2 else ())
    _write(dst / "results.csv", res_cols, out_rows)
    if samples:
        _write(dst / "samples.csv", sam_cols, out_samples)
    return dst
