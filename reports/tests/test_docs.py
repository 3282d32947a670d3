"""The README's measured table and the docs images are what
scripts/record/docs_figures.py makes from tests/data now: a new recorded run, a
changed figure or a hand-edited number makes this test fail until the script
is run again (`.venv/bin/python scripts/record/docs_figures.py [--screenshots]`).

The A/A row of the table comes from `cubench compare`, so the test needs the
binary: CUBENCH_BIN (set by ctest) or build-ci/cubench.

The script's main() runs in this process, twice: the docs images it draws
(deterministic: the same data gives the same bytes) are drawn once for both
checks, and the report pages whose index.html the screenshot check hashes
are drawn unrendered (conftest.unrendered: the page does not depend on the
pixels of its figures). Together that was 30 of the 60 s two runs of the
script took.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from conftest import REPO, unrendered

SCRIPT = REPO / "scripts" / "record" / "docs_figures.py"


@pytest.fixture(scope="module")
def cubench():
    for candidate in (os.environ.get("CUBENCH_BIN"), REPO / "build-ci" / "cubench"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.skip("no cubench binary (CUBENCH_BIN or build-ci/cubench): scripts/build.sh ci")


@pytest.fixture(scope="module")
def script():
    """docs_figures.py as a module, its images drawn once for the module."""
    spec = importlib.util.spec_from_file_location("docs_figures", SCRIPT)
    docs_figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(docs_figures)
    draw_images, report_pages = docs_figures.draw_images, docs_figures.report_pages
    drawn: dict = {}

    def images_once(out: Path) -> dict:
        if not drawn:
            drawn["entries"] = draw_images(out)
            drawn["files"] = {image: (out / image).read_bytes() for image in drawn["entries"]}
        else:
            for image, data in drawn["files"].items():
                (out / image).write_bytes(data)
        return drawn["entries"]

    def pages_unrendered(out: Path) -> dict:
        with unrendered():
            return report_pages(out)

    docs_figures.draw_images = images_once
    docs_figures.report_pages = pages_unrendered
    return docs_figures


def _check(script, cubench, monkeypatch, capsys, root: Path, *extra: str) -> tuple[int, str]:
    """docs_figures.py --check --docs-root ROOT EXTRA...: its exit status and stderr."""
    monkeypatch.setenv("CUBENCH_BIN", cubench)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--check", "--docs-root", str(root), *extra])
    capsys.readouterr()
    code = script.main()
    return code, capsys.readouterr().err


def test_readme_table_and_docs_images_match_the_recorded_runs(script, cubench, monkeypatch,
                                                              capsys):
    code, err = _check(script, cubench, monkeypatch, capsys, REPO)
    assert code == 0, err


def test_a_stale_table_or_image_is_caught(script, cubench, monkeypatch, capsys, tmp_path):
    (tmp_path / "docs").mkdir()
    shutil.copytree(REPO / "docs" / "img", tmp_path / "docs" / "img")
    readme = (REPO / "README.md").read_text()
    figure = re.search(r"\*\*([0-9.]+) GB/s\*\*", readme)  # a figure of the generated table
    assert figure
    edited = readme.replace(figure.group(0), f"**{float(figure.group(1)) + 1:g} GB/s**", 1)
    (tmp_path / "README.md").write_text(edited)
    image = tmp_path / "docs" / "img" / "h200-matmul-ladder.png"
    image.write_bytes(image.read_bytes() + b"\0")  # an image that is not the one drawn
    # the pages: the test above
    code, err = _check(script, cubench, monkeypatch, capsys, tmp_path, "--no-page-check")
    assert code == 1
    assert "README.md" in err and "h200-matmul-ladder.png (pixels)" in err
