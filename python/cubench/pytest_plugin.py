"""The pytest plugin (entry point `pytest11`): a `cubench` fixture that
measures a function with cubench's runner, one run directory for the whole
session, and a regression gate that is `cubench compare`.

    def test_sort(cubench):
        x = list(range(100_000, 0, -1))
        r = cubench(sorted, setup=lambda: (x,))
        assert r.ok

    $ pytest --cubench-save runs/base           # record a session
    $ pytest --cubench-compare runs/base        # fail on a confirmed slowdown

`cubench(fn, **options)` is cubench.measure with the benchmark named after
the test (`pytest/<module>.<test>[-<params>]`, `.2`, `.3` ... for further
calls in one test, or `name=`); a point that is skipped (target "cuda"
without a GPU) skips the test, a point that fails fails it.

At the end of the session the measurements become one run directory
(`--cubench-save DIR`, else a temporary one): results.csv and samples.csv
hold every test's rows, meta.json is the first measurement's environment
with the session's start, end, totals and command line, and python.json
lists the tests with the settings each used. `--cubench-compare BASE` then
runs `cubench compare BASE DIR` in the library (its statistics, its
verdicts); a slower point fails the test run (exit 1), a comparison that
cannot be made is a usage error (exit 4), and the markdown report is shown
in the terminal summary and kept as DIR/compare.md.
"""

from __future__ import annotations

import csv
import json
import re
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.+-]+")
EXIT_SLOWER = 1


def pytest_addoption(parser):
    group = parser.getgroup("cubench", "cubench measurements (the `cubench` fixture)")
    group.addoption("--cubench-save", metavar="DIR", default=None,
                    help="write the session's measurements as one run directory DIR "
                         "(new or empty)")
    group.addoption("--cubench-compare", metavar="BASE_DIR", default=None,
                    help="compare the session with BASE_DIR (a directory --cubench-save wrote) "
                         "by `cubench compare`: a slower point fails the test run")
    group.addoption("--cubench-compare-args", metavar="ARGS", default="",
                    help="options for cubench compare, e.g. '--delta 0.05'")
    group.addoption("--cubench-run-args", metavar="ARGS", default="",
                    help="`cubench run` options for every measurement, e.g. '--quick'")


def test_name(nodeid: str) -> str:
    """`tests/test_x.py::TestA::test_add[1024-cold]` -> `test_x.TestA.test_add-1024-cold`."""
    path, _, rest = nodeid.partition("::")
    stem = Path(path).stem
    rest = rest.replace("::", ".").replace("[", "-").replace("]", "")
    return _NAME_CHARS.sub("_", f"{stem}.{rest}" if rest else stem).strip("_")[:120]


class Session:
    """The session's measurements, kept as run directories until the end."""

    def __init__(self, config):
        self.config = config
        self.save = config.getoption("cubench_save")
        self.base = config.getoption("cubench_compare")
        self.compare_args = shlex.split(config.getoption("cubench_compare_args") or "")
        self.run_args = shlex.split(config.getoption("cubench_run_args") or "")
        self.work = None
        self.points: list[dict] = []
        self.dir: Path | None = None
        self.compare_rc: int | None = None
        self.compare_text = ""
        if (self.save or self.base) and hasattr(config, "workerinput"):
            raise pytest.UsageError("--cubench-save and --cubench-compare need one process: "
                                    "run the measured tests without pytest-xdist's -n")
        if self.save and Path(self.save).exists() and any(Path(self.save).iterdir()):
            raise pytest.UsageError(f"--cubench-save {self.save}: not empty (a run never "
                                    "overwrites another)")
        if self.base and not (Path(self.base) / "results.csv").is_file():
            raise pytest.UsageError(f"--cubench-compare {self.base}: no results.csv there")

    def point_dir(self) -> Path:
        if self.work is None:
            self.work = Path(tempfile.mkdtemp(prefix="cubench-pytest-"))
        return self.work / f"{len(self.points):05d}"

    def measure(self, nodeid: str, calls: int, fn, name=None, **options):
        import cubench
        from cubench._lib import LibraryError

        label = name or (f"{test_name(nodeid)}" + (f".{calls}" if calls > 1 else ""))
        bench = label if "/" in label else f"pytest/{_NAME_CHARS.sub('_', label)}"
        out = self.point_dir()
        args = tuple(self.run_args) + tuple(options.pop("args", ()))
        try:
            result = cubench.measure(fn, name=bench, out=out, args=args, **options)
        except cubench.MeasureError as e:
            self._keep(nodeid, out, options)
            pytest.fail(str(e), pytrace=False)
        except LibraryError as e:
            pytest.fail(f"cubench: {e}", pytrace=False)
        self._keep(nodeid, out, options)
        if result.status == "skip":
            pytest.skip(f"cubench: {result.reason}")
        return result

    def _keep(self, nodeid: str, out: Path, options: dict):
        if (out / "results.csv").is_file():
            settings = {k: v for k, v in options.items()
                        if isinstance(v, (int, float, str, bool, type(None)))}
            self.points.append({"test": nodeid, "dir": out, "options": settings})

    # ---- the end of the session ----

    def finish(self, session) -> None:
        try:
            if not self.points:
                return
            target = Path(self.save) if self.save else self.work / "session"
            merge([p["dir"] for p in self.points], target, self.python_side())
            self.dir = target
            if self.base:
                self.compare(session)
        finally:
            if self.work is not None:
                for p in self.points:
                    shutil.rmtree(p["dir"], ignore_errors=True)

    def python_side(self) -> dict:
        """python.json of the session: the first measurement's, with every
        measurement's test, benchmark, options and the run's settings."""
        measurements = []
        for p in self.points:
            meta = _read_json(p["dir"] / "meta.json")
            side = _read_json(p["dir"] / "python.json")
            header, rows = _read_rows(p["dir"] / "results.csv")
            at = header.index("benchmark")
            measurements.append({"test": p["test"], "benchmark": rows[0][at] if rows else None,
                                 "function": (side.get("measure") or {}).get("function"),
                                 "options": p["options"], "settings": meta.get("settings"),
                                 "command_line": meta.get("command_line")})
        first = _read_json(self.points[0]["dir"] / "python.json")
        first.pop("measure", None)
        first["pytest"] = {"command_line": ["pytest", *sys.argv[1:]],
                           "measurements": measurements}
        return first

    def compare(self, session) -> None:
        from .engine import engine

        report = self.dir / "compare.md"
        argv = ["cubench", "compare", *self.compare_args, "--markdown", str(report),
                str(self.base), str(self.dir)]
        self.compare_rc = engine().main(argv)
        self.compare_text = report.read_text() if report.is_file() else ""
        if self.compare_rc == EXIT_SLOWER:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        elif self.compare_rc != 0:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def summary(self, tr) -> None:
        if self.dir is None:
            return
        tr.section("cubench")
        where = f"{self.dir}" if self.save else "a temporary directory (--cubench-save keeps it)"
        tr.write_line(f"{len(self.points)} measurement(s) in {where}")
        if self.compare_rc is None:
            return
        tr.write_line(self.compare_text.rstrip())
        verdict = {0: "no point is slower", EXIT_SLOWER: "a point is SLOWER: the run fails"}.get(
            self.compare_rc, "could not compare (see above): the run fails")
        tr.write_line(f"cubench compare {self.base}: {verdict}")

    def cleanup(self) -> None:
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)


# ---- merging run directories ----

def _read_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.reader(f)
        header = next(reader, [])
        return header, [r for r in reader if r]


def _read_json(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def _concat(dirs: list[Path], name: str, target: Path) -> int:
    """Append every dir's `name` (one header) into target/name; returns the rows."""
    header, rows = None, []
    for d in dirs:
        if not (d / name).is_file():
            continue
        h, r = _read_rows(d / name)
        if header is None:
            header = h
        elif h != header:
            raise RuntimeError(f"{d / name}: its columns differ from the first measurement's")
        rows += r
    if header is None:
        return 0
    with open(target / name, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
    return len(rows)


def merge(dirs: list[Path], target: Path, python_side: dict) -> None:
    """One run directory from several of the same library and process."""
    target.mkdir(parents=True, exist_ok=True)
    _concat(dirs, "results.csv", target)
    _concat(dirs, "samples.csv", target)
    metas = [_read_json(d / "meta.json") for d in dirs]
    meta = dict(metas[0])
    meta["command_line"] = ["pytest", *sys.argv[1:]]
    meta["started"] = metas[0].get("started")
    meta["finished"] = metas[-1].get("finished")
    meta["complete"] = all(m.get("complete") is True for m in metas)
    meta["interrupted"] = any(m.get("interrupted") is True for m in metas)
    totals: dict = {}
    for m in metas:
        for k, v in (m.get("totals") or {}).items():
            if isinstance(v, bool):
                totals[k] = totals.get(k, False) or v
            elif isinstance(v, (int, float)):
                totals[k] = totals.get(k, 0) + v
    meta["totals"] = totals
    (target / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    (target / "python.json").write_text(json.dumps(python_side, indent=2) + "\n")


# ---- the hooks ----

_KEY = pytest.StashKey[Session]()


def pytest_configure(config):
    config.stash[_KEY] = Session(config)


def pytest_sessionfinish(session, exitstatus):
    state = session.config.stash.get(_KEY, None)
    if state is not None:
        state.finish(session)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(_KEY, None)
    if state is not None:
        state.summary(terminalreporter)


def pytest_unconfigure(config):
    state = config.stash.get(_KEY, None)
    if state is not None:
        state.cleanup()


@pytest.fixture
def cubench(request):
    """`cubench(fn, **options)` -> cubench.Result, measured by cubench's
    runner and kept for the session's run directory (cubench.measure has
    the options)."""
    state: Session = request.config.stash[_KEY]
    calls = 0

    def measure(fn, **options):
        nonlocal calls
        calls += 1
        return state.measure(request.node.nodeid, calls, fn, **options)
    return measure
