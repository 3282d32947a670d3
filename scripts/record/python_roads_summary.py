#!/usr/bin/env python3
"""python_roads_summary.py ROADS_DIR HOT_DIR - the figures
scripts/record/python_roads.sh records, read from its two run directories
(stdlib only). Every figure is a row of results.csv; ratios are computed
here from two rows of the same run.

  rows        status counts per family, and every row that is not ok/noisy
  vector add  GB/s (1e9 bytes/s, 12 bytes per element) of each caller at
              the largest n, and each one's share of the C rung
              vecadd/float4_per_thread at the same n and block
  per call    hot mode at small n: µs per call (the rate at which the caller
              issues calls once that is longer than the kernel) and the
              CUPTI kernel time beside it
  collectives torch_dist against nccl at each point both ran: median µs,
              algbw (gbps) and busbw (the nccl-tests factor), torch_dist's
              extra µs per call and its share of NCCL's bandwidth
  copies      pycuda/copy (and torch/copy) GB/s per direction, memory, size
"""

import csv
import sys
from collections import Counter
from pathlib import Path

FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "broadcast": lambda n: 1.0}


def read(d):
    path = Path(d) / "results.csv"
    if not path.is_file():
        print(f"{d}: no results.csv")
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def axes(row):
    return dict(kv.split("=", 1) for kv in row["axes"].split(";") if "=" in kv)


def num(row, key):
    try:
        return float(row[key])
    except (KeyError, ValueError):
        return None


def timed(row):
    return row["status"] in ("ok", "noisy") and num(row, "median_s")


def status(rows, title):
    print(f"\n== {title}: {len(rows)} rows")
    by_family = {}
    for r in rows:
        by_family.setdefault(r["family"], Counter())[r["status"]] += 1
    for fam, c in by_family.items():
        print(f"  {fam:12s} " + ", ".join(f"{c[s]} {s}" for s in ("ok", "noisy", "skip", "fail")))
    for r in rows:
        if r["status"] in ("skip", "fail"):
            print(f"  {r['status']:5s} {r['benchmark']:26s} {r['axes']:40s} {r['reason'][:110]}")


def vecadd(rows):
    adds = [r for r in rows if timed(r) and "n" in axes(r) and num(r, "gbps")
            and r["benchmark"] != "torch_ext/call_only"]
    if not adds:
        return
    n = max(int(axes(r)["n"]) for r in adds)
    c_rows = {axes(r).get("block"): r for r in adds
              if r["benchmark"] == "vecadd/float4_per_thread" and int(axes(r)["n"]) == n}
    ref = c_rows.get("256") or next(iter(c_rows.values()), None)
    print(f"\n== vector add at n = {n} (cold): GB/s, share of vecadd/float4_per_thread")
    for r in adds:
        if int(axes(r)["n"]) != n:
            continue
        share = f"{100 * num(r, 'gbps') / num(ref, 'gbps'):6.2f} %" if ref else ""
        kernel = r["kernels"].split("|")[0][:60]
        print(f"  {r['benchmark']:26s} {num(r, 'gbps'):8.1f} GB/s {share:>9s}  "
              f"{r['status']:5s} {kernel}")


def per_call(rows):
    hot = [r for r in rows if timed(r) and r["cache"] == "hot" and "n" in axes(r)]
    if not hot:
        return
    ns = sorted({int(axes(r)["n"]) for r in hot})
    print("\n== per call, hot mode: µs per call (CUPTI kernel µs)")
    print("  " + " " * 26 + "".join(f"{'n=' + str(n):>22s}" for n in ns))
    for bench in dict.fromkeys(r["benchmark"] for r in hot):
        cells = []
        for n in ns:
            r = next((x for x in hot if x["benchmark"] == bench and int(axes(x)["n"]) == n), None)
            if r is None:
                cells.append(f"{'':>22s}")
                continue
            k = num(r, "cupti_median_s")
            kernel = f"({k * 1e6:.2f})" if k else "(-)"
            cells.append(f"{num(r, 'median_s') * 1e6:12.2f} {kernel:>9s}")
        print(f"  {bench:26s}" + "".join(cells))


def collectives(rows):
    nccl = {(r["benchmark"].split("/")[1], r["axes"]): r for r in rows
            if r["family"] == "nccl" and timed(r)}
    torch = [r for r in rows if r["family"] == "torch_dist" and timed(r)]
    if not torch:
        return
    print("\n== torch_dist beside nccl (same point): median µs, algbw and busbw GB/s")
    print(f"  {'op':15s} {'axes':36s} {'nccl µs':>10s} {'torch µs':>10s} {'extra µs':>9s} "
          f"{'nccl algbw':>11s} {'torch algbw':>11s} {'busbw n/t':>17s} {'torch/nccl':>10s}")
    for r in torch:
        op = r["benchmark"].split("/")[1]
        c = nccl.get((op, r["axes"]))
        ranks = int(axes(r)["ranks"])
        f = FACTOR[op](ranks)
        t_us = num(r, "median_s") * 1e6
        if c is None:
            print(f"  {op:15s} {r['axes']:36s} {'-':>10s} {t_us:10.2f}")
            continue
        c_us = num(c, "median_s") * 1e6
        print(f"  {op:15s} {r['axes']:36s} {c_us:10.2f} {t_us:10.2f} {t_us - c_us:9.2f} "
              f"{num(c, 'gbps'):11.1f} {num(r, 'gbps'):11.1f} "
              f"{num(c, 'gbps') * f:8.1f}/{num(r, 'gbps') * f:<8.1f} "
              f"{num(r, 'gbps') / num(c, 'gbps'):10.3f}")


def copies(rows):
    rs = [r for r in rows if timed(r) and r["benchmark"] in ("pycuda/copy", "torch/copy")]
    if not rs:
        return
    print("\n== copies: GB/s (bytes across PCIe / median)")
    for r in rs:
        print(f"  {r['benchmark']:14s} {r['axes']:48s} {num(r, 'gbps'):8.2f} GB/s  {r['status']}")


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        return 2
    roads, hot = read(argv[1]), read(argv[2])
    status(roads, f"side by side ({argv[1]})")
    vecadd(roads)
    collectives(roads)
    copies(roads)
    status(hot, f"small n, hot ({argv[2]})")
    per_call(hot)
    collectives(hot)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
