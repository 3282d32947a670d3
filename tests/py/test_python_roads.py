"""The Python roads to CUDA that CI cannot install (PyCUDA must be built,
TensorFlow is too large to install on every run, cuDF needs a GPU driver,
PyTorch is gigabytes): their families' code against small stand-ins of only
those modules, on the CPU, through the same setup/run/verify the runner
calls. What is real here: NumPy, the checks, the families' own code, nvcc
compiling the kernel sources the families hand to PyCUDA and CuPy, and the
torch.distributed family's model of sizes and bus factors, set against the
C family's. tests/py/test_python_roads_real.py runs the same families
against the real libraries where they can be installed."""
import importlib
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import cubench as cb  # noqa: E402
from cubench import loader  # noqa: E402

CTX = cb.Context(stream=0, device=0, sm_count=132, l2_bytes=50 << 20, seed=7, host_threads=1)


def family(name):
    loader.family_names()  # imports cubench.families (bench/python), no framework
    return importlib.import_module(f"cubench.families.{name}")


def prepare(bench, **values):
    family(bench.split("/")[0])  # declares the family's benchmarks
    text = ",".join(f"{k}={v}" for k, v in values.items())
    return cb.REGISTRY.get(bench).prepare(cb.Point(values, text), CTX)


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    return m


# ---------------------------------------------------------------- PyCUDA


class FakePyCuda:
    """pycuda.driver / gpuarray / elementwise / compiler on NumPy arrays,
    recording the calls that matter (which copy, which stream, which
    kernel source)."""

    def __init__(self, devices=1):
        self.calls, self.pushed = [], 0
        self.sources = []
        fake = self

        class Error(Exception):
            pass

        class Context:
            @staticmethod
            def synchronize():
                fake.calls.append("synchronize")

            def push(self):
                fake.pushed += 1

            def pop(self):
                fake.pushed -= 1

        class Device:
            def __init__(self, i):
                assert i < devices

            @staticmethod
            def count():
                return devices

            def retain_primary_context(self):
                return Context()

        class GPUArray:
            def __init__(self, host):
                self.host = np.array(host)
                self.gpudata = self

            def set(self, ary):
                fake.calls.append("set")
                self.host[:] = ary

            def set_async(self, ary, stream=None):
                fake.calls.append(("set_async", stream, getattr(ary, "pinned", False)))
                self.host[:] = ary

            def get(self, ary=None):
                fake.calls.append("get")
                if ary is None:
                    return self.host.copy()
                ary[:] = self.host
                return ary

            def fill(self, value):
                fake.calls.append("fill")
                self.host[:] = value

            def get_async(self, stream=None, ary=None):
                fake.calls.append(("get_async", stream, getattr(ary, "pinned", False)))
                ary[:] = self.host
                return ary

        class Pinned(np.ndarray):
            pinned = True

        def elementwise(arguments, operation, name):
            fake.sources.append(operation)

            def call(a, b, c, stream=None):
                fake.calls.append(("elementwise", stream))
                np.add(a.host, b.host, out=c.host)
            return call

        class Function:
            def prepare(self, signature):
                fake.calls.append(("prepare", signature))

            def prepared_call(self, grid, block, a, b, c, n4, a1, b1, c1, n):
                fake.calls.append(("prepared_call", grid, block, n4, n))
                np.add(a.host, b.host, out=c.host)

        class SourceModule:
            def __init__(self, source, no_extern_c=False):
                fake.sources.append(source)
                assert no_extern_c  # the source carries its own extern "C"

            def get_function(self, name):
                fake.calls.append(("get_function", name))
                return Function()

        self.Error = Error
        self.driver = module("pycuda.driver", Error=Error, Device=Device, Context=Context,
                             init=lambda: None,
                             pagelocked_empty=lambda n, dtype: np.empty(n, dtype).view(Pinned))
        self.gpuarray = module("pycuda.gpuarray", to_gpu=GPUArray, GPUArray=GPUArray)
        self.modules = {"pycuda": module("pycuda", VERSION_TEXT="fake"),
                        "pycuda.driver": self.driver, "pycuda.gpuarray": self.gpuarray,
                        "pycuda.elementwise": module("pycuda.elementwise",
                                                     ElementwiseKernel=elementwise),
                        "pycuda.compiler": module("pycuda.compiler", SourceModule=SourceModule)}


@pytest.fixture
def pycuda(monkeypatch):
    fake = FakePyCuda()
    for name, m in fake.modules.items():
        monkeypatch.setitem(sys.modules, name, m)
    monkeypatch.setattr(family("pycuda"), "_stream_flags", lambda handle: 0)
    return fake


@pytest.mark.parametrize("bench", ["pycuda/add", "pycuda/source_module"])
def test_pycuda_adds_launch_on_the_legacy_stream_and_verify(pycuda, bench):
    s = prepare(bench, n=1029)  # 257 float4 (two blocks of 256 threads) and a 1-float tail
    assert pycuda.pushed == 1  # the primary context, until teardown
    s.run()
    assert s.verify() == 0.0
    s.teardown()
    assert pycuda.pushed == 0
    if bench == "pycuda/add":
        assert ("elementwise", None) in pycuda.calls  # no stream: the legacy default stream
        assert pycuda.sources == ["c[i] = a[i] + b[i]"]
    else:
        assert ("prepare", "PPPqPPPq") in pycuda.calls
        assert ("prepared_call", (2, 1), (256, 1, 1), 257, 1029) in pycuda.calls
        assert "cb_add_float4" in pycuda.sources[0] and "float4" in s.note


def test_pycuda_add_fails_verification_when_nothing_ran(pycuda):
    s = prepare("pycuda/add", n=1000)
    with pytest.raises(cb.VerifyError, match="1000 of 1000 elements wrong"):
        s.verify()  # c is still the NaN poison
    s.teardown()


@pytest.mark.parametrize("direction", ["h2d", "d2h"])
@pytest.mark.parametrize("memory", ["pageable", "pinned"])
def test_pycuda_copies_use_async_calls_only_from_page_locked_memory(pycuda, direction, memory):
    s = prepare("pycuda/copy", direction=direction, memory=memory, bytes=4096)
    pinned = memory == "pinned"
    host_kind = 2 if pinned else 1
    assert s.memcpy_kinds == ((host_kind, 3) if direction == "h2d" else (3, host_kind))
    with pytest.raises(cb.VerifyError, match="1024 of 1024 elements differ"):
        s.verify()  # the destination is poisoned until a copy ran
    pycuda.calls.clear()
    s.run()
    call = pycuda.calls[0]
    if pinned:
        assert call == (("set_async" if direction == "h2d" else "get_async"), None, True)
    else:
        assert call == ("set" if direction == "h2d" else "get")
    assert s.verify() == 0.0
    s.teardown()


def test_pycuda_skips_without_a_driver_or_on_a_non_blocking_stream(pycuda, monkeypatch):
    def no_driver():
        raise pycuda.Error("cuInit failed: no CUDA-capable device is detected")
    monkeypatch.setattr(pycuda.driver, "init", no_driver)
    with pytest.raises(cb.Skip, match="pycuda sees no CUDA device: cuInit failed"):
        prepare("pycuda/add", n=64)
    monkeypatch.setattr(pycuda.driver, "init", lambda: None)
    pyc = family("pycuda")
    monkeypatch.setattr(pyc, "_stream_flags", lambda handle: pyc.CU_STREAM_NON_BLOCKING)
    ctx = CTX
    globals()["CTX"] = cb.Context(**{**ctx.__dict__, "stream": 0x1234})
    try:
        with pytest.raises(cb.Skip, match="non-blocking"):
            prepare("pycuda/add", n=64)
    finally:
        globals()["CTX"] = ctx
    assert pycuda.pushed == 0  # the context was popped on the way out


@pytest.mark.skipif(not shutil.which("nvcc") and not Path("/usr/local/cuda/bin/nvcc").exists(),
                    reason="nvcc is not installed")
def test_the_float4_source_of_cupy_and_pycuda_compiles(tmp_path):
    """The kernel text handed to CuPy's RawKernel and PyCUDA's SourceModule
    is valid CUDA C, with the launch signature the families prepare."""
    C = family("_common")
    src = tmp_path / "add.cu"
    src.write_text(C.FLOAT4_ADD_SOURCE)
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    out = subprocess.run([nvcc, "-arch=sm_75", "-ptx", str(src), "-o", str(tmp_path / "add.ptx")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    ptx = (tmp_path / "add.ptx").read_text()
    entry = re.search(r"\.entry (\w+)\(([^)]*)\)", ptx)
    assert entry.group(1) == C.FLOAT4_ADD_NAME  # extern "C": unmangled
    params = re.findall(r"\.param \.(\w+)", entry.group(2))
    assert params == ["u64"] * 8  # three pointers, n4, three pointers, n: "PPPqPPPq"
    grids = [C.float4_grid(n) for n in (1, 3, 4, 1027, 1028, 1029, 2**28)]
    assert grids == [1, 1, 1, 1, 2, 2, 2**18]


# ---------------------------------------------------------------- TensorFlow


class FakeTensorFlow:
    def __init__(self, gpus=1, place="GPU"):
        self.synced = 0
        fake = self

        class Tensor:
            def __init__(self, value, device):
                self.value, self.device = value, device

            def numpy(self):
                return self.value

        class Device:
            current = "/job:localhost/replica:0/task:0/device:CPU:0"

            def __init__(self, name):
                self.name = name

            def __enter__(self):
                Device.current = f"/job:localhost/replica:0/task:0/device:{place}:" + \
                                 self.name.rsplit(":", 1)[1]

            def __exit__(self, *exc):
                return False

        def sync():
            fake.synced += 1

        self.tf = module(
            "tensorflow", __version__="fake",
            config=types.SimpleNamespace(
                list_physical_devices=lambda kind: [f"{kind}:{i}" for i in range(gpus)],
                experimental=types.SimpleNamespace(set_memory_growth=lambda d, on: None)),
            test=types.SimpleNamespace(experimental=types.SimpleNamespace(sync_devices=sync)),
            device=Device, constant=lambda a: Tensor(np.array(a), Device.current),
            add=lambda a, b: Tensor(a.value + b.value, Device.current))


def test_tensorflow_add_runs_waits_and_checks_where_it_ran(monkeypatch):
    fake = FakeTensorFlow()
    monkeypatch.setitem(sys.modules, "tensorflow", fake.tf)
    s = prepare("tensorflow/add", n=4099)
    s.run()
    assert fake.synced == 1 and s.verify() == 0.0
    # An op TensorFlow placed elsewhere is a failure, not a faster row.
    fake2 = FakeTensorFlow(place="CPU")
    monkeypatch.setitem(sys.modules, "tensorflow", fake2.tf)
    s = prepare("tensorflow/add", n=64)
    s.run()
    with pytest.raises(cb.VerifyError, match="ran on .*CPU:0, not /GPU:0"):
        s.verify()


def test_tensorflow_without_a_gpu_or_sync_devices_skips(monkeypatch):
    fake = FakeTensorFlow(gpus=0)
    monkeypatch.setitem(sys.modules, "tensorflow", fake.tf)
    with pytest.raises(cb.Skip, match="tensorflow sees no CUDA device: device 0 of 0"):
        prepare("tensorflow/add", n=64)
    fake = FakeTensorFlow()
    fake.tf.test = types.SimpleNamespace()
    monkeypatch.setitem(sys.modules, "tensorflow", fake.tf)
    with pytest.raises(cb.Skip, match="no tf.test.experimental.sync_devices"):
        prepare("tensorflow/add", n=64)


# ---------------------------------------------------------------- RAPIDS


def test_rapids_add_runs_on_a_stand_in_cudf(monkeypatch):
    synced = []

    class Series:
        def __init__(self, values):
            self.values = np.asarray(values)

        def __add__(self, other):
            return Series(self.values + other.values)

        def to_numpy(self):
            return self.values

    runtime = types.SimpleNamespace(getDeviceCount=lambda: 1,
                                    deviceSynchronize=lambda: synced.append(1))
    cupy = module("cupy", cuda=types.SimpleNamespace(
        runtime=runtime, Device=lambda i: types.SimpleNamespace(use=lambda: None)))
    monkeypatch.setitem(sys.modules, "cudf", module("cudf", Series=Series))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    s = prepare("rapids/add", n=1000)
    with pytest.raises(KeyError):
        s.verify()  # nothing ran yet: no result to check
    s.run()
    assert synced == [1] and s.verify() == 0.0


# ---------------------------------------------------------------- OpenCV


def opencv_stand_in(real_add):
    """cv2.cuda's calls on host arrays; add is the given (real or NumPy) add."""
    calls = []

    class GpuMat:
        def upload(self, a):
            self.host = np.array(a)

        def download(self):
            return self.host

    class Stream:
        def waitForCompletion(self):
            calls.append("wait")

    def add(a, b, c, stream=None):
        calls.append(("add", stream))
        real_add(a.host, b.host, c.host)

    cuda = types.SimpleNamespace(getCudaEnabledDeviceCount=lambda: 1, setDevice=calls.append,
                                 wrapStream=lambda handle: Stream(), GpuMat=GpuMat, add=add)
    return cuda, calls


def test_opencv_add_on_a_stand_in_cuda_module(monkeypatch):
    try:
        import cv2  # the real module where it is installed (no CUDA in pip's wheels)
        real_add = cv2.add
    except ImportError:
        cv2 = module("cv2", __version__="stand-in")
        monkeypatch.setitem(sys.modules, "cv2", cv2)
        real_add = np.add
    cuda, calls = opencv_stand_in(real_add)
    monkeypatch.setattr(family("opencv"), "_cuda", lambda m: cuda)
    s = prepare("opencv/add", n=999)
    with pytest.raises(cb.VerifyError, match="999 of 999 elements wrong"):
        s.verify()  # poisoned before any add
    s.run()
    assert s.verify() == 0.0
    assert calls[0] == 0  # setDevice(ctx.device)
    assert len([c for c in calls if isinstance(c, tuple) and c[0] == "add"]) == 1
    # A build without cudaarithm (every pip wheel): a skip that names it.
    del cuda.add
    with pytest.raises(cb.Skip, match="no cv2.cuda.add"):
        prepare("opencv/add", n=64)
    cuda.getCudaEnabledDeviceCount = lambda: 0
    with pytest.raises(cb.Skip, match="built without CUDA"):
        prepare("opencv/add", n=64)


# ---------------------------------------------------------------- torch_ext


def test_torch_ext_names_what_is_missing_for_a_build():
    ext = family("torch_ext")
    full = {"torch": "2.11.0", "torch_cuda": "13.0", "nvcc": "/cuda/bin/nvcc",
            "cxx": "/usr/bin/c++",
            "ninja": "/usr/bin/ninja", "python_h": "/usr/include/python3.12/Python.h",
            "kernels": str(ROOT / "kernels"), "arch_list": "9.0"}
    assert ext.missing(full) is None
    for key, words in (("torch_cuda", "CPU build"), ("nvcc", "nvcc not found"),
                       ("cxx", "no C++ compiler"), ("ninja", "ninja not found"),
                       ("python_h", "Python.h not found"), ("arch_list", "TORCH_CUDA_ARCH_LIST"),
                       ("kernels", "source tree")):
        assert words in ext.missing({**full, key: None}), key
    assert ext.kernels_dir() == ROOT / "kernels"  # the tree's own kernel, not a copy
    out = ("[1/3] c++ -c binding.cpp\nFAILED: binding.o\n"
           "binding.cpp:12:5: error: 'foo' was not declared in this scope\nninja: build stopped")
    assert ext.first_error(out) == "binding.cpp:12:5: error: 'foo' was not declared in this scope"


def test_torch_ext_binding_calls_the_c_rungs_launcher():
    """The extension launches vecadd/float4_per_thread's kernel through the
    same launcher as the C rung, on PyTorch's current stream."""
    binding = (ROOT / "bench/python/_torch_ext_vecadd.cpp").read_text()
    assert '#include "vecadd_kernels.h"' in binding
    assert re.search(r"cb_vecadd_kernel_float4_per_thread\.launch\(&l, stream\)", binding)
    assert "getCurrentCUDAStream" in binding
    kernel = (ROOT / "kernels/vecadd_float4_per_thread.cu").read_text()
    assert "const cb_vecadd_kernel cb_vecadd_kernel_float4_per_thread" in kernel
    # the C rung's table line names the same struct
    assert "CB_VECADD_VARIANT(float4_per_thread" in (ROOT / "bench/detail/vecadd_variants.def").read_text()


# ---------------------------------------------------------------- torch_dist


def test_torch_dist_sizes_and_bus_factors_are_the_nccl_familys(cubench):
    R = family("_torch_dist_rank")
    # bench/nccl_model.c: cb_coll_counts and cb_coll_bus_factor.
    assert R.counts("all_reduce", 2**20, 2, 4) == (2**18, 2**18)
    assert R.counts("broadcast", 2**10, 8, 2) == (512, 512)
    assert R.counts("all_gather", 2**20, 4, 4) == (2**16, 2**18)
    assert R.counts("reduce_scatter", 2**20, 4, 4) == (2**18, 2**16)
    assert R.counts("all_gather", 1000, 3, 4) is None  # 250 elements over 3 ranks
    assert R.counts("all_reduce", 6, 1, 4) is None
    assert R.bus_factor("all_reduce", 8) == 2 * 7 / 8 and R.bus_factor("all_reduce", 1) == 0
    assert R.bus_factor("all_gather", 4) == R.bus_factor("reduce_scatter", 4) == 0.75
    assert R.bus_factor("broadcast", 5) == 1.0
    fam = family("torch_dist")
    axes = {a.name: a for a in fam.COLL_AXES}
    assert (axes["ranks"].defaults, axes["dtype"].defaults, axes["bytes"].defaults) == (
        "1,2", "float,bf16", "2^10,2^20,2^30")
    # ... and the C family's, as the binary lists them (`NAME = DEFAULTS  help`).
    listed = subprocess.run([cubench, "list", "nccl/all_reduce"], capture_output=True,
                            text=True, check=True).stdout
    c_defaults = dict(re.findall(r"^\s+(\w+)\s+=\s+(\S+)", listed, re.M))
    for name in ("ranks", "dtype", "bytes"):
        assert c_defaults[name] == axes[name].defaults, name


def test_torch_dist_counter_is_shared_between_mappings(tmp_path):
    R = family("_torch_dist_rank")
    path = str(tmp_path / "counter")
    writer, reader = R._Counter(path, create=True), R._Counter(path, create=False)
    assert reader.read() == 0
    writer.write(2**40 + 3)
    assert reader.read() == 2**40 + 3
    writer.close()
    reader.close()


def test_torch_dist_worker_boot_keeps_bench_python_off_sys_path(tmp_path):
    """A worker runs _torch_dist_rank.py with `python -c`: the working
    directory (which may be bench/python, home of torch.py) must not be on
    sys.path, or `import torch` would find the family instead of PyTorch."""
    R = family("_torch_dist_rank")
    probe = tmp_path / "probe.py"
    probe.write_text("import sys\ndef serve(arg):\n    print(repr(sys.path[:3]), arg)\n")
    out = subprocess.run([sys.executable, "-c", R._BOOT, str(probe), "x"], capture_output=True,
                         text=True, cwd=ROOT / "bench" / "python", timeout=60)
    assert out.returncode == 0, out.stderr
    assert "'' " not in out.stdout and "''," not in out.stdout and out.stdout.rstrip().endswith("x")
