"""Loading benchmark modules: the framework families and users' own.

The framework families live in bench/python/ of the source tree, next to
the C families; an installed package carries them as `cubench/families/`.
Either way they are imported as the package `cubench.families`, never by
putting their directory on sys.path, where `torch.py` would hide PyTorch.
A family module imports no framework at its top level: its benchmarks are
declared (and listed) everywhere, and a framework that is missing or cannot
see the GPU gives skip rows with the reason.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

from .interrupt import caused_by_interrupt

PACKAGE = "cubench.families"


class ModuleLoadError(Exception):
    """A --module that does not exist or raises while it is imported."""


def families_dir() -> Path | None:
    here = Path(__file__).resolve().parent
    for d in (here / "families", here.parent.parent / "bench" / "python"):
        if (d / "__init__.py").is_file():
            return d
    return None


def _families_package():
    """Import cubench.families from wherever it lives."""
    if PACKAGE in sys.modules:
        return sys.modules[PACKAGE]
    d = families_dir()
    if d is None:
        return None
    spec = importlib.util.spec_from_file_location(PACKAGE, d / "__init__.py",
                                                  submodule_search_locations=[str(d)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = module
    spec.loader.exec_module(module)
    return module


def family_names() -> list[str]:
    """The family modules, in the order their __init__ lists them."""
    pkg = _families_package()
    return list(getattr(pkg, "FAMILIES", ())) if pkg else []


def load_families(names: list[str] | None = None) -> list[str]:
    """Import the framework families (all, or `names`); returns one warning
    per module that failed to import (its benchmarks are then absent)."""
    warnings = []
    for name in names if names is not None else family_names():
        try:
            importlib.import_module(f"{PACKAGE}.{name}")
        except Exception as e:  # noqa: BLE001 - one broken family does not stop the others
            if caused_by_interrupt(e):  # Ctrl-C while it imported its framework
                raise KeyboardInterrupt from e
            warnings.append(f"family module {name} failed to import: {type(e).__name__}: {e}")
    return warnings


def load_module(spec: str):
    """Import a user's benchmark module: a path to a .py file (its directory
    goes first on sys.path, as for `python file.py`) or a module name."""
    try:
        if spec.endswith(".py") or os.sep in spec:
            path = Path(spec).resolve()
            if not path.is_file():
                raise ModuleLoadError(f"--module {spec}: no such file")
            name = f"cubench_user_{path.stem}"
            if name in sys.modules and getattr(sys.modules[name], "__file__", "") == str(path):
                return sys.modules[name]
            if str(path.parent) not in sys.path:
                sys.path.insert(0, str(path.parent))
            spec_obj = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec_obj)
            sys.modules[name] = module
            try:
                spec_obj.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
            return module
        return importlib.import_module(spec)
    except ModuleLoadError:
        raise
    except BaseException as e:  # noqa: BLE001 - a user module may raise anything
        if isinstance(e, KeyboardInterrupt):
            raise
        if caused_by_interrupt(e):
            raise KeyboardInterrupt from e
        raise ModuleLoadError(f"--module {spec}: {type(e).__name__}: {e}") from e
