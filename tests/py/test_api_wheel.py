"""`pip install` of the package into a clean virtual environment: the wheel
(built by pip through the in-tree backend, offline) carries libcubench.so,
and the `cubench` command, `python -m cubench`, cubench.measure / load and
the pytest plugin's entry point work without the source tree, PYTHONPATH
or CUBENCH_LIB. CPU only here: host benchmarks run, GPU points skip."""
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def lib():
    candidates = []
    if os.environ.get("CUBENCH_BIN"):
        candidates.append(Path(os.environ["CUBENCH_BIN"]).parent / "libcubench.so")
    candidates += [ROOT / d / "libcubench.so" for d in ("build-ci", "build", "build-native")]
    for c in candidates:
        if c.is_file():
            return c
    pytest.skip("libcubench.so is not built")


def clean_env() -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("CUBENCH_LIB", "PYTHONPATH", "CUDA_VISIBLE_DEVICES", "VIRTUAL_ENV")}
    env["PIP_NO_INDEX"] = "1"  # nothing from a registry: the wheel has no dependencies
    return env


def run(cmd, cwd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env=clean_env(), **kw)


@pytest.fixture(scope="module")
def venv(lib, tmp_path_factory):
    """A wheel of this tree with `lib` in it, installed into a fresh venv."""
    tmp = tmp_path_factory.mktemp("wheel")
    built = run([sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "-w", tmp / "dist",
                 "--config-settings", f"lib={lib}"], cwd=tmp)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (tmp / "dist").glob("cubench-*.whl")
    made = run([sys.executable, "-m", "venv", "--without-pip", tmp / "venv"], cwd=tmp)
    assert made.returncode == 0, made.stderr
    py = tmp / "venv" / "bin" / "python"
    installed = run([sys.executable, "-m", "pip", "--python", py, "install", wheel], cwd=tmp)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    return tmp, wheel, py


def test_the_wheel_carries_the_library_the_families_and_the_entry_points(lib, venv):
    _, wheel, _ = venv
    assert wheel.name.startswith("cubench-0.1.0-py3-none-") and not wheel.name.endswith("any.whl")
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert z.read("cubench/libcubench.so") == lib.read_bytes()
        entry = z.read("cubench-0.1.0.dist-info/entry_points.txt").decode()
        meta = z.read("cubench-0.1.0.dist-info/METADATA").decode()
    assert {"cubench/__init__.py", "cubench/pytest_plugin.py", "cubench/families/__init__.py",
            "cubench/families/torch.py", "cubench/families/numpy.py"} <= names
    assert "[console_scripts]\ncubench = cubench.cli:console" in entry
    assert "[pytest11]\ncubench = cubench.pytest_plugin" in entry
    assert 'Requires-Dist: nvidia-cublas<14,>=13; extra == "cu13"' in meta or \
        'Requires-Dist: nvidia-cublas>=13,<14; extra == "cu13"' in meta


def test_cubench_works_from_the_clean_venv(venv):
    tmp, _, py = venv
    bindir = py.parent
    site = run([py, "-c", "import cubench, os; print(os.path.dirname(cubench.__file__))"],
               cwd=tmp).stdout.strip()
    assert "site-packages" in site
    for cmd in ([bindir / "cubench", "--version"], [py, "-m", "cubench", "--version"]):
        p = run(cmd, cwd=tmp)
        assert p.returncode == 0 and f"{site}/libcubench.so" in p.stdout, p.stdout + p.stderr
    out = tmp / "run"
    p = run([bindir / "cubench", "run", "vecadd/host", "vecadd/float4_per_thread", "numpy/add",
             "--axis", "n=4096", "--quick", "--out", out], cwd=tmp)
    assert p.returncode == 0, p.stderr
    code = f"""
import cubench, json
rows = cubench.load({str(out)!r})
r = cubench.measure(lambda: sum(range(1000)), quick=True)
print(json.dumps({{"rows": {{x["benchmark"]: x["status"] for x in rows}},
                  "measured": r.status, "python": rows.python["library"]}}))
"""
    p = run([py, "-c", code], cwd=tmp)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["measured"] in ("ok", "noisy") and got["python"] == f"{site}/libcubench.so"
    assert got["rows"]["vecadd/host"] in ("ok", "noisy")
    assert got["rows"]["numpy/add"] == "skip"  # numpy is not installed in the clean venv
    gpus = run([py, "-c", "from cubench.engine import engine; print(len(engine().devices()[0]))"],
               cwd=tmp)
    if gpus.stdout.strip() == "0":  # no GPU here: its points are skip rows
        assert got["rows"]["vecadd/float4_per_thread"] == "skip"
    plugin = run([py, "-c", "from importlib.metadata import entry_points; "
                  "print([e.value for e in entry_points(group='pytest11')])"], cwd=tmp)
    assert plugin.stdout.strip() == "['cubench.pytest_plugin']"
