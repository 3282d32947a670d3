#!/usr/bin/env python3
"""py_event_loop.py - is cubench's torch/add what a plain CUDA-event loop
around torch.add measures? One process, one device, n = 2^28 float32
(3 GiB moved per add, 12 bytes per element as cubench counts them):

  1. a plain loop, both of cubench's cache modes, its event pairs all
     recorded before one synchronize (the host queues ahead of the GPU):
       cold: before every sample, read a buffer of 2 x L2 bytes (torch.sum
             into a scalar: what cubench's L2 flush does, a read of twice
             the L2), then event, torch.add, event;
       hot:  no flush; event, torch.add x batch, event, where the batch
             makes a sample >= 100 us (as cubench's hot mode; one add of
             2^28 takes ~0.7 ms on an H200, so the batch is 1);
  2. `python -m cubench run torch/add --axis n=2^28 --cache cold|hot`, in
     this process (cubench.main), into OUT/cubench-cold and -hot;
  3. the plain loop again, to bracket any drift of clocks or temperature.

Prints one line per measurement and writes OUT/event_loop.json with the
medians and cubench's median over the mean of the two loop medians per
mode; the check is |ratio - 1| < 1 %.

usage: python3 scripts/record/py_event_loop.py --out DIR [--n 268435456] [--samples 200]
"""

import argparse
import csv
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))


def plain_loop(torch, a, b, c, flush, cold: bool, samples: int) -> float:
    """Median seconds of one torch.add, timed with CUDA events: every
    sample's pair recorded in one pass and read after one synchronize (as
    triton.testing.do_bench does), so the host's dispatch of the next add
    overlaps the add before it and stays outside the samples."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):  # warm-up, as cubench's
        torch.add(a, b, out=c)
    torch.cuda.synchronize()
    start.record()
    torch.add(a, b, out=c)
    stop.record()
    stop.synchronize()
    single = start.elapsed_time(stop) * 1e-3
    batch = 1 if cold else max(1, int(-(-100e-6 // single)))
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
             for _ in range(samples)]
    for first, last in pairs:
        if cold:
            flush.sum()  # reads 2 x L2: the cold flush (the scalar is dropped)
        first.record()
        for _ in range(batch):
            torch.add(a, b, out=c)
        last.record()
    torch.cuda.synchronize()
    return statistics.median(first.elapsed_time(last) * 1e-3 / batch for first, last in pairs)


def cubench_median(out: Path) -> tuple[float, float, str]:
    with open(out / "results.csv", newline="") as f:
        row = next(csv.DictReader(f))
    cupti = float(row["cupti_median_s"]) if row["cupti_median_s"] else float("nan")
    return float(row["median_s"]), cupti, row["status"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--n", type=int, default=1 << 28)
    ap.add_argument("--samples", type=int, default=200)
    args = ap.parse_args()
    import torch

    import cubench

    args.out.mkdir(parents=True, exist_ok=True)
    dev = torch.device("cuda", 0)
    torch.cuda.set_device(dev)
    g = torch.Generator(device=dev).manual_seed(1)
    a = torch.rand(args.n, generator=g, device=dev)
    b = torch.rand(args.n, generator=g, device=dev)
    c = torch.empty(args.n, device=dev)
    l2 = torch.cuda.get_device_properties(dev).L2_cache_size
    flush = torch.zeros(2 * l2 // 4, device=dev)
    gbps = lambda t: 12 * args.n / t / 1e9  # noqa: E731

    doc = {"n": args.n, "l2_bytes": l2, "device": torch.cuda.get_device_name(dev),
           "torch": torch.__version__, "samples": args.samples, "modes": {}}
    loops = {"cold": [], "hot": []}
    for mode in ("cold", "hot"):
        t = plain_loop(torch, a, b, c, flush, mode == "cold", args.samples)
        loops[mode].append(t)
        print(f"plain loop {mode:4s}: {t * 1e6:9.2f} us  {gbps(t):7.1f} GB/s", flush=True)
    del a, b, c
    torch.cuda.empty_cache()
    for mode in ("cold", "hot"):
        out = args.out / f"cubench-{mode}"
        rc = cubench.main(["run", "torch/add", "--axis", f"n={args.n}", "--cache", mode,
                           "--out", str(out), "--quiet"])
        med, cupti, status = cubench_median(out)
        doc["modes"][mode] = {"cubench_rc": rc, "cubench_status": status, "cubench_median_s": med,
                              "cubench_cupti_median_s": cupti}
        print(f"cubench    {mode:4s}: {med * 1e6:9.2f} us  {gbps(med):7.1f} GB/s  "
              f"(CUPTI {cupti * 1e6:.2f} us, {status}, rc {rc})", flush=True)
    a = torch.rand(args.n, generator=g, device=dev)
    b = torch.rand(args.n, generator=g, device=dev)
    c = torch.empty(args.n, device=dev)
    for mode in ("cold", "hot"):
        t = plain_loop(torch, a, b, c, flush, mode == "cold", args.samples)
        loops[mode].append(t)
        print(f"plain loop {mode:4s}: {t * 1e6:9.2f} us  {gbps(t):7.1f} GB/s  (again)", flush=True)
    ok = True
    for mode in ("cold", "hot"):
        loop = statistics.fmean(loops[mode])
        ratio = doc["modes"][mode]["cubench_median_s"] / loop
        doc["modes"][mode].update(loop_median_s=loops[mode], loop_mean_of_medians_s=loop,
                                  cubench_over_loop=ratio, within_1pct=abs(ratio - 1) < 0.01)
        ok &= abs(ratio - 1) < 0.01
        print(f"{mode}: cubench / plain loop = {ratio:.4f} ({(ratio - 1) * 100:+.2f} %)")
    (args.out / "event_loop.json").write_text(json.dumps(doc, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
