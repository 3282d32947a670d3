"""Command line: python3 -m reports RESULT_DIR... -o OUT_DIR
(the fleet page: python3 -m reports --fleet DIR -o OUT_DIR, reports/fleet.py;
the history dashboard: python3 -m reports --history DB -o OUT_DIR,
reports/history.py)

Exit codes: 0 report written; 2 bad input (a directory that breaks the
schema), bad arguments, an output that cannot be written, or a Python
without the report's packages; 130 interrupted (Ctrl-C); each with one
clear line on stderr, never a traceback.
"""

from __future__ import annotations

import importlib
import sys

PROG = "python3 -m reports"
NEEDED = ("matplotlib", "numpy")  # what reports/requirements.txt brings
# Pages of their own, chosen by an option and drawn by the module's main(argv):
# the fleet page (python3 -m reports --fleet DIR -o OUT, reports/fleet.py) and
# the history dashboard (python3 -m reports --history DB -o OUT, reports/history.py).
OTHER_PAGES = {"--fleet": ".fleet", "--history": ".history"}


def _missing_package(exc: ModuleNotFoundError) -> str | None:
    name = (exc.name or "").partition(".")[0]
    return name if name in NEEDED else None


def _no_package(exc: ModuleNotFoundError) -> int:
    """One line saying what to run instead of a traceback (exit 2); other
    import errors are bugs and are raised."""
    package = _missing_package(exc)
    if package is None:
        raise exc
    print(f"{PROG}: error: {package} is not installed for {sys.executable}; "
          f"run scripts/setup.sh, then .venv/bin/python -m reports RESULT_DIR... "
          f"-o OUT_DIR", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    import argparse  # here: a Ctrl-C during any import reaches run()'s handler

    args_list = sys.argv[1:] if argv is None else list(argv)
    for option, module in OTHER_PAGES.items():
        if option in args_list:
            try:
                page_main = importlib.import_module(module, __package__).main
            except ModuleNotFoundError as exc:
                return _no_package(exc)
            return page_main(args_list)
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Make an HTML report (PNG/SVG figures + their data) from cubench "
                    "result directories. With several directories the first is the "
                    "base of a side-by-side comparison.")
    parser.add_argument("dirs", nargs="+", metavar="RESULT_DIR",
                        help="directory holding results.csv, samples.csv, meta.json")
    parser.add_argument("-o", "--out", required=True, metavar="OUT_DIR",
                        help="where index.html and the figures are written")
    args = parser.parse_args(args_list)

    try:
        # Imported here so that a Python without matplotlib gets a sentence.
        from .build import write_report
        from .load import InputError
        from .output import OutputError
    except ModuleNotFoundError as exc:
        return _no_package(exc)

    def warn(message: str) -> None:
        print(f"{PROG}: warning: {message}", file=sys.stderr)

    try:
        page = write_report(args.dirs, args.out, warn)
    except (InputError, OutputError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    print(f"{PROG}: wrote {args.out}/index.html ({len(page.figures())} figures)",
          file=sys.stderr)
    return 0


def _interrupted(exc: BaseException) -> bool:
    """A Ctrl-C, or an error raised because of one: an extension module
    interrupted while it initialised raises ImportError("initialization
    failed") from the KeyboardInterrupt."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def run(argv: list[str] | None = None) -> int:
    """main() with Ctrl-C as one line and exit status 130 (the report folder
    may then hold part of a report)."""
    try:
        return main(argv)
    except (KeyboardInterrupt, Exception) as exc:
        if not _interrupted(exc):
            raise
        print(f"{PROG}: interrupted (the output folder may hold part of a report)",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(run())
