#!/usr/bin/env python3
"""gemm_summary.py OUT - the GEMM ladders' figures from gemm.sh's run
directories (OUT/run-SHAPE/results.csv), as markdown on stdout: one table
per shape with every row (status, TFLOP/s, % of the reference measured in
the same run, the SM clock and throttled samples behind it, the error),
then each target of the ladders met or missed, read off those rows."""

from __future__ import annotations

import csv
import sys

from recorded import metric_values, open_csv, run_dirs, run_script


def num(x: str | None) -> float | None:
    try:
        return float(x) if x not in (None, "") else None
    except ValueError:
        return None


def fmt(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def load(out: str) -> dict[str, list[dict]]:
    runs = {}
    for d in run_dirs(out, "run-*"):
        with open_csv(d, "results.csv") as f:
            runs[d.name[4:]] = list(csv.DictReader(f))
    return runs


def table(shape: str, rows: list[dict]) -> None:
    print(f"\n### {shape}\n")
    print("| benchmark | status | TFLOP/s | % ref | SM MHz (median) | throttled | error | note |")
    print("|---|---|--:|--:|--:|--:|--:|---|")
    for r in rows:
        note = r.get("note") or r.get("reason") or ""
        print(f"| {r['benchmark']} | {r['status']} | {fmt(num(r.get('tflops')))} | "
              f"{fmt(num(r.get('pct_ref')))} | {fmt(num(r.get('sm_clock_median_mhz')), 0)} | "
              f"{r.get('throttled_samples') or '-'} | {r.get('verify_error') or '-'} | "
              f"{note[:90]} |")


def row(runs: dict, shape: str, bench: str) -> dict | None:
    for r in runs.get(shape, []):
        if r["benchmark"] == bench:
            return r
    return None


def target(runs: dict, shape: str, benches: list[str], goal: float, what: str) -> None:
    """The best of `benches` at `shape` against `goal` % of its reference."""
    best = None
    for b in benches:
        r = row(runs, shape, b)
        if r and r["status"] in ("ok", "noisy") and num(r.get("pct_ref")) is not None:
            if best is None or num(r["pct_ref"]) > num(best["pct_ref"]):
                best = r
    if best is None:
        print(f"- {what} at {shape}: NO DATA ({', '.join(benches)})")
        return
    pct = num(best["pct_ref"])
    ref = row(runs, shape, best.get("ref_benchmark", ""))
    clocks = (f"; SM clock {fmt(num(best.get('sm_clock_median_mhz')), 0)} MHz vs reference "
              f"{fmt(num(ref.get('sm_clock_median_mhz')), 0) if ref else '-'} MHz")
    verdict = "MET" if pct >= goal else "MISSED"
    print(f"- {what} at {shape}: {verdict}: {best['benchmark']} {fmt(num(best['tflops']))} TFLOP/s "
          f"= {pct:.1f} % of {best.get('ref_benchmark')} (goal {goal:g} %){clocks}")


def tf32_cycles(out: str) -> None:
    """TF32 per clock cycle: the elapsed GPC cycles of one run of each
    kernel (OUT/metrics-tf32/metrics.csv, CUPTI's range profiler), cuBLAS's
    over the rung's, so > 100 % means fewer cycles than cuBLAS."""
    cycles: dict[tuple[str, str], float] = {}
    for d in run_dirs(out, "metrics-tf32"):
        for (bench, axes), v in metric_values(d, "gpc__cycles_elapsed.max").items():
            if v:
                cycles[(bench, axes.split(";")[0])] = v
    for m in ("m=4096", "m=8192"):
        ref = cycles.get(("matmul/cublas_tf32", m))
        for b in ("matmul_tc/wgmma_ws_tf32", "matmul_tc/wgmma_cluster_tf32"):
            mine = cycles.get((b, m))
            if ref and mine:
                print(f"- TF32 at matched clocks, {m}: {b} {mine:.0f} GPC cycles against "
                      f"matmul/cublas_tf32 {ref:.0f}: {100 * ref / mine:.1f} % of cuBLAS per cycle")
            else:
                print(f"- TF32 at matched clocks, {m}: {b}: NO DATA")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: gemm_summary.py OUT", file=sys.stderr)
        return 2
    runs = load(sys.argv[1])
    if not runs:
        print(f"no run-*/results.csv under {sys.argv[1]}")
        return 1
    print("## GEMM ladders: every row")
    for shape, rows in runs.items():
        table(shape, rows)
    print("\n## Targets (pct_ref: the reference measured in the same run, same shape)\n")
    bf16 = ["matmul_tc/wgmma_ws_bf16", "matmul_tc/wgmma_cluster_bf16"]
    for shape, goal in (("8191x8193x4095", 100), ("4093", 100), ("1000x3000x200", 95), ("8192", 99)):
        target(runs, shape, bf16, goal, "BF16")
    for shape in ("4096", "8192"):
        target(runs, shape, ["matmul_tc/wgmma_ws_tf32", "matmul_tc/wgmma_cluster_tf32"], 100,
               "TF32 (compare the clocks)")
    tf32_cycles(sys.argv[1])
    target(runs, "8192", ["matmul_tc/wgmma_fp8", "matmul_tc/wgmma_cluster_fp8"], 90, "FP8")
    for shape in ("4096", "8192"):
        target(runs, shape, ["matmul/multistage", "matmul/pipelined"], 95, "FP32 SIMT")
    for shape in ("8191x8193x4095", "4093", "1000x3000x200", "4096x1x4096"):
        target(runs, shape, ["matmul/multistage", "matmul/pipelined"], 85, "FP32 SIMT")
    print("\n## What staging costs (the odd shape against its aligned twin)\n")
    for bench in ("matmul_tc/wgmma_ws_bf16", "matmul_tc/wgmma_cluster_bf16"):
        odd, twin = row(runs, "8191x8193x4095", bench), row(runs, "8192x8192x4096", bench)
        t_odd = num(odd.get("median_s")) if odd else None
        t_twin = num(twin.get("median_s")) if twin else None
        if t_odd and t_twin:
            print(f"- {bench}: {t_odd * 1e3:.3f} ms at 8191 x 8193 x 4095 (staged) against "
                  f"{t_twin * 1e3:.3f} ms at 8192 x 8192 x 4096: {100 * (t_odd / t_twin - 1):+.1f} %")
        else:
            print(f"- {bench}: NO DATA")
    bad = [(s, r["benchmark"], r["status"], (r.get("reason") or "")[:100])
           for s, rows in runs.items() for r in rows if r["status"] in ("fail", "skip")]
    print("\n## Rows not measured\n")
    for s, b, st, why in bad:
        print(f"- {s} {b}: {st}: {why}")
    if not bad:
        print("- none")
    return 0


if __name__ == "__main__":
    run_script(main)
