"""numba: Numba's CUDA target (numba-cuda) on the runner's stream
(numba.cuda.external_stream(ctx.stream)).

  numba/vectorize         @vectorize(["float32(float32, float32)"],
                          target="cuda"): Numba's ufunc, its own operator
  numba/jit_kernel        a hand-written @cuda.jit kernel, one element per
                          thread, 256 threads per block (as
                          vecadd/thread_per_elem)
  numba/matmul_smem_fp32  a hand-written @cuda.jit FP32 matmul with 16 x 16
                          shared-memory tiles (as matmul/smem_tiled, tile
                          16): Numba has no matmul of its own
  numba/copy              copy_to_device / copy_to_host on the stream, from
                          NumPy (pageable) or numba.cuda.pinned_array

Inputs are drawn with NumPy on the host and copied in setup (untimed);
checks copy the output back and apply cubench.check on the host.
"""

import sys

import cubench as cb

from . import _common as C

_BLOCK = 256
_TILE = 16  # _numba_kernels.TILE


def _open(ctx):
    from numba import cuda

    if not cuda.is_available():
        raise C.no_device("numba", "numba.cuda.is_available() is False")
    if ctx.device is None or ctx.device >= len(cuda.gpus):
        raise C.no_device("numba", f"device {ctx.device} of {len(cuda.gpus)}")
    cuda.select_device(ctx.device)
    return cuda, cuda.external_stream(ctx.stream)


def release():
    """Numba frees device memory lazily: flush what the point left."""
    numba_cuda = sys.modules.get("numba.cuda")
    if numba_cuda is not None and numba_cuda.is_available():
        try:
            numba_cuda.current_context().deallocations.clear()
        except Exception:  # noqa: BLE001 - no context yet
            pass


def _kernels():
    """The kernels (bench/python/_numba_kernels.py), compiled for float32
    at their first launch: the verified run, untimed."""
    _numpy_row_stack_alias()
    from . import _numba_kernels

    return _numba_kernels


def _numpy_row_stack_alias():
    """numba-cuda's array module registers an overload for np.row_stack when
    it is imported; NumPy 2.5 removed that alias of np.vstack, so on the
    H200 image (numba-cuda with numpy 2.5) every kernel setup raised
    AttributeError. Give NumPy the alias back before numba looks for it.
    (Seen on the H200 on 2026-12-01; the fix is not yet run there.)"""
    import numpy as np

    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack


def _vecadd(kind):
    def setup(p, ctx):
        cuda, stream = _open(ctx)
        import numpy as np

        n = p["n"]
        seed_a, seed_b = C.seeds(ctx)
        ha = np.random.default_rng(seed_a).uniform(-1, 1, n).astype(np.float32)
        hb = np.random.default_rng(seed_b).uniform(-1, 1, n).astype(np.float32)
        a, b = cuda.to_device(ha, stream=stream), cuda.to_device(hb, stream=stream)
        c = cuda.to_device(np.full(n, np.nan, np.float32), stream=stream)
        stream.synchronize()
        kernels = _kernels()
        if kind == "vectorize":
            ufunc = kernels.add_ufunc

            def run():
                ufunc(a, b, out=c, stream=stream)
        else:
            kernel = kernels.add_kernel[(n + _BLOCK - 1) // _BLOCK, _BLOCK, stream]

            def run():
                kernel(a, b, c)

        def verify():
            stream.synchronize()
            return cb.vecadd_check(ha, hb, c.copy_to_host())

        return cb.Setup(run=run, verify=verify)
    return setup


for _kind, _doc in (("vectorize", "c = a + b, a @vectorize(target='cuda') ufunc"),
                    ("jit_kernel", "c = a + b, a @cuda.jit kernel, one element per thread")):
    cb.benchmark(f"numba/{_kind}", axes=[C.N_AXIS], summary=_doc, peak="dram",
                 bytes=C.vecadd_bytes, flops=C.vecadd_flops, requires="numba.cuda",
                 release=release)(_vecadd(_kind))


@cb.benchmark("numba/matmul_smem_fp32", axes=C.matmul_axes("256,1024,4096"), peak="fp32",
              bytes=C.matmul_bytes("fp32"), flops=C.matmul_flops, ref="matmul/cublas_fp32",
              requires="numba.cuda", release=release)
def matmul_smem(p, ctx):
    """C = A B in FP32, a @cuda.jit kernel with 16 x 16 shared-memory tiles"""
    cuda, stream = _open(ctx)
    import numpy as np

    m, n, k = C.matmul_shape(p)
    if (n + _TILE - 1) // _TILE > 2**31 - 1 or (m + _TILE - 1) // _TILE > 65535:
        raise cb.Skip(f"a grid of {(n + _TILE - 1) // _TILE} x {(m + _TILE - 1) // _TILE} "
                      "blocks exceeds the 65535 limit of grid.y")
    rng = np.random.default_rng(C.seeds(ctx)[0])
    ha = rng.uniform(-1, 1, (m, k)).astype(np.float32)
    hb = rng.uniform(-1, 1, (k, n)).astype(np.float32)
    a, b = cuda.to_device(ha, stream=stream), cuda.to_device(hb, stream=stream)
    c = cuda.to_device(np.full((m, n), np.nan, np.float32), stream=stream)
    stream.synchronize()
    grid = ((n + _TILE - 1) // _TILE, (m + _TILE - 1) // _TILE)
    kernels = _kernels()
    kernel = kernels.matmul_smem[grid, (kernels.TILE, kernels.TILE), stream]

    def run():
        kernel(a, b, c)

    def verify():
        stream.synchronize()
        return cb.matmul_check(ha, hb, c.copy_to_host(), "fp32", seed=ctx.seed,
                               full_max_fma=cb.check.HOST_FULL_REF_MAX_FMA)

    return cb.Setup(run=run, verify=verify, note=f"grid {grid[0]} x {grid[1]} of 16 x 16 threads")


@cb.benchmark("numba/copy", axes=C.COPY_AXES, peak="pcie", bytes=C.copy_bytes,
              requires="numba.cuda", release=release)
def copy(p, ctx):
    """DeviceNDArray.copy_to_device / copy_to_host on the runner's stream"""
    cuda, stream = _open(ctx)
    import numpy as np

    count, source = C.copy_source(p, ctx)
    pinned_empty = cuda.pinned_array if p["memory"] == "pinned" else None

    if p["direction"] == "h2d":
        src = C.host_array(count, source, pinned_empty)
        dst = cuda.to_device(np.full(count, np.nan, np.float32), stream=stream)

        def run():
            dst.copy_to_device(src, stream=stream)

        def result():
            return dst.copy_to_host()
    else:
        src = cuda.to_device(source, stream=stream)
        dst = C.host_array(count, np.nan, pinned_empty)

        def run():
            src.copy_to_host(dst, stream=stream)

        def result():
            return dst
    stream.synchronize()

    def verify():
        stream.synchronize()
        return C.check_copy(p, result(), source)

    return cb.Setup(run=run, verify=verify, memcpy_kinds=C.copy_kinds(p))
