"""Small synthetic run directories for the history tests (the CLI's and the
dashboard's): a few vecadd points with samples, meta.json naming the commit,
start time, host, GPU and driver, and numbers of known structure (a step, a
throttled run) so that what `cubench history check` must find is known."""

from __future__ import annotations

import json
from pathlib import Path

POINTS = [("vecadd/float4_per_thread", f"n={n};block=256") for n in (1024, 4096, 16384)]
POINTS.append(("vecadd/host", "n=1024;threads=all"))


def write_run(path: Path, minute: int, sha: str, factor: float = 1.0, *,
              driver: str = "580.159.04", uuid: str = "GPU-test-a", throttle: str = "none",
              wobble: float = 0.0) -> Path:
    """One run started at 2027-01-01 + `minute` minutes, every time x factor
    x (1 + wobble) (a deterministic wobble keeps the series from being flat)."""
    path.mkdir(parents=True, exist_ok=True)
    head = ("schema_version,benchmark,family,axes,status,reason,timer,batch,samples,median_s,"
            "ci_lo_s,ci_hi_s,sm_clock_median_mhz,power_mean_w,temp_max_c,throttle\n")
    results, samples = [head], ["benchmark,axes,sample,time_s,replicate\n"]
    for p, (bench, axes) in enumerate(POINTS):
        t = 10e-6 * (1 + 0.3 * p) * factor * (1 + wobble)
        timer = "host" if bench.endswith("/host") else "event"
        results.append(f"2,{bench},vecadd,{axes},ok,,{timer},1,12,{t:.9g},{t * 0.998:.9g},"
                       f"{t * 1.002:.9g},1980,300,50,{throttle}\n")
        for k in range(12):
            samples.append(f"{bench},{axes},{k},{t * (1 + 0.001 * ((k % 5) - 2)):.9g},{k // 6}\n")
    (path / "results.csv").write_text("".join(results))
    (path / "samples.csv").write_text("".join(samples))
    meta = {"schema_version": 2, "git_sha": sha, "complete": True,
            "started": f"2027-01-{1 + minute // 1440:02d}T{minute // 60 % 24:02d}:"
                       f"{minute % 60:02d}:00Z",
            "build": {"type": "Release", "cuda_architectures": "90"},
            "host": {"hostname": "testhost"},
            "cuda": {"runtime_version": "13.0", "driver_api_version": "13.0"},
            "device": {"name": "NVIDIA H200", "uuid": uuid},
            "telemetry": {"driver_version": driver}}
    (path / "meta.json").write_text(json.dumps(meta))
    return path


def wobble(r: int) -> float:
    """-1% .. +1% in a fixed cycle of five."""
    return 0.005 * ((r * 7) % 5 - 2)


def series_with_step(root: Path, name: str, runs: int = 14, step_at: int = 10,
                     ratio: float = 1.10, start: int = 0, **kw) -> list[Path]:
    """`runs` runs a minute apart from minute `start`, every time x `ratio`
    from run `step_at` on; commit "<name>-<run>"."""
    return [write_run(root / f"{name}-{r:02d}", start + r, f"{name}-{r:02d}",
                      ratio if r >= step_at else 1.0, wobble=wobble(r), **kw)
            for r in range(runs)]
