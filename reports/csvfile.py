"""RFC 4180 reading that accepts and refuses exactly what the C reader does.

cubench has two readers of its own files: harness/common/csv_reader.c (used
by `cubench compare`) and this one (the report). A file one of them takes and
the other refuses would make the report and the regression verdict disagree
about the same run, so this is a port of csv_reader.c, rule for rule, with its
messages ("NAME:LINE: what"):

- a UTF-8 byte-order mark at the very start is skipped;
- blank lines (LF or CRLF alone) before a record are skipped;
- quoted fields may hold commas, doubled quotes and line feeds (a CR inside
  quotes is kept as it is); a quote inside an unquoted field, text after a
  closing quote, a CR not followed by LF, a NUL byte anywhere, an unterminated
  quote, an empty or duplicate column name, and a record with another number
  of fields than the header are refused;
- a last record without a final newline is taken when it is complete.

Like the C reader it works on bytes and does not check the text encoding;
fields are decoded as UTF-8 with invalid bytes shown as U+FFFD.
reports/tests/test_csv_parity.py runs both readers on the same inputs.

Most records hold no quote at all; those are split on commas in one step
(the same result as the field-by-field rules, about 20x faster on a 200k-line
samples.csv), and only records with a quote, a NUL or a lone CR take the slow,
literal path.
"""

from __future__ import annotations

import math
import re

BOM = b"\xef\xbb\xbf"

_PLAIN_FIELD = re.compile(rb'[^,\r\n"\x00]*')
_QUOTED_RUN = re.compile(rb'[^"\n\x00]*')
_SIMPLE_LINE = re.compile(rb'[^\r\n"\x00]*')


class CsvError(Exception):
    """Malformed input; the message is the C reader's, 'NAME:LINE: what'."""


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


class _Parser:
    def __init__(self, data: bytes, name: str):
        self.data = data
        self.end = len(data)
        self.pos = 0
        self.line = 1
        self.name = name

    def fail(self, line: int, what: str):
        raise CsvError(f"{self.name}:{line}: {what}")

    def quoted(self) -> bytes:
        """A quoted field; pos is on the opening quote, ends after the closing one."""
        data, started = self.data, self.line
        self.pos += 1
        parts = []
        while True:
            run = _QUOTED_RUN.match(data, self.pos).end()
            parts.append(data[self.pos:run])
            self.pos = run
            if run >= self.end:
                self.fail(started, f"unterminated quoted field (the input ends on line "
                                   f"{self.line}; truncated?)")
            ch = data[run]
            if ch == 0:
                self.fail(self.line, "NUL byte in quoted field")
            if ch == 0x0A:
                parts.append(b"\n")
                self.line += 1
                self.pos += 1
                continue
            if run + 1 < self.end and data[run + 1] == 0x22:  # "" is a literal quote
                parts.append(b'"')
                self.pos += 2
                continue
            self.pos += 1
            if self.pos < self.end and data[self.pos] not in b",\n\r":
                self.fail(self.line, "text after the closing quote of a quoted field")
            return b"".join(parts)

    def plain(self) -> bytes:
        """An unquoted field; ends before ',', CR, LF or the end of input."""
        run = _PLAIN_FIELD.match(self.data, self.pos).end()
        if run < self.end:
            if self.data[run] == 0x22:
                self.fail(self.line, "quote inside an unquoted field")
            if self.data[run] == 0:
                self.fail(self.line, "NUL byte")
        field = self.data[self.pos:run]
        self.pos = run
        return field

    def skip_blank_lines(self) -> None:
        data = self.data
        while self.pos < self.end:
            if data[self.pos] == 0x0A:
                self.pos += 1
            elif data[self.pos] == 0x0D and self.pos + 1 < self.end and data[self.pos + 1] == 0x0A:
                self.pos += 2
            else:
                return
            self.line += 1

    def record(self, decode: bool) -> tuple[int, list, bool] | None:
        """The next record: the line it starts on, its fields (text, or bytes
        when not `decode`), and whether a line end closed it; None at the end
        of input."""
        self.skip_blank_lines()
        if self.pos >= self.end:
            return None
        start, data = self.line, self.data
        # Fast path: a record with no quote, NUL or CR before its line end.
        # (Decoding before splitting is the same: no UTF-8 sequence holds a comma.)
        run = _SIMPLE_LINE.match(data, self.pos).end()
        ending = (0 if run >= self.end else 1 if data[run] == 0x0A
                  else 2 if data[run:run + 2] == b"\r\n" else -1)
        if ending >= 0:
            line = data[self.pos:run]
            fields = _text(line).split(",") if decode else line.split(b",")
            self.pos = run + ending
            self.line += 1 if ending else 0
            return start, fields, ending > 0
        fields, terminated = self.record_slowly()
        return start, [_text(f) for f in fields] if decode else fields, terminated

    def record_slowly(self) -> tuple[list[bytes], bool]:
        data, fields = self.data, []
        while True:
            fields.append(self.quoted() if data[self.pos] == 0x22 else self.plain())
            if self.pos >= self.end:
                return fields, False
            ch = data[self.pos]
            if ch == 0x2C:
                self.pos += 1
                if self.pos >= self.end:  # "a," at the very end: a last, empty field
                    fields.append(b"")
                    return fields, False
                continue
            if ch == 0x0D:
                if self.pos + 1 >= self.end or data[self.pos + 1] != 0x0A:
                    self.fail(self.line, "carriage return not followed by a line feed")
                self.pos += 1
            self.pos += 1  # the line feed
            self.line += 1
            return fields, True


def _check_header(parser: _Parser, header: list[bytes], line: int) -> None:
    for i, name in enumerate(header):
        if not name:
            parser.fail(line, f"empty column name (column {i + 1} of the header)")
        if name in header[:i]:
            # the C message prints at most 80 bytes of the name
            parser.fail(line, f"duplicate column '{_text(name[:80])}' in the header")


def _parse_plain(data: bytes, name: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """parse() for input without any quote, NUL or CR (every samples.csv
    cubench writes): the same records and messages, split in whole-file
    steps instead of record by record (about 5x faster on 250k lines)."""
    parser = _Parser(data, name)
    start = len(BOM) if data.startswith(BOM) else 0
    # Decoded once: no UTF-8 sequence holds a line feed or a comma.
    lines = _text(data[start:]).split("\n")
    terminated_last = lines[-1] == ""  # a final newline closes the last record
    if terminated_last:
        lines.pop()
    head = next((i for i, line in enumerate(lines) if line), None)
    if head is None:
        raise CsvError(f"{name}: empty file (no header line)")
    # The header is checked as bytes, as the C reader compares them.
    header = data[start:].split(b"\n", head + 1)[head].split(b",")
    _check_header(parser, header, head + 1)
    width = len(header)
    rows = [(number, line.split(",")) for number, line in enumerate(lines[head + 1:], head + 2)
            if line]  # blank lines are skipped
    bad = next((row for row in rows if len(row[1]) != width), None)
    if bad is not None:
        number, fields = bad
        if number == len(lines) and not terminated_last and len(fields) < width:
            parser.fail(number, f"truncated last record: {len(fields)} of {width} fields "
                                f"and no final newline")
        parser.fail(number, f"record has {len(fields)} fields, the header has {width}")
    return [_text(h) for h in header], rows


def parse(data: bytes, name: str = "<memory>") -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the data records as (line the record starts on, fields).
    Raises CsvError for what csv_reader.c refuses, with its message."""
    if b'"' not in data and b"\x00" not in data and b"\r" not in data:
        return _parse_plain(data, name)
    parser = _Parser(data, name)
    if data.startswith(BOM):
        parser.pos = len(BOM)
    header: list[bytes] | None = None
    rows: list[tuple[int, list[str]]] = []
    while True:
        # The header stays bytes until checked: the C reader compares bytes.
        got = parser.record(decode=header is not None)
        if got is None:
            break
        line, fields, terminated = got
        if header is None:
            header = fields
            _check_header(parser, header, line)
            continue
        if len(fields) != len(header):
            if not terminated and len(fields) < len(header):
                what = (f"truncated last record: {len(fields)} of {len(header)} fields "
                        f"and no final newline")
            else:
                what = f"record has {len(fields)} fields, the header has {len(header)}"
            parser.fail(line, what)
        rows.append((line, fields))
    if header is None:
        raise CsvError(f"{name}: empty file (no header line)")
    return [_text(h) for h in header], rows


# strtod's syntax in the C locale: decimal, hexadecimal, inf/infinity, nan(...).
_STRTOD = re.compile(
    r"[+-]?(?:(?P<dec>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<hex>0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?)"
    r"|(?P<inf>[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)"
    r"|(?P<nan>[nN][aA][nN](?:\([0-9A-Za-z_]*\))?))")


def parse_number(text: str) -> float:
    """A field as cb_csv_get_double reads it: the whole field in strtod syntax,
    no blanks around it (Python's float() would also take ' 1', '1_000').
    ValueError when the C reader says 'is not a number'."""
    match = _STRTOD.fullmatch(text)
    if not match:
        raise ValueError(f"{text!r} is not a number")
    negative = text.startswith("-")
    if match.group("hex"):
        return float.fromhex(text)
    if match.group("inf"):
        return -math.inf if negative else math.inf
    if match.group("nan"):
        return math.nan
    return float(text)
