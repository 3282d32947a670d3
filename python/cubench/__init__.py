"""cubench for Python: the cubench runner (libcubench.so, through ctypes)
measuring Python code and the Python GPU frameworks.

    import cubench

    r = cubench.measure(lambda: a @ b, flops=2 * n**3)   # one call, in-process
    print(r.median_s, r.ci_s, r.status)

    rows = cubench.load("results/2026-12-01T10:00:00Z-host")   # any run directory
    df = rows.to_pandas()

    @cubench.benchmark("mine/add", axes=[cubench.Axis("n", "2^20:2^24:x4")],
                       bytes=lambda p: 12 * p["n"])
    def add(p, ctx):
        ...
        return cubench.Setup(run=run, verify=verify)

    $ cubench run 'mine/*' --module my_bench.py

A benchmark is run by the C runner: the same stopping rule, cold/hot modes,
verification before timing, CUPTI and NVTX, and the same run directory as
the `cubench` binary. docs/python.md has the details; `pytest --cubench-*`
options come from cubench.pytest_plugin.
"""

from ._version import __version__
from .check import (matmul_check, matmul_judge, matmul_tolerance, vecadd_check,
                    vecadd_judge)
from .declare import REGISTRY, Axis, Benchmark, Context, Point, Registry, Setup, benchmark
from .errors import Skip, VerifyError, is_out_of_memory
from .measurement import MeasureError, Result, measure
from .results import ResultsError, Rows, load

__all__ = [
    "Axis", "Benchmark", "Context", "MeasureError", "Point", "REGISTRY", "Registry", "Result",
    "ResultsError", "Rows", "Setup", "Skip", "VerifyError", "__version__", "benchmark",
    "is_out_of_memory", "load", "main", "matmul_check", "matmul_judge", "matmul_tolerance",
    "measure", "vecadd_check", "vecadd_judge",
]


def main(argv=None) -> int:
    """`cubench ARGS...` (`python -m cubench`) as a function: returns the exit code."""
    from .cli import main as _main
    return _main(argv)
