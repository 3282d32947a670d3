"""The report in a real browser: headless Chromium loads three pages (one
recorded H200 run, a two-GPU comparison, a CPU-only run) from a local HTTP
server and must see every image and linked file load (no 404), no console
error, a screenshot that is not blank, and the run's numbers in the tables.

Chromium comes from the distribution (scripts/setup_browser.sh, called here
when no browser is on PATH); the test skips only where apt-get is missing.
About 15-25 s on a 2-core machine, most of it drawing the three reports.
"""

from __future__ import annotations

import io
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

import expect as E
from conftest import REPO, write_synthetic_run
from derive import derive_run
from reports.browser import Chromium, ReportServer, find_browser

RECORDED = REPO / "tests" / "data" / "h200-matmul-configs"


@pytest.fixture(scope="module")
def browser():
    path = find_browser()
    if not path:
        proc = subprocess.run([str(REPO / "scripts" / "setup_browser.sh")],
                              capture_output=True, text=True)
        if proc.returncode == 3:
            pytest.skip(f"no Chromium and no apt-get to install it: {proc.stderr.strip()}")
        assert proc.returncode == 0, f"scripts/setup_browser.sh failed: {proc.stderr}"
        path = proc.stdout.strip().splitlines()[-1]
    with Chromium(path) as chromium:
        yield chromium


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Three report folders under one served root: name -> (run dirs, folder)."""
    root = tmp_path_factory.mktemp("browser")
    gpu_b = derive_run([RECORDED], root / "runs" / "gpu_b", schema=2, time_scale=1.6,
                       peak_scale=0.65, cc="8.0", uuid="GPU-SYNTH-B",
                       gpu_name="SYNTHETIC GPU B (derived, not a measurement)")
    cpu = write_synthetic_run(root / "runs" / "cpu_only", families=("vecadd", "matmul"),
                              keep=lambda bench: "/host" in bench, no_device=True)
    made = {"single": [RECORDED], "two_gpus": [RECORDED, gpu_b], "cpu_only": [cpu]}
    for name, dirs in made.items():
        proc = subprocess.run([sys.executable, "-m", "reports", *map(str, dirs), "-o",
                               str(root / "site" / name)], cwd=REPO, capture_output=True,
                              text=True)
        assert proc.returncode == 0, proc.stderr
    return root / "site", made


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


@pytest.mark.parametrize("name", ["single", "two_gpus", "cpu_only"])
def test_page_loads_cleanly_in_chromium(name, browser, pages):
    site, made = pages
    with ReportServer(site) as server:
        page = browser.check(f"{server.base}{name}/index.html")
        assert not page.console, f"console errors: {page.console}"
        assert not page.failed, f"failed loads: {page.failed}"
        figures = E.manifest(site / name)["figures"]
        assert len(page.images) == len(figures) > 0
        broken = [i["src"] for i in page.images if not i["ok"]]
        assert not broken, f"images that did not load: {broken}"
        local = sorted({link.split("#")[0] for link in page.links
                        if link.startswith(server.base)} - {f"{server.base}{name}/index.html"})
        assert len(local) >= 3 * len(figures)  # SVG, data CSV and data JSON of each
        for link in local:
            try:
                with urllib.request.urlopen(link, timeout=10) as reply:
                    assert reply.status == 200 and reply.read(1), link
            except urllib.error.HTTPError as exc:
                pytest.fail(f"{link}: HTTP {exc.code}")
        assert all(code == 200 for _, code in server.requests), server.requests
    spread, colours = _pixel_spread(page.screenshot)
    assert spread > 20 and colours > 50, f"screenshot looks blank ({spread:.1f}, {colours})"
    # the tables show the run's own numbers
    for run_dir in made[name]:
        rows = [r for r in E.timed(run_dir) if r["tflops"] or r["gbps"]]
        assert rows
        for r in rows:
            value = float(r["tflops"] or r["gbps"])
            assert _table_number(value) in page.dom_text, (r["_id"], value)
    if name == "two_gpus":
        assert "hardware comparison" in page.text
        assert "Telemetry was not recorded for NVIDIA H200 (h200-matmul-configs)" in page.text
    if name == "cpu_only":
        assert "no GPU" in page.text and "DRAM" not in page.text


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
