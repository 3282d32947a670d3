"""The history dashboard (reports/history.py) on a fixture history made here
with the cubench binary: two machines, one with a +10% regression in its
newest runs, one with a +8% step at a driver change and a throttled run.
The site is checked in headless Chromium like the report pages
(test_browser.py): every image and link loads, no console error, the
fixture's change points appear where they should, and the machine filter
hides the other machine's rows. The numbers are `cubench history export`'s:
tests/cpu/test_history_*.c check them. About 15 s.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import REPO
from reports.browser import ReportServer
from reports.history import main

sys.path.insert(0, str(REPO / "tests" / "py"))
from history_runs import series_with_step, write_run  # noqa: E402


@pytest.fixture(scope="module")
def history(tmp_path_factory, cubench):
    root = tmp_path_factory.mktemp("history")
    db = root / "h.db"
    a = series_with_step(root / "runs", "lab", ratio=1.10, step_at=10)
    b = series_with_step(root / "runs", "ci", ratio=1.08, step_at=7, start=100, runs=7)
    b += [write_run(root / "runs" / f"ci-{r:02d}", 100 + r, f"ci-{r:02d}", 1.08,
                    driver="580.200.00", throttle="sw_power_cap" if r == 9 else "none")
          for r in range(7, 14)]
    for machine, runs in (("lab-h200", a), ("ci-h200", b)):
        proc = subprocess.run([cubench, "history", "add", "--db", str(db), "--machine", machine,
                               *map(str, runs)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr
    site = root / "site"
    assert main(["--history", str(db), "-o", str(site), "--cubench", cubench]) == 0
    return db, site


def test_site_files(history):
    _, site = history
    assert len(list((site / "points").glob("*.html"))) == 8
    index = (site / "index.html").read_text()
    assert "<script" not in index
    # regressions first: the lab machine's four points, before anything else
    open_table = index.split("Open change points")[1].split("</table>")[0]
    rows = open_table.split("<tr")[2:]
    assert len(rows) == 8
    assert all("regression" in r and "lab-h200" in r for r in rows[:4])
    assert all("driver" in r and "ci-h200" in r and "regression" not in r for r in rows[4:])
    assert "driver 580.159.04 -&gt; 580.200.00" in index


def _local_links(page, base: str) -> list[str]:
    return sorted({link.split("#")[0] for link in page.links if link.startswith(base)})


def test_pages_in_chromium(history, browser):
    _, site = history
    with ReportServer(site) as server:
        index = browser.check(f"{server.base}index.html")
        assert not index.console, index.console
        assert not index.failed, index.failed
        # a sparkline per point, and one per open change point (8 + 8)
        assert len(index.images) == 16 and all(i["ok"] for i in index.images), index.images
        links = _local_links(index, server.base)
        assert len(links) == 8  # the point pages
        for link in links:
            try:
                with urllib.request.urlopen(link, timeout=10) as reply:
                    assert reply.status == 200 and reply.read(1), link
            except urllib.error.HTTPError as exc:
                pytest.fail(f"{link}: HTTP {exc.code}")
        assert re.search(r"\+(9|10|11)\.\d\d%", index.text) and "regression" in index.text
        point = next(link for link in links if "float4-per-thread-n-1024" in link
                     and link in index.links)
        page = browser.check(point)
        assert not page.console and not page.failed, (page.console, page.failed)
        assert "Change points (1)" in page.text
        assert re.search(r"lab-09\.\.\s*lab-10", page.text)  # the commit range
        html = (site / point.split(server.base, 1)[1]).read_text()
        chart = html.split("<svg", 1)[1].split("</svg>", 1)[0]
        assert '<g class="change">' in chart  # marked on the chart, with its size
        assert re.search(r">\+(9|10|11)\.\d\d%</text>", chart), chart[-600:]
        assert all(code == 200 for _, code in server.requests), server.requests


def test_machine_filter(history, browser):
    """The radio buttons filter with CSS alone: choosing ci-h200 hides the
    lab machine's rows (checked through the DOM, as a reader would click)."""
    _, site = history
    index = (site / "index.html").read_text()
    ci = index.index('">ci-h200</label>')
    radio = index[:ci].rsplit('for="', 1)[1]
    filtered = site / "filtered.html"
    filtered.write_text(index.replace(f'id="{radio}"', f'id="{radio}" checked')
                        .replace('id="fm-all" checked', 'id="fm-all"'))
    with ReportServer(site) as server:
        page = browser.check(f"{server.base}filtered.html")
    assert not page.console
    assert "ci-h200" in page.text and "lab-h200" not in page.text.split("Machine:")[1][40:]


def test_export_file_and_bad_input(history, cubench, tmp_path, capsys):
    db, _ = history
    export = tmp_path / "e.json"
    subprocess.run([cubench, "history", "export", "--db", str(db), "-o", str(export)],
                   check=True)
    assert main(["--history", str(export), "-o", str(tmp_path / "s"),
                 "--machine", "ci-h200"]) == 0
    assert len(list((tmp_path / "s" / "points").glob("*.html"))) == 4
    (tmp_path / "cut.json").write_text('{"format": "cubench-history", "version": 1, "runs": []}')
    assert main(["--history", str(tmp_path / "cut.json"), "-o", str(tmp_path / "c")]) == 2
    (tmp_path / "x.json").write_text('{"format": "something else"}')
    assert main(["--history", str(tmp_path / "x.json"), "-o", str(tmp_path / "t")]) == 2
    assert main(["--history", str(tmp_path / "none.db"), "-o", str(tmp_path / "u"),
                 "--cubench", cubench]) == 2
    err = capsys.readouterr().err
    assert "not a `cubench history export` document" in err
    assert "not a complete `cubench history export` document" in err
    assert "history add` creates one" in err
