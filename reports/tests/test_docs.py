"""The README's measured table and the docs images are what
scripts/record/docs_figures.py makes from tests/data now: a new recorded run, a
changed figure or a hand-edited number makes this test fail until the script
is run again (`.venv/bin/python scripts/record/docs_figures.py [--screenshots]`).

The A/A row of the table comes from `cubench compare`, so the test needs the
binary: CUBENCH_BIN (set by ctest) or build-ci/cubench.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "docs_figures.py"


@pytest.fixture(scope="module")
def cubench():
    for candidate in (os.environ.get("CUBENCH_BIN"), REPO / "build-ci" / "cubench"):
        if candidate and Path(candidate).is_file():
            return str(candidate)
    pytest.skip("no cubench binary (CUBENCH_BIN or build-ci/cubench): scripts/build.sh ci")


def _check(cubench, root: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "CUBENCH_BIN": cubench, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, str(SCRIPT), "--check", "--docs-root", str(root)],
                          cwd=REPO, capture_output=True, text=True, env=env, timeout=300)


def test_readme_table_and_docs_images_match_the_recorded_runs(cubench):
    proc = _check(cubench, REPO)
    assert proc.returncode == 0, proc.stderr


def test_a_stale_table_or_image_is_caught(cubench, tmp_path):
    (tmp_path / "docs").mkdir()
    shutil.copytree(REPO / "docs" / "img", tmp_path / "docs" / "img")
    readme = (REPO / "README.md").read_text()
    figure = re.search(r"\*\*([0-9.]+) GB/s\*\*", readme)  # a figure of the generated table
    assert figure
    edited = readme.replace(figure.group(0), f"**{float(figure.group(1)) + 1:g} GB/s**", 1)
    (tmp_path / "README.md").write_text(edited)
    image = tmp_path / "docs" / "img" / "h200-matmul-ladder.png"
    image.write_bytes(image.read_bytes() + b"\0")  # an image that is not the one drawn
    proc = _check(cubench, tmp_path)
    assert proc.returncode == 1
    assert "README.md" in proc.stderr and "h200-matmul-ladder.png (pixels)" in proc.stderr
