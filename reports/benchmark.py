"""How heavy the report is: size and time to draw, on recorded runs.

    .venv/bin/python -m reports.benchmark                 # the two standard pages
    .venv/bin/python -m reports.benchmark RUN [RUN...]    # one page of these runs
    .venv/bin/python -m reports.benchmark --figures ...   # and the cost of each figure
    .venv/bin/python -m reports.benchmark --fleet 10000   # the fleet page of N runs

The standard pages are the limits the report is held to: a one-run page of
tests/data/h200-defaults-r2 (the whole default suite, 654 points, 250 000
samples) in at most LIMIT_ONE_MB and LIMIT_ONE_S, and a two-run page
(h200-defaults-r2 against h200-ptx75-suite, an A/B page of one H200) in at
most LIMIT_TWO_MB. Each page is drawn in a fresh process, as a user runs it;
wall time and the process's CPU time are both printed. The time limit is
judged on the CPU time: the report draws on one core, so on an idle machine
its wall time is its CPU time, while on a shared one the wall time measures
the other jobs. Exit 1 when a limit is exceeded.
With --fleet N it draws the fleet page of N made-up runs of one model (one
key figure, every twentieth run flagged) and prints the time: the page must
stay in seconds for 10 000 runs. This is a measurement, not a test: CI does
not run it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"
LIMIT_ONE_MB, LIMIT_ONE_S, LIMIT_TWO_MB = 5.0, 20.0, 10.0
STANDARD = [("one run", [DATA / "h200-defaults-r2"], LIMIT_ONE_MB, LIMIT_ONE_S),
            ("two runs", [DATA / "h200-defaults-r2", DATA / "h200-ptx75-suite"],
             LIMIT_TWO_MB, None)]

# Run in the child: draw the page, timing every figure save when asked.
CHILD = """
import json, sys, time
from reports import figure
from reports.build import write_report
times = []
if sys.argv[1] == "1":
    save = figure.save
    def timed(fig, out_dir, name, *args, **kwargs):
        t = time.process_time()
        made = save(fig, out_dir, name, *args, **kwargs)
        times.append((name, time.process_time() - t))
        return made
    figure.save = timed  # every module calls it as figure.save (F.save): patched for all
write_report(sys.argv[3:], sys.argv[2])
print(json.dumps(times))
"""


def folder_size(path: Path) -> tuple[int, list[tuple[int, str]]]:
    files = [(p.stat().st_size, str(p.relative_to(path))) for p in path.rglob("*")
             if p.is_file()]
    return sum(s for s, _ in files), sorted(files, reverse=True)


def draw(dirs: list[Path], per_figure: bool) -> dict:
    with tempfile.TemporaryDirectory(prefix="cubench-report-bench-") as tmp:
        out = Path(tmp) / "report"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", CHILD, "1" if per_figure else "0",
                               str(out), *map(str, dirs)], cwd=REPO, capture_output=True,
                              text=True, env={**os.environ, "MPLBACKEND": "Agg"})
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise SystemExit(f"reports.benchmark: the report failed:\n{proc.stderr}")
        size, files = folder_size(out)
        figures = len(json.loads((out / "report.json").read_text())["figures"])
        return {"wall_s": wall, "cpu_s": (after.ru_utime - before.ru_utime)
                + (after.ru_stime - before.ru_stime), "bytes": size, "files": len(files),
                "figures": figures, "largest": files[:5],
                "per_figure": json.loads(proc.stdout.strip().splitlines()[-1] or "[]")}


def report(name: str, dirs: list[Path], limit_mb: float | None, limit_s: float | None,
           per_figure: bool) -> bool:
    got = draw(dirs, per_figure)
    mb = got["bytes"] / 1e6
    ok = (limit_mb is None or mb <= limit_mb) and (limit_s is None or got["cpu_s"] <= limit_s)
    print(f"{name}: {', '.join(d.name for d in dirs)}")
    print(f"  {mb:.2f} MB in {got['files']} files ({got['figures']} figures); "
          f"{got['wall_s']:.1f} s wall, {got['cpu_s']:.1f} s CPU"
          + (f"; limits {limit_mb:g} MB" if limit_mb else "")
          + (f", {limit_s:g} s of CPU" if limit_s else "") + ("" if ok else "  EXCEEDED"))
    for size, path in got["largest"]:
        print(f"    {size / 1e3:9.1f} kB  {path}")
    for fig, cpu in sorted(got["per_figure"], key=lambda t: -t[1]):
        print(f"    {cpu:6.2f} s CPU  {fig}")
    return ok


FLEET_CHILD = """
import sys, time
from pathlib import Path
from reports import fleet, html
from reports.output import write_file
n, out = int(sys.argv[1]), Path(sys.argv[2])
rows = [{"model": "GPU", "run": f"node{i:05d}", "task": str(i), "host": f"node{i:05d}",
         "figure": "vecadd", "unit": "GB/s", "benchmark": "vecadd/x", "axes": "n=1",
         "value": "4000", "ratio": repr(0.9 if i % 20 == 0 else 1 + (i % 7) / 1000),
         "ci_lo": "0.98", "ci_hi": "1.02", "verdict": "slow" if i % 20 == 0 else "ok",
         "detail": ""} for i in range(n)]
start = time.process_time()
page = fleet.build_page("fleet", rows, 0.05, 1, out)
write_file(out / "index.html", html.render(page))
print(time.process_time() - start)
"""


def fleet(n: int) -> None:
    with tempfile.TemporaryDirectory(prefix="cubench-fleet-bench-") as tmp:
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", FLEET_CHILD, str(n), tmp], cwd=REPO,
                              capture_output=True, text=True,
                              env={**os.environ, "MPLBACKEND": "Agg"})
        wall = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"reports.benchmark: the fleet page failed:\n{proc.stderr}")
        size, _ = folder_size(Path(tmp))
        print(f"fleet page of {n} runs: {float(proc.stdout.split()[-1]):.1f} s CPU to build "
              f"and write, {wall:.1f} s wall with the interpreter's start; {size / 1e6:.2f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reports.benchmark",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="result directories (one page)")
    parser.add_argument("--figures", action="store_true", help="the CPU time of each figure")
    parser.add_argument("--fleet", type=int, metavar="N", help="time the fleet page of N runs")
    args = parser.parse_args(argv)
    if args.fleet:
        fleet(args.fleet)
        return 0
    pages = [("page", args.runs, None, None)] if args.runs else STANDARD
    ok = all([report(name, dirs, mb, s, args.figures) for name, dirs, mb, s in pages])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
