#!/usr/bin/env python3
"""gemm_tune.py TUNE_DIR - the multistage rung's autotune rows from the
sweep gemm.sh records (TUNE_DIR/*/results.csv: matmul/multistage at every
`config` and matmul/cublas_fp32, per shape): for each shape the fastest
configuration that verified, as the C rows of cb_ms_table
(kernels/matmul_multistage.cu), keyed by the GPU's SM count."""

from __future__ import annotations

import csv
import json
import sys

from recorded import open_csv, run_dirs, run_script


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: gemm_tune.py TUNE_DIR", file=sys.stderr)
        return 2
    best: dict[tuple[int, int], tuple[float, str, str]] = {}
    sms, gpu = 0, "?"
    for d in run_dirs(sys.argv[1]):
        try:
            with open(d / "meta.json") as f:
                dev = (json.load(f).get("devices") or [{}])[0]
            sms, gpu = int(dev.get("sm_count", sms) or sms), dev.get("name", gpu)
        except (OSError, ValueError, TypeError):
            pass
        with open_csv(d, "results.csv") as f:
            for r in csv.DictReader(f):
                if r["benchmark"] != "matmul/multistage" or r["status"] not in ("ok", "noisy"):
                    continue
                axes = dict(kv.split("=", 1) for kv in r["axes"].split(";"))
                m = int(axes["m"])
                n = m if axes["n"] == "m" else int(axes["n"])
                tflops = float(r["tflops"])
                key = (m, n)
                if key not in best or tflops > best[key][0]:
                    best[key] = (tflops, axes["config"], r.get("pct_ref") or "-")
    if not best:
        print("tune: no verified multistage rows")
        return 1
    print(f"/* recorded on {gpu} ({sms} SMs) by scripts/record/gemm.sh */")
    for (m, n), (tflops, config, pct) in sorted(best.items()):
        enum = "CB_MATMUL_MS_" + config.upper()
        print(f"    {{{sms}, {m}, {n}, {enum}}}, /* {tflops:.1f} TFLOP/s, {pct} % of cuBLAS */")
    return 0


if __name__ == "__main__":
    run_script(main)
