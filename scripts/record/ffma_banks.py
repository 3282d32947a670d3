#!/usr/bin/env python3
"""ffma_banks.py - count register-bank conflicts of the FFMAs in a kernel's
main loop, from its SASS.

    scripts/record/ffma_banks.py FILE [--kernel SUBSTR] [-v]

FILE is a `cuobjdump -sass` listing, or a cubin, object or executable that
cuobjdump (on PATH) disassembles. --kernel keeps the functions whose
(mangled) name contains SUBSTR; each one left is reported. Exit 0 with a
report, 2 on bad input (no such file, no function, no loop of FFMAs).

Why: the FP32 SIMT rungs (matmul_warptile.h) run at the rate their FFMAs
issue, and an FFMA whose source registers collide in a register bank
issues a cycle late. Which registers collide is ptxas's allocation, which
a source change or a new toolkit can move (the FMA order of
cb_wt_outer_fma was chosen with this count); scripts/record/gemm.sh runs
it on every recorded build.

The model (NVIDIA documents none; this is the one the maxas notes and the
Volta/Turing microbenchmark reports describe, and the one whose counts
ranked four FMA orders of the pipelined rung as the H200 did):
  - two banks: register Rn is in bank n % 2; RZ, uniform registers,
    constants and immediates read no bank;
  - an operand reuse cache with one entry per source slot (a, b, c): an
    operand marked `.reuse` is kept in its slot's entry, and the next
    instruction that reads the same register in the same slot takes it from
    there instead of the bank; any other register read in that slot
    replaces the entry (kept only if it is marked `.reuse` itself);
  - a conflict: two or more of an instruction's bank reads in one bank
    (the same register read twice counts once).
The main loop is the backward branch whose body holds the most FFMAs, or
the innermost loop in it that holds three quarters of them.
"""
import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
INSTRUCTION = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(.+?)\s*;")
REGISTER = re.compile(r"^[-!|~]*\|?R(\d+)(\.reuse)?(\.[A-Z0-9]+)*\|?$")
SLOTS = 3  # the reuse cache's source slots a, b, c


class InputError(Exception):
    pass


def parse(text):
    """{function name: [(address, opcode, [operands])]} of a SASS listing;
    a leading predicate (@P0, @!P1) is dropped."""
    functions, current = {}, None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = functions.setdefault(m.group(1), [])
            continue
        m = INSTRUCTION.match(line)
        if not m or current is None:
            continue
        body = re.sub(r"^@!?U?P[T0-9]+\s+", "", m.group(2))
        opcode, _, rest = body.partition(" ")
        operands = [o.strip() for o in rest.split(",")] if rest.strip() else []
        current.append((int(m.group(1), 16), opcode, operands))
    return functions


def register(operand):
    """(n, reuse) for a general register operand Rn, None for anything else
    (RZ, URn, constants, immediates, predicates, addresses)."""
    m = REGISTER.match(operand)
    return (int(m.group(1)), m.group(2) is not None) if m else None


def main_loop(code):
    """(first, last) indices of the backward branch's body with the most
    FFMAs, or None; a loop nested in it that holds at least three quarters
    of its FFMAs is taken instead (the k-loop inside a stream-K block's
    walk over its tiles, whose body adds the epilogue's few)."""
    index = {addr: i for i, (addr, _, _) in enumerate(code)}
    loops = []
    for i, (addr, opcode, operands) in enumerate(code):
        if not opcode.startswith("BRA") or not operands:
            continue
        try:
            target = int(operands[-1].split()[-1], 16)
        except ValueError:
            continue
        if target > addr or target not in index:
            continue
        first = index[target]
        ffma = sum(1 for _, op, _ in code[first:i + 1] if op.startswith("FFMA"))
        if ffma > 0:
            loops.append((ffma, first, i))
    if not loops:
        return None
    best = max(loops)
    while True:
        inner = [lp for lp in loops if lp != best and best[1] <= lp[1] and lp[2] <= best[2]
                 and 4 * lp[0] >= 3 * best[0]]
        if not inner:
            return best[1], best[2]
        best = max(inner)


def count(code, first, last):
    """What the loop's FFMAs read: counts of FFMAs, those with a bank
    conflict, those with no operand from the reuse cache, and instructions.
    The cache's entries start empty at the loop's head (a lower bound on
    hits for the first instructions: the loop is entered from the bottom
    too)."""
    cache = [None] * SLOTS
    ffma = conflicts = no_hit = 0
    rows = []
    for _, opcode, operands in code[first:last + 1]:
        sources = operands[1:1 + SLOTS]
        reads, hit = set(), False
        for slot, operand in enumerate(sources):
            reg = register(operand)
            if reg is None:
                continue
            n, reuse = reg
            if cache[slot] == n:
                hit = True
            else:
                reads.add(n)
            cache[slot] = n if reuse else None
        if not opcode.startswith("FFMA"):
            continue
        ffma += 1
        banks = [n % 2 for n in reads]
        clash = max(banks.count(0), banks.count(1)) >= 2
        conflicts += clash
        no_hit += not hit
        rows.append((opcode, operands, clash, hit))
    return {"ffma": ffma, "conflicts": conflicts, "no_hit": no_hit,
            "instructions": last - first + 1, "rows": rows}


def listing(path):
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    data = path.read_bytes()
    # An object's bytes may hold both markers too: only text is a listing.
    if (not data.startswith(b"\x7fELF") and b"\0" not in data[:1 << 20]
            and b"Function" in data[:1 << 20] and b"/*" in data[:1 << 20]):
        return data.decode("utf-8", "replace")
    tool = shutil.which("cuobjdump")
    if not tool:
        raise InputError(f"{path}: not a SASS listing, and no cuobjdump on PATH to disassemble it")
    out = subprocess.run([tool, "-sass", str(path)], capture_output=True, text=True)
    if out.returncode != 0:
        raise InputError(f"{path}: cuobjdump -sass failed: {out.stderr.strip()}")
    return out.stdout


def report(path, kernel, verbose, out=sys.stdout):
    functions = parse(listing(path))
    if kernel:
        functions = {k: v for k, v in functions.items() if kernel in k}
    if not functions:
        raise InputError(f"{path}: no function" + (f" whose name contains {kernel!r}" if kernel else ""))
    found = False
    for name, code in sorted(functions.items()):
        loop = main_loop(code)
        if loop is None:
            continue
        c = count(code, *loop)
        if c["ffma"] == 0:
            continue
        found = True
        print(f"{name}: main loop {c['instructions']} instructions, {c['ffma']} FFMA, "
              f"{c['conflicts']} with a register-bank conflict, {c['no_hit']} with no operand "
              f"from the reuse cache", file=out)
        if verbose:
            for opcode, operands, clash, hit in c["rows"]:
                mark = ("conflict " if clash else "         ") + ("      " if hit else "no hit")
                print(f"  {mark}  {opcode} {', '.join(operands)}", file=out)
    if not found:
        raise InputError(f"{path}: no loop with FFMAs in the selected functions")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", type=Path)
    p.add_argument("--kernel", help="only functions whose name contains this")
    p.add_argument("-v", "--verbose", action="store_true", help="list the loop's FFMAs")
    a = p.parse_args(argv)
    try:
        report(a.file, a.kernel, a.verbose)
    except InputError as e:
        print(f"ffma_banks.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
