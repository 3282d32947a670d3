"""cubench.measure, cubench.load and the pytest plugin with PyTorch on a GPU
(scripts/record/python_api.sh runs this on a machine with one; elsewhere
every test skips). The checks: a measured torch call agrees with a plain
CUDA-event loop over the same call (so the runner's stream really carried
the work), the target and timer are inferred from the tensors, the row
read back has the GPU's conditions, and a pytest session on the GPU is
saved and gated by compare."""
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device for PyTorch", allow_module_level=True)

import cubench  # noqa: E402

N = 4096  # FP32 matmul of 4096^3: about 1-2 ms on current GPUs, far above launch costs


@pytest.fixture(scope="module")
def operands():
    g = torch.Generator(device="cuda").manual_seed(7)
    a = torch.rand(N, N, device="cuda", generator=g) * 2 - 1
    b = torch.rand(N, N, device="cuda", generator=g) * 2 - 1
    torch.backends.cuda.matmul.allow_tf32 = False  # FP32 as written
    return a, b


def event_loop_median(fn, samples: int = 30) -> float:
    """A plain loop of CUDA events around each call (do_bench's way), seconds."""
    fn()
    torch.cuda.synchronize()
    pairs = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
             for _ in range(samples)]
    for start, end in pairs:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in pairs) / 1e3


def test_a_torch_call_measures_what_an_event_loop_does(operands):
    a, b = operands
    out = torch.full((N, N), float("nan"), device="cuda")

    def mm():
        torch.mm(a, b, out=out)

    def verify():
        ref = (a[:64].double() @ b.double()).float()  # 64 rows against FP64
        err = ((out[:64] - ref).abs().max() / (N * a.abs().max() * b.abs().max())).item()
        if not err < 16 * 2.0 ** -24:
            raise cubench.VerifyError(f"normwise error {err:.3g}", err)
        return err

    r = cubench.measure(mm, verify=verify, flops=2 * N ** 3, max_time=0.5, keep=True)
    assert r.ok, r
    assert r.conditions["timer"] == "event" and r.conditions["cache"] == "cold"  # inferred cuda
    assert r.conditions["device"] == 0 and r.conditions["gpu"]
    assert r.verify_error < 16 * 2.0 ** -24
    loop = event_loop_median(mm)
    # The runner's events and a plain loop time the same kernel: within 5%.
    assert r.median_s == pytest.approx(loop, rel=0.05), (r.median_s, loop)
    assert r.tflops == pytest.approx(2 * N ** 3 / r.median_s / 1e12, rel=1e-6)
    rows = cubench.load(r.dir)
    (row,) = rows
    assert row["kernels"] and row["sm_clock_median_mhz"] and row["power_mean_w"]
    assert rows.python["measure"]["frameworks"] == ["torch"]
    assert rows.samples_of(row) == list(r.samples)


def test_hot_mode_batches_short_calls(operands):
    a, _ = operands
    x = a[:1024, :1024].contiguous()
    r = cubench.measure(lambda: x.add_(0.0), cache="hot", max_time=0.3)
    assert r.ok and r.conditions["cache"] == "hot" and r.conditions["batch"] > 1


def test_code_that_makes_its_data_inside_states_the_target():
    r = cubench.measure(lambda: torch.ones(1 << 20, device="cuda").sum(), target="cuda",
                        max_time=0.3)
    assert r.ok and r.conditions["timer"] == "event"


def test_the_plugin_on_the_gpu(tmp_path):
    (tmp_path / "test_gpu.py").write_text(
        "import torch\n\n"
        "def test_mm(cubench):\n"
        "    a = torch.rand(2048, 2048, device='cuda')\n"
        "    r = cubench(torch.mm, setup=lambda: (a, a), flops=2 * 2048**3)\n"
        "    assert r.ok and r.conditions['timer'] == 'event'\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT / "python"), os.environ.get("PYTHONPATH", "")]),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")  # -p names the plugin: never twice
    base = subprocess.run([sys.executable, "-m", "pytest", "-p", "cubench.pytest_plugin", "-q",
                           "-p", "no:cacheprovider", "test_gpu.py", "--cubench-save", "base",
                           "--cubench-run-args=--max-time-per-point 0.3"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert base.returncode == 0, base.stdout + base.stderr
    again = subprocess.run([sys.executable, "-m", "pytest", "-p", "cubench.pytest_plugin", "-q",
                            "-p", "no:cacheprovider", "test_gpu.py", "--cubench-compare", "base",
                            "--cubench-compare-args=--delta 0.2",
                            "--cubench-run-args=--max-time-per-point 0.3"],
                           capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "no point is slower" in again.stdout
    (row,) = cubench.load(tmp_path / "base")
    assert row["benchmark"] == "pytest/test_gpu.test_mm" and row["timer"] == "event"
