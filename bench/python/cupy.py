"""cupy: CuPy's operators and its two ways of writing a kernel, on the
runner's stream (cupy.cuda.ExternalStream(ctx.stream), made current in
setup and the previous stream restored in teardown).

  cupy/add                 cupy.add(a, b, out=c)
  cupy/elementwise_kernel  cupy.ElementwiseKernel 'z = x + y' (what cupy.add
                           is built from: CuPy generates and compiles it)
  cupy/raw_kernel          cupy.RawKernel: hand-written CUDA C, one float4
                           (16-byte load and store) per thread, like
                           vecadd/float4_per_thread; the tail < 4 in scalars
  cupy/matmul_fp32         cupy.matmul, FP32: CuPy's default compute type
                           (CUBLAS_COMPUTE_32F, no TF32: CUPY_TF32 unset or 0)
  cupy/matmul_tf32         the same with the compute type set to TF32
                           (cupy._core._routines_linalg.set_compute_type)
  cupy/matmul_bf16         declared for the side-by-side table; CuPy has no
                           bfloat16 dtype, so it skips with that reason
  cupy/copy                ndarray.set / ndarray.get on the stream, from
                           NumPy (pageable) or cupyx.empty_pinned arrays

Comparing add, elementwise_kernel and raw_kernel at n = 2^28 separates
the cost of CuPy's generated elementwise code from that of the operator
call: scripts/record/gpu_python.sh records their CUPTI kernel names and ncu
counters.
"""

import sys

import cubench as cb

from . import _common as C



def _open(ctx):
    import cupy

    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError as e:
        raise C.no_device("cupy", str(e)) from None
    if ctx.device is None or ctx.device >= count:
        raise C.no_device("cupy", f"device {ctx.device} of {count}")
    cupy.cuda.Device(ctx.device).use()
    previous = cupy.cuda.get_current_stream()
    stream = cupy.cuda.ExternalStream(ctx.stream, ctx.device)
    stream.use()
    return cupy, (stream, previous)


def _close(streams):
    streams[1].use()


def release():
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()
        cupy.get_default_pinned_memory_pool().free_all_blocks()


def _uniform(cupy, shape, seed):
    """Uniform in [-1, 1) from a seeded device generator."""
    x = cupy.random.default_rng(seed).random(shape, dtype=cupy.float32)
    x *= 2
    x -= 1
    return x


def _check_vecadd(cupy, a, b, c) -> float:
    """Exact, on the device, in slices: c == float32(float64(a) + float64(b))."""
    n, chunk = c.size, 1 << 26
    mismatches, first = 0, None
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        want = (a[lo:hi].astype(cupy.float64) + b[lo:hi].astype(cupy.float64)).astype(cupy.float32)
        bad = c[lo:hi] != want
        count = int(bad.sum())
        if count and first is None:
            first = lo + int(bad.argmax())
        mismatches += count
    if mismatches:
        want = float(cupy.float32(float(a[first]) + float(b[first])))
        return cb.vecadd_judge(mismatches, n, first, float(c[first]), want)
    return 0.0


def _vecadd(kind):
    def setup(p, ctx):
        cupy, streams = _open(ctx)
        try:
            n = p["n"]
            seed_a, seed_b = C.seeds(ctx)
            a, b = _uniform(cupy, n, seed_a), _uniform(cupy, n, seed_b)
            c = cupy.full(n, cupy.nan, dtype=cupy.float32)
            note = ""
            if kind == "add":
                def run():
                    cupy.add(a, b, out=c)
            elif kind == "elementwise_kernel":
                kernel = cupy.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x + y",
                                                "cb_elementwise_add")

                def run():
                    kernel(a, b, c)
            else:
                kernel = cupy.RawKernel(C.FLOAT4_ADD_SOURCE, C.FLOAT4_ADD_NAME)
                n4, grid = n // 4, C.float4_grid(n)
                args = (a, b, c, cupy.int64(n4), a, b, c, cupy.int64(n))
                note = f"grid {grid} x {C.FLOAT4_BLOCK} threads, one float4 each"

                def run():
                    kernel((grid,), (C.FLOAT4_BLOCK,), args)
            streams[0].synchronize()
        except BaseException:
            _close(streams)
            raise
        return cb.Setup(run=run, verify=lambda: _check_vecadd(cupy, a, b, c),
                        teardown=lambda: _close(streams), note=note)
    return setup


for _kind, _doc in (("add", "c = a + b with cupy.add(out=c), float32"),
                    ("elementwise_kernel", "c = a + b, a cupy.ElementwiseKernel 'z = x + y'"),
                    ("raw_kernel", "c = a + b, a cupy.RawKernel: one float4 per thread")):
    cb.benchmark(f"cupy/{_kind}", axes=[C.N_AXIS], summary=_doc, peak="dram",
                 bytes=C.vecadd_bytes, flops=C.vecadd_flops, requires="cupy",
                 release=release)(_vecadd(_kind))


def _check_matmul(cupy, a, b, c, precision) -> float:
    k = a.shape[1]
    c64 = c.astype(cupy.float64)
    nonfinite = int((~cupy.isfinite(c64)).sum())
    scale = k * float(cupy.abs(a).max()) * float(cupy.abs(b).max())
    if nonfinite:
        return cb.matmul_judge(0.0, scale, k, precision, nonfinite)
    ref = a.astype(cupy.float64) @ b.astype(cupy.float64)
    diff = float(cupy.abs(c64 - ref).max())
    return cb.matmul_judge(diff, scale, k, precision, where="(FP64 reference on the device)")


def _matmul(precision):
    def setup(p, ctx):
        if precision == "bf16":
            raise cb.Skip("CuPy has no bfloat16 dtype")
        cupy, streams = _open(ctx)
        from cupy._core import _routines_linalg as linalg

        saved = linalg.get_compute_type(cupy.float32)
        try:
            m, n, k = C.matmul_shape(p)
            a = _uniform(cupy, (m, k), C.seeds(ctx)[0])
            b = _uniform(cupy, (k, n), C.seeds(ctx)[1])
            c = cupy.full((m, n), cupy.nan, dtype=cupy.float32)
            # The constants may be C-only: 1 and 7 are their values
            # (compute_type_str of cupy/_core/_routines_linalg.pyx).
            tf32 = getattr(linalg, "COMPUTE_TYPE_TF32", 7)
            want = tf32 if precision == "tf32" else getattr(linalg, "COMPUTE_TYPE_DEFAULT", 1)
            linalg.set_compute_type(cupy.float32, want)
            streams[0].synchronize()
        except BaseException:
            _close(streams)
            raise

        def run():
            cupy.matmul(a, b, out=c)

        def teardown():
            linalg.set_compute_type(cupy.float32, saved)
            _close(streams)

        name = "TF32" if precision == "tf32" else "DEFAULT (CUBLAS_COMPUTE_32F)"
        return cb.Setup(run=run, verify=lambda: _check_matmul(cupy, a, b, c, precision),
                        teardown=teardown, note=f"compute type {name}")
    return setup


for _prec in C.PRECISIONS:
    cb.benchmark(f"cupy/matmul_{_prec}", axes=C.matmul_axes(), summary=C.MATMUL_SUMMARY[_prec],
                 peak="fp32" if _prec == "fp32" else "none", bytes=C.matmul_bytes(_prec),
                 flops=C.matmul_flops, ref=f"matmul/cublas_{_prec}", requires="cupy",
                 release=release)(_matmul(_prec))


@cb.benchmark("cupy/copy", axes=C.COPY_AXES, peak="pcie", bytes=C.copy_bytes, requires="cupy",
              release=release)
def copy(p, ctx):
    """ndarray.set(host) / ndarray.get(out=host) on the runner's stream"""
    cupy, streams = _open(ctx)
    try:
        import numpy as np
        import cupyx

        count, source = C.copy_source(p, ctx)
        pinned_empty = cupyx.empty_pinned if p["memory"] == "pinned" else None

        stream = streams[0]
        if p["direction"] == "h2d":
            src = C.host_array(count, source, pinned_empty)
            dst = cupy.full(count, cupy.nan, dtype=cupy.float32)

            def run():
                dst.set(src, stream=stream)

            def result():
                return dst.get()
        else:
            src = cupy.asarray(source)
            dst = C.host_array(count, np.nan, pinned_empty)

            def run():
                src.get(stream=stream, out=dst)

            def result():
                return dst
        stream.synchronize()
    except BaseException:
        _close(streams)
        raise

    def verify():
        stream.synchronize()
        return C.check_copy(p, result(), source)

    return cb.Setup(run=run, verify=verify, teardown=lambda: _close(streams),
                    memcpy_kinds=C.copy_kinds(p))
