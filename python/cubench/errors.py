"""What a Python benchmark's exception becomes in results.csv.

A hook that raises never takes the run down: the C runner gets a status and
a one-line reason. `Skip` and out-of-memory errors are `skip` rows (the
point cannot run here; the sweep goes on), every other exception is a
`fail` row whose reason is the exception's type, first line and the line of
the benchmark's own code that raised it.

Out-of-memory is recognised by duck typing, so no framework is imported to
ask: the class names and messages below are the ones PyTorch, CuPy, JAX,
Numba, TensorFlow and CUDA itself use.
"""

from __future__ import annotations

import os
import traceback

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

# Statuses of the C API (api/cubench_api.h). 0 is reserved there
# for "the hook broke": never used from Python on purpose.
OK, SKIP, FAIL = 1, 2, 3


class Skip(Exception):
    """Raise from setup, run or verify: the point cannot run here (a limit,
    a missing framework or device). The message is the row's reason."""


class VerifyError(AssertionError):
    """Raise from verify: the output is wrong. `error` is the measured
    error for the verify_error column (NaN when unknown)."""

    def __init__(self, message: str, error: float = float("nan")):
        super().__init__(message)
        self.error = error


# Class names (any module) that mean "the device or host ran out of memory".
_OOM_CLASSES = {
    "OutOfMemoryError",        # torch.cuda.OutOfMemoryError, cupy.cuda.memory.OutOfMemoryError
    "ResourceExhaustedError",  # tensorflow.errors.ResourceExhaustedError
    "MemoryError",             # host memory (numpy, pinned buffers)
}
# Message fragments that mean the same from generic exception classes.
_OOM_TEXT = (
    "RESOURCE_EXHAUSTED",           # jaxlib XlaRuntimeError
    "CUDA_ERROR_OUT_OF_MEMORY",     # numba CudaAPIError, pycuda, the driver API
    "cudaErrorMemoryAllocation",    # CuPy CUDARuntimeError, the runtime API
    "CUDA out of memory",           # PyTorch RuntimeError before OutOfMemoryError existed
    "out of memory",
)


def _chain(exc: BaseException):
    """The exception, then its causes and contexts (a framework often wraps
    the allocator's error in its own)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def is_out_of_memory(exc: BaseException) -> bool:
    for e in _chain(exc):
        if any(k.__name__ in _OOM_CLASSES for k in type(e).__mro__):
            return True
        text = str(e)
        if any(fragment in text for fragment in _OOM_TEXT):
            return True
        if type(e).__name__ == "CudaAPIError" and getattr(e, "code", None) == 2:
            return True  # CUDA_ERROR_OUT_OF_MEMORY
    return False


def _where(exc: BaseException, source: str | None) -> str:
    """`file.py:12 in run`: the innermost frame in the benchmark's own file
    (`source`), else the innermost outside this package's modules."""
    frames = list(reversed(traceback.extract_tb(exc.__traceback__)))
    mine = [f for f in frames if source and os.path.abspath(f.filename) == os.path.abspath(source)]
    others = [f for f in frames if os.path.dirname(os.path.abspath(f.filename)) != _PACKAGE_DIR]
    for frame in mine or others:
        return f"{os.path.basename(frame.filename)}:{frame.lineno} in {frame.name}"
    return ""


def describe(exc: BaseException, source: str | None = None) -> str:
    """One line: `ValueError: bad shape (my_bench.py:12 in run)`; `source`
    is the benchmark's file, whose line is preferred to a framework's."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    text = f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
    where = _where(exc, source)
    return f"{text} ({where})" if where else text


def classify(exc: BaseException, source: str | None = None) -> tuple[int, str]:
    """(status, reason) for an exception raised by a hook of the benchmark
    defined in file `source`."""
    if isinstance(exc, Skip):
        return SKIP, str(exc) or "skipped by the benchmark"
    if is_out_of_memory(exc):
        return SKIP, f"out of memory: {describe(exc, source)}"
    return FAIL, describe(exc, source)
