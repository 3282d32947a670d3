"""The history dashboard: python3 -m reports --history DB -o OUT_DIR

A static site from a cubench history database (docs/history.md): DB is what
`cubench history --db` takes (a SQLite file, postgresql://...), or a JSON
file `cubench history export` wrote. The numbers - series, CIs, change
points, their causes, outliers, each point's spread - come from
`cubench history export`, so the site shows what `cubench history check`
says and its exit code acts on; this module only lays them out:

  index.html        the open change points first (regressions, then the
                    other open ones), the changes of conditions, then every
                    point with a sparkline (an SVG data: image) and its
                    newest change; filters by machine and by family (CSS, no
                    script)
  points/*.html     per point and machine: the trend chart (medians, their
                    95% CIs, change points, changes of conditions, throttled
                    runs, outliers; hover a run for its commit and
                    conditions), the change points and the newest runs
The export itself (every value of every run) stays out of the site: a
1,000-run history's is tens of megabytes; keep it beside the site.

Options: --machine M (one machine), --cubench BIN, --title TEXT.
Exit codes: 0 site written; 2 bad input (no cubench binary, a database
`cubench history export` refuses, a JSON that is not an export) or an
output that cannot be written.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from html import escape
from pathlib import Path
from urllib.parse import quote

from . import history_svg as S
from .binary import front_end_parser
from .load import InputError

PROG = "python3 -m reports --history"
EXPORT_VERSION = 1
NEWEST_ROWS = 50  # runs listed per point page (`cubench history show` lists all)

STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; margin: 2em auto;
       max-width: 1250px; padding: 0 1em; color: #222; line-height: 1.4; }
h1 { margin-bottom: 0.1em; } .subtitle { color: #666; margin-top: 0; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 1.8em; }
table { border-collapse: collapse; font-size: 0.82em; margin: 0.6em 0; }
th, td { border: 1px solid #ddd; padding: 2px 6px; vertical-align: middle; }
th { background: #f3f3f3; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.when { white-space: nowrap; }
tr.regression td { background: #fde2df; } tr.open td { background: #fff4e0; }
.slower { color: #c0392b; } .faster { color: #1e8449; } .cause { color: #7d3c98; }
input.flt { display: none; }
.filters label { border: 1px solid #bbb; border-radius: 3px; padding: 1px 6px; margin: 2px;
                 display: inline-block; cursor: pointer; font-size: 0.85em; }
.legend { font-size: 0.85em; color: #444; }
img.spark { display: block; }
"""


@dataclass
class Model:
    export: dict
    runs: list
    series: list
    changes: dict = field(default_factory=dict)  # series index -> [change]
    outliers: set = field(default_factory=set)  # (series, value)
    position: dict = field(default_factory=dict)  # run index -> position on its machine
    span: dict = field(default_factory=dict)  # machine -> runs
    machines: list = field(default_factory=list)
    families: list = field(default_factory=list)
    sparks: dict = field(default_factory=dict)  # series index -> its sparkline URI


def load_export(source: str, machine: str | None, cubench_bin: str | None) -> dict:
    """The export document: read from a .json file, else written by
    `cubench history export` for the database `source`."""
    path = Path(source)
    if source.endswith(".json") and path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"{source}: not a readable JSON file ({exc})") from None
    else:
        from .fleet import find_cubench  # (matplotlib with it: only when needed)

        cubench = find_cubench(cubench_bin)
        with tempfile.TemporaryDirectory(prefix="cubench-history-") as tmp:
            out = Path(tmp) / "export.json"
            cmd = [cubench, "history", "export", "--db", source, "-o", str(out)]
            if machine:
                cmd += ["--machine", machine]
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  text=True)
            if proc.returncode != 0:
                lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
                raise InputError(lines[-1] if lines else f"cubench history export exited "
                                                         f"{proc.returncode}")
            data = json.loads(out.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != "cubench-history":
        raise InputError(f"{source}: not a `cubench history export` document")
    if data.get("version") != EXPORT_VERSION:
        raise InputError(f"{source}: export version {data.get('version')}; this dashboard "
                         f"reads version {EXPORT_VERSION}")
    return data


def when(started: str) -> str:
    """2026-12-01T05:19:28Z -> 2026-12-01 05:19 (UTC)."""
    return started[:16].replace("T", " ") if len(started) >= 16 else started


def family(benchmark: str) -> str:
    return benchmark.partition("/")[0]


def only_machine(export: dict, machine: str) -> dict:
    """The export restricted to one machine's series (a JSON given with
    --machine; `cubench history export --machine` does the same itself)."""
    keep = [i for i, s in enumerate(export["series"]) if s["machine"] == machine]
    if not keep:
        raise InputError(f"no point of machine '{machine}' in the history")
    new = {old: k for k, old in enumerate(keep)}
    out = dict(export)
    out["series"] = [export["series"][i] for i in keep]
    out["changes"] = [dict(c, series=new[c["series"]]) for c in export["changes"]
                      if c["series"] in new]
    out["outliers"] = [[new[s], v] for s, v in export.get("outliers", []) if s in new]
    out["events"] = [e for e in export["events"]
                     if export["runs"][e["run"]]["machine"] == machine]
    return out


def build_model(export: dict, machine: str | None) -> Model:
    if machine:
        export = only_machine(export, machine)
    m = Model(export, export["runs"], export["series"])
    for c in export["changes"]:
        m.changes.setdefault(c["series"], []).append(c)
    m.outliers = {(s, v) for s, v in export.get("outliers", [])}
    for i, run in enumerate(m.runs):
        m.position[i] = m.span.get(run["machine"], 0)
        m.span[run["machine"]] = m.position[i] + 1
    m.machines = sorted({s["machine"] for s in m.series})
    m.families = sorted({family(s["benchmark"]) for s in m.series})
    return m


def slug(series: dict) -> str:
    key = f"{series['machine']}|{series['benchmark']}|{series['axes']}"
    words = re.sub(r"[^a-z0-9]+", "-", f"{series['benchmark']}-{series['axes']}".lower())
    return f"{words.strip('-')[:70]}-{hashlib.sha1(key.encode()).hexdigest()[:10]}"


def row_classes(m: Model, series: dict, extra: str = "") -> str:
    mi = m.machines.index(series["machine"])
    fi = m.families.index(family(series["benchmark"]))
    return f"flt m{mi} f{fi} {extra}".strip()


def filter_css(m: Model) -> str:
    rules = []
    for prefix, names, cls in (("fm", m.machines, "m"), ("ff", m.families, "f")):
        rules.append(f"#{prefix}-all:checked ~ .content label[for={prefix}-all]"
                     "{ background: #225; color: #fff; }")
        for i in range(len(names)):
            rules.append(f"#{prefix}-{i}:checked ~ .content tr.flt:not(.{cls}{i}) "
                         "{ display: none; }")
            rules.append(f"#{prefix}-{i}:checked ~ .content label[for={prefix}-{i}]"
                         "{ background: #225; color: #fff; }")
    return "\n".join(rules)


def filter_inputs(m: Model) -> str:
    out = []
    for prefix, names in (("fm", m.machines), ("ff", m.families)):
        out.append(f'<input class="flt" type="radio" name="{prefix}" id="{prefix}-all" checked>')
        out += [f'<input class="flt" type="radio" name="{prefix}" id="{prefix}-{i}">'
                for i in range(len(names))]
    return "\n".join(out)


def filter_labels(m: Model) -> str:
    def group(title: str, prefix: str, names: list) -> str:
        labels = [f'<label for="{prefix}-all">all</label>']
        labels += [f'<label for="{prefix}-{i}">{escape(n)}</label>' for i, n in enumerate(names)]
        return f"<div>{title}: {' '.join(labels)}</div>"

    return ('<div class="filters">' + group("Machine", "fm", m.machines)
            + group("Family", "ff", m.families) + "</div>")


def change_cells(m: Model, c: dict, link_prefix: str, spark: bool) -> str:
    s = m.series[c["series"]]
    good = m.runs[s["values"][c["before"]][0]]
    bad = m.runs[c["run"]]
    css = "slower" if c["ratio"] > 1 else "faster"
    label = ' <b class="slower">regression</b>' if c["regression"] else ""
    point = (f'<a href="{link_prefix}points/{slug(s)}.html">{escape(s["benchmark"])} '
             f'[{escape(s["axes"])}]</a><br><small>{escape(s["machine"])}</small>')
    trend = (f'<td><img class="spark" src="{spark_uri(m, c["series"])}" alt="trend" '
             f'width="160" height="28"></td>' if spark else "")
    cause = c["cause"] if c["cause"] == "code" else f'<span class="cause">{c["cause"]}</span>'
    return (f"<td>{point}</td>{trend}"
            f'<td class="num"><span class="{css}">{S.fmt_pct(c["ratio"])}</span>{label}<br>'
            f'<small>{S.fmt_pct(c["ci_lo"])} to {S.fmt_pct(c["ci_hi"])}</small></td>'
            f'<td class="num">{c["n_before"]} / {c["n_after"]}</td>'
            f'<td class="when">{escape(when(bad["started"]))}</td>'
            f"<td>{escape(good['git_sha'][:12])}..<br>{escape(bad['git_sha'][:12])}</td>"
            f'<td class="num">{c["throttled_near"]}</td><td>{cause}</td>')


def change_table(m: Model, changes: list, link_prefix: str = "", classes: bool = True) -> str:
    """Change points, one row each; on the index (classes: filterable rows)
    with the point's sparkline."""
    level = f"{(1 - m.export['options']['alpha']) * 100:g}%"
    head = ("<tr><th>point, machine</th>" + ("<th>trend</th>" if classes else "")
            + f"<th>change, {level} CI</th><th>runs before / after</th><th>first bad run</th>"
            "<th>commits (last good.. first bad)</th><th>throttled runs near</th>"
            "<th>cause</th></tr>")
    rows = []
    for c in changes:
        extra = "regression" if c["regression"] else "open" if c["open"] else ""
        cls = row_classes(m, m.series[c["series"]], extra) if classes else extra
        rows.append(f'<tr class="{cls}">{change_cells(m, c, link_prefix, classes)}</tr>')
    return f"<table>{head}{''.join(rows)}</table>"


def spark_uri(m: Model, i: int) -> str:
    """The sparkline as a data: URI: an image that needs no request (a
    700-point index of image files took minutes to load on a busy machine)."""
    if i not in m.sparks:
        s = m.series[i]
        pts = [(m.position[v[0]], v[2]) for k, v in enumerate(s["values"])
               if v[2] and not v[8] and (i, k) not in m.outliers]
        change_x = [m.position[c["run"]] for c in m.changes.get(i, [])]
        svg = S.sparkline(pts, m.span[s["machine"]], change_x)
        m.sparks[i] = "data:image/svg+xml," + quote(svg, safe=" =:/,.-")
    return m.sparks[i]


def points_table(m: Model) -> str:
    def order(i: int):
        cs = m.changes.get(i, [])
        return (not any(c["regression"] for c in cs), not any(c["open"] for c in cs),
                m.series[i]["machine"], m.series[i]["benchmark"], m.series[i]["axes"])

    rows = []
    for i in sorted(range(len(m.series)), key=order):
        s = m.series[i]
        timed = [v for v in s["values"] if v[2]]
        newest = timed[-1][2] if timed else None
        cs = sorted(m.changes.get(i, []), key=lambda c: c["run"])
        last = (f'{S.fmt_pct(cs[-1]["ratio"])} at {escape(m.runs[cs[-1]["run"]]["started"])} '
                f'({cs[-1]["cause"]})' if cs else "")
        rows.append(f'<tr class="{row_classes(m, s)}"><td><a href="points/{slug(s)}.html">'
                    f'{escape(s["benchmark"])} [{escape(s["axes"])}]</a></td>'
                    f'<td>{escape(s["machine"])}</td><td>{escape(s["kind"])}</td>'
                    f'<td class="num">{len(s["values"])}</td>'
                    f'<td class="num">{S.fmt_time(newest)}</td>'
                    f'<td><img class="spark" src="{spark_uri(m, i)}" alt="trend" '
                    f'width="160" height="28"></td><td>{last}</td></tr>')
    return ("<table><tr><th>point</th><th>machine</th><th>kind</th><th>runs</th>"
            "<th>newest median</th><th>trend</th><th>newest change point</th></tr>"
            + "".join(rows) + "</table>")


def page(title: str, body: str, extra_css: str = "", inputs: str = "") -> str:
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<link rel="icon" href="data:,"><title>{escape(title)}</title>'
            f"<style>{STYLE}{extra_css}</style></head><body>\n{inputs}\n"
            f'<div class="content">{body}</div></body></html>\n')


def index_html(m: Model, title: str) -> str:
    e = m.export
    starts = [r["started"] for r in m.runs]
    first, last = (min(starts), max(starts)) if starts else ("-", "-")
    opts = e["options"]
    test = ("Student's t (hunter)" if opts["method"] == "hunter"
            else "Student's t floored by each series' own spread")
    changes = e["changes"]
    # regressions, then open code changes, then open changes of conditions
    open_changes = sorted((c for c in changes if c["open"]),
                          key=lambda c: (not c["regression"], c["cause"] != "code"))
    earlier = [c for c in changes if not c["open"]]
    body = [f"<h1>{escape(title)}</h1>",
            f'<p class="subtitle">{len(m.runs)} runs on {len(m.span)} machine(s), '
            f"{len(m.series)} points, {escape(first)} to {escape(last)}; generated "
            f"{escape(e['generated'])} from <code>cubench history export</code>, whose "
            f"JSON holds every value</p>",
            f'<p class="legend">Change points: E-divisive means with {test}, '
            f"p &le; {opts['p_merge']:g}; a <b>regression</b> is open, slower by more than "
            f"{opts['delta'] * 100:g}% with {(1 - opts['alpha']) * 100:g}% confidence and "
            f"began among the point's newest {opts['recent']} runs (the exit code of "
            f"<code>cubench history check</code>). A change of GPU, driver or runtime is "
            f"reported as such, never as a regression. docs/history.md.</p>",
            filter_labels(m),
            f"<h2>Open change points ({len(open_changes)})</h2>",
            change_table(m, open_changes) if open_changes else "<p>None.</p>"]
    if e["events"]:
        rows = "".join(f"<tr><td>{escape(m.runs[ev['run']]['machine'])}</td>"
                       f"<td>{escape(m.runs[ev['run']]['started'])}</td>"
                       f'<td class="cause">{ev["cause"]}</td><td>{escape(ev["what"])}</td></tr>'
                       for ev in e["events"])
        body.append(f"<h2>Changes of conditions ({len(e['events'])})</h2><table><tr>"
                    f"<th>machine</th><th>first run</th><th>cause</th><th>change</th></tr>"
                    f"{rows}</table>")
    body.append(f"<h2>Points ({len(m.series)})</h2>{points_table(m)}")
    if earlier:
        shown = earlier[:500]
        note = (f" (the newest {len(shown)}; `cubench history check` lists all)"
                if len(earlier) > 500 else "")
        body.append(f"<h2>Earlier change points ({len(earlier)}){note}</h2>"
                    f"<details><summary>show</summary>{change_table(m, shown)}</details>")
    return page(title, "\n".join(body), filter_css(m), filter_inputs(m))


def run_title(m: Model, s: dict, v: list, k: int, i: int) -> str:
    run = m.runs[v[0]]
    parts = [f"run {run['id']}", run["started"], f"commit {run['git_sha'][:12]}", v[1],
             f"median {S.fmt_time(v[2])}", f"CI {S.fmt_time(v[3])} to {S.fmt_time(v[4])}"]
    if v[5] is not None:
        parts.append(f"SM {v[5]:.0f} MHz")
    if v[6] is not None:
        parts.append(f"{v[6]:.0f} W")
    if v[7] is not None:
        parts.append(f"{v[7]:.0f} C")
    parts.append(f"GPU {run['gpu_uuid'] or '?'}, driver {run['driver'] or '?'}")
    if v[8]:
        parts.append(f"throttled: {v[8]}")
    if (i, k) in m.outliers:
        parts.append("outlier: set aside")
    return " · ".join(parts)


def chart(m: Model, i: int) -> str:
    s = m.series[i]
    values = []
    for k, v in enumerate(s["values"]):
        values.append({"x": m.position[v[0]], "median": v[2], "lo": v[3], "hi": v[4],
                       "throttled": bool(v[8]), "outlier": (i, k) in m.outliers,
                       "title": lambda v=v, k=k: run_title(m, s, v, k, i)})
    ch = S.TrendChart(values, m.span[s["machine"]])
    mine = [r for r in m.runs if r["machine"] == s["machine"]]
    marks = [ch.ends(when(mine[0]["started"]), when(mine[-1]["started"]))] if mine else []
    marks += [ch.event(m.position[e["run"]], f"{when(m.runs[e['run']]['started'])}: {e['what']}")
              for e in m.export["events"] if m.runs[e["run"]]["machine"] == s["machine"]]
    for c in m.changes.get(i, []):
        before, after = m.position[s["values"][c["before"]][0]], m.position[c["run"]]
        code = c["cause"] == "code"
        colour = (S.SLOWER if c["ratio"] > 1 else S.FASTER) if code else S.CONDITIONS
        label = S.fmt_pct(c["ratio"]) + ("" if code else f" ({c['cause']})")
        title = (f"{label}, CI {S.fmt_pct(c['ci_lo'])} to {S.fmt_pct(c['ci_hi'])}, "
                 f"p {c['p']:.2g}; first bad run {m.runs[c['run']]['started']}")
        marks.append(ch.mark(before, after, label, colour, not code, title))
    return ch.svg(marks)


def point_html(m: Model, i: int) -> str:
    s = m.series[i]
    sp = s["spread"]
    spread = (f"between-run spread learned here: {sp['sd'] * 100:.2f}% per run "
              f"({sp['df']:g} df, {sp['runs']} runs)" if sp["sd"] else
              "too few runs for a between-run spread")
    cs = sorted(m.changes.get(i, []), key=lambda c: c["run"])
    rows = []
    newest = list(enumerate(s["values"]))[-NEWEST_ROWS:]
    firsts = {c["after"]: c for c in cs}
    for k, v in reversed(newest):
        run = m.runs[v[0]]
        note = []
        if k in firsts:
            note.append(f"first run after a change point ({S.fmt_pct(firsts[k]['ratio'])}, "
                        f"{firsts[k]['cause']})")
        if (i, k) in m.outliers:
            note.append("outlier, set aside")
        num = lambda x, f: f"{x:{f}}" if x is not None else "-"  # noqa: E731
        rows.append(f"<tr><td>{run['id']}</td><td>{escape(run['started'])}</td>"
                    f"<td>{escape(run['git_sha'][:12])}</td><td>{escape(v[1])}</td>"
                    f'<td class="num">{S.fmt_time(v[2])}</td>'
                    f'<td class="num">{S.fmt_time(v[3])} to {S.fmt_time(v[4])}</td>'
                    f'<td class="num">{num(v[5], ".0f")}</td><td class="num">'
                    f'{num(v[6], ".0f")}</td><td class="num">{num(v[7], ".0f")}</td>'
                    f"<td>{escape(v[8] or '')}</td><td>{escape(run['driver'])}</td>"
                    f"<td>{escape('; '.join(note))}</td></tr>")
    more = (f" (the newest {NEWEST_ROWS} of {len(s['values'])}; <code>cubench history show"
            f"</code> lists every one)" if len(s["values"]) > NEWEST_ROWS else "")
    body = [f'<p><a href="../index.html">&larr; all points</a></p>',
            f"<h1>{escape(s['benchmark'])} [{escape(s['axes'])}]</h1>",
            f'<p class="subtitle">{escape(s["machine"])} · kind {escape(s["kind"])} · '
            f"{len(s['values'])} runs · {spread}</p>",
            chart(m, i),
            '<p class="legend">Blue: each run\'s median, the band its 95% CI; orange '
            "triangles: throttled runs (set aside); red crosses: outliers (set aside); solid "
            "lines: change points (red slower, green faster); dashed purple: a step at a change "
            "of GPU, driver or runtime; grey dots: every such change on the machine. Hover a "
            "run or a line for its commit and conditions.</p>",
            f"<h2>Change points ({len(cs)})</h2>",
            change_table(m, cs[::-1], "../", classes=False) if cs else "<p>None.</p>",
            f"<h2>Runs{more}</h2><table><tr><th>run</th><th>started (UTC)</th><th>commit</th>"
            "<th>status</th><th>median</th><th>95% CI</th><th>SM clock, MHz</th>"
            "<th>power, W</th><th>temp, C</th><th>throttle</th><th>driver</th><th></th></tr>"
            + "".join(rows) + "</table>"]
    return page(f"{s['benchmark']} [{s['axes']}] - cubench history", "\n".join(body))


def write_site(m: Model, out: Path, title: str) -> None:
    (out / "points").mkdir(parents=True, exist_ok=True)
    for i, s in enumerate(m.series):
        (out / "points" / f"{slug(s)}.html").write_text(point_html(m, i), encoding="utf-8")
    (out / "index.html").write_text(index_html(m, title), encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = front_end_parser(
        PROG, "A static dashboard of a cubench history database: the open change points "
              "first, a trend chart per point.",
        "--history", "DB", "the database (as `cubench history --db`), or an export .json")
    parser.add_argument("--machine", help="only this machine")
    parser.add_argument("--title", default="cubench performance history")
    args = parser.parse_args(argv)
    out = Path(args.out)
    try:
        export = load_export(args.history, args.machine, args.cubench)
        model = build_model(export, args.machine)
        write_site(model, out, args.title)
    except InputError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except (KeyError, TypeError, IndexError, ValueError) as exc:
        print(f"{PROG}: error: {args.history}: not a complete `cubench history export` "
              f"document ({type(exc).__name__}: {exc})", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        print(f"{PROG}: error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    print(f"{PROG}: wrote {out}/index.html ({len(model.series)} points, "
          f"{len(export['changes'])} change points)", file=sys.stderr)
    return 0
