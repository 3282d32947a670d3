"""numpy: host baselines in NumPy, the Python counterpart of vecadd/host and
matmul/host_cblas. They run anywhere (CI drives the whole Python path with
them) and show what the same operation costs on the CPU from Python.

  numpy/add      np.add(a, b, out=c), float32 (one thread: NumPy's ufuncs)
  numpy/matmul   np.matmul(a, b, out=c), float32 through NumPy's BLAS
"""

import cubench as cb

from . import _common as C


@cb.benchmark("numpy/add", axes=[C.N_AXIS_HOST], target="host", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires="numpy")
def add(p, ctx):
    """c = a + b with np.add into a preallocated c (float32, host)"""
    import numpy as np

    seed_a, seed_b = C.seeds(ctx)
    a = np.random.default_rng(seed_a).uniform(-1, 1, p["n"]).astype(np.float32)
    b = np.random.default_rng(seed_b).uniform(-1, 1, p["n"]).astype(np.float32)
    c = np.full(p["n"], np.nan, dtype=np.float32)  # poison: unwritten elements fail

    def run():
        np.add(a, b, out=c)

    return cb.Setup(run=run, verify=lambda: cb.vecadd_check(a, b, c))


@cb.benchmark("numpy/matmul", axes=C.matmul_axes(C.MATMUL_SIZES_HOST), target="host",
              bytes=C.matmul_bytes("fp32"), flops=C.matmul_flops, requires="numpy")
def matmul(p, ctx):
    """C = A B in FP32 with np.matmul (NumPy's BLAS, its own threads)"""
    import numpy as np

    m, n, k = C.matmul_shape(p)
    rng = np.random.default_rng(C.seeds(ctx)[0])
    a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    c = np.full((m, n), np.nan, dtype=np.float32)

    def run():
        np.matmul(a, b, out=c)

    return cb.Setup(run=run, verify=lambda: cb.matmul_check(a, b, c, "fp32", seed=ctx.seed))
