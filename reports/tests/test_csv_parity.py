"""The report's CSV reader and the C reader agree on every input.

Each case of EDGE_CASES states what csv_reader.c's rules give (the fields
with the line each record starts on, or the start of the error message); the
test checks reports/csvfile.py against it and, when a C compiler is present
(always in CI, which builds the C code), checks the C reader itself against
it through ctypes, built here from harness/common/csv_reader.c. Random inputs
from the characters that matter (comma, quote, CR, LF, NUL, BOM bytes) then
compare the two readers directly: same fields, same lines, same message.
"""

from __future__ import annotations

import ctypes
import random
import shutil
import subprocess

import pytest

from conftest import REPO
from reports.csvfile import CsvError, parse, parse_number

HEADER = b"a,b\n"

# name: (input, expected) where expected is the records [(line, fields), ...]
# under the header a,b, or (header, records), or the start of the error message
# (NAME is the name the input is read under).
EDGE_CASES = {
    "plain": (HEADER + b"1,2\n", [(2, ["1", "2"])]),
    "bom": (b"\xef\xbb\xbf" + HEADER + b"1,2\n", [(2, ["1", "2"])]),
    "bom only": (b"\xef\xbb\xbf", "NAME: empty file (no header line)"),
    "second bom is text": (b"\xef\xbb\xbf\xef\xbb\xbfa,b\n", (["\ufeffa", "b"], [])),
    "crlf": (b"a,b\r\n1,2\r\n", [(2, ["1", "2"])]),
    "mixed line ends": (b"a,b\r\n1,2\n3,4\r\n", [(2, ["1", "2"]), (3, ["3", "4"])]),
    "lone cr": (b"a,b\r1,2\n", "NAME:1: carriage return not followed by a line feed"),
    "cr at the end": (HEADER + b"1,2\r", "NAME:2: carriage return not followed by a line feed"),
    "no final newline": (HEADER + b"1,2", [(2, ["1", "2"])]),
    "trailing comma at the end": (HEADER + b"1,", [(2, ["1", ""])]),
    "empty fields": (HEADER + b",\n", [(2, ["", ""])]),
    "blank lines skipped": (b"\n\r\na,b\n\n1,2\n\r\n\n3,4\n\n",
                            [(5, ["1", "2"]), (8, ["3", "4"])]),
    "blank line with a space is a record": (HEADER + b" \n", "NAME:2: record has 1 fields"),
    "quoted comma": (HEADER + b'"1,5",2\n', [(2, ["1,5", "2"])]),
    "doubled quote": (HEADER + b'"say ""hi""",2\n', [(2, ['say "hi"', "2"])]),
    "empty quoted": (HEADER + b'"",""\n', [(2, ["", ""])]),
    "embedded newline": (HEADER + b'"two\nlines",2\n3,4\n',
                         [(2, ["two\nlines", "2"]), (4, ["3", "4"])]),
    "embedded crlf kept": (HEADER + b'"x\r\ny",2\n', [(2, ["x\r\ny", "2"])]),
    "cr inside quotes kept": (HEADER + b'"x\ry",2\n', [(2, ["x\ry", "2"])]),
    "quoted at the end, no newline": (HEADER + b'1,"2"', [(2, ["1", "2"])]),
    "quote inside unquoted": (HEADER + b'1,a"b\n', "NAME:2: quote inside an unquoted field"),
    "space before a quote": (HEADER + b'1, "b"\n', "NAME:2: quote inside an unquoted field"),
    "text after closing quote": (HEADER + b'"a"b,2\n',
                                 "NAME:2: text after the closing quote of a quoted field"),
    "space after closing quote": (HEADER + b'"a" ,2\n', "NAME:2: text after the closing"),
    "unterminated quote": (HEADER + b'1,"abc\n\n',
                           "NAME:2: unterminated quoted field (the input ends on line 4; "
                           "truncated?)"),
    "nul unquoted": (HEADER + b"1\x00,2\n", "NAME:2: NUL byte"),
    "nul quoted": (HEADER + b'"1\x00",2\n', "NAME:2: NUL byte in quoted field"),
    "nul in header": (b"a\x00,b\n", "NAME:1: NUL byte"),
    "nul after a quoted field's newline": (HEADER + b'"x\n\x00"\n', "NAME:3: NUL byte in quoted"),
    "ragged long": (HEADER + b"1,2,3\n", "NAME:2: record has 3 fields, the header has 2"),
    "ragged short": (HEADER + b"1\n", "NAME:2: record has 1 fields, the header has 2"),
    "truncated last record": (HEADER + b"1,2\n3",
                              "NAME:3: truncated last record: 1 of 2 fields and no final newline"),
    "too long last record": (HEADER + b"1,2,3", "NAME:2: record has 3 fields, the header has 2"),
    "empty file": (b"", "NAME: empty file (no header line)"),
    "only blank lines": (b"\n\r\n\n", "NAME: empty file (no header line)"),
    "header only": (HEADER, []),
    "header only, no newline": (b"a,b", []),
    "spaces are a header": (b"   \n", (["   "], [])),
    "empty column name": (b"a,,b\n", "NAME:1: empty column name (column 2 of the header)"),
    "empty header line after blank": (b"\n,\n", "NAME:2: empty column name (column 1"),
    "duplicate column": (b"a,b,a\n", "NAME:1: duplicate column 'a' in the header"),
    "huge field": (HEADER + b"1," + b"x" * 1_000_000 + b"\n", [(2, ["1", "x" * 1_000_000])]),
    "huge quoted field": (HEADER + b'"' + b"y,\n" * 100_000 + b'",2\n',
                          [(2, ["y,\n" * 100_000, "2"])]),
    "invalid utf-8 is taken": (HEADER + b"\xff,2\n", [(2, ["\ufffd", "2"])]),
    "utf-8 text": (HEADER + "µs,é\n".encode(), [(2, ["µs", "é"])]),
}


def python_read(data: bytes):
    """('ok', header, rows) or ('error', message) from reports/csvfile.py."""
    try:
        header, rows = parse(data, "NAME")
    except CsvError as exc:
        return ("error", str(exc))
    return ("ok", header, rows)


@pytest.fixture(scope="module")
def c_reader(tmp_path_factory):
    """The C reader, compiled here into a shared library for ctypes."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler: the C side of the parity test cannot be built")
    lib = tmp_path_factory.mktemp("csvlib") / "libcsv.so"
    common = REPO / "harness" / "common"
    subprocess.run([cc, "-std=c11", "-O1", "-shared", "-fPIC", "-D_POSIX_C_SOURCE=200809L",
                    "-I", str(common), str(common / "csv_reader.c"),
                    str(common / "cb_common.c"), str(common / "open_file.c"), "-o", str(lib)],
                   check=True)
    return CReader(ctypes.CDLL(str(lib)))


class CMsg(ctypes.Structure):
    _fields_ = [("text", ctypes.c_char * 256)]


class CReader:
    def __init__(self, lib):
        self.lib = lib
        lib.cb_csv_parse.restype = ctypes.c_void_p
        lib.cb_csv_parse.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                     ctypes.POINTER(CMsg)]
        lib.cb_csv_free.argtypes = [ctypes.c_void_p]
        for fn in ("cb_csv_rows", "cb_csv_cols"):
            getattr(lib, fn).argtypes = [ctypes.c_void_p]
        lib.cb_csv_header.restype = ctypes.c_char_p
        lib.cb_csv_header.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.cb_csv_get.restype = ctypes.c_char_p
        lib.cb_csv_get.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        lib.cb_csv_line.restype = ctypes.c_long
        lib.cb_csv_line.argtypes = [ctypes.c_void_p, ctypes.c_int]
        lib.cb_csv_get_double.restype = ctypes.c_bool
        lib.cb_csv_get_double.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                          ctypes.POINTER(ctypes.c_double),
                                          ctypes.POINTER(CMsg)]

    def read(self, data: bytes):
        msg = CMsg()
        csv = self.lib.cb_csv_parse(data, len(data), b"NAME", ctypes.byref(msg))
        if not csv:
            return ("error", msg.text.decode("utf-8", "replace"))
        try:
            lib = self.lib
            cols = lib.cb_csv_cols(csv)
            text = lambda raw: raw.decode("utf-8", "replace")  # noqa: E731
            header = [text(lib.cb_csv_header(csv, c)) for c in range(cols)]
            rows = [(lib.cb_csv_line(csv, r), [text(lib.cb_csv_get(csv, r, c))
                                               for c in range(cols)])
                    for r in range(lib.cb_csv_rows(csv))]
            return ("ok", header, rows)
        finally:
            lib.cb_csv_free(csv)

    def number(self, field: str):
        quoted = '"' + field.replace('"', '""') + '"'
        data = f"x\n{quoted}\n".encode()
        msg = CMsg()
        csv = self.lib.cb_csv_parse(data, len(data), b"NAME", ctypes.byref(msg))
        assert csv, msg.text
        try:
            out = ctypes.c_double()
            ok = self.lib.cb_csv_get_double(csv, 0, 0, ctypes.byref(out), ctypes.byref(msg))
            return out.value if ok else None
        finally:
            self.lib.cb_csv_free(csv)


def _check(result, name, expected):
    if isinstance(expected, str):
        assert result[0] == "error", f"{name}: accepted, expected {expected!r}"
        assert result[1].startswith(expected), (name, result[1])
        return
    assert result[0] == "ok", f"{name}: refused: {result[1]}"
    want = expected if isinstance(expected, tuple) else (["a", "b"], expected)
    assert result[1:] == want, name


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_python_reader_follows_the_c_rules(name):
    data, expected = EDGE_CASES[name]
    _check(python_read(data), name, expected)


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_c_reader_follows_the_same_table(name, c_reader):
    data, expected = EDGE_CASES[name]
    _check(c_reader.read(data), name, expected)


def _random_input(rng: random.Random) -> bytes:
    """Random bytes from the characters that matter, or a well-formed table
    (random field text, quoted when needed, LF or CRLF) with one byte changed
    half of the time: both readers must then accept and refuse alike."""
    alphabet = [b"a", b"b", b",", b",", b'"', b'"', b"\n", b"\n", b"\r", b"\r\n", b"\x00",
                b"\xef\xbb\xbf", b" ", b"\xc3\xa9"]
    if rng.random() < 0.4:
        return b"".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
    cols = rng.randint(1, 4)
    lines = []
    for r in range(rng.randint(1, 5)):
        fields = []
        for c in range(cols):
            text = b"".join(rng.choice(alphabet[:8] + alphabet[12:])
                            for _ in range(rng.randint(0 if r else 1, 4)))
            if r == 0:
                text = text.replace(b",", b"").replace(b'"', b"").replace(b"\n", b"") + b"%d" % c
            if any(ch in text for ch in (b",", b'"', b"\n", b"\r")):
                text = b'"' + text.replace(b'"', b'""') + b'"'
            fields.append(text)
        lines.append(b",".join(fields))
    data = rng.choice([b"\n", b"\r\n"]).join(lines) + rng.choice([b"", b"\n", b"\r\n", b"\n\n"])
    if rng.random() < 0.5 and data:
        i = rng.randrange(len(data))
        data = data[:i] + rng.choice(alphabet) + data[i + 1:]
    return data


def test_random_inputs_give_the_same_answer_in_both_readers(c_reader):
    rng = random.Random(20261201)
    accepted = refused = 0
    for _ in range(5000):
        data = _random_input(rng)
        c, py = c_reader.read(data), python_read(data)
        assert py == c, f"input {data!r}: python {py!r}, C {c!r}"
        accepted += c[0] == "ok"
        refused += c[0] == "error"
    assert accepted > 1000 and refused > 1000  # both paths were exercised


def test_recorded_files_read_the_same_in_both_readers(c_reader):
    for path in sorted((REPO / "tests" / "data").glob("*/*.csv"))[:12]:
        data = path.read_bytes()
        assert python_read(data) == c_reader.read(data), path


NUMBERS = ["1", "-1", "+1", "1.5", ".5", "5.", "-.5e-3", "1e5", "1E+05", "1e", "1e+",
           "0x1p3", "0X1.8P1", "0x.8", "0x", "0x1p", "inf", "-INF", "Infinity", "infinit",
           "nan", "NaN(123)", "nan(", " 1", "1 ", "1_000", "", "abc", "1,5", "--1",
           "1e999", "4.38e+12", "%.9g", "0.333333333", "٣"]


@pytest.mark.parametrize("text", NUMBERS)
def test_numbers_read_the_same_in_both_readers(text, c_reader):
    c = c_reader.number(text)
    try:
        py = parse_number(text)
    except ValueError:
        py = None
    if c is None or py is None:
        assert c is None and py is None, f"{text!r}: C {c!r}, python {py!r}"
    elif c != c:  # NaN
        assert py != py
    else:
        assert py == c, text
