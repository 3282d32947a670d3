"""The pytest plugin the way docs/python.md shows it: a test file that uses
the `cubench` fixture, a session saved with --cubench-save, and a later
session gated by --cubench-compare (cubench compare in the library). Each
session is a child pytest in tmp_path, with the plugin named by -p (what
the `pytest11` entry point of an installed wheel does; autoloading is off
so that an installed copy cannot register it twice)."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import cubench  # noqa: E402
from cubench.pytest_plugin import test_name as plugin_test_name  # noqa: E402

TESTS = '''
import os, time
import pytest

SPIN_S = float(os.environ.get("SPIN_US", "200")) * 1e-6


def spin():
    end = time.perf_counter() + SPIN_S
    while time.perf_counter() < end:
        pass


def test_spin(cubench):
    r = cubench(spin)
    assert r.ok and r.median_s >= SPIN_S


@pytest.mark.parametrize("n", [100, 2000])
def test_sorted(cubench, n):
    data = list(range(n, 0, -1))
    r = cubench(sorted, setup=lambda: (data,), bytes=8 * n)
    assert r.ok and r.gbps > 0
    second = cubench(sorted, setup=lambda: (data[:10],))
    assert second.benchmark.endswith(".2")


def test_needs_a_gpu(cubench):
    cubench(lambda: None, target="cuda")
'''


def session(lib, tmp_path, *args, spin_us=200):
    """pytest on TESTS in tmp_path; the spin (a busy wait to a deadline: its
    time hardly moves with the machine's load) lasts spin_us."""
    (tmp_path / "test_demo.py").write_text(TESTS)
    env = dict(os.environ, CUBENCH_LIB=str(lib), PYTHONPATH=str(ROOT / "python"),
               SPIN_US=str(spin_us), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")  # -p names it
    env.pop("CUDA_VISIBLE_DEVICES", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "cubench.pytest_plugin",
                           "-p", "no:cacheprovider", "-q", "-rs", "test_demo.py",
                           "--cubench-run-args=--quick", *map(str, args)],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)


def has_gpu(lib) -> bool:
    os.environ.setdefault("CUBENCH_LIB", str(lib))
    from cubench.engine import engine
    return bool(engine().devices()[0])


def test_a_saved_session_is_one_run_directory(lib, tmp_path):
    p = session(lib, tmp_path, "--cubench-save", "base")
    assert p.returncode == 0, p.stdout + p.stderr
    rows = cubench.load(tmp_path / "base")
    names = [r["benchmark"] for r in rows]
    assert names[:5] == ["pytest/test_demo.test_spin", "pytest/test_demo.test_sorted-100",
                         "pytest/test_demo.test_sorted-100.2", "pytest/test_demo.test_sorted-2000",
                         "pytest/test_demo.test_sorted-2000.2"]
    assert all(len(rows.samples_of(r)) == r["samples"] for r in rows if r["status"] != "skip")
    gpu = rows.where(benchmark="pytest/test_demo.test_needs_a_gpu")
    if not has_gpu(lib):
        assert gpu[0]["status"] == "skip" and "1 skipped" in p.stdout
    assert rows.meta["complete"] is True and rows.meta["command_line"][0] == "pytest"
    assert rows.meta["totals"]["ok"] + rows.meta["totals"]["noisy"] >= 5
    done = [(m["test"], m["benchmark"], m["options"])
            for m in rows.python["pytest"]["measurements"]]
    assert done[1:3] == [
        ("test_demo.py::test_sorted[100]", "pytest/test_demo.test_sorted-100", {"bytes": 800}),
        ("test_demo.py::test_sorted[100]", "pytest/test_demo.test_sorted-100.2", {})]
    assert rows.python["pytest"]["measurements"][0]["settings"]["min_samples"] == 6  # --quick
    assert "6 measurement(s) in base" in p.stdout


def test_compare_passes_the_same_code_and_fails_a_slowdown(lib, tmp_path):
    # Only the spin is compared: its time is set here, the sorts' depend on
    # the machine's load.
    base = tmp_path / "base"
    first = session(lib, tmp_path, "-k", "test_spin", "--cubench-save", base)
    assert first.returncode == 0, first.stdout + first.stderr
    same = session(lib, tmp_path, "-k", "test_spin", "--cubench-compare", base,
                   "--cubench-compare-args=--delta 0.5")  # only a 50% change counts here
    assert same.returncode == 0, same.stdout + same.stderr
    assert f"cubench compare {base}: no point is slower" in same.stdout
    slower = session(lib, tmp_path, "-k", "test_spin", "--cubench-compare", base,
                     "--cubench-save", "new",
                     "--cubench-compare-args=--delta 0.5", spin_us=20000)  # 100x BASE's spin
    assert slower.returncode == 1, slower.stdout + slower.stderr
    assert "a point is SLOWER: the run fails" in slower.stdout
    row = "| **slower** | pytest/test_demo.test_spin |"
    assert row in slower.stdout
    report = (tmp_path / "new" / "compare.md").read_text()
    assert report.count("| **slower** |") == 1 and row in report
    assert "passed" in slower.stdout and "failed" not in slower.stdout  # the tests passed


def test_a_comparison_that_cannot_be_made_is_a_usage_error(lib, tmp_path):
    other = tmp_path / "other"
    cubench.measure(lambda: None, name="elsewhere/x", out=other, quick=True)
    p = session(lib, tmp_path, "-k", "test_spin", "--cubench-compare", other)
    assert p.returncode == 4, p.stdout + p.stderr
    assert "could not compare" in p.stdout
    for bad, message in ((tmp_path / "nothing", "no results.csv there"),):
        q = session(lib, tmp_path, "--cubench-compare", bad)
        assert q.returncode == 4 and message in q.stderr, q.stderr
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("")
    q = session(lib, tmp_path, "--cubench-save", tmp_path / "full")
    assert q.returncode == 4 and "not empty" in q.stderr


def test_the_documented_example_runs(lib, tmp_path):
    import re
    text = (ROOT / "docs" / "python.md").read_text()
    section = text.split("## pytest", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"```python\n(.*?)```", section, re.S)
    (tmp_path / "test_speed.py").write_text(example)
    env = dict(os.environ, CUBENCH_LIB=str(lib), PYTHONPATH=str(ROOT / "python"),
               PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "cubench.pytest_plugin", "-p",
                        "no:cacheprovider", "-q", "test_speed.py", "--cubench-save", "runs/base",
                        "--cubench-run-args=--quick"], capture_output=True, text=True,
                       timeout=300, cwd=tmp_path, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    (row,) = cubench.load(tmp_path / "runs" / "base")
    assert row["benchmark"] == "pytest/test_speed.test_sort" and row["status"] in ("ok", "noisy")


def test_test_names_become_benchmark_names():
    assert plugin_test_name("tests/test_x.py::TestA::test_add[1024-cold]") == (
        "test_x.TestA.test_add-1024-cold")
    assert plugin_test_name("test_y.py::test_z[a b/c]") == "test_y.test_z-a_b_c"
    assert json.dumps(plugin_test_name("t.py::" + "x" * 300)).count("x") == 120 - 2
