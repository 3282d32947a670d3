"""The Numba kernels of the numba family, in a module of their own so that
Numba is imported only when a numba benchmark is set up (this module is
imported from setup, after `requires` has imported numba.cuda)."""

from numba import cuda, float32, vectorize

TILE = 16  # edge of the shared-memory tiles of matmul_smem


@vectorize(["float32(float32, float32)"], target="cuda")
def add_ufunc(x, y):
    return x + y


@cuda.jit
def add_kernel(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def matmul_smem(a, b, c):
    """C = A B, row-major FP32: each block computes a TILE x TILE tile of C
    from TILE-wide strips of A and B staged in shared memory."""
    sa = cuda.shared.array((TILE, TILE), float32)
    sb = cuda.shared.array((TILE, TILE), float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    m, k = a.shape
    n = b.shape[1]
    acc = float32(0.0)
    for t in range((k + TILE - 1) // TILE):
        ka = t * TILE + tx
        kb = t * TILE + ty
        sa[ty, tx] = a[row, ka] if row < m and ka < k else float32(0.0)
        sb[ty, tx] = b[kb, col] if kb < k and col < n else float32(0.0)
        cuda.syncthreads()
        for j in range(TILE):
            acc += sa[ty, j] * sb[j, tx]
        cuda.syncthreads()
    if row < m and col < n:
        c[row, col] = acc
