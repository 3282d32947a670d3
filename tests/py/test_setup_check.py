"""scripts/setup.sh decides what to install the way the build looks for it:
a library whose header and shared library are under CMAKE_PREFIX_PATH (an
unpacked -dev package on a machine without network) counts as there, so no
package manager is asked for it; one found nowhere is named as missing.
`--check` says so without installing anything. The package manager is
faked (dpkg knows no package, apt-get cannot reach a mirror) and the system
folders are an empty directory, so only the prefixes given here count."""
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup.sh"


def fake_tools(bin_dir):
    """dpkg that knows nothing, apt-get that fails, and the build tools
    setup.sh only looks for (command -v)."""
    bin_dir.mkdir()
    scripts = {"dpkg": "exit 1", "apt-get": "echo offline >&2; exit 100"}
    for tool in ("cmake", "ninja", "cc", "nvcc", "gnuplot"):
        scripts[tool] = "exit 0"
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)


def unpack(prefix, header, lib):
    """A -dev package as `dpkg -x` leaves it: include/HEADER, lib/<triplet>/LIB."""
    h = prefix / "include" / header
    h.parent.mkdir(parents=True, exist_ok=True)
    h.write_text("/* header */\n")
    so = prefix / "lib" / "x86_64-linux-gnu" / lib
    so.parent.mkdir(parents=True, exist_ok=True)
    so.write_text("")


def check(tmp_path, prefixes):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CMAKE_", "CUBENCH_"))}
    env["PATH"] = f"{tmp_path / 'bin'}:/usr/bin:/bin"
    env["CMAKE_PREFIX_PATH"] = ":".join(str(p) for p in prefixes)
    env["CUBENCH_SYSTEM_PREFIXES"] = str(tmp_path / "system")
    done = subprocess.run(["bash", str(SETUP), "--check"], capture_output=True, text=True,
                          env=env, timeout=60)
    return done.returncode, done.stderr


@pytest.fixture
def machine(tmp_path):
    fake_tools(tmp_path / "bin")
    (tmp_path / "system").mkdir()
    return tmp_path


def test_unpacked_libraries_count_as_installed(machine):
    prefix = machine / "unpacked"
    unpack(prefix, "jansson.h", "libjansson.so.4")
    unpack(prefix, "sqlite3.h", "libsqlite3.so.0")
    rc, err = check(machine, [machine / "elsewhere", prefix])
    assert rc == 1, err  # libpq, the server and OpenBLAS are still missing
    missing = err.split("missing:", 1)[1]
    assert "libjansson-dev" not in missing and "libsqlite3-dev" not in missing, err
    assert "libpq-dev" in missing and "libopenblas-dev" in missing, err
    assert "apt-get" not in err and "offline" not in err, err  # --check installs nothing


def test_a_header_without_its_library_is_missing(machine):
    prefix = machine / "unpacked"
    unpack(prefix, "sqlite3.h", "libsqlite3.so.0")
    (prefix / "include" / "jansson.h").write_text("/* header only */\n")
    rc, err = check(machine, [prefix])
    assert rc == 1
    assert "libjansson-dev" in err.split("missing:", 1)[1], err
    assert "libsqlite3-dev" not in err.split("missing:", 1)[1], err


def test_nothing_missing(machine):
    prefix = machine / "unpacked"
    unpack(prefix, "jansson.h", "libjansson.so.4")
    unpack(prefix, "sqlite3.h", "libsqlite3.so.0")
    unpack(prefix, "postgresql/libpq-fe.h", "libpq.so.5")
    unpack(prefix, "x86_64-linux-gnu/cblas.h", "libopenblas.so.0")
    rc, err = check(machine, [prefix])
    # The PostgreSQL server is looked up in its fixed place; without it the
    # two libpq packages are still wanted.
    has_server = any(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"))
    missing = err.split("missing:", 1)[1] if "missing:" in err else ""
    assert "libjansson-dev" not in missing and "libopenblas-dev" not in missing, err
    assert ("postgresql" in missing) != has_server, err
    venv = ROOT / ".venv" / "bin" / "python"
    venv_ready = venv.exists() and subprocess.run(
        [str(venv), "-c", "import matplotlib, numpy, pytest"], capture_output=True).returncode == 0
    if has_server and venv_ready:
        assert rc == 0 and "nothing missing" in err, err
