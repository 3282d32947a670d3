"""Verification as strict as the C families, for Python benchmarks.

Vector add (bench/vecadd.c): every element of c must equal a + b rounded
once to float32, i.e. float32(float64(a) + float64(b)) (the sum of two
float32 is exact in float64, so this is IEEE float32 addition). No
tolerance: one wrong or unwritten (NaN-poisoned) element fails.

Matmul (bench/detail/matmul_ref.h): the K-scaled normwise error

    err = max_ij |C_ij - R_ij| / (K max|A| max|B|)        (alpha = 1, beta = 0)

against the exact product R (FP64), with the tolerance by input precision

    tol = 16 u_in / sqrt(K) + 16 u_fp32,   u_fp32 = 2^-24,
    u_in = 0 (FP32), 2^-11 (TF32), 2^-8 (BF16).

A NaN or infinity anywhere in C fails. The functions on NumPy arrays do
the whole check; `*_judge` take the reductions a framework computed on its
own device and apply the same verdict.
"""

from __future__ import annotations

import math

from .errors import VerifyError

U_FP32 = 2.0 ** -24
U_INPUT = {"fp32": 0.0, "tf32": 2.0 ** -11, "bf16": 2.0 ** -8}
# Beyond this many multiply-adds the host reference is sampled (as in
# bench/matmul_common.h: CB_MATMUL_FULL_REF_MAX_FMA, CB_MATMUL_SPOT_SAMPLES).
FULL_REF_MAX_FMA = 1 << 30
# Families whose check runs on a GPU machine's host (JAX, Numba) afford the
# full FP64 product up to 8192^3 (5.5e11 multiply-adds: seconds with a
# threaded BLAS), where the C rungs compare with cuBLAS instead.
HOST_FULL_REF_MAX_FMA = 1 << 40
SPOT_SAMPLES = 512
_CHUNK = 1 << 24  # elements per slice of a host check (bounds its memory)


def matmul_tolerance(precision: str, k: int) -> float:
    if precision not in U_INPUT:
        raise ValueError(f"precision must be one of {', '.join(U_INPUT)}, not {precision!r}")
    return 16.0 * U_INPUT[precision] / math.sqrt(max(int(k), 1)) + 16.0 * U_FP32


def matmul_judge(max_diff: float, scale: float, k: int, precision: str, nonfinite: int = 0,
                 where: str = "") -> float:
    """The verdict from reductions: max |C - R|, the scale K max|A| max|B|
    and the count of non-finite entries of C. Returns the error; raises
    VerifyError when C fails."""
    tol = matmul_tolerance(precision, k)
    if nonfinite:
        raise VerifyError(f"{nonfinite} entries of C are NaN or infinite (unwritten or "
                          f"overflowed){' ' + where if where else ''}", math.inf)
    err = float(max_diff) / (float(scale) if scale > 0 else 1.0)
    if not err <= tol:
        raise VerifyError(f"error {err:.3g} > {precision.upper()} tolerance {tol:.3g}"
                          f"{' ' + where if where else ''}", err)
    return err


def matmul_check(a, b, c, precision: str = "fp32", ref32=None, seed: int = 0,
                 full_max_fma: int = FULL_REF_MAX_FMA) -> float:
    """Check C = A B (NumPy arrays, row-major, any float dtype) against
    the exact product. Up to `full_max_fma` multiply-adds the whole FP64
    product is computed; above, SPOT_SAMPLES entries (the first and last
    among them) are computed exactly, and, when given, the whole of C is
    compared with `ref32`, a full-precision FP32 product the framework
    computed (as the C rungs compare with cuBLAS pedantic FP32)."""
    import numpy as np

    a64 = np.asarray(a, dtype=np.float64)
    b64 = np.asarray(b, dtype=np.float64)
    c64 = np.asarray(c, dtype=np.float64)
    m, k = a64.shape
    n = b64.shape[1]
    if c64.shape != (m, n):
        raise VerifyError(f"C has shape {c64.shape}, expected {(m, n)}")
    nonfinite = int(np.count_nonzero(~np.isfinite(c64)))
    scale = k * float(np.abs(a64).max()) * float(np.abs(b64).max())
    if nonfinite:
        return matmul_judge(0.0, scale, k, precision, nonfinite)
    if m * n * k <= full_max_fma:
        diff = float(np.abs(c64 - a64 @ b64).max())
        return matmul_judge(diff, scale, k, precision, where="(full FP64 reference)")
    rng = np.random.default_rng(seed)
    rows = np.concatenate(([0, m - 1], rng.integers(0, m, SPOT_SAMPLES - 2)))
    cols = np.concatenate(([0, n - 1], rng.integers(0, n, SPOT_SAMPLES - 2)))
    exact = np.einsum("ij,ji->i", a64[rows, :], b64[:, cols])
    spot = float(np.abs(c64[rows, cols] - exact).max())
    err = matmul_judge(spot, scale, k, precision, where=f"({SPOT_SAMPLES} FP64 spot checks)")
    if ref32 is not None:
        r64 = np.asarray(ref32, dtype=np.float64)
        ref_spot = float(np.abs(r64[rows, cols] - exact).max())
        matmul_judge(ref_spot, scale, k, "fp32", where="(the FP32 reference itself)")
        full = float(np.abs(c64 - r64).max())
        err = max(err, matmul_judge(full, scale, k, precision, where="(vs the FP32 reference)"))
    return err


def vecadd_judge(mismatches: int, n: int, first_bad: int | None = None, got: float | None = None,
                 want: float | None = None) -> float:
    """The verdict of an exact check done elsewhere; returns 0.0."""
    if mismatches:
        where = ""
        if first_bad is not None:
            where = f", first at index {first_bad}"
            if got is not None and want is not None:
                where += f" (c = {got!r}, expected {want!r})"
        raise VerifyError(f"{mismatches} of {n} elements wrong{where}", math.inf)
    return 0.0


def vecadd_check(a, b, c) -> float:
    """c == float32(float64(a) + float64(b)) for every element (NumPy
    arrays); returns 0.0 or raises VerifyError naming the first bad one."""
    import numpy as np

    a = np.asarray(a).reshape(-1)
    b = np.asarray(b).reshape(-1)
    c = np.asarray(c).reshape(-1)
    n = a.size
    if b.size != n or c.size != n:
        raise VerifyError(f"sizes differ: a {a.size}, b {b.size}, c {c.size}")
    mismatches, first = 0, None
    for lo in range(0, n, _CHUNK):
        hi = min(n, lo + _CHUNK)
        want = (a[lo:hi].astype(np.float64) + b[lo:hi].astype(np.float64)).astype(np.float32)
        bad = c[lo:hi] != want  # NaN compares unequal: poison fails
        count = int(np.count_nonzero(bad))
        if count and first is None:
            first = lo + int(np.argmax(bad))
        mismatches += count
    if mismatches:
        want = np.float32(np.float64(a[first]) + np.float64(b[first]))
        return vecadd_judge(mismatches, n, first, float(c[first]), float(want))
    return 0.0
