"""The Python framework families of cubench, imported as `cubench.families`
(cubench/loader.py): one module per framework, loaded in this order. A
module imports its framework only inside setup, so every benchmark is
declared (and listed) whether or not the framework is installed.

Benchmark names and axes follow the C families so reports can put them side
by side: vector add has axis `n` (float32 elements, 12 bytes counted per
element), matmul `m`, `n`, `k` (row-major FP32 C = A B, 2mnk flops),
copies `direction`, `memory`, `bytes` (bytes across PCIe).
"""

FAMILIES = ("numpy", "torch", "cupy", "jax", "numba", "triton", "pycuda", "torch_ext", "torch_dist",
            "tensorflow", "rapids", "opencv")
