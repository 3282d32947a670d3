#!/usr/bin/env python3
"""py_add_kernels.py - one c = a + b of n float32 (default 2^28) by each of
torch.add, cupy.add, a cupy.ElementwiseKernel and a float4 cupy.RawKernel
(the same code as bench/python/cupy.py), bracketed by cudaProfilerStart/
Stop, for Nsight Compute to compare the kernels:

    ncu --profile-from-start off --metrics ... python3 scripts/record/py_add_kernels.py

Every kernel runs once before the profiled range (compilation, cuBLAS-free
warm-up) and once inside it; it prints the element count and which kernels
ran. scripts/record/gpu_python.sh runs it under ncu with the metrics that test why
cupy.add moves fewer bytes per second than torch.add: instructions and
global load/store instructions per element, sectors per request (4 for
32-bit loads of a warp, 16 for 128-bit), DRAM throughput.
"""

import argparse
import sys
from pathlib import Path


def raw_source() -> str:
    """The float4 kernel of the cupy family (one source for both)."""
    text = (Path(__file__).resolve().parents[2] / "bench" / "python" / "cupy.py").read_text()
    return text.split('_RAW_SOURCE = r"""', 1)[1].split('"""', 1)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1 << 28)
    n = ap.parse_args().n
    import cupy
    import torch

    ta, tb = torch.rand(n, device="cuda"), torch.rand(n, device="cuda")
    tc = torch.empty(n, device="cuda")
    ca, cb_ = cupy.random.random(n, dtype=cupy.float32), cupy.random.random(n, dtype=cupy.float32)
    cc = cupy.empty(n, dtype=cupy.float32)
    ew = cupy.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y",
                                "cb_elementwise_add")
    raw = cupy.RawKernel(raw_source(), "cb_add_float4")
    block = 256
    grid = (max(n // 4, n % 4, 1) + block - 1) // block
    kernels = {
        "torch.add": lambda: torch.add(ta, tb, out=tc),
        "cupy.add": lambda: cupy.add(ca, cb_, out=cc),
        "cupy.ElementwiseKernel": lambda: ew(ca, cb_, cc),
        "cupy.RawKernel float4": lambda: raw((grid,), (block,),
                                             (ca, cb_, cc, cupy.int64(n // 4), ca, cb_, cc,
                                              cupy.int64(n))),
    }
    for run in kernels.values():  # compile and warm up outside the profiled range
        run()
    torch.cuda.synchronize()
    torch.cuda.profiler.start()
    for run in kernels.values():
        run()
        torch.cuda.synchronize()
    torch.cuda.profiler.stop()
    print(f"n = {n}: profiled {', '.join(kernels)} (in this order)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
