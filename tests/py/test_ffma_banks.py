"""scripts/record/ffma_banks.py: the register-bank count of a main loop's
FFMAs, on hand-made SASS listings whose answers are worked out below."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "record" / "ffma_banks.py"
spec = importlib.util.spec_from_file_location("ffma_banks", SCRIPT)
banks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(banks)

# A loop of six FFMAs between 0x0020 and the branch at 0x0080, and a
# second, shorter loop with one FFMA. Per FFMA (sources a, b, c):
#   0x0020 R4.reuse R6 R2: R4, R6, R2 all even, from the banks: conflict
#   0x0030 R4 R7 R3: R4 from the cache (slot a); R7, R3 odd: conflict
#   0x0040 R5 R6 R9: R5, R9 odd: conflict, no cache hit (R4 not kept)
#   0x0050 R5.reuse R8 R11: R5 odd, R8 even, R11 odd: conflict
#   0x0060 R5 R8 R10: R5 from the cache; R8, R10 even: conflict
#   0x0070 R12.reuse R13.reuse RZ: R12 even, R13 odd: no conflict
LISTING = """
        code for sm_90
                Function : _Z4testPf
        .headerflags    @"EF_CUDA_SM90"
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   MOV R2, RZ ;
        /*0020*/                   FFMA R2, R4.reuse, R6, R2 ;
        /*0030*/                   FFMA R3, R4, R7, R3 ;
        /*0040*/                   FFMA R9, R5, R6, R9 ;
        /*0050*/                   FFMA R11, R5.reuse, R8, R11 ;
        /*0060*/                   FFMA R10, R5, R8, R10 ;
        /*0070*/                   FFMA R14, R12.reuse, R13.reuse, RZ ;
        /*0080*/              @!P0 BRA 0x20 ;
        /*0090*/                   IADD3 R1, R1, 0x1, RZ ;
        /*00a0*/                   FFMA R2, R2, R2, R2 ;
        /*00b0*/               @P1 BRA 0x90 ;
        /*00c0*/                   EXIT ;
                ..........
"""


def test_main_loop_is_the_one_with_most_ffma():
    code = banks.parse(LISTING)["_Z4testPf"]
    first, last = banks.main_loop(code)
    assert (code[first][0], code[last][0]) == (0x20, 0x80)


def test_counts_follow_the_model():
    code = banks.parse(LISTING)["_Z4testPf"]
    c = banks.count(code, *banks.main_loop(code))
    assert (c["ffma"], c["instructions"]) == (6, 7)
    assert [clash for _, _, clash, _ in c["rows"]] == [True, True, True, True, True, False]
    assert [hit for _, _, _, hit in c["rows"]] == [False, True, False, False, True, False]
    assert (c["conflicts"], c["no_hit"]) == (5, 4)


def test_operands_that_read_no_bank():
    assert banks.register("RZ") is None
    assert banks.register("UR4") is None
    assert banks.register("c[0x0][0x28]") is None
    assert banks.register("0x1") is None
    assert banks.register("-R7") == (7, False)
    assert banks.register("|R8.reuse|") == (8, True)
    assert banks.register("R9.H1") == (9, False)


def test_cli_reports_and_refuses_bad_input(tmp_path):
    f = tmp_path / "loop.sass"
    f.write_text(LISTING)
    run = lambda *a: subprocess.run([sys.executable, str(SCRIPT), *a], capture_output=True,
                                    text=True)
    ok = run(str(f))
    assert ok.returncode == 0, ok.stderr
    assert "6 FFMA, 5 with a register-bank conflict, 4 with no operand" in ok.stdout
    assert "conflict" in run(str(f), "-v").stdout.splitlines()[1]
    for args, words in [((str(tmp_path / "missing"),), "no such file"),
                        ((str(f), "--kernel", "nope"), "no function"),
                        ]:
        bad = run(*args)
        assert bad.returncode == 2 and words in bad.stderr, bad.stderr
    empty = tmp_path / "noloop.sass"
    empty.write_text(LISTING.replace("BRA 0x20", "BRA 0xc0").replace("BRA 0x90", "BRA 0xc0"))
    bad = run(str(empty))
    assert bad.returncode == 2 and "no loop with FFMAs" in bad.stderr


@pytest.mark.parametrize("text", ["", "not sass at all\n"])
def test_not_a_listing_without_cuobjdump(tmp_path, monkeypatch, text):
    f = tmp_path / "blob.bin"
    f.write_text(text)
    monkeypatch.setenv("PATH", str(tmp_path))  # no cuobjdump here
    bad = subprocess.run([sys.executable, str(SCRIPT), str(f)], capture_output=True, text=True)
    assert bad.returncode == 2 and "cuobjdump" in bad.stderr


def test_an_object_holding_the_markers_is_disassembled(tmp_path, monkeypatch):
    # A relocatable object's string tables can hold "Function" and "/*" as
    # well; it is still a binary for cuobjdump, not a listing to parse.
    f = tmp_path / "kernel.o"
    f.write_bytes(b"\x7fELF\x02\x01\x01\0" + b"Function : x /*0000*/ ;\0" * 4)
    monkeypatch.setenv("PATH", str(tmp_path))  # no cuobjdump here
    bad = subprocess.run([sys.executable, str(SCRIPT), str(f)], capture_output=True, text=True)
    assert bad.returncode == 2 and "cuobjdump" in bad.stderr
