"""pycuda: PyCUDA's two ways to write a kernel and its two kinds of host
memory, on the device's primary context (the one the runner's CUDA runtime
uses, retained and pushed in setup, popped in teardown).

  pycuda/add            c = a + b, an ElementwiseKernel 'c[i] = a[i] + b[i]'
                        (PyCUDA writes a grid-stride loop over floats and
                        compiles it with nvcc)
  pycuda/source_module  c = a + b, a SourceModule: hand-written CUDA C, one
                        float4 per thread (the source of cupy/raw_kernel),
                        launched with prepared_call
  pycuda/copy           GPUArray.set / get from pageable NumPy arrays, and
                        set_async / get_async from page-locked ones
                        (pycuda.driver.pagelocked_empty), host <-> device

The stream. PyCUDA cannot wrap a stream it did not create, so every launch
and copy here goes on the legacy default stream. The runner's stream is a
blocking stream (cudaStreamCreate), and the legacy default stream orders
itself with every blocking stream of its context: its work waits for what
the runner queued before it (the L2 flush, the start event), and the
runner's stop event waits for it. So the runner's events time PyCUDA's
work exactly as they time a C kernel, with no host wait in run(). setup
reads the stream's flags (cuStreamGetFlags) and skips if the runner's
stream is ever non-blocking, where that ordering would not hold.

Where it ran: the cp312 wheel of PyCUDA 2026.1 built against CUDA 13.0
(scripts/setup.sh --frameworks builds one; docs/python.md says where each
figure came from). Without a GPU, tests/py/test_python_roads_real.py runs
the real PyCUDA: the import, the kernels of add and source_module
generated and compiled by PyCUDA's own compiler path for sm_90, and the
skip a machine without a driver gets.
"""

import ctypes

import cubench as cb

from . import _common as C

_PYCUDA = ("pycuda.driver", "pycuda.gpuarray")
CU_STREAM_NON_BLOCKING = 0x1  # CUstream_flags


def _stream_flags(handle: int) -> int:
    """cuStreamGetFlags of the runner's stream (PyCUDA has no call for a
    stream it did not create, so the driver is asked directly)."""
    libcuda = ctypes.CDLL("libcuda.so.1")
    flags = ctypes.c_uint(0)
    rc = libcuda.cuStreamGetFlags(ctypes.c_void_p(handle), ctypes.byref(flags))
    if rc != 0:
        raise RuntimeError(f"cuStreamGetFlags failed with CUresult {rc}")
    return flags.value


def _open(ctx):
    """Push the primary context of the runner's device; returns (drv, context)."""
    import pycuda.driver as drv

    try:
        drv.init()
        count = drv.Device.count()
    except drv.Error as e:
        raise C.no_device("pycuda", str(e).strip()) from None
    if ctx.device is None or ctx.device >= count:
        raise C.no_device("pycuda", f"device {ctx.device} of {count}")
    context = drv.Device(ctx.device).retain_primary_context()
    context.push()
    try:
        if ctx.stream and _stream_flags(ctx.stream) & CU_STREAM_NON_BLOCKING:
            raise cb.Skip("the runner's stream is non-blocking: PyCUDA's launches on the legacy "
                          "default stream would not be ordered with its events")
    except BaseException:
        context.pop()
        raise
    return drv, context


def _inputs(ctx, n):
    import numpy as np

    seed_a, seed_b = C.seeds(ctx)
    ha = np.random.default_rng(seed_a).uniform(-1, 1, n).astype(np.float32)
    hb = np.random.default_rng(seed_b).uniform(-1, 1, n).astype(np.float32)
    return ha, hb


def _vecadd(kind):
    def setup(p, ctx):
        import numpy as np
        import pycuda.gpuarray as gpuarray

        drv, context = _open(ctx)
        try:
            n = p["n"]
            ha, hb = _inputs(ctx, n)
            a, b = gpuarray.to_gpu(ha), gpuarray.to_gpu(hb)
            c = gpuarray.to_gpu(np.full(n, np.nan, np.float32))  # poisoned
            run, note = (_elementwise(a, b, c) if kind == "add" else _source_module(a, b, c, n))
            drv.Context.synchronize()
        except BaseException:
            context.pop()
            raise
        return cb.Setup(run=run, verify=lambda: cb.vecadd_check(ha, hb, c.get()),
                        teardown=context.pop, note=note)
    return setup


def _elementwise(a, b, c):
    import numpy as np
    from pycuda.elementwise import ElementwiseKernel

    kernel = ElementwiseKernel("const float *a, const float *b, float *c", "c[i] = a[i] + b[i]",
                               "cb_pycuda_add")
    # PyCUDA generates and compiles the kernel at its first call: make that
    # call here, then poison c again, so no run() includes nvcc.
    kernel(a, b, c)
    c.fill(np.float32(np.nan))

    def run():
        kernel(a, b, c)  # no stream argument: the legacy default stream
    return run, "ElementwiseKernel, legacy default stream"


def _source_module(a, b, c, n):
    from pycuda.compiler import SourceModule

    module = SourceModule(C.FLOAT4_ADD_SOURCE, no_extern_c=True)
    kernel = module.get_function(C.FLOAT4_ADD_NAME)
    kernel.prepare("PPPqPPPq")  # three pointers, long long n4, three pointers, long long n
    grid, block = (C.float4_grid(n), 1), (C.FLOAT4_BLOCK, 1, 1)
    args = (a.gpudata, b.gpudata, c.gpudata, n // 4, a.gpudata, b.gpudata, c.gpudata, n)

    def run():
        kernel.prepared_call(grid, block, *args)  # legacy default stream
    return run, f"SourceModule, grid {grid[0]} x {block[0]} threads, one float4 each"


for _kind, _doc in (("add", "c = a + b, a pycuda ElementwiseKernel 'c[i] = a[i] + b[i]'"),
                    ("source_module", "c = a + b, a pycuda SourceModule: one float4 per thread")):
    cb.benchmark(f"pycuda/{_kind}", axes=[C.N_AXIS], summary=_doc, peak="dram",
                 bytes=C.vecadd_bytes, flops=C.vecadd_flops, requires=_PYCUDA)(_vecadd(_kind))


@cb.benchmark("pycuda/copy", axes=C.COPY_AXES, peak="pcie", bytes=C.copy_bytes, requires=_PYCUDA)
def copy(p, ctx):
    """GPUArray.set/get (pageable) or set_async/get_async (page-locked)"""
    import numpy as np
    import pycuda.gpuarray as gpuarray

    drv, context = _open(ctx)
    try:
        count = C.copy_elements(p)
        pinned = p["memory"] == "pinned"
        want = np.random.default_rng(C.seeds(ctx)[0]).uniform(-1, 1, count).astype(np.float32)

        def host_array():
            # Page-locked memory from the driver, or NumPy's pageable memory;
            # either is written here, so every page is touched before timing.
            return drv.pagelocked_empty(count, np.float32) if pinned else np.empty(count,
                                                                                   np.float32)
        if p["direction"] == "h2d":
            src = host_array()
            src[:] = want
            dst = gpuarray.to_gpu(np.full(count, np.nan, np.float32))

            def run():
                if pinned:
                    dst.set_async(src)
                else:
                    dst.set(src)

            def result():
                return dst.get()
        else:
            src = gpuarray.to_gpu(want)
            dst = host_array()
            dst[:] = np.nan

            def run():
                if pinned:
                    src.get_async(ary=dst)
                else:
                    src.get(ary=dst)

            def result():
                return dst
        drv.Context.synchronize()
    except BaseException:
        context.pop()
        raise

    def verify():
        drv.Context.synchronize()
        got = result()
        bad = int(np.count_nonzero(got.view(np.uint32) != want.view(np.uint32)))
        if bad:
            raise cb.VerifyError(f"{p['direction']} copy: {bad} of {count} elements differ "
                                 "from the source")
        return 0.0

    how = "set_async/get_async, page-locked" if pinned else "set/get, pageable NumPy"
    return cb.Setup(run=run, verify=verify, teardown=context.pop, memcpy_kinds=C.copy_kinds(p),
                    note=f"{how}, legacy default stream")
