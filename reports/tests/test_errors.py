"""Corrupt input: a clear one-line message on stderr and exit status 2.

Each case starts from a valid synthetic directory and breaks one promise of
schema version 1; the report must refuse it by name, without a traceback
and without writing a page. The command runs as a child forked from the
test (conftest.reports_cli); the cases about the interpreter itself (no
arguments, no matplotlib) start a real one.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, reports_cli, write_synthetic_run


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A small valid run (two vecadd variants): the cases below break one
    promise each, and the ones that draw a page draw little."""
    return write_synthetic_run(tmp_path_factory.mktemp("good") / "run", families=("vecadd",),
                               keep=lambda b: b in ("vecadd/thread_per_elem", "vecadd/host"))


def _copy(good, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(good, run)
    return run


def _replace_in(path, old, new, count=1):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, count))


def _drop_column(path, column):
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    i = header.index(column)
    path.write_text("\n".join(",".join(f for j, f in enumerate(l.split(",")) if j != i)
                              for l in lines) + "\n")


BREAKS = {
    "missing meta.json": (lambda run: (run / "meta.json").unlink(), "meta.json: missing"),
    "meta.json not JSON": (lambda run: (run / "meta.json").write_text("{not json"),
                           "meta.json: not valid JSON"),
    "meta.json schema_version 4": (
        lambda run: (run / "meta.json").write_text(json.dumps({"schema_version": 4})),
        "meta.json: schema_version 4"),
    "schema 2 meta.json over schema 1 columns": (
        lambda run: _replace_in(run / "meta.json", '"schema_version": 1', '"schema_version": 2'),
        "missing column(s) device, device_uuid"),
    "missing results.csv": (lambda run: (run / "results.csv").unlink(),
                            "results.csv: missing"),
    "empty results.csv": (lambda run: (run / "results.csv").write_text(""),
                          "results.csv: empty file"),
    "results.csv without median_s": (lambda run: _drop_column(run / "results.csv", "median_s"),
                                     "missing column(s) median_s"),
    "results.csv schema_version 2": (
        lambda run: _replace_in(run / "results.csv", "\n1,vecadd", "\n2,vecadd"),
        "results.csv:2: schema_version '2', but meta.json says 1"),
    "results.csv unknown status": (
        lambda run: _replace_in(run / "results.csv", ",ok,", ",great,"),
        "status 'great' is not one of"),
    "results.csv text in a number column": (
        lambda run: _replace_in(run / "results.csv", ",event,cold,1,200,", ",event,cold,1,many,"),
        "column samples: 'many' is not a number"),
    "results.csv short row": (
        lambda run: (run / "results.csv").write_text(
            (run / "results.csv").read_text() + "1,vecadd/x,vecadd\n"),
        "record has 3 fields, the header has 35"),
    "results.csv bad axes": (
        lambda run: _replace_in(run / "results.csv", "n=1024;block=256", "n1024;block=256"),
        "bad axes field"),
    "samples.csv without time_s": (lambda run: _drop_column(run / "samples.csv", "time_s"),
                                   "samples.csv: missing column(s) time_s"),
    "empty samples.csv": (lambda run: (run / "samples.csv").write_text(""),
                          "samples.csv: empty file"),
    "not a directory": (lambda run: shutil.rmtree(run), "not a directory"),
}


@pytest.mark.parametrize("case", sorted(BREAKS))
def test_corrupt_input_exits_2_with_a_clear_message(case, good, tmp_path):
    run = _copy(good, tmp_path)
    breaker, message = BREAKS[case]
    breaker(run)
    out = tmp_path / "out"
    proc = reports_cli(run, "-o", out)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("python3 -m reports: error: ")
    assert message in lines[0]
    assert str(run) in lines[0]
    assert not (out / "index.html").exists()


def test_one_bad_directory_among_good_ones_fails_the_whole_report(good, tmp_path):
    bad = _copy(good, tmp_path)
    (bad / "meta.json").unlink()
    out = tmp_path / "out"
    proc = reports_cli(good, bad, "-o", out)
    assert proc.returncode == 2 and "meta.json: missing" in proc.stderr
    assert not (out / "index.html").exists()


def test_no_arguments_is_a_usage_error(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "reports"], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "usage:" in proc.stderr


def test_header_only_results_make_an_empty_report(good, tmp_path):
    run = _copy(good, tmp_path)
    header = (run / "results.csv").read_text().splitlines()[0]
    (run / "results.csv").write_text(header + "\n")
    out = tmp_path / "out"
    proc = reports_cli(run, "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((out / "report.json").read_text())["figures"] == []


# --- output that cannot be written, inputs that break the decoder, no venv ---------

def _report(args):
    return reports_cli(*args)


def _one_error_line(proc, fragment):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("python3 -m reports: error: "), lines
    assert fragment in lines[0], lines[0]
    return lines[0]


def test_an_existing_file_as_the_output_is_refused(good, tmp_path):
    target = tmp_path / "report.html"
    target.write_text("keep me")
    line = _one_error_line(_report([good, "-o", target]), "exists and is not a directory")
    assert str(target) in line
    assert target.read_text() == "keep me"


def test_an_output_under_a_device_file_is_refused(good):
    _one_error_line(_report([good, "-o", "/dev/full/report"]), "/dev/full/report")


def test_a_full_disk_is_one_line(good, tmp_path):
    """index.html leads to /dev/full, whose writes fail with ENOSPC."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").symlink_to("/dev/full")
    line = _one_error_line(_report([good, "-o", out]), "No space left on device")
    assert str(out / "index.html") in line


def test_a_read_only_file_system_is_one_line(good, tmp_path, monkeypatch, capsys):
    """Root ignores file modes, so EROFS is simulated at os.open for files in out."""
    import errno
    import os

    import reports.output
    from reports.__main__ import main

    out = tmp_path / "out"
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):
        if str(path).startswith(str(out)) and flags & os.O_WRONLY:
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(reports.output.os, "open", read_only)
    assert main([str(good), "-o", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Read-only file system" in err[0] and str(out) in err[0]


@pytest.mark.parametrize("depth", [40, 200_000])
def test_a_deeply_nested_meta_json_is_refused(good, tmp_path, depth):
    """40 levels parse but are no cubench file; 200000 overflow the decoder."""
    run = _copy(good, tmp_path)
    (run / "meta.json").write_text('{"schema_version": 1, "x": ' + "[" * depth
                                   + "]" * depth + "}")
    _one_error_line(_report([run, "-o", tmp_path / "out"]), "meta.json: nested")
    assert not (tmp_path / "out" / "index.html").exists()


@pytest.mark.parametrize("fleet", [False, True], ids=["report", "fleet"])
def test_a_python_without_matplotlib_is_told_what_to_run(good, tmp_path, fleet):
    """The import of matplotlib fails as it does outside the venv."""
    blocker = ("import sys, runpy\n"
               "class Block:\n"
               "    def find_spec(self, name, path=None, target=None):\n"
               "        if name.partition('.')[0] in ('matplotlib', 'numpy'):\n"
               "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
               "sys.meta_path.insert(0, Block())\n"
               "sys.argv[0] = 'reports'\n"
               "runpy.run_module('reports', run_name='__main__', alter_sys=True)\n")
    args = (["--fleet"] if fleet else []) + [str(good), "-o", str(tmp_path / "o")]
    proc = subprocess.run([sys.executable, "-c", blocker, *args],
                          cwd=REPO, capture_output=True, text=True)
    line = _one_error_line(proc, "is not installed for")
    assert "scripts/setup.sh" in line and ".venv/bin/python -m reports" in line
