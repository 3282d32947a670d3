"""The Triton kernels of the triton family, in a module of their own: Triton
reads a kernel's globals (tl) from its module, and the module is imported
only when a triton benchmark is set up (after `requires` imported triton).
Launched under PyTorch's current stream, i.e. the runner's (torch.cuda.
set_stream), which is where Triton's launcher takes its stream from."""

import triton
import triton.language as tl


@triton.jit
def add_kernel(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    """c = a + b, BLOCK elements per program, the tail masked."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(a_ptr + offsets, mask=mask)
    y = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, x + y, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    """C = A B with an FP32 accumulator. Programs walk C in groups of
    GROUP_M block rows, so neighbouring programs share A's and B's tiles in
    L2. PRECISION: "ieee" (FP32 FMA), "tf32" (tensor cores), or "bf16"
    (A and B already bfloat16)."""
    pid = tl.program_id(0)
    blocks_m = tl.cdiv(M, BLOCK_M)
    blocks_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * blocks_n
    first_m = (pid // in_group) * GROUP_M
    rows_in_group = tl.minimum(blocks_m - first_m, GROUP_M)
    pid_m = first_m + (pid % in_group) % rows_in_group
    pid_n = (pid % in_group) // rows_in_group
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        if PRECISION == "bf16":
            acc = tl.dot(a, b, acc)
        else:
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


# The kernel's PRECISION for each precision name of the family.
PRECISION_MODE = {"fp32": "ieee", "tf32": "tf32", "bf16": "bf16"}


def launch_matmul(x, y, c, tile, precision: str, group_m: int):
    """One C = A B (x: m x k, y: k x n, c: m x n, any strides) with `tile` =
    (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages), on PyTorch's current
    stream; returns what Triton returns (the compiled kernel)."""
    (m, k), n = x.shape, y.shape[1]
    bm, bn, bk, warps, stages = tile
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    return matmul_kernel[grid](x, y, c, m, n, k, x.stride(0), x.stride(1), y.stride(0),
                               y.stride(1), c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn,
                               BLOCK_K=bk, GROUP_M=group_m, PRECISION=PRECISION_MODE[precision],
                               num_warps=warps, num_stages=stages)


def mma_instruction(compiled) -> str:
    """The matrix instruction in a compiled kernel's PTX: "wgmma.mma_async",
    "mma.sync", "fma" (PTX without either), or "" (no PTX to read)."""
    asm = getattr(compiled, "asm", None)
    ptx = asm.get("ptx", "") if isinstance(asm, dict) else ""
    if not ptx:
        return ""
    return next((name for name in ("wgmma.mma_async", "mma.sync") if name in ptx), "fma")
