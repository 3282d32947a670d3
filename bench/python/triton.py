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
a short fixed list of tile shapes per precision, the first that fits the
GPU taken (no autotuning: a sweep should not spend its time tuning); its
gap to cuBLAS is the rung's lesson. Checks use
PyTorch on the device, as for the torch family.
"""

import cubench as cb

from . import _common as C
from . import _torchutil as T

_ADD_BLOCK = 1024
# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages) per precision, in order
# of preference; setup takes the first that the GPU's shared memory holds
# (Triton refuses the others at compile time with OutOfResources). The first
# tensor-core tiles are the fastest of scripts/record/py_triton_probe.py on the
# H200 at 4096^3 (tests/data/h200-python-session/triton-probe.json): 128 x
# 256 tiles, 3 stages, 144 KiB of shared memory either way,
# 677 TFLOP/s BF16 and 365 TFLOP/s TF32 with B K-major, against 557 and 292
# for the 128 x 128 tiles the family's recorded rows used. The 96 KiB
# second choice fits the 99 KiB of an sm_86/sm_89 block; the last 32 KiB.
# FP32 runs on FMA units, where tile size hardly mattered (41.9-42.0).
_TILES = {
    "fp32": ((64, 64, 32, 4, 3), (64, 64, 32, 4, 2)),
    "tf32": ((128, 256, 32, 8, 3), (128, 128, 32, 8, 3), (64, 64, 32, 4, 2)),
    "bf16": ((128, 256, 64, 8, 3), (128, 128, 64, 8, 3), (64, 64, 32, 4, 2)),
}
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
    with T.closed_on_error(streams):
        n = p["n"]
        if n >= 2**31:
            raise cb.Skip("offsets are 32-bit in this kernel: n must be below 2^31")
        seed_a, seed_b = C.seeds(ctx)
        a, b = T.uniform(torch, n, seed_a, dev), T.uniform(torch, n, seed_b, dev)
        c = torch.full((n,), float("nan"), device=dev)
        grid = ((n + _ADD_BLOCK - 1) // _ADD_BLOCK,)
        torch.cuda.current_stream(dev).synchronize()

    def run():
        K.add_kernel[grid](a, b, c, n, BLOCK=_ADD_BLOCK)

    return cb.Setup(run=run, verify=lambda: T.check_vecadd(torch, a, b, c),
                    teardown=lambda: T.close(streams), note=f"{grid[0]} programs")


def _mma_path(compiled, K) -> str:
    """The note's words for the matrix instruction the kernel issues."""
    name = K.mma_instruction(compiled)
    return {"": "PTX not available", "fma": "PTX: no mma (FMA)"}.get(name, f"PTX: {name}")


def first_that_fits(tiles, compile_with):
    """compile_with(tile) for each tile in order; the first that compiles
    wins: (tile, its result). A tile the device's shared memory cannot hold
    (Triton's OutOfResources) moves on to the next; any other error is
    raised. The last refusal is raised when none fits."""
    refused = None
    for tile in tiles:
        try:
            return tile, compile_with(tile)
        except Exception as e:  # noqa: BLE001 - only OutOfResources is passed over
            if type(e).__name__ != "OutOfResources":
                raise
            refused = e
    raise cb.Skip(f"no tile of {len(tiles)} fits this GPU's shared memory: {refused}")


def _matmul(precision, b_kmajor=False):
    def setup(p, ctx):
        torch, dev, streams, K = _open(ctx)
        with T.closed_on_error(streams):
            m, n, k = C.matmul_shape(p)
            a = T.uniform(torch, (m, k), C.seeds(ctx)[0], dev)
            b = T.uniform(torch, (k, n), C.seeds(ctx)[1], dev)
            c = torch.full((m, n), float("nan"), device=dev)
            x, y = (a.bfloat16(), b.bfloat16()) if precision == "bf16" else (a, b)
            if b_kmajor:  # the same values, stored column by column
                y = y.t().contiguous().t()

            def launch(tile):
                return K.launch_matmul(x, y, c, tile, precision, _GROUP_M)

            # Compile now (one launch): the tile that fits, and the
            # instruction path; then poison C again, so the verified run
            # must write all of it.
            tile, compiled = first_that_fits(_TILES[precision], launch)
            path = _mma_path(compiled, K)
            c.fill_(float("nan"))
            torch.cuda.current_stream(dev).synchronize()
        bm, bn, bk, warps, stages = tile
        mode = K.PRECISION_MODE[precision]
        layout = ", B K-major" if b_kmajor else ""
        return cb.Setup(run=lambda: launch(tile),
                        verify=lambda: T.check_matmul(torch, a, b, c, precision),
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
