"""rapids: cuDF Series arithmetic. cuDF launches on its own (default)
stream, so the benchmark uses the host timer and run() waits with
cudaDeviceSynchronize through CuPy, which cuDF depends on.

Where it ran: nowhere with cuDF. The machines cubench was measured on do
not have it (it skips there as not installed), and it cannot be installed
usefully without a GPU driver. tests/py/test_python_roads.py runs this
setup, run and verify against a stand-in cudf (Series on NumPy arrays) and
cupy (the device calls).

  rapids/add   c = a + b on two cudf.Series of float32 (a new Series per call)
"""

import cubench as cb

from . import _common as C


@cb.benchmark("rapids/add", axes=[C.N_AXIS], timer="host", peak="dram", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires=("cudf", "cupy"))
def add(p, ctx):
    """c = a + b on cudf.Series (host timer)"""
    import cudf
    import cupy
    import numpy as np

    if ctx.device is None or ctx.device >= cupy.cuda.runtime.getDeviceCount():
        raise C.no_device("rapids", f"device {ctx.device}")
    cupy.cuda.Device(ctx.device).use()
    seed_a, seed_b = C.seeds(ctx)
    ha = np.random.default_rng(seed_a).uniform(-1, 1, p["n"]).astype(np.float32)
    hb = np.random.default_rng(seed_b).uniform(-1, 1, p["n"]).astype(np.float32)
    a, b = cudf.Series(ha), cudf.Series(hb)
    state = {}

    def run():
        state["c"] = a + b
        cupy.cuda.runtime.deviceSynchronize()

    return cb.Setup(run=run, verify=lambda: cb.vecadd_check(ha, hb, state["c"].to_numpy()),
                    note="a new Series per call")
