"""Writing the report's files: every write checked, every failure one message.

A report that cannot be written (the output path is a file, the disk is
full, the file system is read-only) must say which file and why in one line
and end with exit status 2, like bad input, not with a traceback. All files
go through write_file, which writes with os.write until every byte is out
(a short write on a full disk is an error, not a truncated file).
"""

from __future__ import annotations

import os
from pathlib import Path


class OutputError(Exception):
    """A report file or folder that could not be written."""


def make_dir(path: Path) -> None:
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputError(f"{path}: exists and is not a directory") from None
    except OSError as exc:
        raise OutputError(f"{exc.filename or path}: cannot create the directory "
                          f"({exc.strerror})") from None


def write_file(path: Path, data: bytes | str) -> None:
    """Write `data` (text is UTF-8) to `path`, replacing it; OutputError on failure."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    make_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror})") from None
    try:
        view = memoryview(raw)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    except OSError as exc:
        raise OutputError(f"{path}: cannot write ({exc.strerror})") from None
    finally:
        os.close(fd)
