"""Hostile inputs: names that break text drawing, interrupts, and a fleet page
fed by a broken binary, Latin-1 names or an output that cannot be written.
Each must end in a page or in one line on stderr with exit 2 (130 for Ctrl-C),
never in a Python traceback.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, reports_cli, write_synthetic_run


def _report(args):
    """The command as a forked child (conftest.reports_cli); Ctrl-C below
    is sent to a real interpreter."""
    return reports_cli(*args)


def _one_line(proc, code: int, fragment: str) -> str:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], lines
    return lines[0]


# --- text from the data ----------------------------------------------------------

def test_dollars_in_names_are_drawn_as_text(tmp_path):
    """Two '$' in a run directory, GPU or CPU name would start a mathtext
    formula in matplotlib (which then fails to parse): drawn as text."""
    few = ("vecadd/thread_per_elem", "vecadd/host", "matmul/naive_coalesced",
           "matmul/cublas_fp32", "matmul/host_cblas")
    run = write_synthetic_run(tmp_path / "cost $5 vs $6", families=("vecadd", "matmul"),
                              gpu_name="GPU $x^{2$ (SYNTHETIC)", keep=lambda b: b in few)
    meta = json.loads((run / "meta.json").read_text())
    meta["host"]["cpu"] = "CPU $\\frac$ $$"
    (run / "meta.json").write_text(json.dumps(meta))
    other = write_synthetic_run(tmp_path / "b $$", families=("vecadd",),
                                gpu_name="another $GPU$ (SYNTHETIC)", keep=lambda b: b in few)
    out = tmp_path / "out"
    proc = _report([run, other, "-o", out])
    assert proc.returncode == 0, proc.stderr
    html = (out / "index.html").read_text()
    assert "GPU $x^{2$ (SYNTHETIC) (cost $5 vs $6)" in html
    svg = (out / "run1_cost_5_vs_6" / "vecadd_gbps_vs_n.svg").read_text()
    assert "mathdefault" not in svg


def test_a_latin1_directory_name_is_shown_not_a_traceback(tmp_path):
    name = os.fsdecode(b"caf\xe9-run")  # Latin-1, not UTF-8
    run = write_synthetic_run(tmp_path / name, families=("vecadd",),
                              keep=lambda b: b == "vecadd/thread_per_elem")
    out = tmp_path / "out"
    proc = _report([run, "-o", out])
    assert proc.returncode == 0, proc.stderr
    html = (out / "index.html").read_bytes().decode("utf-8")  # the page is valid UTF-8
    assert "caf\ufffd-run" in html


# --- interrupts --------------------------------------------------------------------

def test_ctrl_c_is_one_line_and_exit_130(tmp_path):
    """SIGINT while the report draws (after it made its folder): exit 130,
    one line, no traceback."""
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "reports",
                             str(REPO / "tests" / "data" / "h200-matmul-tc"), "-o", str(out)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not out.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines() == [
        "python3 -m reports: interrupted (the output folder may hold part of a report)"]


def test_ctrl_c_in_main_is_caught(tmp_path, monkeypatch, capsys):
    """The same without a process: a KeyboardInterrupt from inside the
    report (here while it loads) comes out as one line and 130."""
    import reports.build
    from reports.__main__ import run

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reports.build, "load_run", interrupted)
    run_dir = write_synthetic_run(tmp_path / "run", families=("vecadd",))
    assert run([str(run_dir), "-o", str(tmp_path / "out")]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        "python3 -m reports: interrupted (the output folder may hold part of a report)"]


def test_ctrl_c_inside_an_import_is_caught(tmp_path, monkeypatch, capsys):
    """A Ctrl-C that lands while an extension module initialises surfaces as
    ImportError("initialization failed") raised from the KeyboardInterrupt
    (seen once while matplotlib loaded its Agg renderer): still one line and
    130; an ImportError of its own is still raised."""
    import reports.build
    from reports.__main__ import run

    def interrupted_import(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise ImportError("initialization failed") from exc

    monkeypatch.setattr(reports.build, "load_run", interrupted_import)
    run_dir = write_synthetic_run(tmp_path / "run", families=("vecadd",))
    assert run([str(run_dir), "-o", str(tmp_path / "out")]) == 130
    assert capsys.readouterr().err.strip().splitlines() == [
        "python3 -m reports: interrupted (the output folder may hold part of a report)"]

    def broken_import(*args, **kwargs):
        raise ImportError("a real bug")

    monkeypatch.setattr(reports.build, "load_run", broken_import)
    with pytest.raises(ImportError, match="a real bug"):
        run([str(run_dir), "-o", str(tmp_path / "out2")])


# --- the fleet page ----------------------------------------------------------------

def _fleet_csv(path: Path, rows: list[dict]) -> None:
    from reports.fleet import COLUMNS
    with path.open("w", newline="", encoding="latin-1") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def _fake_cubench(tmp_path: Path, script: str) -> Path:
    """A stand-in binary: a shell script that writes what `script` says
    where `cubench fleet DIR --csv FILE ...` would."""
    binary = tmp_path / "fake-cubench"
    binary.write_text("#!/bin/sh\n" + script)
    binary.chmod(0o755)
    return binary


def _row(run: str, verdict: str = "ok", ratio: float = 1.0, model: str = "GPU") -> dict:
    return {"model": model, "run": run, "task": "", "host": "node", "figure": "vecadd",
            "unit": "GB/s", "benchmark": "vecadd/x", "axes": "n=1", "value": "100",
            "ratio": repr(ratio), "ci_lo": repr(ratio * 0.99), "ci_hi": repr(ratio * 1.01),
            "verdict": verdict, "detail": ""}


def _fleet(tmp_path: Path, binary: Path, out: Path) -> subprocess.CompletedProcess:
    fleet = tmp_path / "fleet"
    fleet.mkdir(exist_ok=True)
    return _report(["--fleet", fleet, "-o", out, "--cubench", binary])


def test_fleet_latin1_run_names(tmp_path):
    """fleet.csv holds directory names as bytes: Latin-1 names are drawn with
    U+FFFD, not a UnicodeDecodeError."""
    src = tmp_path / "rows.csv"
    _fleet_csv(src, [_row("run-caf\xe9-1"), _row("run-caf\xe9-2", "slow", 0.5),
                     _row("run-3")])
    binary = _fake_cubench(tmp_path, f'while [ "$1" != --csv ]; do shift; done\n'
                                     f'cp "{src}" "$2"\n')
    out = tmp_path / "out"
    proc = _fleet(tmp_path, binary, out)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "run-caf\ufffd-2" in (out / "index.html").read_text(encoding="utf-8")


def test_fleet_binary_that_writes_nothing(tmp_path):
    proc = _fleet(tmp_path, _fake_cubench(tmp_path, "exit 0\n"), tmp_path / "out")
    _one_line(proc, 2, "cubench fleet wrote no fleet.csv")


def test_fleet_output_that_is_a_file(tmp_path):
    target = tmp_path / "page.html"
    target.write_text("keep me")
    proc = _fleet(tmp_path, _fake_cubench(tmp_path, "exit 0\n"), target)
    _one_line(proc, 2, "exists and is not a directory")
    assert target.read_text() == "keep me"


def test_fleet_output_that_cannot_be_written(tmp_path, monkeypatch, capsys):
    """Root ignores file modes, so EROFS is simulated at os.open (as the
    report's own read-only test does)."""
    import errno

    import reports.output
    from reports.fleet import main

    src = tmp_path / "rows.csv"
    _fleet_csv(src, [_row("a"), _row("b"), _row("c")])
    binary = _fake_cubench(tmp_path, f'while [ "$1" != --csv ]; do shift; done\n'
                                     f'cp "{src}" "$2"\n')
    out = tmp_path / "out"
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if str(path).startswith(str(out)) and str(path).endswith(".png"):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(reports.output.os, "open", read_only)
    (tmp_path / "fleet").mkdir()
    assert main(["--fleet", str(tmp_path / "fleet"), "-o", str(out),
                 "--cubench", str(binary)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Read-only file system" in err[0]


def test_fleet_page_draws_ten_thousand_runs_with_few_artists(tmp_path, monkeypatch):
    """The strip plot's cost must not grow with an artist per run: 10 000
    runs (500 flagged) are one set of dots and whiskers per kind, a dozen
    names, and a legend at a fixed place (no 'best', which scans every dot)."""
    import matplotlib.pyplot as plt

    from reports import figure, fleet
    rows = [_row(f"node{i:05d}", "slow" if i % 20 == 0 else "ok",
                 0.9 if i % 20 == 0 else 1.0 + (i % 7) / 1000) for i in range(10_000)]
    seen = {}

    def keep(fig, out_dir, name, data, *args, **kwargs):
        ax = fig.axes[0]
        seen.update(artists=len(ax.lines) + len(ax.collections), texts=len(ax.texts),
                    legend=ax.get_legend()._loc)
        plt.close(fig)
        return figure.Figure(name, "", "", "", "", "", "", "")

    monkeypatch.setattr(figure, "save", keep)
    page = fleet.build_page("fleet", rows, 0.05, 1, tmp_path)
    assert seen["artists"] <= 8 and seen["texts"] <= fleet.LABELLED
    assert seen["legend"] != 0  # 0 is matplotlib's code for 'best'
    table = next(b for b in page.sections[1].blocks if hasattr(b, "rows"))
    assert len(table.rows) == 10_000 and sum(table.marked) == 500
