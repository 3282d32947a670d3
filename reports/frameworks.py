"""The Python framework families (bench/python: `python -m cubench`) beside
the C rungs.

A run that holds C vector adds or matmuls and framework rows of the same
operation (torch.add, cupy.add, a Numba kernel, torch.matmul, a Triton
matmul...) draws them in one figure: the vector-add bandwidth chart and the
matmul ladder take the framework rows as labelled curves and bars, each
with the kernel CUPTI saw it launch, so a reader sees which kernel
`torch.add` or `cupy.add` ran and can set it against the hand-written one.

A framework row is a row of one of FAMILIES whose work model is the C
family's: vector add has the axis n and counts 12 bytes per element
(results.csv `bytes`); matmul has m, n, k and counts 2mnk flops.
"""

from __future__ import annotations

from .load import Result, Run

# bench/python/__init__.py's FAMILIES: the families `python -m cubench` adds.
FAMILIES = ("numpy", "torch", "cupy", "jax", "numba", "triton", "pycuda", "torch_ext",
            "torch_dist", "tensorflow", "rapids", "opencv")


def is_framework_bench(bench: str) -> bool:
    """`torch/add` is; `vecadd/float4_per_thread` is not."""
    return bench.partition("/")[0] in FAMILIES


def is_framework(row: Result) -> bool:
    return is_framework_bench(row.benchmark)


def vecadd_rows(run: Run) -> list[Result]:
    """Measured framework rows with vector add's work model."""
    out = []
    for r in run.rows():
        n = r.axis("n")
        if (is_framework(r) and n and r.gbps is not None and r.num.get("bytes")
                and abs(r.num["bytes"] - 12 * n) <= 1e-6 * 12 * n):
            out.append(r)
    return out


def matmul_rows(run: Run) -> list[Result]:
    """Measured framework rows with matmul's axes and work model."""
    out = []
    for r in run.rows():
        if not (is_framework(r) and r.tflops is not None and "m" in r.axes):
            continue
        m = r.axis("m")
        n = m if r.axes.get("n") == "m" else r.axis("n")
        k = m if r.axes.get("k") == "m" else r.axis("k")
        flops = r.num.get("flops")
        # results.csv keeps 9 significant digits: equal to within 1e-6.
        if m and n and k and flops and abs(flops - 2 * m * n * k) <= 1e-6 * flops:
            out.append(r)
    return out


def kernel_text(row: Result, width: int = 48) -> str:
    """The first kernel CUPTI saw for the row, shortened to `width`
    characters (C++ template arguments and parameters dropped first)."""
    name = row.kernels.split("|")[0].strip()
    if not name:
        return ""
    for cut in ("(", "<"):
        head = name.split(cut)[0]
        if head:
            name = head
    if name.startswith("void "):
        name = name[5:]
    # Too long: leading namespaces go first (the kernel's own name last).
    while len(name) > width and "::" in name:
        name = name.split("::", 1)[1]
    return name if len(name) <= width else name[:width - 1] + "…"


def label(bench: str) -> str:
    """`torch/add` -> `torch: add`: the family names the framework."""
    family, _, variant = bench.partition("/")
    return f"{family}: {variant}"
