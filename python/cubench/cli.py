"""`python -m cubench`: the cubench command line with Python benchmarks.

Every command and option of the C CLI works unchanged (it is the C CLI, run
in this process through libcubench.so); this front end adds:

  --module PATH|NAME  load Python benchmarks from a file or a module (repeatable)
  --no-frameworks     leave out the framework families of bench/python
  env                 also reports each Python GPU framework it finds
  run                 also writes python.json (interpreter, modules, the
                      versions of the frameworks the run imported) into the
                      run directory

Exit codes are the C CLI's; a module that cannot be loaded, a family the
registry refuses, or a missing libcubench.so is a usage error (2).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from . import __version__, _lib
from .declare import REGISTRY
from .loader import ModuleLoadError, load_families, load_module

EXIT_USAGE = 2
PROGRAM = "python -m cubench"

EXTRA_HELP = """
python -m cubench adds, to run and list:
  --module PATH|NAME   load Python benchmarks from a .py file or an importable
                       module (repeatable); docs/python.md shows how to write one
  --no-frameworks      leave out the framework families (torch, cupy, jax, numba,
                       triton, numpy, ...); they are loaded by default
and to env: each Python GPU framework found, its version, the CUDA it was
built with and the devices it sees.
"""


def _pop_options(argv: list[str]) -> tuple[list[str], bool, list[str]]:
    """Take --module and --no-frameworks out of argv (anywhere)."""
    modules, rest, frameworks = [], [], True
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--module":
            if i + 1 >= len(argv):
                raise ModuleLoadError("--module needs a file or module name")
            modules.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("--module="):
            modules.append(a.split("=", 1)[1])
        elif a == "--no-frameworks":
            frameworks = False
        else:
            rest.append(a)
        i += 1
    return modules, frameworks, rest


def _out_dir(args: list[str]) -> str | None:
    for i, a in enumerate(args):
        if a == "--out" and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--out="):
            return a.split("=", 1)[1]
    return None


def _listing(d: Path) -> set[str]:
    try:
        return {p.name for p in d.iterdir() if p.is_dir()}
    except OSError:
        return set()


def _write_python_json(run_dir: Path, lib_path: str, lib_version: str, modules: list[str]):
    """Provenance of the Python side of a run (meta.json holds the rest)."""
    from .frameworks import imported_versions

    doc = {"package": __version__, "python": sys.version.split()[0],
           "executable": sys.executable, "library": lib_path, "library_version": lib_version,
           "modules": modules, "frameworks": imported_versions()}
    tmp = run_dir / "python.json.tmp"
    try:
        tmp.write_text(json.dumps(doc, indent=2) + "\n")
        os.replace(tmp, run_dir / "python.json")
    except OSError as e:
        print(f"cubench: cannot write {run_dir / 'python.json'}: {e}", file=sys.stderr)
        return False
    return True


def _load_benchmarks(modules: list[str], frameworks: bool) -> None:
    if frameworks:
        for warning in load_families():
            print(f"cubench: {warning}", file=sys.stderr)
    for spec in modules:
        load_module(spec)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        modules, frameworks, args = _pop_options(argv)
    except ModuleLoadError as e:
        print(f"cubench: {e}", file=sys.stderr)
        return EXIT_USAGE
    cmd = args[0] if args else None
    if cmd == "--version":
        print(f"cubench (Python package) {__version__}")
    try:
        from .engine import RegistrationError, engine
        eng = engine()
    except _lib.LibraryError as e:
        print(f"cubench: {e}", file=sys.stderr)
        return EXIT_USAGE
    if cmd in ("run", "list"):
        try:
            _load_benchmarks(modules, frameworks)
            eng.register(REGISTRY)
        except (ModuleLoadError, RegistrationError, ValueError) as e:
            print(f"cubench: {e}", file=sys.stderr)
            return EXIT_USAGE
    elif modules:
        print(f"cubench: --module applies to run and list, not {cmd or 'no command'}",
              file=sys.stderr)
        return EXIT_USAGE

    out = _out_dir(args) if cmd == "run" else None
    before = _listing(Path("results")) if cmd == "run" and out is None else set()
    rc = eng.main([PROGRAM] + args)

    wants_help = any(a in ("--help", "-h") for a in args[1:])
    if cmd in (None, "help", "--help", "-h") or (cmd in ("run", "list", "env") and wants_help):
        print(EXTRA_HELP, file=sys.stdout if rc == 0 else sys.stderr)
    elif cmd == "env" and rc in (0, 3):
        from .frameworks import report
        devices, why = eng.devices()
        print(report(devices, why))
    elif cmd == "run" and "--dry-run" not in args and rc in (0, 1, 130):
        if out is None:
            new = sorted(_listing(Path("results")) - before)
            out = f"results/{new[-1]}" if len(new) == 1 else None
        if out and (Path(out) / "results.csv").is_file():
            paths = [str(Path(m).resolve()) if m.endswith(".py") else m for m in modules]
            if not _write_python_json(Path(out), str(eng.lib.path), eng.version, paths):
                rc = rc or 1
    return rc
