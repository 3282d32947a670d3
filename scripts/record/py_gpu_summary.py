#!/usr/bin/env python3
"""py_gpu_summary.py - the figures scripts/record/gpu_python.sh is run for, from
the run directories and the ncu CSV it leaves (stdlib only).

  python3 scripts/record/py_gpu_summary.py runs DIR...   status counts per run, then
      the large points (n = 2^28, m = 4096 and 8192, 256 MiB copies) and
      every row that is not ok, with GB/s or TFLOP/s, pct_ref and the CUPTI
      kernel names
  python3 scripts/record/py_gpu_summary.py overhead DIR   a hot-mode run of the adds
      at small n: per call, the time (the rate at which the caller issues
      calls, once it exceeds the kernel), the CUPTI kernel time, and the
      difference: what each framework adds per call from Python
  python3 scripts/record/py_gpu_summary.py ncu FILE.csv N   per kernel: time, DRAM
      throughput, and per element of N: instructions, global load and store
      instructions; global-load sectors per request (4: 32-bit loads of a
      warp, 16: 128-bit loads)
"""

import csv
import io
import sys
from collections import Counter, defaultdict
from pathlib import Path

LARGE = ("n=268435456", "m=4096;", "m=8192;", "bytes=268435456")


def runs(dirs):
    for d in map(Path, dirs):
        path = d / "results.csv"
        if not path.is_file():
            print(f"{d.name}: no results.csv")
            continue
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
        counts = Counter(r["status"] for r in rows)
        print(f"\n{d.name}: {len(rows)} rows, " + ", ".join(f"{counts[s]} {s}" for s in
                                                              ("ok", "noisy", "skip", "fail")))
        for r in rows:
            large = any(r["axes"].startswith(k) or f";{k}" in r["axes"] for k in LARGE)
            if not large and r["status"] in ("ok", "noisy"):
                continue
            figure = ""
            if r["tflops"] and float(r["tflops"]) > 0.5:
                figure = f"{float(r['tflops']):8.2f} TFLOP/s"
            elif r["gbps"]:
                figure = f"{float(r['gbps']):8.1f} GB/s"
            ref = f" {float(r['pct_ref']):5.1f}% of {r['ref_benchmark']}" if r["pct_ref"] else ""
            tail = r["reason"] if r["status"] in ("skip", "fail") else r["kernels"][:90]
            if "PTX:" in r["note"]:  # the triton matmul's instruction path
                tail += "  [" + r["note"].split("; PTX:")[-1].strip() + "]"
            print(f"  {r['benchmark']:26s} {r['axes']:34s} {r['status']:5s} {figure:17s}{ref}"
                  f"  {r['timer']:5s} {tail}")


def overhead(path):
    """Per call in hot mode: median_s is the sample time / batch."""
    with open(Path(path) / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    print(f"\noverhead per call, hot mode ({Path(path).name}): time, CUPTI kernel, difference (us)")
    for r in rows:
        if r["status"] not in ("ok", "noisy"):
            print(f"  {r['benchmark']:26s} {r['axes']:22s} {r['status']:5s} {r['reason']}")
            continue
        t = float(r["median_s"]) * 1e6
        k = float(r["cupti_median_s"]) * 1e6 if r["cupti_median_s"] else float("nan")
        print(f"  {r['benchmark']:26s} {r['axes']:22s} {r['status']:5s} batch {r['batch']:>5s}"
              f" {t:8.2f} {k:8.2f} {t - k:8.2f}  {r['timer']}")


def ncu(path, n):
    """ncu --csv prints one row per (kernel, metric)."""
    text = Path(path).read_text(errors="replace")
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    table = defaultdict(dict)
    order = []
    for row in csv.DictReader(io.StringIO("\n".join(lines))):
        key = (row.get("ID"), row.get("Kernel Name", "?"))
        if key not in table:
            order.append(key)
        value = row.get("Metric Value", "").replace(",", "")
        try:
            table[key][row.get("Metric Name")] = float(value)
        except ValueError:
            table[key][row.get("Metric Name")] = value
    if not order:
        print(f"{path}: no ncu rows (see the .log next to it)")
        return
    print(f"\nNsight Compute, n = {n}: per element of c")
    print(f"  {'kernel':58s} {'time us':>8s} {'DRAM %':>6s} {'inst':>6s} {'ld':>6s} {'st':>6s}"
          f" {'sect/req':>8s} {'grid x block':>16s} {'regs':>4s}")
    for key in order:
        m = table[key]

        def get(name, default=float("nan")):
            v = m.get(name, default)
            return v if isinstance(v, float) else default
        time_us = get("gpu__time_duration.sum") / 1e3  # ncu reports ns
        sectors = get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        requests = get("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
        # smsp__inst_executed counts warp instructions: x 32 threads / n elements
        per = lambda v: 32 * v / n  # noqa: E731
        print(f"  {key[1][:58]:58s} {time_us:8.1f} "
              f"{get('dram__throughput.avg.pct_of_peak_sustained_elapsed'):6.1f} "
              f"{per(get('smsp__inst_executed.sum')):6.2f} "
              f"{per(get('smsp__sass_inst_executed_op_global_ld.sum')):6.3f} "
              f"{per(get('smsp__sass_inst_executed_op_global_st.sum')):6.3f} "
              f"{sectors / requests if requests else float('nan'):8.2f} "
              f"{int(get('launch__grid_size', 0)):>9d} x {int(get('launch__block_size', 0)):<4d} "
              f"{int(get('launch__registers_per_thread', 0)):4d}")


def main(argv):
    if len(argv) >= 2 and argv[0] == "runs":
        runs(argv[1:])
        return 0
    if len(argv) == 2 and argv[0] == "overhead":
        overhead(argv[1])
        return 0
    if len(argv) == 3 and argv[0] == "ncu":
        ncu(argv[1], int(argv[2]))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
