"""Shared fixtures for the end-to-end tests of the cubench binary."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cubench():
    """Path of the built binary (ctest passes it in CUBENCH_BIN)."""
    path = os.environ.get("CUBENCH_BIN") or shutil.which("cubench")
    if not path or not os.path.exists(path):
        pytest.skip("CUBENCH_BIN is not set (run through ctest)")
    return path


@pytest.fixture(scope="session")
def has_gpu(cubench):
    """Whether `cubench env` finds a CUDA device (exit 0) or not (exit 3)."""
    rc = subprocess.run([cubench, "env", "--no-cupti"], capture_output=True, text=True).returncode
    assert rc in (0, 3), "cubench env must exit 0 (device) or 3 (no device)"
    return rc == 0


@pytest.fixture(scope="session")
def lib():
    """libcubench.so next to the cubench binary ctest names, else the
    source tree's build (what the package itself would find)."""
    candidates = []
    if os.environ.get("CUBENCH_BIN"):
        candidates.append(Path(os.environ["CUBENCH_BIN"]).parent / "libcubench.so")
    candidates += [ROOT / d / "libcubench.so"
                   for d in ("build-ci", "build", "build-native", "build-debug")]
    for c in candidates:
        if c.is_file():
            return c
    pytest.skip("libcubench.so is not built")
