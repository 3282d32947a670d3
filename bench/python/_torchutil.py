"""PyTorch plumbing shared by the torch and triton families: the device and
the runner's stream, random inputs, and the checks of bench/python
(cubench.check's rules) computed on the device with PyTorch's own ops.
"""

from __future__ import annotations

import contextlib
import sys

import cubench as cb

from . import _common as C

_CHUNK = 1 << 26  # elements per slice of a device check: bounds its FP64 temporaries


def open_device(ctx):
    """(torch, device, stream): the runner's device and stream, made current
    for PyTorch (torch.cuda.set_stream) so every op, allocation and Triton
    launch goes on the stream the runner times. Call `close` to undo."""
    import torch

    if not torch.cuda.is_available():
        raise C.no_device("torch", f"torch.cuda.is_available() is False "
                                   f"(torch {torch.__version__}, CUDA {torch.version.cuda})")
    if ctx.device is None or ctx.device >= torch.cuda.device_count():
        raise C.no_device("torch", f"device {ctx.device} of {torch.cuda.device_count()}")
    dev = torch.device("cuda", ctx.device)
    torch.cuda.set_device(dev)
    previous = torch.cuda.current_stream(dev)
    stream = torch.cuda.ExternalStream(ctx.stream, device=dev)
    torch.cuda.set_stream(stream)
    return torch, dev, (stream, previous)


def close(streams):
    import torch

    torch.cuda.set_stream(streams[1])


@contextlib.contextmanager
def closed_on_error(streams):
    """The set-up after open_device: when it raises (a Skip, a failure),
    `close` gives the stream back before the error goes on; when it
    succeeds, the Setup's teardown closes instead."""
    try:
        yield
    except BaseException:
        close(streams)
        raise


def release():
    """After every point: give the caching allocator's blocks back, so the
    next framework in the same process finds the memory free."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        torch.cuda.empty_cache()


def uniform(torch, shape, seed: int, dev, dtype=None):
    """Uniform in [-1, 1) from a seeded device generator (never all zero)."""
    g = torch.Generator(device=dev)
    g.manual_seed(seed)
    x = torch.rand(shape, generator=g, device=dev, dtype=dtype or torch.float32)
    return x.mul_(2).sub_(1)


def check_vecadd(torch, a, b, c) -> float:
    """Exact: c == float32(float64(a) + float64(b)) for every element."""
    n = c.numel()
    mismatches, first = 0, None
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        want = (a[lo:hi].double() + b[lo:hi].double()).float()
        bad = c[lo:hi] != want  # NaN != anything: poison fails
        count = int(bad.sum())
        if count and first is None:
            first = lo + int(bad.nonzero()[0])
        mismatches += count
    if mismatches:
        want = float((a[first].double() + b[first].double()).float())
        return cb.vecadd_judge(mismatches, n, first, float(c[first]), want)
    return 0.0


def check_matmul(torch, a, b, c, precision: str) -> float:
    """The K-scaled normwise error of C against A B computed in FP64 on the
    device (FP64 rounding, ~K 2^-53, is far below every tolerance). For
    BF16 the reference is the FP32 problem, as for cublas_bf16."""
    k = a.shape[1]
    c64 = c.double()
    nonfinite = int((~torch.isfinite(c64)).sum())
    scale = k * float(a.abs().max()) * float(b.abs().max())
    if nonfinite:
        return cb.matmul_judge(0.0, scale, k, precision, nonfinite)
    ref = a.double() @ b.double()
    diff = float((c64 - ref).abs().max())
    return cb.matmul_judge(diff, scale, k, precision, where="(FP64 reference on the device)")


def check_equal(torch, got, want, what: str) -> float:
    """Bit-exact equality of a copy with its source."""
    if not torch.equal(got.cpu() if got.is_cuda else got, want.cpu() if want.is_cuda else want):
        bad = int((got.cpu() != want.cpu()).sum())
        raise cb.VerifyError(f"{what}: {bad} of {want.numel()} elements differ from the source")
    return 0.0
