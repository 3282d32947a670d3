"""Unit tests of the Python package that need no library: exception
classification, declarations, the checks (against the C rules they copy)
and where the library is looked for."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import cubench as cb  # noqa: E402
from cubench import _lib, check, errors  # noqa: E402
from cubench.cli import _pop_options  # noqa: E402


def raised(exc):
    try:
        raise exc
    except BaseException as e:  # noqa: BLE001
        return e


@pytest.mark.parametrize("exc", [
    type("OutOfMemoryError", (RuntimeError,), {})("CUDA out of memory. Tried to allocate 2 GiB"),
    RuntimeError("RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes."),
    type("CudaAPIError", (Exception,), {"code": 2})("[2] Call to cuMemAlloc results in "
                                                    "CUDA_ERROR_OUT_OF_MEMORY"),
    type("CUDARuntimeError", (RuntimeError,), {})("cudaErrorMemoryAllocation: out of memory"),
    MemoryError(),
])
def test_framework_out_of_memory_errors_are_skips(exc):
    status, reason = errors.classify(raised(exc))
    assert status == errors.SKIP and reason.startswith("out of memory: ")


def test_out_of_memory_is_found_through_the_cause():
    try:
        try:
            raise MemoryError("pinned buffer")
        except MemoryError as inner:
            raise RuntimeError("allocation failed") from inner
    except RuntimeError as e:
        assert errors.is_out_of_memory(e)
    assert not errors.is_out_of_memory(ValueError("shape mismatch"))


def test_other_errors_are_failures_with_type_text_and_line():
    def user_code():
        raise KeyError("n")
    status, reason = errors.classify(raised_from(user_code), source=__file__)
    assert status == errors.FAIL
    assert reason.startswith("KeyError: 'n' (test_python_units.py:")
    assert reason.endswith("in user_code)")
    assert errors.classify(cb.Skip("needs 2 GPUs")) == (errors.SKIP, "needs 2 GPUs")


def raised_from(fn):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001
        return e


@pytest.mark.parametrize("kwargs, message", [
    (dict(name="noslash", axes=[cb.Axis("n", "1")]), "names are family/variant"),
    (dict(name="f/x", axes=[cb.Axis(f"a{i}", "1") for i in range(9)]), "at most 8"),
    (dict(name="f/x", axes=[cb.Axis("n", "1"), cb.Axis("n", "2")]), "declared twice"),
    (dict(name="f/x", axes=[cb.Axis("n", "1")], target="tpu"), "target must be one of"),
    (dict(name="f/x", axes=[cb.Axis("n", "1")], peak="hbm"), "peak must be one of"),
])
def test_declarations_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        cb.benchmark(registry=cb.Registry(), **kwargs)(lambda p, c: None)


def test_axis_names_and_kinds_are_checked():
    with pytest.raises(ValueError, match="lower case"):
        cb.Axis("N", "1")
    with pytest.raises(ValueError, match="kind must be 'int', 'float' or 'enum'"):
        cb.Axis("n", "1", kind="double")
    assert cb.Axis("eps", "1e-3,0.5", kind="float").kind == "float"
    assert cb.Axis("n", [1, 2, 4]).defaults == [1, 2, 4]
    assert cb.Axis("mode", "a", kind="enum", choices=["a", "b"]).choices_text == "a,b"


def test_registry_keeps_order_and_refuses_duplicates():
    reg = cb.Registry()
    for name in ("b/one", "a/two", "b/three"):
        cb.benchmark(name, axes=[cb.Axis("n", "1")], registry=reg)(lambda p, c: None)
    assert list(reg.families()) == ["b", "a"]
    assert [b.name for b in reg.families()["b"]] == ["b/one", "b/three"]
    with pytest.raises(ValueError, match="declared twice"):
        cb.benchmark("a/two", axes=[cb.Axis("n", "1")], registry=reg)(lambda p, c: None)


def test_setup_results_are_normalised():
    reg = cb.Registry()
    run, verify = (lambda: None), (lambda: 0.0)
    for i, got in enumerate([run, (run, verify), cb.Setup(run=run, verify=verify)]):
        cb.benchmark(f"s/v{i}", axes=[cb.Axis("n", "1")], registry=reg)(lambda p, c, g=got: g)
    ctx = cb.Context(stream=0, device=None, sm_count=0, l2_bytes=0, seed=1, host_threads=1)
    point = cb.Point({"n": 1}, "n=1")
    setups = [b.prepare(point, ctx) for b in reg]
    assert setups[0].verify is None and setups[1].verify is verify and setups[2].run is run
    cb.benchmark("s/bad", axes=[cb.Axis("n", "1")], registry=reg)(lambda p, c: 42)
    with pytest.raises(TypeError, match="setup must return"):
        reg.get("s/bad").prepare(point, ctx)


def test_tolerances_are_the_c_ones():
    # bench/matmul_ref.c: 16 u_in / sqrt(K) + 16 u_fp32.
    u = 2.0 ** -24
    assert check.matmul_tolerance("fp32", 4096) == 16 * u
    assert check.matmul_tolerance("tf32", 4096) == pytest.approx(16 * 2.0 ** -11 / 64 + 16 * u)
    assert check.matmul_tolerance("bf16", 1) == pytest.approx(16 * 2.0 ** -8 + 16 * u)
    with pytest.raises(ValueError):
        check.matmul_tolerance("fp8", 16)


def test_matmul_check_passes_float32_and_fails_wrong_or_unwritten_results():
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (64, 96)).astype(np.float32)
    b = rng.uniform(-1, 1, (96, 48)).astype(np.float32)
    c = a @ b
    err = cb.matmul_check(a, b, c, "fp32")
    assert 0 <= err <= check.matmul_tolerance("fp32", 96)
    wrong = c.copy()
    wrong[5, 7] += float(np.abs(a[5]) @ np.abs(b[:, 7])) / 96  # about one term of K
    with pytest.raises(cb.VerifyError, match="FP32 tolerance"):
        cb.matmul_check(a, b, wrong, "fp32")
    unwritten = c.copy()
    unwritten[-1, -1] = np.nan
    with pytest.raises(cb.VerifyError, match="1 entries of C are NaN"):
        cb.matmul_check(a, b, unwritten, "fp32")
    # BF16 inputs pass the BF16 tolerance, not the FP32 one.
    to_bf16 = lambda x: (x.view(np.uint32) & 0xFFFF0000).view(np.float32)  # noqa: E731
    c16 = to_bf16(a).astype(np.float64) @ to_bf16(b).astype(np.float64)
    assert cb.matmul_check(a, b, c16, "bf16") <= check.matmul_tolerance("bf16", 96)
    with pytest.raises(cb.VerifyError):
        cb.matmul_check(a, b, c16, "fp32")


def test_matmul_check_samples_large_problems(monkeypatch):
    monkeypatch.setattr(check, "SPOT_SAMPLES", 64)
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (128, 64)).astype(np.float32)
    b = rng.uniform(-1, 1, (64, 128)).astype(np.float32)
    c = a @ b
    assert cb.matmul_check(a, b, c, "fp32", ref32=c, full_max_fma=1000) >= 0
    off = c.copy()
    off[3, 3] += 1.0  # one entry the samples may miss: the FP32 reference catches it
    with pytest.raises(cb.VerifyError, match="vs the FP32 reference"):
        cb.matmul_check(a, b, off, "fp32", ref32=c, full_max_fma=1000)


def test_vecadd_check_is_exact():
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, 1000).astype(np.float32)
    b = rng.uniform(-1, 1, 1000).astype(np.float32)
    assert cb.vecadd_check(a, b, a + b) == 0.0
    c = a + b
    c[17] = np.nextafter(c[17], np.float32(2))  # one ulp off
    with pytest.raises(cb.VerifyError, match="1 of 1000 elements wrong, first at index 17"):
        cb.vecadd_check(a, b, c)
    c = a + b
    c[999] = np.nan
    with pytest.raises(cb.VerifyError, match="first at index 999") as e:
        cb.vecadd_check(a, b, c)
    assert math.isinf(e.value.error)


def test_library_search_order(tmp_path, monkeypatch):
    monkeypatch.delenv("CUBENCH_LIB", raising=False)
    paths = _lib.candidates()
    assert paths[0] == ROOT / "python" / "cubench" / "libcubench.so"
    assert paths[1:] == [ROOT / d / "libcubench.so"
                         for d in ("build", "build-native", "build-ci", "build-debug")]
    monkeypatch.setenv("CUBENCH_LIB", str(tmp_path))
    assert _lib.candidates()[0] == tmp_path / "libcubench.so"
    with pytest.raises(_lib.LibraryError, match="no libcubench.so there"):
        _lib.find()
    (tmp_path / "libcubench.so").write_text("not a library")
    assert _lib.find() == tmp_path / "libcubench.so"
    with pytest.raises(_lib.LibraryError, match="cannot load"):
        _lib.load()


def test_module_options_are_taken_out_anywhere():
    assert _pop_options(["--module", "a.py", "run", "x*", "--module=b.py", "--quick"]) == (
        ["a.py", "b.py"], True, ["run", "x*", "--quick"])
    assert _pop_options(["list", "--no-frameworks"]) == ([], False, ["list"])


def _triton_family():
    import importlib

    from cubench import loader

    loader.family_names()  # imports cubench.families (bench/python), no framework
    return importlib.import_module("cubench.families.triton")


def test_triton_tiles_fall_back_only_on_shared_memory_refusals():
    fits = _triton_family().first_that_fits
    too_big = type("OutOfResources", (Exception,), {})
    tried = []

    def compile_with(tile):
        tried.append(tile)
        if tile[0] > 64:
            raise too_big(f"shared memory, Required: {tile[0] * 1152}, Hardware limit: 101376")
        return f"kernel {tile}"

    tiles = ((128, 256), (128, 128), (64, 64))
    assert fits(tiles, compile_with) == ((64, 64), "kernel (64, 64)")
    assert tried == list(tiles)
    # None fits: a skip row that says why, not a failure.
    with pytest.raises(cb.Skip, match="no tile of 2 fits.*Hardware limit"):
        fits(((256, 256), (128, 128)), compile_with)

    # Any other error is the row's failure: never hidden by a smaller tile.
    def broken(tile):
        raise ValueError("bad kernel")
    with pytest.raises(ValueError, match="bad kernel"):
        fits(tiles, broken)


def test_triton_tile_lists_put_the_probed_fastest_first_and_end_small():
    tiles = _triton_family()._TILES
    assert set(tiles) == {"fp32", "tf32", "bf16"}
    assert tiles["tf32"][0][:3] == (128, 256, 32) and tiles["bf16"][0][:3] == (128, 256, 64)
    for prec, choices in tiles.items():
        elem = 2 if prec == "bf16" else 4
        smem = [(bm * bk + bk * bn) * elem * stages for bm, bn, bk, _, stages in choices]
        assert smem == sorted(smem, reverse=True), prec
        assert smem[-1] <= 48 * 1024, prec  # the last fits any GPU cubench builds for


def test_triton_launch_and_instruction_helpers_without_triton(monkeypatch):
    """bench/python/_triton_kernels.py's host helpers against a stand-in
    triton: the grid, the arguments and the precision the family and
    scripts/record/py_triton_probe.py launch with, and the PTX words."""
    import importlib
    import types

    launches = []

    class FakeKernel:
        def __getitem__(self, grid):
            def call(*args, **kwargs):
                launches.append((grid, args, kwargs))
                return types.SimpleNamespace(asm={"ptx": "mov; wgmma.mma_async.sync; ret"})
            return call

    triton = types.ModuleType("triton")
    triton.jit = lambda fn: FakeKernel()
    triton.cdiv = lambda a, b: -(-a // b)
    language = types.ModuleType("triton.language")
    language.constexpr = object
    triton.language = language
    monkeypatch.setitem(sys.modules, "triton", triton)
    monkeypatch.setitem(sys.modules, "triton.language", language)
    _triton_family()  # cubench.families is importable
    monkeypatch.delitem(sys.modules, "cubench.families._triton_kernels", raising=False)
    K = importlib.import_module("cubench.families._triton_kernels")

    class Tensor:  # shape and element strides, as torch's
        def __init__(self, shape, strides):
            self.shape, self._strides = shape, strides

        def stride(self, i):
            return self._strides[i]

    x, c = Tensor((300, 70), (70, 1)), Tensor((300, 129), (129, 1))
    y = Tensor((70, 129), (1, 70))  # K-major: column by column
    compiled = K.launch_matmul(x, y, c, (128, 64, 32, 4, 3), "tf32", 8)
    (grid, args, kwargs), = launches
    assert grid == (3 * 3,)  # ceil(300/128) x ceil(129/64)
    assert args[:3] == (x, y, c)
    assert args[3:6] == (300, 129, 70) and args[6:12] == (70, 1, 1, 70, 129, 1)
    assert kwargs == {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8,
                      "PRECISION": "tf32", "num_warps": 4, "num_stages": 3}
    assert K.mma_instruction(compiled) == "wgmma.mma_async"
    assert K.mma_instruction(types.SimpleNamespace(asm={"ptx": "fma.rn.f32"})) == "fma"
    assert K.mma_instruction(types.SimpleNamespace(asm={"ptx": "mma.sync.aligned"})) == "mma.sync"
    assert K.mma_instruction(object()) == ""
    assert K.PRECISION_MODE == {"fp32": "ieee", "tf32": "tf32", "bf16": "bf16"}
    monkeypatch.delitem(sys.modules, "cubench.families._triton_kernels")


def test_pypi_cuda_libraries_are_found_in_load_order(tmp_path):
    """Where NVIDIA's CUDA 13 wheels put their libraries under site-packages,
    in the order they must be loaded (libcubench.so's dependencies first)."""
    for sub, name in (("nvidia/cu13/lib", "libcublas.so.13"), ("nvidia/cu13/lib", "libcudart.so.13"),
                      ("nvidia/nccl/lib", "libnccl.so.2"), ("nvidia/cu13/lib", "libcupti.so.13"),
                      ("nvidia/cu13/lib", "libcublasLt.so.13")):
        (tmp_path / sub).mkdir(parents=True, exist_ok=True)
        (tmp_path / sub / name).write_bytes(b"")
    got = _lib.pip_cuda_libraries([str(tmp_path / "elsewhere"), str(tmp_path)])
    assert [p.name for p in got] == ["libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13",
                                     "libcupti.so.13", "libnccl.so.2"]
    assert got[-1] == tmp_path / "nvidia/nccl/lib/libnccl.so.2"
    assert _lib.pip_cuda_libraries([str(tmp_path / "elsewhere")]) == []


def test_a_missing_cuda_library_is_loaded_from_pypi_wheels(tmp_path, monkeypatch):
    """The mechanism of `cubench[cu13]`: a library whose dependency the
    system lacks loads once the wheel's copy is preloaded. Stand-ins built
    here: libcbstub.so.1 (in a wheel's folder) and libneeds.so, linked to it."""
    import shutil
    import subprocess
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    wheel_dir = tmp_path / "site" / "nvidia" / "cu13" / "lib"
    wheel_dir.mkdir(parents=True)
    (tmp_path / "stub.c").write_text("int cb_stub_answer(void) { return 42; }\n")
    (tmp_path / "needs.c").write_text("int cb_stub_answer(void);\n"
                                      "int cb_needs(void) { return cb_stub_answer(); }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-Wl,-soname,libcbstub.so.1", "-o",
                    str(wheel_dir / "libcbstub.so.1"), str(tmp_path / "stub.c")], check=True)
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(tmp_path / "libneeds.so"),
                    str(tmp_path / "needs.c"), "-L", str(wheel_dir), "-l:libcbstub.so.1"],
                   check=True)
    monkeypatch.setattr(_lib, "PIP_CUDA_LIBS", ("libcbstub.so.1",))
    monkeypatch.setattr(sys, "path", [str(tmp_path / "nowhere")])
    with pytest.raises(_lib.LibraryError, match="a library it links is missing"):
        _lib._open(tmp_path / "libneeds.so")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "site")])
    assert _lib._open(tmp_path / "libneeds.so").cb_needs() == 42


def interrupted_import():
    """What an extension module's initialisation raises when Ctrl-C lands
    in it: ImportError("initialization failed") from the KeyboardInterrupt."""
    try:
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as ki:
            raise ImportError("initialization failed") from ki
    except ImportError as e:
        return e


def test_an_interrupt_is_found_through_causes_and_contexts():
    from cubench.interrupt import caused_by_interrupt
    assert caused_by_interrupt(KeyboardInterrupt())
    assert caused_by_interrupt(interrupted_import())
    try:  # implicit chaining: raised while handling the interrupt
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise RuntimeError("while importing")
    except RuntimeError as e:
        assert caused_by_interrupt(e)
    assert not caused_by_interrupt(raised(ImportError("a real bug")))
    loop = RuntimeError("a")  # a cycle in the chain ends the walk
    loop.__context__ = RuntimeError("b")
    loop.__context__.__context__ = loop
    assert not caused_by_interrupt(loop)


def test_a_family_import_interrupted_stops_the_load(monkeypatch):
    """A Ctrl-C during a family's framework import is not 'one broken
    family' to warn about and skip: the load stops as interrupted."""
    from cubench import loader

    def import_module(name, *args):
        raise interrupted_import()

    monkeypatch.setattr(loader.importlib, "import_module", import_module)
    with pytest.raises(KeyboardInterrupt):
        loader.load_families(["torch_ops"])

    def broken(name, *args):
        raise ImportError("a real bug")

    monkeypatch.setattr(loader.importlib, "import_module", broken)
    assert "a real bug" in loader.load_families(["torch_ops"])[0]
