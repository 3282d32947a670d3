"""cubench.measure on the CPU (host timer) through libcubench.so, the way
docs/python.md shows it: the same runner as `cubench run`, the result read
back from the run directory it wrote, which is removed unless kept."""
import math
import os
import statistics
import sys
import tempfile
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import cubench  # noqa: E402
from cubench import _lib, gpu_objects  # noqa: E402

QUICK = dict(quick=True)


@pytest.fixture(scope="module")
def eng(lib):
    """The engine on the library next to the binary ctest names (or the
    source tree's build): conftest's `lib`."""
    os.environ["CUBENCH_LIB"] = str(lib)
    from cubench.engine import engine
    return engine()


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """measure's temporary run directories go here, to see that none is left."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_host_function_is_measured_and_its_directory_removed(eng, private_tmp):
    data = list(range(20000, 0, -1))
    r = cubench.measure(sorted, setup=lambda: (data,), verify=None, **QUICK)
    assert r.benchmark == "measure/sorted" and r.ok, r
    assert r.conditions["timer"] == "host" and r.conditions["cache"] == "n/a"  # inferred: host
    assert len(r.samples) == r.row["samples"] >= 6
    assert statistics.median(r.samples) == pytest.approx(r.median_s, rel=0.05)
    lo, hi = r.ci_s
    assert lo <= r.median_s <= hi
    assert "not verified" in r.conditions["note"]
    assert r.dir is None and list(private_tmp.iterdir()) == []
    assert "measure/sorted" in str(r) and "median" in str(r)


def test_setup_arguments_verify_and_work_model(eng, private_tmp):
    calls = []

    def setup():
        calls.append("setup")
        return [3.0] * 4096

    def total(xs):
        calls.append("run")
        return math.fsum(xs)

    r = cubench.measure(total, setup=setup, verify=lambda: 0.0, bytes=8 * 4096, flops=4096,
                        name="sum4k", **QUICK)
    assert r.benchmark == "measure/sum4k" and r.verify_error == 0.0
    # setup before the first call, once per round (--replicates auto may run 3)
    assert calls[0] == "setup" and calls.count("setup") == r.row["replicates"]
    assert calls.count("run") > 6
    assert r.gbps == pytest.approx(8 * 4096 / r.median_s / 1e9, rel=1e-6)
    assert r.tflops == pytest.approx(4096 / r.median_s / 1e12, rel=1e-6)


def test_failures_raise_with_the_row_and_skips_return(eng, private_tmp):
    def wrong():
        raise cubench.VerifyError("2 of 8 elements wrong", 0.25)

    with pytest.raises(cubench.MeasureError, match="2 of 8 elements wrong") as e:
        cubench.measure(lambda: None, verify=wrong, **QUICK)
    assert e.value.result.status == "fail" and e.value.result.verify_error == 0.25

    def broken():
        raise ValueError("shape mismatch")
    with pytest.raises(cubench.MeasureError, match=r"ValueError: shape mismatch \(test_api_measure"):
        cubench.measure(broken, **QUICK)
    if not eng.devices()[0]:
        r = cubench.measure(lambda: None, target="cuda", **QUICK)
        assert r.status == "skip" and not r.ok and r.median_s is None and r.reason
    assert list(private_tmp.iterdir()) == []


def test_kept_run_directory_is_a_run_that_load_reads(eng, tmp_path):
    out = tmp_path / "kept"
    r = cubench.measure(lambda: sum(range(500)), out=out, cache="hot", **QUICK)
    assert r.dir == out
    rows = cubench.load(out)
    assert [row["benchmark"] for row in rows] == ["measure/lambda"]
    assert rows.samples_of(rows[0]) == list(r.samples)
    assert rows.meta["complete"] is True
    side = rows.python["measure"]
    assert side["target"] == "host" and side["target_inferred"] is True
    assert side["function"].endswith("<lambda>") and rows.python["library"] == str(eng.lib.path)


def test_a_work_model_that_is_not_a_finite_number_is_left_empty(eng, private_tmp, capfd):
    r = cubench.measure(lambda: None, bytes=-1.5e27, flops=math.inf, **QUICK)
    assert r.row["bytes"] is None and r.gbps is None
    assert r.row["flops"] is None and r.tflops is None
    err = capfd.readouterr().err
    assert "the bytes model gave -1.5e+27, which is not a finite number >= 0; left empty" in err
    assert "the flops model gave inf" in err


@pytest.mark.parametrize("kwargs, message", [
    (dict(cache="warm"), "cache must be 'cold' or 'hot'"),
    (dict(target="tpu"), "target must be 'host', 'cuda'"),
    (dict(min_samples=3), "--min-samples"),
    (dict(peak="hbm"), "peak must be one of"),
    (dict(name="vecadd/mine"), "family 'vecadd'"),
])
def test_bad_options_are_value_errors(eng, private_tmp, kwargs, message):
    with pytest.raises(ValueError, match=message):
        cubench.measure(lambda: None, **QUICK, **kwargs)
    assert list(private_tmp.iterdir()) == []


def test_library_structs_match_the_package(eng):
    lib = eng.lib
    assert _lib.layout_mismatches(lib.cb_api_sizeof, lib.cb_api_offsetof) == []
    import ctypes

    class Shifted(ctypes.Structure):  # cb_api_ctx with `device` moved
        _fields_ = [("device", ctypes.c_int32), ("stream", ctypes.c_uint64),
                    ("sm_count", ctypes.c_int32), ("l2_bytes", ctypes.c_int64),
                    ("seed", ctypes.c_uint64), ("host_threads", ctypes.c_int32)]
    bad = _lib.layout_mismatches(lib.cb_api_sizeof, lib.cb_api_offsetof, {"cb_api_ctx": Shifted})
    assert "cb_api_ctx.stream is at offset 0 there, 8 here" in bad
    assert _lib.layout_mismatches(lib.cb_api_sizeof, lib.cb_api_offsetof,
                                  {"cb_api_nothing": Shifted}) == [
        "the library does not know cb_api_nothing"]


def test_layout_check_names_every_difference():
    import ctypes
    sizes = {"cb_api_ctx": ctypes.sizeof(_lib.ApiCtx) + 8}
    offsets = {("cb_api_ctx", "seed"): 99}

    def sizeof(t):
        return sizes.get(t.decode(), -1)

    def offsetof(t, f):
        return offsets.get((t.decode(), f.decode()),
                           getattr(_lib.ApiCtx, f.decode()).offset)
    bad = _lib.layout_mismatches(sizeof, offsetof, {"cb_api_ctx": _lib.ApiCtx})
    assert bad == [f"sizeof(cb_api_ctx) is {ctypes.sizeof(_lib.ApiCtx) + 8} there, "
                   f"{ctypes.sizeof(_lib.ApiCtx)} here",
                   f"cb_api_ctx.seed is at offset 99 there, {_lib.ApiCtx.seed.offset} here"]


# ---- target inference (stand-in frameworks: CI has none) ----

class FakeTensor:
    def __init__(self, cuda):
        self.is_cuda = cuda


class FakeModule:
    def __init__(self, *tensors):
        self._t = tensors

    def parameters(self):
        return iter(self._t)

    def buffers(self):
        return iter(())


@pytest.fixture
def fake_torch(monkeypatch):
    torch = types.ModuleType("torch")
    torch.Tensor = FakeTensor
    torch.nn = types.SimpleNamespace(Module=FakeModule)
    FakeTensor.__module__ = FakeModule.__module__ = "torch"
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


class DeviceArray:  # what CuPy and Numba arrays expose
    __cuda_array_interface__ = {}


GLOBAL_GPU = None


def test_gpu_data_is_found_wherever_the_function_holds_it(fake_torch):
    import functools
    a, cpu = FakeTensor(True), FakeTensor(False)
    assert gpu_objects.frameworks(lambda: a) == {"torch"}          # a closure
    assert gpu_objects.frameworks(lambda: cpu) == set()            # a CPU tensor
    assert gpu_objects.frameworks(lambda x=[{"k": a}]: x) == {"torch"}  # a default, nested
    assert gpu_objects.frameworks(functools.partial(print, a)) == {"torch"}
    model = FakeModule(FakeTensor(True))
    assert gpu_objects.frameworks(lambda: model) == {"torch"}      # a module's parameters
    DeviceArray.__module__ = "cupy._core.core"
    assert gpu_objects.frameworks(lambda: DeviceArray()) == set()  # made inside: not seen
    arr = DeviceArray()
    assert gpu_objects.frameworks(lambda: arr) == {"cupy"}
    global GLOBAL_GPU
    GLOBAL_GPU = a
    try:
        def uses_global():
            return GLOBAL_GPU
        assert gpu_objects.frameworks(uses_global) == {"torch"}   # a global it names
    finally:
        GLOBAL_GPU = None

    class Holder:
        def __init__(self):
            self.t = a

        def step(self):
            return self.t
    assert gpu_objects.frameworks(Holder().step) == set()  # attributes are not searched


def test_measure_infers_cuda_for_gpu_tensors_and_binds_the_stream(fake_torch):
    from cubench import measurement as m
    a = FakeTensor(True)
    p = m.plan(lambda: a)
    assert (p.target, p.timer, p.inferred, p.kinds) == ("cuda", "event", True, {"torch"})
    assert m.plan(lambda: 1).target == "host"
    assert m.plan(lambda: 1, target="cuda", sync=lambda: None).timer == "host"

    calls = []
    fake_torch.device = lambda kind, i: (kind, i)
    fake_torch.cuda = types.SimpleNamespace(
        current_stream=lambda dev: ("previous", dev),
        ExternalStream=lambda ptr, device: ("external", ptr, device),
        set_stream=lambda s: calls.append(("set", s)),
        synchronize=lambda dev: calls.append(("sync", dev)))
    restore = gpu_objects.bind_stream({"torch"}, 0xABC, 1)
    assert calls == [("set", ("external", 0xABC, ("cuda", 1))), ("sync", ("cuda", 1))]
    restore()
    assert calls[-1] == ("set", ("previous", ("cuda", 1)))


def test_benchmark_target_follows_requires():
    reg = cubench.Registry()
    for name, req in (("t/np", "numpy"), ("t/torch", "torch"), ("t/none", None),
                      ("t/nb", "numba.cuda")):
        cubench.benchmark(name, requires=req, registry=reg)(lambda p, c: None)
    assert {b.name: b.target for b in reg} == {"t/np": "host", "t/torch": "cuda",
                                               "t/none": "host", "t/nb": "cuda"}


def doc_blocks(heading: str) -> list[str]:
    """The ```python blocks of docs/python.md under `heading`."""
    import re
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split(heading, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_documented_measure_and_load_examples_run(eng, private_tmp, capsys):
    measure_np, _torch = doc_blocks("## Measuring one function")
    space = {}
    exec(compile(measure_np, "docs/python.md", "exec"), space)
    r = space["r"]
    assert r.benchmark == "measure/sort" and r.ok and r.gbps > 0
    assert capsys.readouterr().out.startswith("measure/sort: ")
    (load_block,) = doc_blocks("## Reading a run")
    run_dir = ROOT / "tests" / "data" / "h200-aa1-A"  # has vecadd/grid_stride rows
    code = load_block.replace('"results/2026-12-01T10:00:00Z-h200"', repr(str(run_dir)))
    try:
        import pandas  # noqa: F401
    except ImportError:
        code = "\n".join(ln for ln in code.splitlines() if "to_pandas" not in ln)
    space = {"cubench": cubench}
    exec(compile(code, "docs/python.md", "exec"), space)
    printed = capsys.readouterr().out.splitlines()
    assert printed and all(len(ln.split()) == 3 for ln in printed)  # n, block, gbps
    assert len(space["times"]) == space["rows"][0]["samples"]


def test_gpu_data_that_setup_makes_needs_the_target_stated(eng, private_tmp, fake_torch):
    with pytest.raises(cubench.MeasureError, match="setup made are GPU data \\(torch\\): say "
                                                   "target='cuda'"):
        cubench.measure(lambda t: None, setup=lambda: FakeTensor(True), **QUICK)
    r = cubench.measure(lambda t: None, setup=lambda: FakeTensor(False), **QUICK)
    assert r.ok and r.conditions["timer"] == "host"  # CPU tensors are host work


def test_python_json_that_cannot_be_written_stops_the_run(eng, private_tmp, monkeypatch):
    from cubench import provenance

    def full(run_dir, doc):
        raise OSError(f"cannot write {run_dir / 'python.json'}: No space left on device")
    monkeypatch.setattr(provenance, "write", full)
    with pytest.raises(RuntimeError, match="python.json: No space left on device"):
        cubench.measure(lambda: None, **QUICK)
    assert list(private_tmp.iterdir()) == []
