"""`cubench` (the console script) and `python -m cubench`: the cubench
command line with Python benchmarks.

Every command and option of the C CLI works unchanged (it is the C CLI, run
in this process through libcubench.so); this front end adds:

  --module PATH|NAME  load Python benchmarks from a file or a module (repeatable)
  --no-frameworks     leave out the framework families of bench/python
  env                 also reports each Python GPU framework it finds
  run                 also writes python.json (interpreter, modules, the
                      versions of the frameworks the run imported) into the
                      run directory, through the engine's meta hook

`--version` and `--help` answer without the library. Exit codes are the C
CLI's; a module that cannot be loaded, a family the registry refuses, or a
missing libcubench.so is a usage error (2); Ctrl-C is 130 with one line.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import _lib, provenance
from ._version import __version__
from .declare import REGISTRY
from .interrupt import caused_by_interrupt
from .loader import ModuleLoadError, load_families, load_module

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

EXTRA_HELP = """
{prog} adds, to run and list:
  --module PATH|NAME   load Python benchmarks from a .py file or an importable
                       module (repeatable); docs/python.md shows how to write one
  --no-frameworks      leave out the framework families (torch, cupy, jax, numba,
                       triton, numpy, ...); they are loaded by default
and to env: each Python GPU framework found, its version, the CUDA it was
built with and the devices it sees. In Python: cubench.measure(fn) measures
one function in-process, cubench.load(dir) reads a run directory.
"""

USAGE = """cubench {version} (Python package) - CUDA benchmarking and profiling suite

usage: {prog} <command> [options]

commands:
  run [GLOB...]      run benchmarks (C and Python) and write results.csv,
                     samples.csv, meta.json and python.json to a new directory
  list [GLOB]        list benchmarks with their axes and defaults
  env                the environment doctor: driver, runtime, devices, frameworks
  compare BASE NEW   decide regressions between two run directories
  fleet DIR          judge one run per GPU or node
  help               this text; `{prog} <command> --help` for each command

The commands run in libcubench.so, which cannot be used here:
  {why}
"""


def _program() -> str:
    """How the user called us, for usage lines and meta.json."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0.endswith("__main__.py") or argv0 in ("-m", "-c", ""):
        return "python -m cubench"
    return os.path.basename(argv0) or "cubench"


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


def _load_benchmarks(modules: list[str], frameworks: bool) -> None:
    if frameworks:
        for warning in load_families():
            print(f"cubench: {warning}", file=sys.stderr)
    for spec in modules:
        load_module(spec)


def _version(prog: str) -> int:
    print(f"cubench {__version__} (Python package, {prog})")
    try:
        lib = _lib.load()
        print(f"library {lib.cb_api_version().decode()}: {lib.path}")
    except _lib.LibraryError as e:
        print(f"library: none usable ({e})")
    return 0


def _help_without_library(prog: str, why: str) -> int:
    print(USAGE.format(version=__version__, prog=prog, why=why))
    print(EXTRA_HELP.format(prog=prog).strip())
    return 0


def _run(eng, args: list[str], modules: list[str]) -> int:
    paths = [str(Path(m).resolve()) if m.endswith(".py") else m for m in modules]

    def write_side(run_dir: Path, final: bool):
        provenance.write(run_dir, provenance.document(str(eng.lib.path), eng.version, paths))

    return eng.run(args[1:], meta=write_side).exit_code


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = _program()
    try:
        modules, frameworks, args = _pop_options(argv)
    except ModuleLoadError as e:
        print(f"cubench: {e}", file=sys.stderr)
        return EXIT_USAGE
    cmd = args[0] if args else None
    if cmd == "--version":
        return _version(prog)
    try:
        from .engine import RegistrationError, engine
        eng = engine()
    except _lib.LibraryError as e:
        if cmd in ("help", "--help", "-h"):
            return _help_without_library(prog, str(e))
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

    wants_help = any(a in ("--help", "-h") for a in args[1:])
    if cmd == "run" and not wants_help:
        return _run(eng, args, modules)
    rc = eng.main([prog] + args)
    if cmd in (None, "help", "--help", "-h") or (cmd in ("run", "list", "env") and wants_help):
        print(EXTRA_HELP.format(prog=prog), file=sys.stdout if rc == 0 else sys.stderr)
    elif cmd == "env" and rc in (0, 3):
        from .frameworks import report
        devices, why = eng.devices()
        print(report(devices, why))
    return rc


def console() -> None:
    """The `cubench` console script and `python -m cubench`: main() with
    Ctrl-C as exit 130 and one line, wherever it lands (a module being
    imported, the library loading), never a traceback."""
    try:
        rc = main()
    except (KeyboardInterrupt, Exception) as exc:
        if not caused_by_interrupt(exc):  # Ctrl-C inside an import counts too
            raise
        print("\ncubench: interrupted", file=sys.stderr)
        rc = EXIT_INTERRUPTED
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        # Output piped into a reader that stopped (`| head`): not an error of ours.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(rc)
