"""The PEP 517 build backend of the cubench Python package (pyproject.toml
names it). It needs nothing but the standard library, so `pip install .`
and `pip wheel .` work offline, in a fresh venv, without setuptools.

The wheel holds:
  cubench/            python/cubench (the package)
  cubench/families/   bench/python (the framework families)
  cubench/libcubench.so   the engine, when one is found (below)

and the `cubench` console script and the pytest plugin (entry points).

The library bundled is the first of: the config setting `lib=PATH`
(`pip wheel . --config-settings lib=build/libcubench.so`), $CUBENCH_LIB,
then the source tree's release builds build/, build-native/, build-ci/. A
wheel with the library is tagged for this platform (py3-none-linux_x86_64:
it is a ctypes library, not a CPython extension); one without is pure
(py3-none-any) and the package then looks for the library at run time
(docs/python.md). scripts/build_wheel.sh builds the library and the wheel.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import sysconfig
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIB_NAME = "libcubench.so"
RELEASE_BUILDS = ("build", "build-native", "build-ci")
# Where the wheel's files come from: (folder in the tree, package in the wheel).
PACKAGES = (("python/cubench", "cubench"), ("bench/python", "cubench/families"))


# ---- metadata ----

def _pyproject() -> dict:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib
        except ImportError:
            raise RuntimeError("building cubench needs Python 3.11+ (tomllib) or the tomli "
                               "package; installing a built wheel does not") from None
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _version() -> str:
    text = (ROOT / "python" / "cubench" / "_version.py").read_text()
    m = re.search(r'__version__ = "([^"]+)"', text)
    if not m:
        raise RuntimeError("python/cubench/_version.py: no __version__")
    return m.group(1)


def _metadata(project: dict) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {_version()}",
             f"Summary: {project.get('description', '')}"]
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    for dep in project.get("dependencies", []):
        lines.append(f"Requires-Dist: {dep}")
    for extra, deps in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    readme = project.get("readme")
    body = ""
    if isinstance(readme, str) and (ROOT / readme).is_file():
        lines.append("Description-Content-Type: text/markdown")
        body = "\n" + (ROOT / readme).read_text(encoding="utf-8")
    return "\n".join(lines) + "\n" + body


def _entry_points(project: dict) -> str:
    out = []
    groups = {"console_scripts": project.get("scripts", {})}
    groups.update(project.get("entry-points", {}))
    for group, entries in groups.items():
        if entries:
            out.append(f"[{group}]")
            out += [f"{k} = {v}" for k, v in entries.items()]
            out.append("")
    return "\n".join(out)


# ---- the files ----

def _sources() -> list[tuple[Path, str]]:
    """(file, path in the wheel) for every .py of the packages."""
    out = []
    for folder, package in PACKAGES:
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            out.append((path, f"{package}/{path.relative_to(base).as_posix()}"))
    return out


def find_library(config_settings: dict | None) -> Path | None:
    """The libcubench.so to bundle (module docstring), or None."""
    given = (config_settings or {}).get("lib") or os.environ.get("CUBENCH_LIB")
    if given:
        p = Path(given)
        p = p / LIB_NAME if p.is_dir() else p
        if not p.is_file():
            raise RuntimeError(f"cubench wheel: {given}: no {LIB_NAME} there")
        return p
    for d in RELEASE_BUILDS:
        if (ROOT / d / LIB_NAME).is_file():
            return ROOT / d / LIB_NAME
    return None


def _platform_tag() -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", sysconfig.get_platform())


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


# ---- PEP 517 ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _pyproject()
    name, version = project["name"], _version()
    lib = find_library(config_settings)
    tag = f"py3-none-{_platform_tag()}" if lib else "py3-none-any"
    dist_info = f"{name}-{version}.dist-info"
    files = [(path.read_bytes(), arc) for path, arc in _sources()]
    if lib:
        files.append((lib.read_bytes(), f"cubench/{LIB_NAME}"))
        print(f"cubench wheel: bundling {lib}")
    else:
        print(f"cubench wheel: no {LIB_NAME} found (lib=, CUBENCH_LIB, "
              f"{', '.join(RELEASE_BUILDS)}): a pure wheel that finds the library at run time")
    files += [
        (_metadata(project).encode(), f"{dist_info}/METADATA"),
        (f"Wheel-Version: 1.0\nGenerator: cubench_wheel\nRoot-Is-Purelib: {'false' if lib else 'true'}"
         f"\nTag: {tag}\n".encode(), f"{dist_info}/WHEEL"),
        (_entry_points(project).encode(), f"{dist_info}/entry_points.txt"),
    ]
    wheel_name = f"{name}-{version}-{tag}.whl"
    record = [_record_line(arc, data) for data, arc in files] + [f"{dist_info}/RECORD,,"]
    target = Path(wheel_directory) / wheel_name
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for data, arc in files:
            info = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            mode = 0o755 if arc.endswith(".so") else 0o644
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        z.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The files a wheel is built from, and this backend."""
    name = f"{_pyproject()['name']}-{_version()}"
    target = Path(sdist_directory) / f"{name}.tar.gz"
    extra = ["pyproject.toml", "docs/python.md", "python/build_backend/cubench_wheel.py"]
    with tarfile.open(target, "w:gz") as tar:
        for path, _ in _sources():
            tar.add(path, arcname=f"{name}/{path.relative_to(ROOT).as_posix()}")
        for rel in extra:
            tar.add(ROOT / rel, arcname=f"{name}/{rel}")
    return target.name
