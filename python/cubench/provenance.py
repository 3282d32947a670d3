"""python.json: what the Python side of a run was (meta.json holds the
rest). Written into the run directory through the engine's meta hook when
meta.json is first written and again at the end (frameworks imported during
the run are then listed too)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from ._version import __version__


def document(library: str, library_version: str, modules: list[str], **extra) -> dict:
    from .frameworks import imported_versions

    doc = {"package": __version__, "python": sys.version.split()[0],
           "executable": sys.executable, "library": library, "library_version": library_version,
           "modules": modules, "frameworks": imported_versions()}
    doc.update(extra)
    return doc


def write(run_dir: Path, doc: dict) -> None:
    """Replace run_dir/python.json atomically; OSError when it cannot."""
    tmp = run_dir / ".python.json.tmp"
    target = run_dir / "python.json"
    try:
        tmp.write_text(json.dumps(doc, indent=2) + "\n")
        os.replace(tmp, target)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise OSError(f"cannot write {target}: {e.strerror or e}") from None
