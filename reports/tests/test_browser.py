"""The report in a real browser: headless Chromium loads the pages a user
opens (the recorded H200 suite, an A/B pair of one H200, a hardware
comparison, a CPU-only run) from a local HTTP server and must see every
image and linked file load (no 404), no console error, a screenshot that is
not blank, and the run's own numbers: the key-figures table, the tensor-core
ladder with its cuBLAS references, the roofline's roofs against the figures
their source cites, the A/B or hardware page as the GPUs call for.

Chromium comes from the distribution (scripts/setup_browser.sh, called here
when no browser is on PATH); the test skips only where apt-get is missing.
The reports are the session's (conftest.draw): drawn once, shared with the
other tests.
"""

from __future__ import annotations

import io
import json
import urllib.error
import urllib.request

import pytest

import expect as E
from conftest import REPO, draw, write_synthetic_run
from derive import derive_run
from reports.browser import ReportServer

DATA = REPO / "tests" / "data"
SUITE = DATA / "h200-defaults-r2"
TC = DATA / "h200-matmul-tc"
AB = [DATA / "h200-aa3-A", DATA / "h200-aa3-B"]

# Every test here in the shard of the suite's run (tests/pytest_plugins/
# cb_shard.py): its report is drawn once for test_report, test_page and here.
pytestmark = pytest.mark.shard_group(SUITE.name)


@pytest.fixture(scope="module")
def pages(drawn_root, tmp_path_factory):
    """name -> (run dirs, report folder under drawn_root)."""
    runs = tmp_path_factory.mktemp("browser_runs")
    gpu_b = derive_run([TC], runs / "gpu_b", schema=2, time_scale=1.6, peak_scale=0.65,
                       cc="8.0", uuid="GPU-SYNTH-B",
                       gpu_name="SYNTHETIC GPU B (derived, not a measurement)")
    cpu = write_synthetic_run(runs / "cpu_only", families=("vecadd", "matmul"),
                              keep=lambda bench: "/host" in bench, no_device=True)
    made = {"suite": [SUITE], "ab": AB, "hardware": [TC, gpu_b], "cpu_only": [cpu]}
    return {name: (dirs, draw(dirs, drawn_root)) for name, dirs in made.items()}


def _pixel_spread(png: bytes) -> tuple[float, int]:
    from PIL import Image, ImageStat
    image = Image.open(io.BytesIO(png)).convert("L")
    colours = len(Image.open(io.BytesIO(png)).convert("RGB").getcolors(1 << 24) or [])
    return ImageStat.Stat(image).stddev[0], colours


def _table_number(value: float) -> str:
    """How the page's tables print a figure (reports.figure.fmt), recomputed here."""
    if value != 0 and (abs(value) >= 1e6 or abs(value) < 1e-3):
        return f"{value:.3e}"
    return f"{value:.4g}"


_OPENED: dict = {}


def _open(browser, pages, name):
    """(run dirs, report folder, what the browser saw, every linked file's
    bytes): each page opened once per module."""
    if name not in _OPENED:
        _OPENED[name] = _load(browser, pages, name)
    return _OPENED[name]


def _load(browser, pages, name):
    dirs, out = pages[name]
    root = out.parent
    with ReportServer(root) as server:
        page = browser.check(f"{server.base}{out.name}/index.html")
        local = sorted({link.split("#")[0] for link in page.links
                        if link.startswith(server.base)} - {f"{server.base}{out.name}/index.html"})
        bodies = {}
        for link in local:
            try:
                with urllib.request.urlopen(link, timeout=10) as reply:
                    assert reply.status == 200
                    bodies[link[len(server.base) + len(out.name) + 1:]] = reply.read()
            except urllib.error.HTTPError as exc:
                pytest.fail(f"{link}: HTTP {exc.code}")
        assert all(code == 200 for _, code in server.requests), server.requests
    return dirs, out, page, bodies


@pytest.mark.parametrize("name", ["suite", "ab", "hardware", "cpu_only"])
def test_page_loads_cleanly_in_chromium(name, browser, pages):
    dirs, out, page, bodies = _open(browser, pages, name)
    assert not page.console, f"console errors: {page.console}"
    assert not page.failed, f"failed loads: {page.failed}"
    figures = E.manifest(out)["figures"]
    assert len(page.images) == len(figures) > 0
    broken = [i["src"] for i in page.images if not i["ok"]]
    assert not broken, f"images that did not load: {broken}"
    assert len(bodies) >= 3 * len(figures)  # SVG, data CSV and data JSON of each
    spread, colours = _pixel_spread(page.screenshot)
    assert spread > 20 and colours > 50, f"screenshot looks blank ({spread:.1f}, {colours})"
    # the tables show the run's own numbers
    for run_dir in dirs:
        for r in [r for r in E.timed(run_dir) if r["tflops"] or r["gbps"]]:
            value = float(r["tflops"] or r["gbps"])
            assert _table_number(value) in page.dom_text, (r["_id"], value)
    if name == "cpu_only":
        assert "no GPU" in page.text and "DRAM" not in page.text


def test_key_figures_table_shows_the_runs_values(browser, pages):
    dirs, _, page, _ = _open(browser, pages, "suite")
    text = page.text
    assert text.index("Key figures") < text.index("Summary")
    for kind, (ident, value, share) in E.key_figures(dirs[0]).items():
        assert _table_number(value) in text, kind
        assert ident in text, kind
        if share is not None:
            assert f"{share:.1f} %" in text, kind


def test_tensor_core_ladder_with_cublas_references(browser, pages):
    dirs, _, page, bodies = _open(browser, pages, "suite")
    assert "Tensor-core ladder" in page.text
    ladder = json.loads(bodies["matmul_tc_ladder.json"])
    panels = {p["precision"]: p for p in ladder["panels"]}
    assert set(panels) == {"BF16", "TF32"}
    rows = {r["_id"]: r for r in E.timed(dirs[0])}
    for prec, panel in panels.items():
        assert panel["reference"] == f"matmul/cublas_{prec.lower()}"
        ref = rows[panel["reference_id"]]
        assert panel["reference_tflops"] == float(ref["tflops"])
        assert len(panel["rows"]) == 5  # mma, ldmatrix, wgmma, wgmma_ws, wgmma_cluster
        for bar in panel["rows"]:
            assert bar["pct_ref"] == float(rows[bar["id"]]["pct_ref"])
    assert "as a share of the cuBLAS of the same precision" in page.text


def test_roofline_roofs_match_their_cited_source(browser, pages):
    _, _, page, bodies = _open(browser, pages, "suite")
    roofs = {r["precision"]: r for r in json.loads(bodies["roofline.json"])["roofs"]}
    # the H200 datasheet's dense figures, at its 1830 MHz clock
    assert f"{roofs['BF16 tensor']['tflops']:.1f}" == "989.4"
    assert f"{roofs['TF32 tensor']['tflops']:.1f}" == "494.7"
    for roof in roofs.values():
        if roof["kind"] == "table":
            assert f"{roof['tflops']:.1f}" in roof["source"]
    assert "BF16 tensor 989.4 TFLOP/s, datasheet, 1830 MHz" in page.text
    assert "FP32 66.91 TFLOP/s, max boost, 1980 MHz" in page.text


def test_ab_or_hardware_page_as_the_gpus_call_for(browser, pages):
    _, _, ab, _ = _open(browser, pages, "ab")
    assert "A/B comparison" in ab.text and "hardware comparison" not in ab.text
    assert "What differs between the runs" in ab.text
    _, _, hw, _ = _open(browser, pages, "hardware")
    assert "hardware comparison" in hw.text and "A/B comparison" not in hw.text
    assert hw.text.index("What differs between the runs") < hw.text.rindex("Side by side")


def test_a_header_click_sorts_the_table(browser, pages):
    """The inline script: a click on a column sorts its rows, numbers as numbers."""
    _, out, _, _ = _open(browser, pages, "suite")
    probe = """(function () {
      var t = Array.from(document.querySelectorAll('table.sortable')).find(function (t) {
        return t.querySelector('th') && t.querySelector('th').textContent === 'benchmark' &&
               Array.from(t.querySelectorAll('th')).some(function (h) {
                 return h.textContent === 'GB/s'; }); });
      var col = Array.from(t.querySelectorAll('th')).findIndex(function (h) {
        return h.textContent === 'GB/s'; });
      t.querySelectorAll('th')[col].click();
      return JSON.stringify(Array.from(t.tBodies[0].rows).map(function (r) {
        return r.children[col].textContent; }));
    })()"""
    with ReportServer(out.parent) as server:
        values = json.loads(browser.evaluate(f"{server.base}{out.name}/index.html", probe))
    numbers = [float(v) for v in values if v]
    assert numbers == sorted(numbers) and len(numbers) > 10


def test_the_checks_see_a_broken_page(browser, tmp_path):
    """The same checks on a page with a missing image and a script error
    report both: a clean result above means something."""
    (tmp_path / "index.html").write_text(
        '<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body>'
        '<img src="missing.png"><script>console.error("boom"); undefined_call();</script>'
        "</body></html>")
    with ReportServer(tmp_path) as server:
        page = browser.check(f"{server.base}index.html")
    assert any("404" in f and "missing.png" in f for f in page.failed), page.failed
    assert any("boom" in c for c in page.console) and len(page.console) >= 2, page.console
    assert page.images and not page.images[0]["ok"]
    assert ("/missing.png", 404) in server.requests
