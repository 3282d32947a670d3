"""my_bench.py - benchmarking your own Python code with cubench (the
example of docs/python.md; tests/py/test_python_package.py runs it).

    python -m cubench run 'mine/*' --module examples/my_bench.py

Two benchmarks: one on the host with NumPy (runs anywhere), one on the GPU
with PyTorch (skip rows, with the reason, where PyTorch or a GPU is
missing). Each is a setup that allocates, fills the inputs with random
values, poisons the output with NaN and returns a run and a verify; the
cubench runner verifies the first run, then times the others.
"""

import cubench as cb


@cb.benchmark("mine/saxpy_numpy",
              axes=[cb.Axis("n", "2^16:2^22:x4", help="elements per vector (float32)")],
              target="host", bytes=lambda p: 12 * p["n"], flops=lambda p: 2 * p["n"],
              requires="numpy")
def saxpy_numpy(p, ctx):
    """y = 2 x + y0 with NumPy on the host, float32"""
    import numpy as np

    rng = np.random.default_rng(ctx.seed)
    x = rng.uniform(-1, 1, p["n"]).astype(np.float32)
    y0 = rng.uniform(-1, 1, p["n"]).astype(np.float32)
    y = np.full(p["n"], np.nan, dtype=np.float32)  # poison: an unwritten element fails
    twice = np.empty_like(x)

    def run():
        np.multiply(x, np.float32(2), out=twice)  # exact: a power of two
        np.add(twice, y0, out=y)

    def verify():
        # 2x is exact, so y must be the float32 rounding of the exact sum.
        want = (2 * x.astype(np.float64) + y0).astype(np.float32)
        bad = np.count_nonzero(y != want)
        if bad:
            raise cb.VerifyError(f"{bad} of {p['n']} elements wrong")
        return 0.0

    return cb.Setup(run=run, verify=verify)


@cb.benchmark("mine/row_sums_torch",
              axes=[cb.Axis("rows", "1024,8192", help="rows of x"),
                    cb.Axis("cols", "1024,16384", help="columns of x (float32)")],
              bytes=lambda p: 4 * p["rows"] * (p["cols"] + 1), peak="dram", requires="torch")
def row_sums_torch(p, ctx):
    """y = x.sum(dim=1) with PyTorch on the runner's stream"""
    import torch

    if not torch.cuda.is_available():
        raise cb.Skip("torch sees no CUDA device")
    dev = torch.device("cuda", ctx.device)
    # Every op goes on the stream the runner times.
    stream = torch.cuda.ExternalStream(ctx.stream, device=dev)
    with torch.cuda.stream(stream):
        g = torch.Generator(device=dev).manual_seed(ctx.seed)
        x = torch.rand(p["rows"], p["cols"], generator=g, device=dev) * 2 - 1
        y = torch.full((p["rows"],), float("nan"), device=dev)

    def run():
        with torch.cuda.stream(stream):
            torch.sum(x, dim=1, out=y)

    def verify():
        with torch.cuda.stream(stream):
            exact = x.double().sum(dim=1)
            # The K-scaled error of matmul_ref.h: a float32 sum of `cols`
            # terms stays within ~u cols / 3 of the exact one (u = 2^-24),
            # in practice, so 16 u leaves margin for any order and fails a
            # missing or doubled term (~1/cols).
            error = float((y.double() - exact).abs().max() / (p["cols"] * x.abs().max()))
        if not error <= 16 * 2.0 ** -24:
            raise cb.VerifyError(f"normwise error {error:.3g} > 16 * 2^-24", error)
        return error

    return cb.Setup(run=run, verify=verify)
