"""jax: JAX's jitted operators. JAX cannot launch on a stream it is given,
so these benchmarks use the host timer (timer="host"): the runner waits
for its own stream (after the cold-mode L2 flush), starts the host clock,
calls run(), which returns only when JAX's result is ready
(block_until_ready), and stops the clock after synchronising its stream.
CUPTI still records every kernel of the process; see docs/python.md for
why JAX's records may not be attributed to samples.

  jax/add           jax.jit(a + b) with the output buffer donated: the
                    NaN-poisoned buffer of the first call is the output of
                    every call (XLA aliases a donated input of the output's
                    shape), so an unwritten element fails as in C
  jax/matmul_fp32   jnp.matmul at full FP32: precision
                    DotAlgorithmPreset.F32_F32_F32 (or, in older JAX,
                    jax.default_matmul_precision("highest") around the call)
  jax/matmul_tf32   ... TF32_TF32_F32 (or "tensorfloat32")
  jax/matmul_bf16   A and B converted to bfloat16 in setup (untimed);
                    jax.lax.dot(..., preferred_element_type=float32)
  jax/copy          jax.device_put host NumPy array -> GPU (h2d) and GPU ->
                    the CPU device (d2h; np.asarray would return a cached
                    copy after the first call). Pageable only: JAX gives
                    Python no pinned host arrays.

XLA_PYTHON_CLIENT_PREALLOCATE=false is set (unless set already) so JAX
does not take 75 % of the GPU at its first call.
"""

import contextlib
import os
import warnings

import cubench as cb

from . import _common as C

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def _open(ctx):
    import jax

    try:
        gpus = jax.devices("gpu")
    except RuntimeError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise C.no_device("jax", first) from None
    if ctx.device is None or ctx.device >= len(gpus):
        raise C.no_device("jax", f"device {ctx.device} of {len(gpus)}")
    return jax, gpus[ctx.device]


def _uniform(jax, shape, seed, dev, dtype=None):
    import jax.numpy as jnp

    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    key = jax.random.PRNGKey(seed & 0xFFFFFFFF)  # 32 bits: JAX's default integer width
    with jax.default_device(dev):
        x = jax.random.uniform(key, shape, dtype or jnp.float32, -1.0, 1.0)
    return jax.device_put(x, dev).block_until_ready()


def _nan(jax, shape, dev):
    import jax.numpy as jnp

    return jax.device_put(jnp.full(shape, jnp.nan, jnp.float32), dev).block_until_ready()


def _pointer(x):
    try:
        return x.unsafe_buffer_pointer()
    except Exception:  # noqa: BLE001 - not every array type has one
        return None


@contextlib.contextmanager
def _no_donation_warning():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*donated.*")
        yield


class _Donating:
    """Calls f(*inputs, out) with `out` donated, keeping the result as the
    next call's `out`: every call writes into the buffer of the first, which
    setup poisons with NaN. One untimed call in setup learns whether XLA
    aliased the donated buffer, for the row's note."""

    def __init__(self, jax, f, inputs, make_out):
        self.f, self.inputs = f, inputs
        trial = make_out()
        pointer = _pointer(trial)
        with _no_donation_warning():
            result = f(*inputs, trial).block_until_ready()
        self.aliased = pointer is not None and _pointer(result) == pointer
        del result
        self.out = make_out()  # the poison the verified run must overwrite

    def __call__(self):
        with _no_donation_warning():
            self.out = self.f(*self.inputs, self.out)
        self.out.block_until_ready()

    def note(self):
        return ("output written into the NaN-poisoned donated buffer" if self.aliased else
                "output in a new buffer each call (XLA did not alias the donated one)")


@cb.benchmark("jax/add", axes=[C.N_AXIS], timer="host", peak="dram", bytes=C.vecadd_bytes,
              flops=C.vecadd_flops, requires="jax")
def add(p, ctx):
    """c = a + b, jax.jit with the output buffer donated (host timer)"""
    jax, dev = _open(ctx)
    import numpy as np

    seed_a, seed_b = C.seeds(ctx)
    a, b = _uniform(jax, p["n"], seed_a, dev), _uniform(jax, p["n"], seed_b, dev)
    call = _Donating(jax, jax.jit(lambda x, y, out: x + y, donate_argnums=2), (a, b),
                     lambda: _nan(jax, p["n"], dev))
    return cb.Setup(run=call, note=call.note(),
                    verify=lambda: cb.vecadd_check(np.asarray(a), np.asarray(b),
                                                   np.asarray(call.out)))


def _precision(jax, precision):
    """(matmul precision argument, context manager) for FP32 or TF32."""
    presets = getattr(jax.lax, "DotAlgorithmPreset", None)
    if presets is not None:
        preset = presets.F32_F32_F32 if precision == "fp32" else presets.TF32_TF32_F32
        return preset, contextlib.nullcontext, f"precision {preset}"
    name = "highest" if precision == "fp32" else "tensorfloat32"
    return None, lambda: jax.default_matmul_precision(name), f"default_matmul_precision={name}"


def _matmul(precision):
    def setup(p, ctx):
        jax, dev = _open(ctx)
        import jax.numpy as jnp
        import numpy as np

        m, n, k = C.matmul_shape(p)
        a = _uniform(jax, (m, k), C.seeds(ctx)[0], dev)
        b = _uniform(jax, (k, n), C.seeds(ctx)[1], dev)
        if precision == "bf16":
            inputs = (a.astype(jnp.bfloat16).block_until_ready(),
                      b.astype(jnp.bfloat16).block_until_ready())

            def f(x, y, out):
                return jax.lax.dot(x, y, preferred_element_type=jnp.float32)
            context, note = contextlib.nullcontext, "BF16 inputs, FP32 C (preferred_element_type)"
        else:
            inputs = (a, b)
            arg, context, note = _precision(jax, precision)

            def f(x, y, out):
                return jnp.matmul(x, y, precision=arg)
        call = _Donating(jax, jax.jit(f, donate_argnums=2), inputs, lambda: _nan(jax, (m, n), dev))

        def run():
            with context():
                call()

        def verify():
            return cb.matmul_check(np.asarray(a), np.asarray(b), np.asarray(call.out), precision,
                                   seed=ctx.seed, full_max_fma=cb.check.HOST_FULL_REF_MAX_FMA)

        return cb.Setup(run=run, verify=verify, note=f"{note}; {call.note()}")
    return setup


for _prec in C.PRECISIONS:
    cb.benchmark(f"jax/matmul_{_prec}", axes=C.matmul_axes(), summary=C.MATMUL_SUMMARY[_prec],
                 timer="host", peak="fp32" if _prec == "fp32" else "none",
                 bytes=C.matmul_bytes(_prec), flops=C.matmul_flops, ref=f"matmul/cublas_{_prec}",
                 requires="jax")(_matmul(_prec))


@cb.benchmark("jax/copy", axes=C.COPY_AXES, timer="host", peak="pcie", bytes=C.copy_bytes,
              requires="jax")
def copy(p, ctx):
    """jax.device_put between a host NumPy array and the GPU (host timer)"""
    if p["memory"] == "pinned":
        raise cb.Skip("JAX gives Python no pinned host arrays")
    jax, dev = _open(ctx)
    import numpy as np

    _, source = C.copy_source(p, ctx)
    state = {}
    if p["direction"] == "h2d":
        def run():
            state["out"] = jax.device_put(source, dev).block_until_ready()
    else:
        cpu = jax.devices("cpu")[0]
        on_gpu = jax.device_put(source, dev).block_until_ready()

        def run():
            state["out"] = jax.device_put(on_gpu, cpu).block_until_ready()

    def verify():
        return C.check_copy(p, np.asarray(state["out"]), source)

    return cb.Setup(run=run, verify=verify)
