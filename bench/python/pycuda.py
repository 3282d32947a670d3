"""pycuda: PyCUDA's ElementwiseKernel (pycuda.elementwise) on the
device's primary context, the one the runner uses.

  pycuda/add   c = a + b, an ElementwiseKernel 'c[i] = a[i] + b[i]'

PyCUDA cannot wrap a stream it did not create, so the kernel runs on the
legacy default stream and the benchmark uses the host timer: run()
launches and waits (pycuda.driver.Context.synchronize). Not installed on
the machines cubench was measured on: it skips there with that reason.
"""

import cubench as cb

from . import _common as C


@cb.benchmark("pycuda/add", axes=[C.N_AXIS], timer="host", peak="dram", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires=("pycuda.driver", "pycuda.gpuarray"))
def add(p, ctx):
    """c = a + b, a pycuda ElementwiseKernel (legacy stream, host timer)"""
    import numpy as np
    import pycuda.driver as drv
    import pycuda.gpuarray as gpuarray
    from pycuda.elementwise import ElementwiseKernel

    drv.init()
    if ctx.device is None or ctx.device >= drv.Device.count():
        raise C.no_device("pycuda", f"device {ctx.device} of {drv.Device.count()}")
    context = drv.Device(ctx.device).retain_primary_context()
    context.push()
    try:
        seed_a, seed_b = C.seeds(ctx)
        ha = np.random.default_rng(seed_a).uniform(-1, 1, p["n"]).astype(np.float32)
        hb = np.random.default_rng(seed_b).uniform(-1, 1, p["n"]).astype(np.float32)
        a, b = gpuarray.to_gpu(ha), gpuarray.to_gpu(hb)
        c = gpuarray.to_gpu(np.full(p["n"], np.nan, np.float32))
        kernel = ElementwiseKernel("const float *a, const float *b, float *c",
                                   "c[i] = a[i] + b[i]", "cb_pycuda_add")
    except BaseException:
        context.pop()
        raise

    def run():
        kernel(a, b, c)
        drv.Context.synchronize()

    return cb.Setup(run=run, verify=lambda: cb.vecadd_check(ha, hb, c.get()),
                    teardown=context.pop)
