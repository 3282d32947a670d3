#!/usr/bin/env python3
"""targets.py [DATA_DIR] - the project's performance targets against the
recorded H200 runs in tests/data (or DATA_DIR): one line per figure, with the
row it comes from, so a number quoted in the README can be traced to a file.
Exits 1 when a target is missed or its row is absent; lines marked `info`
are ceilings of other people's code (cuBLAS), shown for context only."""
import csv
import os
import re
import sys

DATA = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..", "tests", "data")


def rows(run):
    path = os.path.join(DATA, run, "results.csv")
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f)]


def axis(r, name):
    m = re.search(r"(?:^|;)" + name + r"=([^;]+)", r["axes"])
    return m.group(1) if m else None


def best(rs, key, pred):
    cands = [r for r in rs if r["status"] in ("ok", "noisy") and r[key] and pred(r)]
    return max(cands, key=lambda r: float(r[key])) if cands else None


MISSED = []


def line(label, r, key, unit, target, above=True, upper=None):
    if r is None:
        print(f"{label:55s} (no row)   MISSED")
        MISSED.append(label)
        return
    v = float(r[key])
    if target is None:
        print(f"{label:55s} {v:9.2f} {unit:8s} info                [{r['benchmark']} {r['axes']} {r['status']}]")
        return
    ok = (v >= target if above else v <= target) and (upper is None or v <= upper)
    bound = f"{target:g}..{upper:g}" if upper is not None else f"{'>=' if above else '<='} {target:g}"
    print(f"{label:55s} {v:9.2f} {unit:8s} target {bound:<11s} "
          f"{'MET' if ok else 'MISSED'}   [{r['benchmark']} {r['axes']} {r['status']}]")
    if not ok:
        MISSED.append(label)


def main():
    va = rows("h200-vecadd-large")
    for n in (2**28, 2**30):
        line(f"vecadd best GB/s at n=2^{n.bit_length()-1}", best(va, "gbps", lambda r: axis(r, "n") == str(n)),
             "gbps", "GB/s", 4380)
    mm = rows("h200-matmul-defaults")
    at = lambda b, m: (lambda r: r["benchmark"] == b and axis(r, "m") == str(m))
    line("matmul naive_coalesced 4096^3", best(mm, "tflops", at("matmul/naive_coalesced", 4096)), "tflops", "TFLOP/s", 6.2)
    line("matmul smem_tiled 4096^3 (best tile)", best(mm, "tflops", at("matmul/smem_tiled", 4096)), "tflops", "TFLOP/s", 9.1)
    hand = lambda r: axis(r, "m") == "4096" and not r["benchmark"].startswith(("matmul/cublas", "matmul/host"))
    line("matmul best hand-written 4096^3", best(mm, "tflops", hand), "tflops", "TFLOP/s", 40.6)
    line("matmul best hand-written 4096^3, % of cuBLAS", best(mm, "pct_ref", hand), "pct_ref", "%", 80)
    cb = best(mm, "tflops", at("matmul/cublas_fp32", 4096))
    line("cuBLAS FP32 pedantic 4096^3 (within 2% of 50.7)", cb, "tflops", "TFLOP/s", 50.7 * 0.98,
         upper=50.7 * 1.02)
    # cuBLAS TF32 is NVIDIA's ceiling, not a target of ours: its sustained
    # rate falls from ~417 to ~370 within a run (tests/data/h200-tf32-sustained).
    line("cuBLAS TF32 8192^3", best(mm, "tflops", at("matmul/cublas_tf32", 8192)), "tflops", "TFLOP/s", None)
    first = rows("h200-matmul-defaults-first")
    line("cuBLAS TF32 8192^3 (first run, another machine)",
         best(first, "tflops", at("matmul/cublas_tf32", 8192)), "tflops", "TFLOP/s", None)
    tr = rows("h200-transfers-defaults")
    big = lambda r: int(axis(r, "bytes") or 0) >= 2**28
    for d in ("h2d", "d2h"):
        line(f"pinned {d} async >= 256 MiB (worst size)",
             min((r for r in tr if r["benchmark"] == "transfers/memcpy_async" and axis(r, "direction") == d
                  and axis(r, "memory") == "pinned" and big(r)), key=lambda r: float(r["gbps"])), "gbps", "GB/s", 55.0)
    line("bidirectional pinned, best size (combined)",
         best(tr, "gbps", lambda r: r["benchmark"] == "transfers/bidir" and axis(r, "memory") == "pinned"), "gbps", "GB/s", 99)
    line("D2D 1 GiB (read + write)", best(tr, "gbps", lambda r: r["benchmark"] == "transfers/d2d" and axis(r, "bytes") == str(2**30)),
         "gbps", "GB/s", 4200 * 0.98)


if __name__ == "__main__":
    main()
    if MISSED:
        print(f"{len(MISSED)} target(s) missed: " + "; ".join(MISSED), file=sys.stderr)
        sys.exit(1)
