"""torch: PyTorch's own operators on the runner's stream.

  torch/add           torch.add(a, b, out=c), float32
  torch/matmul_fp32   torch.mm in full FP32: TF32 off through
                      torch.backends.cuda.matmul.allow_tf32 = False and
                      torch.set_float32_matmul_precision("highest") (or the
                      fp32_precision = "ieee" setting of newer PyTorch), so
                      cuBLAS gets CUBLAS_COMPUTE_32F; the FP32 tolerance
                      would fail a TF32 product (2^-11/sqrt(K) >> 16 u)
  torch/matmul_tf32   the same with TF32 allowed ("high")
  torch/matmul_bf16   A and B converted to BF16 in setup (untimed); FP32 C
                      via torch.mm(..., out_dtype=torch.float32) where the
                      PyTorch has it, else a BF16 C (the row's note says so)
  torch/matmul_fp8    torch._scaled_mm on E4M3 A and K-major B, one FP32
                      scale per tensor, fast accumulation, FP32 C: the peer
                      of matmul/cublaslt_fp8 and matmul_tc/wgmma_fp8
  torch/copy          tensor.copy_(src, non_blocking=True) host<->device
                      from pageable or pinned (pin_memory=True) host tensors

The stream: torch.cuda.ExternalStream(ctx.stream) made current with
torch.cuda.set_stream in setup (and the previous stream restored in
teardown), so run() is the bare operator call. The matmul rungs name the
C family's cuBLAS rungs as their reference: run them together
(`python -m cubench run matmul/cublas_fp32 torch/matmul_fp32`) and pct_ref
is PyTorch's share of raw cuBLAS at the same m, n, k.
"""

import contextlib
import warnings

import cubench as cb

from . import _common as C
from . import _torchutil as T


@cb.benchmark("torch/add", axes=[C.N_AXIS], peak="dram", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires="torch", release=T.release)
def add(p, ctx):
    """c = a + b with torch.add(out=c), float32"""
    torch, dev, streams = T.open_device(ctx)
    with T.closed_on_error(streams):
        seed_a, seed_b = C.seeds(ctx)
        a = T.uniform(torch, p["n"], seed_a, dev)
        b = T.uniform(torch, p["n"], seed_b, dev)
        c = torch.full((p["n"],), float("nan"), device=dev)
        torch.cuda.current_stream(dev).synchronize()

    def run():
        torch.add(a, b, out=c)

    return cb.Setup(run=run, verify=lambda: T.check_vecadd(torch, a, b, c),
                    teardown=lambda: T.close(streams))


@contextlib.contextmanager
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def set_tf32(torch, allowed: bool) -> str:
    """Allow or forbid TF32 in float32 matmuls; returns what was set."""
    with _quiet():
        matmul = torch.backends.cuda.matmul
        if hasattr(matmul, "fp32_precision"):  # the newer API (PyTorch >= 2.9)
            matmul.fp32_precision = "tf32" if allowed else "ieee"
            return f"backends.cuda.matmul.fp32_precision={matmul.fp32_precision}"
        matmul.allow_tf32 = allowed
        torch.set_float32_matmul_precision("high" if allowed else "highest")
        return (f"allow_tf32={allowed}, float32_matmul_precision="
                f"{torch.get_float32_matmul_precision()}")


def _tf32_state(torch):
    with _quiet():
        matmul = torch.backends.cuda.matmul
        if hasattr(matmul, "fp32_precision"):
            return ("new", matmul.fp32_precision)
        return ("old", matmul.allow_tf32, torch.get_float32_matmul_precision())


def _restore_tf32(torch, state):
    with _quiet():
        if state[0] == "new":
            torch.backends.cuda.matmul.fp32_precision = state[1]
        else:
            torch.backends.cuda.matmul.allow_tf32 = state[1]
            torch.set_float32_matmul_precision(state[2])


def _matmul(precision):
    def setup(p, ctx):
        torch, dev, streams = T.open_device(ctx)
        saved = _tf32_state(torch)
        try:
            m, n, k = C.matmul_shape(p)
            a = T.uniform(torch, (m, k), C.seeds(ctx)[0], dev)
            b = T.uniform(torch, (k, n), C.seeds(ctx)[1], dev)
            c = torch.full((m, n), float("nan"), device=dev)
            note = set_tf32(torch, precision == "tf32")
            if precision == "bf16":
                a16, b16 = a.bfloat16(), b.bfloat16()
                try:
                    torch.mm(a16[:1], b16[:, :1], out_dtype=torch.float32)
                    fp32_out = True
                except (TypeError, RuntimeError):
                    fp32_out = False
                if fp32_out:
                    def run():
                        torch.mm(a16, b16, out_dtype=torch.float32, out=c)
                    note = "BF16 inputs, FP32 C (out_dtype)"
                else:
                    c16 = torch.full((m, n), float("nan"), device=dev, dtype=torch.bfloat16)

                    def run():
                        torch.mm(a16, b16, out=c16)
                    note = "BF16 inputs and C (this PyTorch has no out_dtype)"
            else:
                def run():
                    torch.mm(a, b, out=c)
            torch.cuda.current_stream(dev).synchronize()
        except BaseException:
            _restore_tf32(torch, saved)
            T.close(streams)
            raise

        def verify():
            out = c if precision != "bf16" or fp32_out else c16.float()
            return T.check_matmul(torch, a, b, out, precision)

        def teardown():
            _restore_tf32(torch, saved)
            T.close(streams)

        return cb.Setup(run=run, verify=verify, teardown=teardown, note=note)
    return setup


for _prec in C.PRECISIONS:
    cb.benchmark(f"torch/matmul_{_prec}", axes=C.matmul_axes(), summary=C.MATMUL_SUMMARY[_prec],
                 peak="fp32" if _prec == "fp32" else "none", bytes=C.matmul_bytes(_prec),
                 flops=C.matmul_flops, ref=f"matmul/cublas_{_prec}", requires="torch",
                 release=T.release)(_matmul(_prec))


@cb.benchmark("torch/matmul_fp8", axes=C.matmul_axes(),
              summary="C = A B with E4M3 A, B (per-tensor scales, untimed), FP32 C",
              peak="none", flops=C.matmul_flops, ref="matmul/cublaslt_fp8",
              bytes=lambda p: (lambda m, n, k: m * k + k * n + 8.0 * m * n)(*C.matmul_shape(p)),
              requires="torch", release=T.release)
def matmul_fp8(p, ctx):
    """torch._scaled_mm(A8, B8 column-major, s_a, s_b, out_dtype=float32,
    use_fast_accum=True): the C rungs' FP8 problem (bench/detail/matmul_ref.h).
    A and B are quantised in setup, untimed: s = max|x| / 448, x8 = E4M3(x / s).
    Verified as the C FP8 rungs are: against the FP64 product of the
    dequantised inputs within the accumulation bound 2^-10, and against the
    FP32 inputs within 16 2^-4 / sqrt(K) + 2^-10 (the K-scaled error)."""
    torch, dev, streams = T.open_device(ctx)
    with T.closed_on_error(streams):
        if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
            raise cb.Skip(f"torch {torch.__version__} has no _scaled_mm / float8_e4m3fn")
        if torch.cuda.get_device_capability(dev) < (8, 9):
            raise cb.Skip("FP8 tensor cores start at compute capability 8.9")
        m, n, k = C.matmul_shape(p)
        if k % 16 or n % 16:
            raise cb.Skip(f"k={k} n={n}: torch._scaled_mm takes k and n multiples of 16")
        a = T.uniform(torch, (m, k), C.seeds(ctx)[0], dev)
        b = T.uniform(torch, (k, n), C.seeds(ctx)[1], dev)
        scale_a = (a.abs().amax() / 448.0).float()
        scale_b = (b.abs().amax() / 448.0).float()
        a8 = (a / scale_a).to(torch.float8_e4m3fn)
        # B column-major (K-major), the layout _scaled_mm and cuBLASLt take
        b8 = (b / scale_b).to(torch.float8_e4m3fn).t().contiguous().t()
        c = torch.full((m, n), float("nan"), device=dev)
        args = dict(scale_a=scale_a, scale_b=scale_b, out_dtype=torch.float32, use_fast_accum=True)
        try:
            torch._scaled_mm(a8[:16, :16], b8[:16, :16], out=torch.empty(16, 16, device=dev),
                             **args)
            into = True
        except (TypeError, RuntimeError):
            into = False
        if into:
            def run():
                torch._scaled_mm(a8, b8, out=c, **args)
            note = "E4M3, per-tensor scales, fast accumulation, FP32 C (out=)"
        else:
            def run():
                c.copy_(torch._scaled_mm(a8, b8, **args))
            note = "E4M3, per-tensor scales, fast accumulation, FP32 C (copied: no out=)"
        torch.cuda.current_stream(dev).synchronize()

    def verify():
        c64 = c.double()
        nonfinite = int((~torch.isfinite(c64)).sum())
        if nonfinite:
            raise cb.VerifyError(f"{nonfinite} entries of C are NaN or infinite", float("inf"))
        a_deq = a8.float().double() * float(scale_a)
        b_deq = b8.float().double() * float(scale_b)
        acc_tol = 2.0 ** -10
        checks = ((a_deq, b_deq, acc_tol, "the dequantised inputs"),
                  (a.double(), b.double(), 16 * 2.0 ** -4 / k ** 0.5 + acc_tol, "the FP32 inputs"))
        errors = []
        for x, y, tol, what in checks:
            scale = k * float(x.abs().max()) * float(y.abs().max())
            err = float((c64 - x @ y).abs().max()) / (scale if scale > 0 else 1.0)
            if not err <= tol:
                raise cb.VerifyError(f"error {err:.3g} > FP8 tolerance {tol:.3g} against {what}",
                                     err)
            errors.append(err)
        return errors[0]

    return cb.Setup(run=run, verify=verify, teardown=lambda: T.close(streams), note=note)


@cb.benchmark("torch/copy", axes=C.COPY_AXES, peak="pcie", bytes=C.copy_bytes,
              requires="torch", release=T.release)
def copy(p, ctx):
    """dst.copy_(src, non_blocking=True) between a host and a device tensor"""
    torch, dev, streams = T.open_device(ctx)
    with T.closed_on_error(streams):
        count = C.copy_elements(p)
        pinned = p["memory"] == "pinned"
        host_src = torch.rand(count, generator=torch.Generator().manual_seed(C.seeds(ctx)[0]))
        if p["direction"] == "h2d":
            src = host_src.pin_memory() if pinned else host_src
            dst = torch.full((count,), float("nan"), device=dev)
        else:
            src = host_src.to(dev)
            dst = torch.full((count,), float("nan"), pin_memory=pinned)
        torch.cuda.current_stream(dev).synchronize()

    def run():
        dst.copy_(src, non_blocking=True)

    def verify():
        torch.cuda.current_stream(dev).synchronize()
        return T.check_equal(torch, dst, host_src, f"{p['direction']} copy")

    return cb.Setup(run=run, verify=verify, teardown=lambda: T.close(streams),
                    memcpy_kinds=C.copy_kinds(p))
