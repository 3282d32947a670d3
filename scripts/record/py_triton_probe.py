#!/usr/bin/env python3
"""py_triton_probe.py - which tile shapes and B layouts get the triton
family's matmul kernel (bench/python/_triton_kernels.py) onto WGMMA, and
what each costs at one square size (default 4096^3). Exploration data for
choosing the family's fixed tiles, not a benchmark: one process, CUDA
events around 10 launches after 2 warm-ups, the median of 5 such batches.

For each (precision, B layout, tiles): the matrix instruction in the PTX
Triton generated (wgmma.mma_async, mma.sync, or neither: FMA), TFLOP/s
(2 m n k flops), and whether C is right (the K-scaled normwise error
against an FP64 product on the device, the family's check). A shape
Triton cannot compile (shared memory) is printed as such.

usage: python3 scripts/record/py_triton_probe.py [--size 4096] [--out FILE.json]
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

# (precision, B K-major?, (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages))
CONFIGS = [
    ("fp32", False, (64, 64, 32, 4, 3)),
    ("fp32", False, (128, 64, 32, 4, 3)),
    ("fp32", False, (128, 128, 16, 8, 3)),
    ("tf32", False, (128, 128, 32, 8, 3)),
    ("tf32", False, (128, 256, 32, 8, 3)),
    ("tf32", False, (128, 128, 32, 4, 4)),
    ("tf32", True, (128, 128, 32, 8, 3)),
    ("tf32", True, (128, 256, 32, 8, 3)),
    ("tf32", True, (128, 128, 32, 4, 4)),
    ("tf32", True, (128, 256, 32, 8, 4)),
    ("bf16", False, (128, 128, 64, 8, 3)),
    ("bf16", False, (128, 256, 64, 8, 3)),
    ("bf16", False, (128, 256, 64, 8, 4)),
    ("bf16", False, (128, 128, 64, 4, 4)),
    ("bf16", True, (128, 256, 64, 8, 3)),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    import torch

    import importlib

    from cubench import loader

    loader.family_names()  # imports cubench.families from bench/python
    K = importlib.import_module("cubench.families._triton_kernels")

    s = args.size
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.rand((s, s), generator=g, device="cuda").mul_(2).sub_(1)
    b = torch.rand((s, s), generator=g, device="cuda").mul_(2).sub_(1)
    ref = a.double() @ b.double()
    scale = s * float(a.abs().max()) * float(b.abs().max())
    c = torch.empty((s, s), device="cuda")
    rows = []
    for prec, kmajor, tile in CONFIGS:
        bm, bn, bk, warps, stages = tile
        x, y = (a.bfloat16(), b.bfloat16()) if prec == "bf16" else (a, b)
        if kmajor:
            y = y.t().contiguous().t()

        def launch():
            return K.launch_matmul(x, y, c, tile, prec, 8)
        row = {"precision": prec, "b_kmajor": kmajor, "tiles": [bm, bn, bk],
               "warps": warps, "stages": stages}
        try:
            c.fill_(float("nan"))
            row["instruction"] = K.mma_instruction(launch()) or "?"
            launch()
            torch.cuda.synchronize()
            row["error"] = float((c.double() - ref).abs().max()) / scale
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            times = []
            for _ in range(5):
                start.record()
                for _ in range(10):
                    launch()
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop) * 1e-3 / 10)
            row["median_s"] = statistics.median(times)
            row["tflops"] = 2.0 * s ** 3 / row["median_s"] / 1e12
        except Exception as e:  # noqa: BLE001 - a config that cannot compile is data
            row["error_text"] = f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"
        rows.append(row)
        what = (f"{row['instruction']:16s} {row['tflops']:8.1f} TFLOP/s  error {row['error']:.2e}"
                if "tflops" in row else row["error_text"])
        print(f"{prec} B {'K' if kmajor else 'N'}-major {bm}x{bn}x{bk} w{warps} s{stages}: {what}",
              flush=True)
    if args.out:
        args.out.write_text(json.dumps({"size": s, "triton": __import__("triton").__version__,
                                        "torch": torch.__version__, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
