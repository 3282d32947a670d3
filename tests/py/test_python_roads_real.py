"""The Python roads to CUDA against the real libraries, on a machine without
a GPU. Opt-in (CUBENCH_REAL_FRAMEWORKS=1): each part skips unless its
library imports, and the extension build takes minutes on two cores.

What each part runs for real, and what only a GPU can show:

- PyCUDA (the wheel scripts/setup.sh --frameworks builds against the CUDA
  toolkit; with no driver, libcuda.so.1 is the toolkit's stub
  lib64/stubs/libcuda.so on LD_LIBRARY_PATH): the import, the CUDA
  version it was built with, the family's ElementwiseKernel and
  SourceModule kernels generated and compiled by PyCUDA's own compiler
  path for sm_90, the API the family calls, and the skip a machine
  without a driver gets. Launches and copies need a GPU.
- PyTorch: torch_ext's extension built by torch.utils.cpp_extension from
  the binding and kernels/vecadd_float4_per_thread.cu for sm_90 (TORCH_CUDA_ARCH_LIST=9.0)
  into a temporary cache, imported, and called through pybind11 with CPU
  tensors, which its checks refuse; torch_dist's whole group (worker
  processes, the counter, every collective and its check) over the gloo
  backend on the CPU. The CUDA launch and NCCL need a GPU.
- TensorFlow (tensorflow-cpu): the family's setup, run and verify on
  TensorFlow's CPU device (DEVICE_KIND = "CPU"); as installed, the skip.
- OpenCV (opencv-python-headless, no CUDA): the skip as installed; the
  family with cv2.cuda stood in for by host objects whose add is the real
  cv2.add.

docs/python.md records the versions and the outcome of the last run.
"""
import importlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import cubench as cb  # noqa: E402
from cubench import loader  # noqa: E402

pytestmark = pytest.mark.skipif(os.environ.get("CUBENCH_REAL_FRAMEWORKS") != "1",
                                reason="opt-in: CUBENCH_REAL_FRAMEWORKS=1 (real libraries, slow)")
CTX = cb.Context(stream=0, device=0, sm_count=132, l2_bytes=50 << 20, seed=11, host_threads=1)


def family(name):
    loader.family_names()
    return importlib.import_module(f"cubench.families.{name}")


def prepare(bench, **values):
    family(bench.split("/")[0])
    text = ",".join(f"{k}={v}" for k, v in values.items())
    return cb.REGISTRY.get(bench).prepare(cb.Point(values, text), CTX)


# ---------------------------------------------------------------- PyCUDA


@pytest.fixture(scope="module")
def pycuda():
    pytest.importorskip("pycuda")
    try:
        import pycuda.driver  # noqa: F401 - needs libcuda.so.1 (a driver, or the stub)
    except ImportError as e:
        pytest.skip(f"pycuda.driver does not load: {e}")
    import pycuda
    return pycuda


def test_pycuda_is_built_for_this_toolkit(pycuda):
    import pycuda.driver as drv
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    release = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
    major, minor = drv.get_version()[:2]
    assert f"release {major}.{minor}," in release
    print(f"PyCUDA {pycuda.VERSION_TEXT}, built with CUDA {drv.get_version()}")


def test_pycuda_family_kernels_compile_through_pycuda(pycuda, monkeypatch):
    """The sources add and source_module hand to SourceModule, compiled by
    pycuda.compiler.compile (nvcc underneath) for sm_90 without a device."""
    import pycuda.compiler as compiler
    import pycuda.elementwise as elementwise

    seen = []

    class Capture:  # SourceModule needs a context: keep the source instead
        def __init__(self, source, **kwargs):
            seen.append((source, kwargs))

        def get_function(self, name):
            raise LookupError(name)

    monkeypatch.setattr(compiler, "SourceModule", Capture)
    kernel = elementwise.ElementwiseKernel("const float *a, const float *b, float *c",
                                           "c[i] = a[i] + b[i]", "cb_pycuda_add")
    with pytest.raises(LookupError, match="cb_pycuda_add"):
        kernel.generate_stride_kernel_and_types(False)  # what its first call does
    C = family("_common")
    for source, kwargs in [seen[0], (C.FLOAT4_ADD_SOURCE, {"no_extern_c": True})]:
        cubin = compiler.compile(source, arch="sm_90", **kwargs)
        assert cubin[:4] == b"\x7fELF"
        ptx = compiler.compile(source, arch="sm_90", target="ptx", **kwargs).decode()
        assert ".entry cb_pycuda_add" in ptx or f".entry {C.FLOAT4_ADD_NAME}" in ptx


def test_pycuda_api_the_family_calls_exists(pycuda):
    import pycuda.driver as drv
    import pycuda.gpuarray as gpuarray
    for name in ("set", "set_async", "get", "get_async"):
        assert callable(getattr(gpuarray.GPUArray, name))
    assert callable(drv.pagelocked_empty) and callable(drv.Function.prepared_call)
    assert callable(drv.Device.retain_primary_context) and callable(drv.Context.synchronize)


NO_DEVICE_DRIVER = """
typedef int CUresult; /* what a machine with a driver and no GPU answers */
CUresult cuInit(unsigned int flags) { (void)flags; return 100; /* CUDA_ERROR_NO_DEVICE */ }
CUresult cuGetErrorName(CUresult e, const char **s)
{ *s = e == 100 ? "CUDA_ERROR_NO_DEVICE" : "?"; return 0; }
CUresult cuGetErrorString(CUresult e, const char **s)
{ *s = e == 100 ? "no CUDA-capable device is detected" : "?"; return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
"""


def test_pycuda_family_skips_on_a_machine_without_a_device(pycuda, tmp_path):
    """The toolkit's stub libcuda answers every call with an error PyCUDA
    cannot print (it crashes), so a preloaded shim answers cuInit as a
    driver without a GPU does; the family's setup must give the skip."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler for the no-device shim")
    shim = tmp_path / "nodev.so"
    (tmp_path / "nodev.c").write_text(NO_DEVICE_DRIVER)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(shim), str(tmp_path / "nodev.c")], check=True)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import cubench as cb; "
            "from cubench import loader; loader.family_names(); loader.load_families(['pycuda']); "
            "b = cb.REGISTRY.get('pycuda/add'); "
            "ctx = cb.Context(stream=0, device=0, sm_count=0, l2_bytes=0, seed=1, host_threads=1)\n"
            "try:\n    b.prepare(cb.Point({'n': 64}, 'n=64'), ctx)\n"
            "except cb.Skip as e:\n    print('SKIP', e)")
    env = {**os.environ, "LD_PRELOAD": str(shim)}
    out = subprocess.run([sys.executable, "-c", code, str(ROOT / "python")], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == ("SKIP pycuda sees no CUDA device: cuInit failed: "
                                  "no CUDA-capable device is detected")


# ---------------------------------------------------------------- PyTorch


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def test_torch_ext_builds_imports_and_checks_its_arguments(torch, tmp_path_factory, monkeypatch):
    cache = tmp_path_factory.mktemp("torch_extensions")
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(cache))
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", os.environ.get("TORCH_CUDA_ARCH_LIST", "9.0"))
    ext = family("torch_ext")
    monkeypatch.setattr(ext, "_BUILT", {})
    tools = ext.toolchain()
    if ext.missing(tools):
        pytest.skip(ext.missing(tools))
    t0 = time.monotonic()
    module = ext.build()
    print(f"torch_ext built in {time.monotonic() - t0:.0f} s with {tools['nvcc_version']}, "
          f"{tools['cxx_version']}, torch {tools['torch']}")
    assert Path(module.__file__).is_relative_to(cache)  # the cache, never the tree
    a = torch.ones(8)
    with pytest.raises(RuntimeError, match="a must be a CUDA tensor"):
        module.vecadd_float4(a, a, a, 256)
    assert ext.build() is module  # once per process
    nm = subprocess.run(["nm", "-D", "--defined-only", module.__file__], capture_output=True,
                        text=True)
    assert " cb_vecadd_kernel_float4_per_thread" in nm.stdout  # the C rung's kernel struct is inside
    if not torch.cuda.is_available():
        with pytest.raises(cb.Skip, match="torch sees no CUDA device"):
            prepare("torch_ext/vecadd_float4", n=1024, block=256)


def _group(R, torch, world):
    return R.Group(torch, ["cpu"] * world, backend="gloo", timeout_s=60)


@pytest.mark.parametrize("world", [2, 3])
def test_torch_dist_group_runs_and_checks_every_collective_over_gloo(torch, world):
    R = family("_torch_dist_rank")
    group = _group(R, torch, world)
    try:
        for op in R.OPS:
            for dtype in ("float", "bf16"):
                nbytes = world * 4 * 1000
                group.prepare(op, dtype, nbytes, seed=99)
                bad, _ = group.check()
                assert bad > 0, (op, dtype)  # before any call: poison, or inputs not yet summed
                group.run()
                assert group.check() == (0, -1), (op, dtype)
                for _ in range(3):
                    group.run()
                if op == "all_reduce":
                    bad, rank = group.check()  # in place: each call adds the sums again
                    assert bad > 0 and rank == 0
                else:
                    assert group.check() == (0, -1), (op, dtype)  # idempotent
                group.release()
    finally:
        group.close()
    assert not group.workers


def test_torch_dist_group_reports_a_dead_worker_instead_of_hanging(torch):
    R = family("_torch_dist_rank")
    group = _group(R, torch, 2)
    try:
        group.prepare("all_gather", "float", 2 * 4 * 16, seed=1)
        group.workers[0].kill()
        group.workers[0].wait()
        t0 = time.monotonic()
        with pytest.raises(R.GroupError, match="rank 1"):
            group.check()
        assert time.monotonic() - t0 < 30
    finally:
        group.close()


# ---------------------------------------------------------------- TensorFlow


def test_tensorflow_family_on_tensorflows_cpu_device(monkeypatch):
    tf = pytest.importorskip("tensorflow")
    tfam = family("tensorflow")
    if not tf.config.list_physical_devices("GPU"):
        with pytest.raises(cb.Skip, match="tensorflow sees no CUDA device: device 0 of 0"):
            prepare("tensorflow/add", n=4096)
    monkeypatch.setattr(tfam, "DEVICE_KIND", "CPU")
    s = prepare("tensorflow/add", n=100_003)
    s.run()
    assert s.verify() == 0.0 and "/CPU:0" in s.note
    print(f"TensorFlow {tf.__version__}: tensorflow/add ran and verified on /CPU:0")


# ---------------------------------------------------------------- OpenCV


def test_opencv_family_as_installed_and_with_its_cuda_calls_stood_in(monkeypatch):
    cv2 = pytest.importorskip("cv2")
    if cv2.cuda.getCudaEnabledDeviceCount() == 0:
        with pytest.raises(cb.Skip, match=f"OpenCV \\({cv2.__version__}\\) was built without CUDA"):
            prepare("opencv/add", n=1024)
    from test_python_roads import opencv_stand_in

    cuda, calls = opencv_stand_in(cv2.add)
    monkeypatch.setattr(family("opencv"), "_cuda", lambda m: cuda)
    s = prepare("opencv/add", n=77_777)
    s.run()
    assert s.verify() == 0.0
    assert np.asarray(cv2.add(np.ones((1, 3), np.float32), np.ones((1, 3), np.float32))).sum() == 6
    print(f"OpenCV {cv2.__version__}: opencv/add verified with cv2.add on the host")
