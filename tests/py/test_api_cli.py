"""The `cubench` command of the Python package, as a user meets it: --version
and --help without the library, Ctrl-C (one press, one line, exit 130, no
traceback) in a module import and in a benchmark that blocks, work models
that are not numbers, benchmarks without axes and with float axes. Each
command is a child interpreter, as a user's would be."""
import csv
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import cubench as cb  # noqa: E402
from cubench import interrupt  # noqa: E402

QUICK = ("--quick", "--max-time-per-point", "0.1")


def env_for(lib) -> dict:
    e = dict(os.environ, CUBENCH_LIB=str(lib), PYTHONPATH=str(ROOT / "python"))
    e.pop("CUDA_VISIBLE_DEVICES", None)
    return e


def cubench(lib, *args, cwd=None):
    return subprocess.run([sys.executable, "-m", "cubench", *args], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=env_for(lib))


def write(tmp_path, name, body) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def rows(run_dir):
    with open(Path(run_dir) / "results.csv", newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("args, expect", [
    (["--version"], "cubench 0.1.0 (Python package, python -m cubench)"),
    (["--help"], "usage: python -m cubench <command> [options]"),
    (["help"], "compare BASE NEW"),
])
def test_version_and_help_without_the_library(tmp_path, args, expect):
    p = cubench(tmp_path / "nowhere.so", *args)
    assert p.returncode == 0, p.stderr
    assert expect in p.stdout
    assert "no libcubench.so there" in p.stdout  # says why the commands cannot run
    run = cubench(tmp_path / "nowhere.so", "run")
    assert run.returncode == 2 and "no libcubench.so there" in run.stderr


def test_version_names_the_library(lib):
    p = cubench(lib, "--version")
    assert p.returncode == 0 and f": {lib}" in p.stdout


def interrupt_when_ready(cmd, env, marker: str, cwd):
    """Start cmd, wait for `marker` on its stdout, send one SIGINT; returns
    (exit code, stderr, seconds from the signal to the exit)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         cwd=cwd)
    try:
        line = p.stdout.readline()
        assert marker in line, (line, p.stderr.read() if p.poll() is not None else "")
        time.sleep(0.2)  # well inside the blocking call
        sent = time.monotonic()
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
        return p.returncode, err, time.monotonic() - sent
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()


def test_ctrl_c_during_a_module_import_is_one_line(lib, tmp_path):
    mod = write(tmp_path, "slow_import.py", """
        import sys, time
        print("importing", flush=True)
        time.sleep(60)
        """)
    rc, err, took = interrupt_when_ready(
        [sys.executable, "-m", "cubench", "run", "--module", str(mod), "--no-frameworks"],
        env_for(lib), "importing", tmp_path)
    assert rc == 130 and took < 10, err
    assert "Traceback" not in err and err.strip() == "cubench: interrupted"


BLOCKING = """
import threading, time
import cubench as cb

@cb.benchmark("block/{name}", target="host")
def setup(p, ctx):
    def run():
        print("running", flush=True)
        {body}
    return run
"""


@pytest.mark.parametrize("name, body", [
    ("spin", "while True: pass"),
    ("sleep", "time.sleep(600)"),
    ("wait", "threading.Event().wait()"),
])
def test_one_ctrl_c_stops_a_run_that_blocks_in_python(lib, tmp_path, name, body):
    mod = write(tmp_path, "block.py", BLOCKING.format(name=name, body=body))
    out = tmp_path / "run"
    rc, err, took = interrupt_when_ready(
        [sys.executable, "-m", "cubench", "run", f"block/{name}", "--module", str(mod),
         "--no-frameworks", "--quiet", "--out", str(out)], env_for(lib), "running", tmp_path)
    assert rc == 130 and took < 10, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip() and "points ->" not in ln]
    assert len(lines) == 1 and "interrupted" in lines[0], err
    assert rows(out) == []  # the point in flight is abandoned, not a failure


def test_a_ctrl_c_inside_a_modules_import_is_an_interrupt(lib, tmp_path):
    """Ctrl-C while an extension module initialises surfaces as
    ImportError("initialization failed") raised from the KeyboardInterrupt:
    exit 130 and one line, not a module that failed to load (exit 2)."""
    mod = write(tmp_path, "initfail.py", """
try:
    raise KeyboardInterrupt
except KeyboardInterrupt as exc:
    raise ImportError("initialization failed") from exc
""")
    r = cubench(lib, "run", "x/*", "--module", str(mod), "--no-frameworks", "--quiet",
                "--out", str(tmp_path / "run"))
    assert r.returncode == 130, r.stderr
    assert r.stderr.strip().splitlines() == ["cubench: interrupted"], r.stderr
    broken = write(tmp_path, "broken.py", 'raise ImportError("a real bug")\n')
    r = cubench(lib, "run", "x/*", "--module", str(broken), "--no-frameworks", "--quiet",
                "--out", str(tmp_path / "run2"))
    assert r.returncode == 2 and "ImportError: a real bug" in r.stderr, r.stderr


def test_a_negative_or_infinite_work_model_is_left_empty_with_a_warning(lib, tmp_path):
    mod = write(tmp_path, "work.py", """
        import cubench as cb

        @cb.benchmark("work/bad", axes=[cb.Axis("n", "1,2")], target="host",
                      bytes=lambda p: -1.5e27, flops=lambda p: float("inf"))
        def setup(p, ctx):
            return lambda: None
        """)
    out = tmp_path / "run"
    p = cubench(lib, "run", "work/bad", "--module", str(mod), "--no-frameworks", *QUICK,
                "--out", str(out))
    assert p.returncode == 0, p.stderr
    for r in rows(out):
        assert r["status"] in ("ok", "noisy")
        assert (r["bytes"], r["gbps"], r["flops"], r["tflops"]) == ("", "", "", "")
    warned = [ln for ln in p.stderr.splitlines() if "warning: work/bad" in ln]
    assert warned == [
        "cubench: warning: work/bad: the bytes model gave -1.5e+27, which is not a finite "
        "number >= 0; left empty",
        "cubench: warning: work/bad: the flops model gave inf, which is not a finite number "
        ">= 0; left empty"]


def test_benchmarks_without_axes_and_with_float_axes(lib, tmp_path):
    mod = write(tmp_path, "shapes.py", """
        import cubench as cb

        @cb.benchmark("shapes/plain", bytes=lambda p: 800)
        def plain(p, ctx):
            assert dict(p) == {} and p.text == ""
            return lambda: sum(range(100))

        @cb.benchmark("shapes/eps", axes=[cb.Axis("eps", "0.5,1e-3", kind="float")])
        def eps(p, ctx):
            assert isinstance(p["eps"], float)
            return cb.Setup(run=lambda: None, note=f"eps={p['eps']!r}")
        """)
    out = tmp_path / "run"
    p = cubench(lib, "run", "shapes/*", "--module", str(mod), "--no-frameworks", *QUICK,
                "--out", str(out))
    assert p.returncode == 0, p.stderr
    got = cb.load(out)
    assert [(r["benchmark"], r["axes"]) for r in got] == [
        ("shapes/plain", None), ("shapes/eps", "eps=0.5"), ("shapes/eps", "eps=0.001")]
    assert got[0]["timer"] == "host" and got[0]["gbps"] > 0  # target inferred: host
    assert [r.get("eps") for r in got[1:]] == [0.5, 0.001]
    assert got[1]["note"].startswith("eps=0.5") and got[2]["note"].startswith("eps=0.001")
    override = cubench(lib, "run", "shapes/eps", "--axis", "eps=0.25", "--module", str(mod),
                       "--no-frameworks", "--dry-run")
    assert override.returncode == 0 and "eps=0.25" in override.stdout, override.stderr


HUNG = """
import ctypes
import cubench as cb

@cb.benchmark("hung/mutex", target="host")
def setup(p, ctx):
    libc = ctypes.CDLL(None)
    mutex = ctypes.create_string_buffer(64)  # a zeroed pthread_mutex_t: the default kind
    def run():
        print("running", flush=True)
        libc.pthread_mutex_lock(mutex)
        libc.pthread_mutex_lock(mutex)  # locks itself out: no signal ends this wait
    return run
"""


def test_one_ctrl_c_ends_a_run_hung_outside_python(lib, tmp_path):
    """A framework call that never returns (here: a mutex locked twice)
    cannot see KeyboardInterrupt; the process ends with one line after the
    grace period instead of needing a second Ctrl-C."""
    mod = write(tmp_path, "hung.py", HUNG)
    out = tmp_path / "run"
    rc, err, took = interrupt_when_ready(
        [sys.executable, "-m", "cubench", "run", "hung/mutex", "--module", str(mod),
         "--no-frameworks", "--quiet", "--out", str(out)], env_for(lib), "running", tmp_path)
    assert rc == 130, err
    assert interrupt.GRACE_S - 0.5 < took < interrupt.GRACE_S + 5, took
    lines = [ln for ln in err.splitlines() if ln.strip() and "points ->" not in ln]
    assert lines == [f"cubench: interrupted, and the benchmark in flight has not returned "
                     f"{interrupt.GRACE_S:g} s later (blocked outside Python); stopping now: "
                     "every finished point is on disk"], err
    assert (out / "results.csv").is_file() and rows(out) == []
