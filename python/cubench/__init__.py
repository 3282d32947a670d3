"""cubench for Python: the cubench runner (libcubench.so, through ctypes)
benchmarking Python code and the Python GPU frameworks.

    import cubench as cb

    @cb.benchmark("mine/add", axes=[cb.Axis("n", "2^20:2^24:x4", help="elements")],
                  target="host", bytes=lambda p: 12 * p["n"])
    def add(p, ctx):
        ...
        return cb.Setup(run=run, verify=verify)

    $ python -m cubench run 'mine/*' --module my_bench.py

A benchmark is declared here and run by the C runner: the same stopping
rule, cold/hot modes, verification before timing, CUPTI and NVTX, and the
same result directory as `cubench run`. docs/python.md has the details.
"""

from .check import (matmul_check, matmul_judge, matmul_tolerance, vecadd_check,
                    vecadd_judge)
from .declare import REGISTRY, Axis, Benchmark, Context, Point, Registry, Setup, benchmark
from .errors import Skip, VerifyError, is_out_of_memory

__version__ = "0.1.0"

__all__ = [
    "Axis", "Benchmark", "Context", "Point", "REGISTRY", "Registry", "Setup", "Skip",
    "VerifyError", "benchmark", "is_out_of_memory", "main", "matmul_check", "matmul_judge",
    "matmul_tolerance", "vecadd_check", "vecadd_judge",
]


def main(argv=None) -> int:
    """`python -m cubench ARGS...` as a function: returns the exit code."""
    from .cli import main as _main
    return _main(argv)
