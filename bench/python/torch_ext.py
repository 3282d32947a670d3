"""torch_ext: a PyTorch C++/CUDA extension, the way PyTorch users ship
their own kernels, running cubench's own vector-add kernel.

  torch_ext/vecadd_float4  c = a + b through the extension: pybind11 ->
                           argument checks -> PyTorch's current stream ->
                           cb_vecadd_kernel_float4_per_thread.launch, the
                           launcher and kernel of vecadd/float4_per_thread
  torch_ext/call_only      the same call with launch=False: everything but
                           the launch (pybind11's conversion of three tensors,
                           the checks, the stream lookup), no GPU work

The extension is built at run time by torch.utils.cpp_extension.load from
_torch_ext_vecadd.cpp (the binding) and the tree's kernels/vecadd_float4_per_thread.cu
itself (not a copy), with nvcc from the CUDA toolkit PyTorch finds
(CUDA_HOME) and the host C++ compiler, once per process, into PyTorch's
extension cache (TORCH_EXTENSIONS_DIR, by default
~/.cache/torch_extensions), never into the tree; a later process with the
same sources loads it from there. Missing PyTorch with CUDA, nvcc, a C++
compiler, ninja, Python's headers or the kernel source (an installed
package has no kernels/) is a skip row naming what is missing; a build
that fails is a fail row with the compiler's first error.

Run it beside the C rung and torch.add at the same n
(`python -m cubench run vecadd/float4_per_thread torch/add 'torch_ext/*'
--axis block=256`): at large n the three launch the same kind of kernel
and the rows compare the GPU's time; at small n in hot mode (--cache hot)
a sample is the rate at which each caller issues calls, so
torch_ext/vecadd_float4 there is the extension path's cost per call, and
torch_ext/call_only its cost without the launch.

Where it ran: the build and import of the extension, against PyTorch
2.11.0 (CUDA 13.0) and nvcc 13.0 for sm_90, on a machine without a GPU
(tests/py/test_python_roads_real.py); the rows need a GPU
(scripts/record/python_roads.sh).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

import cubench as cb

from . import _common as C
from . import _torchutil as T

EXTENSION_NAME = "cubench_vecadd_ext"
BINDING = Path(__file__).resolve().parent / "_torch_ext_vecadd.cpp"
BLOCK_AXIS = cb.Axis("block", "256", help="threads per block (vecadd/float4_per_thread's axis)")

_BUILT: dict = {}  # "module" or "skip"/"error": one build attempt per process


# The C rung's own kernel file: one variant of the vector-add ladder.
KERNEL_SOURCE = "vecadd_float4_per_thread.cu"


def kernels_dir() -> Path | None:
    """The tree's kernels/ folder (beside bench/), where the float4 variant lives."""
    d = Path(__file__).resolve().parent.parent.parent / "kernels"
    return d if (d / KERNEL_SOURCE).is_file() and (d / "vecadd_kernels.h").is_file() else None


def _version_line(cmd: list[str], marker: str = "") -> str:
    """The first line of `cmd`'s output holding `marker` (or the first line)."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"? ({type(e).__name__})"
    lines = [ln.strip() for ln in (out.stdout or out.stderr).splitlines() if ln.strip()]
    return next((ln for ln in lines if marker in ln), lines[0] if lines else "?")


def toolchain() -> dict:
    """What building the extension needs, found or not: torch and its CUDA,
    nvcc (CUDA_HOME), the C++ compiler, ninja, Python.h, the kernel source."""
    import torch
    from torch.utils import cpp_extension as ext

    info = {"torch": torch.__version__, "torch_cuda": torch.version.cuda}
    cuda_home = ext.CUDA_HOME
    nvcc = os.path.join(cuda_home, "bin", "nvcc") if cuda_home else None
    info["nvcc"] = nvcc if nvcc and os.path.isfile(nvcc) else None
    info["nvcc_version"] = _version_line([nvcc, "--version"], "release") if info["nvcc"] else None
    cxx = shutil.which(os.environ.get("CXX", "c++"))
    info["cxx"] = cxx
    info["cxx_version"] = _version_line([cxx, "--version"]) if cxx else None
    info["ninja"] = shutil.which("ninja") or _ninja_module()
    include = sysconfig.get_paths().get("include") or ""
    info["python_h"] = os.path.join(include, "Python.h") if os.path.isfile(
        os.path.join(include, "Python.h")) else None
    info["kernels"] = str(kernels_dir()) if kernels_dir() else None
    # What nvcc builds for: TORCH_CUDA_ARCH_LIST, else the visible GPUs'
    # architectures (torch.utils.cpp_extension's own rule).
    archs = sorted({"%d.%d" % torch.cuda.get_device_capability(i)
                    for i in range(torch.cuda.device_count())})
    info["arch_list"] = os.environ.get("TORCH_CUDA_ARCH_LIST") or ";".join(archs) or None
    return info


def _ninja_module() -> str | None:
    try:
        import ninja  # the PyPI package puts its binary beside the module
        path = os.path.join(ninja.BIN_DIR, "ninja")
        return path if os.path.isfile(path) else None
    except (ImportError, AttributeError):
        return None


def cache_dir() -> str:
    """Where torch.utils.cpp_extension keeps this extension's build."""
    from torch.utils import cpp_extension as ext

    try:
        return ext._get_build_directory(EXTENSION_NAME, verbose=False)
    except (AttributeError, TypeError):  # a private helper: other PyTorch versions
        return os.environ.get("TORCH_EXTENSIONS_DIR", "~/.cache/torch_extensions")


def missing(info: dict) -> str | None:
    """Why the extension cannot be built here, or None."""
    if not info["torch_cuda"]:
        return f"this PyTorch ({info['torch']}) is a CPU build: no CUDA extension"
    if not info["nvcc"]:
        return "nvcc not found: install the CUDA toolkit or set CUDA_HOME"
    if not info["cxx"]:
        return f"no C++ compiler ({os.environ.get('CXX', 'c++')}) on PATH"
    if not info["ninja"]:
        return "ninja not found (torch.utils.cpp_extension needs it: pip install ninja)"
    if not info["python_h"]:
        return "Python.h not found: install the Python development headers (python3-dev)"
    if not info.get("arch_list"):
        return "no GPU to build for: set TORCH_CUDA_ARCH_LIST (e.g. 9.0)"
    if not info["kernels"]:
        return (f"kernels/{KERNEL_SOURCE} is not beside this copy of the families (an installed "
                "package): the extension builds from a source tree")
    return None


def build(verbose: bool = False):
    """Build (or load from the cache) the extension; the module, once per
    process. Raises cb.Skip when the toolchain is incomplete and
    RuntimeError with the first compiler error when the build fails."""
    if "module" in _BUILT:
        return _BUILT["module"]
    if "skip" in _BUILT:
        raise cb.Skip(_BUILT["skip"])
    if "error" in _BUILT:
        raise RuntimeError(_BUILT["error"])
    info = toolchain()
    why = missing(info)
    if why:
        _BUILT["skip"] = why
        raise cb.Skip(why)
    from torch.utils import cpp_extension as ext

    try:
        module = ext.load(name=EXTENSION_NAME, sources=[str(BINDING),
                                                        str(Path(info["kernels"]) / KERNEL_SOURCE)],
                          extra_include_paths=[info["kernels"], str(Path(info["kernels"]) / "detail")],
                          extra_cflags=["-O2"],
                          extra_cuda_cflags=["-O3"], verbose=verbose)
    except (OSError, RuntimeError, subprocess.CalledProcessError) as e:
        text = str(e)
        if "mismatches the version that was used to compile" in text:  # nvcc vs torch's CUDA
            _BUILT["skip"] = " ".join(text.split())[:300]
            raise cb.Skip(_BUILT["skip"]) from None
        _BUILT["error"] = "building the extension failed: " + first_error(text)
        raise RuntimeError(_BUILT["error"]) from None
    _BUILT["module"] = module
    return module


def first_error(text: str) -> str:
    """The first compiler or linker error line of a failed build's output."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for ln in lines:
        if "error" in ln.lower() and not ln.startswith(("FAILED", "ninja: build stopped")):
            return ln[:300]
    return lines[0][:300] if lines else "no output"


def _setup(launch: bool):
    def setup(p, ctx):
        torch, dev, streams = T.open_device(ctx)
        with T.closed_on_error(streams):
            module = build()
            n, block = p["n"], p["block"]
            if block > 1024:
                raise cb.Skip(f"block {block} exceeds 1024 threads")
            seed_a, seed_b = C.seeds(ctx)
            a, b = T.uniform(torch, n, seed_a, dev), T.uniform(torch, n, seed_b, dev)
            c = torch.full((n,), float("nan"), device=dev)
            torch.cuda.current_stream(dev).synchronize()

        def run():
            module.vecadd_float4(a, b, c, block, launch)

        if launch:
            verify = lambda: T.check_vecadd(torch, a, b, c)  # noqa: E731
            note = f"extension {EXTENSION_NAME}: vecadd float4_per_thread launcher, block {block}"
        else:
            def verify():  # nothing launched: c must still be all NaN
                torch.cuda.current_stream(dev).synchronize()
                if not bool(torch.isnan(c).all()):
                    raise cb.VerifyError("launch=False wrote to c")
                return 0.0
            note = "the extension call without its launch (no GPU work)"
        return cb.Setup(run=run, verify=verify, teardown=lambda: T.close(streams), note=note)
    return setup


cb.benchmark("torch_ext/vecadd_float4", axes=[C.N_AXIS, BLOCK_AXIS],
             summary="c = a + b, cubench's float4 kernel through a PyTorch C++/CUDA extension",
             peak="dram", bytes=C.vecadd_bytes, flops=C.vecadd_flops, requires="torch",
             release=T.release)(_setup(True))
cb.benchmark("torch_ext/call_only",
             axes=[cb.Axis("n", "2^10,2^16,2^20", help="elements per vector (float32)"),
                   BLOCK_AXIS],
             summary="the extension's call without the launch: its own cost per call",
             peak="none", requires="torch", release=T.release)(_setup(False))
