"""triton: hand-written Triton kernels (bench/python/_triton_kernels.py) on
PyTorch tensors, launched on the runner's stream (PyTorch's current stream,
set by torch.cuda.set_stream(ExternalStream(ctx.stream)) in setup).

  triton/add           c = a + b, 1024 elements per program, masked tail
  triton/matmul_fp32   tl.dot(input_precision="ieee"): FP32 FMA, no TF32
  triton/matmul_tf32   tl.dot(input_precision="tf32"): TF32 tensor cores
  triton/matmul_bf16   bfloat16 A and B (converted in setup, untimed), FP32
                       accumulator and C
  triton/matmul_tf32_bkmajor
                       as matmul_tf32, with B stored column-major (K-major;
                       the copy is made in setup, untimed): WGMMA reads a
                       32-bit operand from shared memory only K-major, so
                       the row-major B of matmul_tf32 may keep Triton on
                       mma.sync. The pair shows what the layout costs.

Every matmul row's note names the tensor-core instruction found in the
PTX that Triton generated for it (wgmma.mma_async, mma.sync, or none:
FMA), so a slow row says which path it took.

The matmul kernel is a plain blocked kernel with grouped program order and
one fixed tile shape per precision (no autotuning: a sweep should not
spend its time tuning); its gap to cuBLAS is the rung's lesson. Checks use
PyTorch on the device, as for the torch family.
"""

import cubench as cb

from . import _common as C
from . import _torchutil as T

_ADD_BLOCK = 1024
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) per precision: FP32 FMA
# tiles smaller than tensor-core ones, which keep 3 stages within 228 KiB
# of shared memory (128 x 32 x 4 B x 2 operands x 3 stages = 96 KiB).
_TILES = {"fp32": (64, 64, 32, 4, 3), "tf32": (128, 128, 32, 8, 3), "bf16": (128, 128, 64, 8, 3)}
_GROUP_M = 8


def _open(ctx):
    torch, dev, streams = T.open_device(ctx)
    from . import _triton_kernels

    return torch, dev, streams, _triton_kernels


@cb.benchmark("triton/add", axes=[C.N_AXIS], peak="dram", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires=("torch", "triton"), release=T.release)
def add(p, ctx):
    """c = a + b, a Triton kernel of 1024 elements per program"""
    torch, dev, streams, K = _open(ctx)
    try:
        n = p["n"]
        if n >= 2**31:
            raise cb.Skip("offsets are 32-bit in this kernel: n must be below 2^31")
        seed_a, seed_b = C.seeds(ctx)
        a, b = T.uniform(torch, n, seed_a, dev), T.uniform(torch, n, seed_b, dev)
        c = torch.full((n,), float("nan"), device=dev)
        grid = ((n + _ADD_BLOCK - 1) // _ADD_BLOCK,)
        torch.cuda.current_stream(dev).synchronize()
    except BaseException:
        T.close(streams)
        raise

    def run():
        K.add_kernel[grid](a, b, c, n, BLOCK=_ADD_BLOCK)

    return cb.Setup(run=run, verify=lambda: T.check_vecadd(torch, a, b, c),
                    teardown=lambda: T.close(streams), note=f"{grid[0]} programs")


def _mma_path(compiled) -> str:
    """Which matrix instruction the compiled kernel issues, from its PTX."""
    asm = getattr(compiled, "asm", None)
    ptx = asm.get("ptx", "") if isinstance(asm, dict) else ""
    if not ptx:
        return "PTX not available"
    for instruction in ("wgmma.mma_async", "mma.sync"):
        if instruction in ptx:
            return f"PTX: {instruction}"
    return "PTX: no mma (FMA)"


def _matmul(precision, b_kmajor=False):
    def setup(p, ctx):
        torch, dev, streams, K = _open(ctx)
        try:
            m, n, k = C.matmul_shape(p)
            a = T.uniform(torch, (m, k), C.seeds(ctx)[0], dev)
            b = T.uniform(torch, (k, n), C.seeds(ctx)[1], dev)
            c = torch.full((m, n), float("nan"), device=dev)
            x, y = (a.bfloat16(), b.bfloat16()) if precision == "bf16" else (a, b)
            if b_kmajor:  # the same values, stored column by column
                y = b.t().contiguous().t()
            bm, bn, bk, warps, stages = _TILES[precision]
            grid = (((m + bm - 1) // bm) * ((n + bn - 1) // bn),)
            mode = {"fp32": "ieee", "tf32": "tf32", "bf16": "bf16"}[precision]
            torch.cuda.current_stream(dev).synchronize()
        except BaseException:
            T.close(streams)
            raise

        def run():
            return K.matmul_kernel[grid](x, y, c, m, n, k, x.stride(0), x.stride(1),
                                         y.stride(0), y.stride(1), c.stride(0), c.stride(1),
                                         BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=_GROUP_M,
                                         PRECISION=mode, num_warps=warps, num_stages=stages)

        try:
            # Compile now (one launch), to read the instruction path; then
            # poison C again, so the verified run must write all of it.
            path = _mma_path(run())
            c.fill_(float("nan"))
            torch.cuda.current_stream(dev).synchronize()
        except BaseException:
            T.close(streams)
            raise
        layout = ", B K-major" if b_kmajor else ""
        return cb.Setup(run=run, verify=lambda: T.check_matmul(torch, a, b, c, precision),
                        teardown=lambda: T.close(streams),
                        note=f"tiles {bm}x{bn}x{bk}, {warps} warps, {stages} stages, {mode}"
                             f"{layout}; {path}")
    return setup


for _prec in C.PRECISIONS:
    cb.benchmark(f"triton/matmul_{_prec}", axes=C.matmul_axes(), summary=C.MATMUL_SUMMARY[_prec]
                 .replace("the framework's matmul", "a Triton kernel"),
                 peak="fp32" if _prec == "fp32" else "none", bytes=C.matmul_bytes(_prec),
                 flops=C.matmul_flops, ref=f"matmul/cublas_{_prec}", requires=("torch", "triton"),
                 release=T.release)(_matmul(_prec))

cb.benchmark("triton/matmul_tf32_bkmajor", axes=C.matmul_axes(),
             summary="C = A B on TF32 tensor cores, a Triton kernel, B stored K-major",
             peak="none", bytes=C.matmul_bytes("tf32"), flops=C.matmul_flops,
             ref="matmul/cublas_tf32", requires=("torch", "triton"),
             release=T.release)(_matmul("tf32", b_kmajor=True))
