"""`pip install` of the package into a clean virtual environment: the wheel
(built by pip through the in-tree backend, offline) carries libcubench.so,
and the `cubench` command, `python -m cubench`, cubench.measure / load and
the pytest plugin's entry point work without the source tree, PYTHONPATH
or CUBENCH_LIB. CPU only here: host benchmarks run, GPU points skip."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


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
    """`pip install` of this tree, with `lib`, into a fresh venv: pip builds
    the wheel through the tree's backend and installs it."""
    tmp = tmp_path_factory.mktemp("wheel")
    made = run([sys.executable, "-m", "venv", "--without-pip", tmp / "venv"], cwd=tmp)
    assert made.returncode == 0, made.stderr
    py = tmp / "venv" / "bin" / "python"
    installed = run([sys.executable, "-m", "pip", "--python", py, "install", "--no-cache-dir",
                     "--config-settings", f"lib={lib}", ROOT], cwd=tmp)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    site = Path(run([py, "-c", "import cubench, os; print(os.path.dirname(cubench.__file__))"],
                    cwd=tmp).stdout.strip())
    return tmp, py, site


def test_the_install_carries_the_library_the_families_and_the_entry_points(lib, venv):
    _, _, site = venv
    assert "site-packages" in str(site)
    assert (site / "libcubench.so").read_bytes() == lib.read_bytes()
    for name in ("__init__.py", "pytest_plugin.py", "families/__init__.py", "families/torch.py",
                 "families/numpy.py"):
        assert (site / name).is_file(), name
    (dist,) = site.parent.glob("cubench-0.1.0.dist-info")
    entry = (dist / "entry_points.txt").read_text()
    assert "[console_scripts]\ncubench = cubench.cli:console" in entry
    assert "[pytest11]\ncubench = cubench.pytest_plugin" in entry
    meta = (dist / "METADATA").read_text()
    assert 'Requires-Dist: nvidia-cublas<14,>=13; extra == "cu13"' in meta or \
        'Requires-Dist: nvidia-cublas>=13,<14; extra == "cu13"' in meta
    wheel = (dist / "WHEEL").read_text()
    assert "Root-Is-Purelib: false" in wheel and "Tag: py3-none-linux_" in wheel


def test_cubench_works_from_the_clean_venv(venv):
    tmp, py, site = venv
    bindir = py.parent
    for cmd in ([bindir / "cubench", "--version"], [py, "-m", "cubench", "--version"]):
        p = run(cmd, cwd=tmp)
        assert p.returncode == 0 and f"{site}/libcubench.so" in p.stdout, p.stdout + p.stderr
    out = tmp / "run"
    p = run([bindir / "cubench", "run", "vecadd/host", "vecadd/float4_per_thread", "numpy/add",
             "--axis", "n=4096", "--quick", "--out", out], cwd=tmp)
    assert p.returncode == 0, p.stderr
    code = f"""
import cubench, json
from cubench.engine import engine
rows = cubench.load({str(out)!r})
r = cubench.measure(lambda: sum(range(1000)), quick=True)
print(json.dumps({{"rows": {{x["benchmark"]: x["status"] for x in rows}},
                  "measured": r.status, "python": rows.python["library"],
                  "gpus": len(engine().devices()[0])}}))
"""
    p = run([py, "-c", code], cwd=tmp)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got["measured"] in ("ok", "noisy") and got["python"] == f"{site}/libcubench.so"
    assert got["rows"]["vecadd/host"] in ("ok", "noisy")
    assert got["rows"]["numpy/add"] == "skip"  # numpy is not installed in the clean venv
    if got["gpus"] == 0:  # no GPU here: its points are skip rows
        assert got["rows"]["vecadd/float4_per_thread"] == "skip"
    plugin = run([py, "-c", "from importlib.metadata import entry_points; "
                  "print([e.value for e in entry_points(group='pytest11')])"], cwd=tmp)
    assert plugin.stdout.strip() == "['cubench.pytest_plugin']"
