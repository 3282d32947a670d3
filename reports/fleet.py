"""The fleet page: python3 -m reports --fleet DIR -o OUT_DIR

The numbers come from `cubench fleet DIR --csv` (docs/fleet.md), so the page
shows exactly what the C report and its exit code say; this module only
draws them. Per GPU model (CPU model for CPU-only runs) a strip plot puts
every run's ratio to the rest of its model on one axis per key figure, with
its confidence interval and the tolerance band, the flagged runs in red and
named; below it the same table as the markdown report. Failed, killed and
never-started tasks get their own table.

Options other than --fleet, -o, --cubench go to `cubench fleet` (--tolerance,
--alpha and --min-runs are read here too: the band drawn is the tolerance).
Exit codes: 0 page written (whatever the fleet's verdict), 2 bad input: no
cubench binary, a directory or option `cubench fleet` refuses, a binary that
writes no fleet.csv, an output that cannot be written (a file as -o, a
read-only folder); each with one line on stderr.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

from matplotlib.collections import LineCollection
from matplotlib.ticker import FuncFormatter

from . import csvfile, html
from . import figure as F
from . import style as S
from .binary import find_cubench, front_end_parser
from .load import InputError, display_text
from .output import OutputError, make_dir, write_file
from .page import Page, Paragraph, Section, Table

PROG = "python3 -m reports --fleet"
SECTION = "Fleet"
COLUMNS = ("model", "run", "task", "host", "figure", "unit", "benchmark", "axes", "value",
           "ratio", "ci_lo", "ci_hi", "verdict", "detail")
LABELLED = 12  # flagged runs named on a strip plot; the table has every one
FLAGS = ("slow", "fast", "missing")


# The key figures of runs older than schema 3, which declare none: the
# families' own list, kept beside them in the source tree.
LEGACY_KEY_FIGURES = Path(__file__).resolve().parents[1] / "bench" / "legacy_key_figures.csv"


def run_cubench(cubench: str, fleet_dir: str, out: Path, fleet_args: list[str]) -> int:
    """`cubench fleet` into OUT/fleet.csv and fleet.md; its exit code (0 or
    1). Exit 2 - the C side refused the input - becomes an InputError with
    its message. Runs that declare no key figures (schema 1 and 2) are
    judged by the source tree's legacy list unless --key-figures is given."""
    legacy = ([] if any(a.startswith("--key-figures") for a in fleet_args)
              or not LEGACY_KEY_FIGURES.is_file()
              else ["--key-figures", str(LEGACY_KEY_FIGURES)])
    cmd = [cubench, "fleet", fleet_dir, "--csv", str(out / "fleet.csv"),
           "--markdown", str(out / "fleet.md"), *legacy, *fleet_args]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True, errors="replace")
    except OSError as exc:
        raise InputError(f"{cubench}: cannot run it ({exc.strerror})") from None
    if proc.returncode not in (0, 1):
        lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
        raise InputError(lines[-1] if lines else f"cubench fleet exited {proc.returncode}")
    return proc.returncode


def _num(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_rows(path: Path) -> list[dict]:
    """fleet.csv as dicts. Run and host names are directory and node names,
    bytes in whatever encoding the file system had (Latin-1 names exist):
    read by the C reader's rules, invalid UTF-8 shown as U+FFFD, so such a
    name is drawn, never a traceback."""
    if not path.is_file():
        raise InputError(f"cubench fleet wrote no {path.name} (is {path.parent} writable, "
                         f"and is the binary cubench?)")
    try:
        header, records = csvfile.parse(path.read_bytes(), str(path))
    except csvfile.CsvError as exc:
        raise InputError(f"cubench fleet wrote an unreadable {path.name}: {exc}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(f"{path}: missing column(s) {', '.join(missing)}: not the fleet.csv "
                         f"of this cubench")
    return [dict(zip(header, fields)) for _, fields in records]


def models(rows: list[dict]) -> list[str]:
    seen: list[str] = []
    for r in rows:
        if r["verdict"] != "problem" and r["model"] not in seen:
            seen.append(r["model"])
    return seen


def _data_row(model: str, r: dict) -> dict:
    return {"model": model, "figure": r["figure"], "unit": r["unit"], "run": r["run"],
            "task": r["task"], "value": r["value"], "ratio": r["ratio"], "ci_lo": r["ci_lo"],
            "ci_hi": r["ci_hi"], "verdict": r["verdict"],
            "point": f'{r["benchmark"]} [{r["axes"]}]'}


def _strip_points(rows: list[dict], column: dict, offset: dict) -> tuple[dict, list]:
    """{flagged: (x, y, CI segments)} and the first LABELLED flagged runs
    (x, y, name). A run sits at the same offset in every column, so one run
    can be followed across figures."""
    drawn: dict = {False: ([], [], []), True: ([], [], [])}
    named = []
    for r in rows:
        ratio = _num(r["ratio"])
        if ratio is None or ratio <= 0:
            continue
        lo, hi = _num(r["ci_lo"]), _num(r["ci_hi"])
        x = column[r["figure"]] + offset[r["run"]]
        flagged = r["verdict"] in FLAGS
        xs, ys, segs = drawn[flagged]
        xs.append(x)
        ys.append(ratio)
        if lo is not None and hi is not None and lo > 0:
            segs.append([(x, lo), (x, hi)])
        if flagged and len(named) < LABELLED:
            named.append((x, ratio, r["run"]))
    return drawn, named


def _draw_strip(ax, drawn: dict, named: list) -> list[float]:
    """One collection of whiskers and one of dots per kind (ok, flagged);
    the y values drawn."""
    values: list[float] = []
    for flagged, (xs, ys, segs) in drawn.items():
        color = S.FLAG if flagged else S.color(0)
        if segs:
            ax.add_collection(LineCollection(segs, colors=color, linewidths=1.0, alpha=0.6,
                                             zorder=2))
            values += [y for seg in segs for _, y in seg]
        if xs:
            ax.scatter(xs, ys, s=16, color=color, zorder=3,
                       label="flagged run" if flagged else "run")
            values += ys
    for x, y, name in named:
        ax.annotate(name, (x, y), xytext=(4, 3), textcoords="offset points", fontsize=7,
                    color=S.FLAG)
    return values


def _ratio_axis(ax, low: float, high: float) -> None:
    """A log axis of ratios, labelled 0.5, 1, 2 (not 10^0); minor labels:
    all of them over a short range, over a decade or more 2 and 5 times a
    power of ten only (0.9 next to 1 would collide)."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.set_ylim(low / 1.15, high * 1.15)
    wide = high / low > 8

    def minor(v: float, _pos) -> str:
        lead = round(v / 10 ** math.floor(math.log10(v)), 6)
        return f"{v:g}" if not wide or lead in (2, 5) else ""

    ax.yaxis.set_minor_formatter(FuncFormatter(minor))
    ax.tick_params(axis="y", which="minor", labelsize=7)
    ax.set_ylabel("throughput / the model's other runs")
    ax.grid(True, axis="y", which="both", alpha=0.3)


def strip_figure(model: str, rows: list[dict], tolerance: float, out: Path,
                 index: int) -> F.Figure:
    """One model's strip plot: x = key figure, y = ratio to the model's other
    runs (log scale, so 0.5 and 2 are as far from 1), one dot per run with its
    CI, the band of +-tolerance shaded, flagged runs red and the first
    LABELLED of them named. Drawn as one artist per kind (dots, whiskers; ok
    and flagged), whatever the number of runs: 10 000 runs draw in seconds."""
    figures: list[str] = list(dict.fromkeys(r["figure"] for r in rows))
    runs = sorted({r["run"] for r in rows})
    offset = {run: (0.5 * (i / (len(runs) - 1) - 0.5) if len(runs) > 1 else 0.0)
              for i, run in enumerate(runs)}
    fig, ax = F.new_figure(width=max(5.0, 1.6 * len(figures) + 2.5), height=4.2)
    low, high = 1 / (1 + tolerance), 1 + tolerance
    ax.axhspan(low, high, color="0.9", zorder=0,
               label=f"[{low:.3g}, {high:.3g}]: within tolerance")
    ax.axhline(1.0, color="0.5", linewidth=0.8, zorder=1)
    values = _draw_strip(ax, *_strip_points(rows, {n: i for i, n in enumerate(figures)},
                                            offset))
    _ratio_axis(ax, min(values + [low]), max(values + [high]))
    ax.set_xticks(range(len(figures)))
    ax.set_xticklabels(figures, fontsize=8)
    ax.set_xlim(-0.6, len(figures) - 0.4)
    title = f"{model}: {len(runs)} run(s)"
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="upper right", framealpha=0.85)  # fixed: 'best' scans every dot
    flagged_runs = len({r["run"] for r in rows if r["verdict"] in FLAGS})
    caption = (f"Each dot is one run at its figure's reference point: its throughput over "
               f"the other runs' geometric mean, with the interval a further run of the "
               f"fleet would have (leave-one-out t); red runs are flagged (the whole CI outside "
               f"the grey band [1/(1 + tolerance), 1 + tolerance], or the point missing)"
               + (f", the first {LABELLED} of {flagged_runs} named (the table names all)"
                  if flagged_runs > LABELLED else "")
               + ". Runs keep their horizontal offset across columns.")
    name = f"fleet/strip_{index}_{F.slug(model)}"
    return F.save(fig, out, name, {"kind": "strip", "model": model, "tolerance": tolerance,
                                   "rows": [_data_row(model, r) for r in rows]},
                  SECTION, title, caption)


def _r(value: float) -> str:
    """A ratio as the markdown report writes it."""
    return f"{value:.3f}" if 0.001 <= value < 1000 else f"{value:.3g}"


def _cell(r: dict) -> str:
    if r["verdict"] == "missing":
        return "missing"
    value, ratio = _num(r["value"]), _num(r["ratio"])
    text = F.fmt(value) if value is not None else "-"
    if ratio is not None:
        text += f" ({_r(ratio)}"
        lo, hi = _num(r["ci_lo"]), _num(r["ci_hi"])
        if lo is not None and hi is not None:
            text += f" [{_r(lo)}, {_r(hi)}]"
        text += ")"
    return text


def _verdict(verdicts: list[str]) -> str:
    if any(v in FLAGS for v in verdicts):
        return "flagged"
    return "unjudged" if "unjudged" in verdicts else "ok"


def model_table(rows: list[dict]) -> Table:
    """One line per run (sorted), one column per key figure; built with
    dictionaries, in time linear in the runs (10 000 runs are one table)."""
    first: dict[str, dict] = {}
    task: dict[str, str] = {}
    for r in rows:
        first.setdefault(r["figure"], r)
        task.setdefault(r["run"], r["task"])
    by = {(r["run"], r["figure"]): r for r in rows}
    body, marked = [], []
    for run in sorted(task):
        mine = [by.get((run, name)) for name in first]
        verdict = _verdict([r["verdict"] if r else "" for r in mine])
        body.append([run, task[run] or "-"] + [_cell(r) if r else "" for r in mine] + [verdict])
        marked.append(verdict == "flagged")
    points = "; ".join(f'{name}: {r["benchmark"]} [{r["axes"]}]' for name, r in first.items())
    headers = (["run", "task"] + [f"{n} {r['unit']} (ratio [CI])" for n, r in first.items()]
               + ["verdict"])
    return Table(headers, body, f"Reference points: {points}.", collapsed=len(body) > 40,
                 marked=marked)


def problems_table(rows: list[dict]) -> Table | None:
    problems = [r for r in rows if r["verdict"] == "problem"]
    if not problems:
        return None
    return Table(["task", "node / host", "run", "what"],
                 [[r["task"] or "-", r["host"] or "-", r["run"] or "-", r["detail"]]
                  for r in problems],
                 f"{len(problems)} problem(s): tasks that failed, were killed or never started, "
                 f"incomplete runs, runs with failed points.", numeric=False,
                 marked=[True] * len(problems))


def build_page(fleet_dir: str, rows: list[dict], tolerance: float, status: int,
               out: Path) -> Page:
    fleet_dir = display_text(fleet_dir)
    sections = []
    judged = [r for r in rows if r["verdict"] != "problem"]
    flagged_runs = sorted({r["run"] for r in judged if r["verdict"] in FLAGS})
    problems = [r for r in rows if r["verdict"] == "problem"]
    summary = (f"{len(flagged_runs)} run(s) flagged, {len(problems)} problem(s); "
               f"cubench fleet exit {status}. {len({r['run'] for r in judged})} run(s) in "
               f"{len(models(rows))} model(s) under {fleet_dir}. The full markdown report and "
               f"the CSV are fleet.md and fleet.csv next to this page.")
    blocks: list = [Paragraph(summary)]
    if flagged_runs:
        blocks.append(Paragraph("Flagged: " + ", ".join(flagged_runs) + "."))
    table = problems_table(rows)
    if table:
        blocks.append(table)
    sections.append(Section("Summary", blocks))
    by_model: dict[str, list[dict]] = {}
    for r in judged:
        by_model.setdefault(r["model"], []).append(r)
    for i, model in enumerate(models(rows), start=1):
        subset = by_model.get(model, [])
        sections.append(Section(model, [strip_figure(model, subset, tolerance, out, i),
                                        model_table(subset)]))
    return Page(title="cubench fleet report", subtitle=fleet_dir, sections=sections)


def main(argv: list[str]) -> int:
    parser = front_end_parser(
        PROG, "An HTML page (strip plot per GPU model + table) of `cubench fleet DIR`.",
        "--fleet", "DIR", "the fleet directory (one run per GPU or node)")
    parser.add_argument("--tolerance", type=float, default=0.05,
                        help="as `cubench fleet --tolerance` (default 0.05)")
    parser.add_argument("--alpha", type=float, help="as `cubench fleet --alpha`")
    parser.add_argument("--min-runs", type=int, help="as `cubench fleet --min-runs`")
    # Other options (--title) go to cubench fleet as they are.
    args, passthrough = parser.parse_known_args(argv)
    try:
        cubench = find_cubench(args.cubench)
        if not Path(args.fleet).is_dir():
            raise InputError(f"{args.fleet}: not a directory")
        out = Path(args.out)
        make_dir(out)
        fleet_args = ["--tolerance", repr(args.tolerance)]
        if args.alpha is not None:
            fleet_args += ["--alpha", repr(args.alpha)]
        if args.min_runs is not None:
            fleet_args += ["--min-runs", str(args.min_runs)]
        fleet_args += passthrough
        status = run_cubench(cubench, args.fleet, out, fleet_args)
        rows = read_rows(out / "fleet.csv")
        page = build_page(args.fleet, rows, args.tolerance, status, out)
        write_file(out / "index.html", html.render(page))
        manifest = {"fleet": display_text(args.fleet), "status": status, "models": models(rows),
                    "figures": [f.__dict__ for f in page.figures()]}
        write_file(out / "report.json", json.dumps(manifest, indent=1, ensure_ascii=False)
                   + "\n")
    except (InputError, OutputError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    print(f"{PROG}: wrote {out}/index.html ({len(page.figures())} figures)", file=sys.stderr)
    return 0
