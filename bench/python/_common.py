"""What the Python framework families share: axes, work models and seeds,
the same as the C families' (bench/vecadd.c, bench/matmul*.c,
bench/transfers.c) so a report can set the rows side by side.

Work models (bytes count what GB/s means):
  vector add   12 bytes per element (a and b read, c written), n flops;
  matmul       2 m n k flops; bytes of A and B read once and C read and
               written once: 4 (mk + kn + 2mn) for FP32 and TF32 (as
               cb_matmul_bytes), 2 (mk + kn) + 8 mn for BF16 inputs with
               an FP32 C (as cb_matmul_bytes_bf16);
  copies       the bytes that cross PCIe, once.
"""

from __future__ import annotations

import cubench as cb

# Vector add: the C family's sweep, 1 Ki to 256 Mi elements (x4).
N_AXIS = cb.Axis("n", "2^10:2^28:x4", help="elements per vector (float32)")
N_AXIS_HOST = cb.Axis("n", "2^10:2^24:x4", help="elements per vector (float32)")


def vecadd_bytes(p) -> float:
    return 12.0 * p["n"]


def vecadd_flops(p) -> float:
    return float(p["n"])


# A hand-written vector add that frameworks compile from source (CuPy's
# RawKernel, PyCUDA's SourceModule): one float4 (16-byte load and store)
# per thread like vecadd/float4_per_thread, the n % 4 last floats one per
# thread. extern "C" keeps the name unmangled for the module lookup.
FLOAT4_ADD_NAME = "cb_add_float4"
FLOAT4_ADD_SOURCE = r"""
extern "C" __global__ void cb_add_float4(const float4 *__restrict__ a,
                                         const float4 *__restrict__ b,
                                         float4 *__restrict__ c, long long n4,
                                         const float *__restrict__ a1,
                                         const float *__restrict__ b1,
                                         float *__restrict__ c1, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    long long t = 4 * n4 + i; /* the n % 4 last elements, one per thread */
    if (t < n) c1[t] = a1[t] + b1[t];
}
"""
FLOAT4_BLOCK = 256


def float4_grid(n: int, block: int = FLOAT4_BLOCK) -> int:
    """Blocks for FLOAT4_ADD_SOURCE: one thread per float4, and enough
    threads for the n % 4 tail (at least one block)."""
    return (max(n // 4, n % 4, 1) + block - 1) // block


# Matmul: squares by default (n and k take the word `m`, as in C). Fewer
# sizes than the C ladder's seven: 256 (launch-bound), 1024, 4096 and 8192
# (compute-bound) show the curve at a quarter of the time.
MATMUL_SIZES = "256,1024,4096,8192"
MATMUL_SIZES_HOST = "64,128,256,512"
PRECISIONS = ("fp32", "tf32", "bf16")


def matmul_axes(sizes: str = MATMUL_SIZES) -> list:
    return [cb.Axis("m", sizes, help="rows of A and C"),
            cb.Axis("n", "m", choices="m", help="columns of B and C; the word `m` means n = m"),
            cb.Axis("k", "m", choices="m",
                    help="inner dimension (columns of A, rows of B); the word `m` means k = m")]


def matmul_shape(p) -> tuple[int, int, int]:
    m = p["m"]
    n = m if p["n"] == "m" else p["n"]
    k = m if p["k"] == "m" else p["k"]
    return m, n, k


def matmul_flops(p) -> float:
    m, n, k = matmul_shape(p)
    return 2.0 * m * n * k


def matmul_bytes(precision: str):
    def bytes_of(p) -> float:
        m, n, k = matmul_shape(p)
        if precision == "bf16":
            return 2.0 * (m * k + k * n) + 8.0 * m * n
        return 4.0 * (m * k + k * n + 2.0 * m * n)
    return bytes_of


MATMUL_SUMMARY = {
    "fp32": "C = A B in full FP32 (TF32 off), the framework's matmul",
    "tf32": "C = A B with FP32 data on TF32 tensor cores, the framework's matmul",
    "bf16": "C = A B with A, B converted to BF16 (untimed), FP32 accumulation",
}


# Copies: the transfers family's axes with four sizes, 64 KiB to 256 MiB
# (x16): the latency end, the middle, and the bandwidth plateau.
COPY_AXES = [
    cb.Axis("direction", "h2d,d2h", kind="enum", choices="h2d,d2h",
            help="h2d: host to device, d2h: device to host"),
    cb.Axis("memory", "pageable,pinned", kind="enum", choices="pageable,pinned",
            help="host memory: pageable (the framework's plain host array) or pinned"),
    cb.Axis("bytes", "2^16:2^28:x16", help="bytes per copy (a multiple of 4: float32)"),
]
# CUPTI memory kinds (CUpti_ActivityMemoryKind) a copy must show.
KIND_PAGEABLE, KIND_PINNED, KIND_DEVICE = 1, 2, 3


def copy_bytes(p) -> float:
    return float(p["bytes"])


def copy_kinds(p) -> tuple[int, int]:
    host = KIND_PINNED if p["memory"] == "pinned" else KIND_PAGEABLE
    return (host, KIND_DEVICE) if p["direction"] == "h2d" else (KIND_DEVICE, host)


def copy_elements(p) -> int:
    if p["bytes"] % 4:
        raise cb.Skip(f"bytes={p['bytes']} is not a multiple of 4 (float32 elements)")
    return p["bytes"] // 4


def seeds(ctx) -> tuple[int, int]:
    """Two 63-bit seeds for the inputs a and b from the run's --seed."""
    s = ctx.seed & ((1 << 63) - 1)
    return s ^ 0xA, s ^ 0xB


def copy_source(p, ctx):
    """(count, source): the float32 elements a copy moves, drawn from the
    run's first seed. NumPy is imported here, after `requires` passed."""
    import numpy as np

    count = copy_elements(p)
    return count, np.random.default_rng(seeds(ctx)[0]).random(count, dtype=np.float32)


def host_array(count: int, fill, pinned_empty=None):
    """A float32 host array of `count` elements set to `fill`: from the
    framework's pinned allocator `pinned_empty(count, dtype=...)` when given,
    else NumPy's pageable memory. Written here, so every page is touched
    before timing."""
    import numpy as np

    h = pinned_empty(count, dtype=np.float32) if pinned_empty else np.empty(count, np.float32)
    h[...] = fill
    return h


def check_copy(p, got, source) -> float:
    """0.0 when the copy delivered `source` exactly, else VerifyError with
    how many elements differ."""
    import numpy as np

    if not np.array_equal(got, source):
        bad = int(np.count_nonzero(got != source))
        raise cb.VerifyError(f"{p['direction']} copy: {bad} of {source.size} elements differ")
    return 0.0


def no_device(framework: str, detail: str = "") -> cb.Skip:
    return cb.Skip(f"{framework} sees no CUDA device{': ' + detail if detail else ''}")
