#!/usr/bin/env bash
# counters.sh [OUT] - hardware counters per point, recorded on one GPU
# (OUT: the argument, else $OUT, else ./gpu-out):
#   1. build for this machine's GPUs (scripts/build.sh native)
#   2. the counters GPU test (tests/gpu/test_counters.c): vecadd's float4
#      rung at 2^28 reaches >= 85% of DRAM peak, the work model agrees with
#      the counters, timing with and without --metrics agrees, every preset
#      collects
#   3. the ladders with --metrics sol, then without, one family at a time:
#      vecadd's four GPU rungs at n = 2^20, 2^24, 2^28 (every block, grid,
#      ilp and hint of the default sweep), the FP32 matmul ladder at 4096,
#      the tensor-core ladder and its cuBLAS ceilings at 4096 and 8192, and
#      transfers' device-side points (zero-copy kernels, device-to-device
#      copies, the overlap kernel stage alone)
#   4. cubench compare WITHOUT WITH for each family (exit 0 expected: the
#      metric pass stays out of the samples) and the extra wall time per point
#   5. python -m cubench: CuPy's and PyTorch's add at 2^28 with --metrics sol
#      (the same pass around a framework's call)
#   6. the tables: metric passes per family, SOL figures, doc-tables.md
#   7. Nsight Compute on seven rungs, the same metrics, clocks unlocked as
#      cubench leaves them, caches flushed before each replay as cubench
#      does for cold points: the side-by-side table, per metric
# About 4.5 minutes of GPU time on an H200 (the build about 30 s of it);
# step 7's rungs are dropped one by one past BUDGET seconds (default 270).
#
# Writes under OUT: summary.txt (also printed); build.log, test_counters.log;
# sol-FAMILY/ and plain-FAMILY/ (run directories), compare-FAMILY.md,
# sol-python/; wall.csv (seconds per point of each metric pass);
# doc-tables.md; ncu-RUNG.csv (ncu's raw page, base units), ncu-RUNG.log,
# side-by-side.csv; ncu-rep/ (ncu's reports, large: keep the CSVs).
# Needs: the CUDA toolkit, libjansson-dev (or CMAKE_PREFIX_PATH pointing at
# it), python3, and ncu on PATH or under /opt/nvidia/nsight-compute for step 5.
set -uo pipefail
OUT=${1:-${OUT:-./gpu-out}}
cd "$(dirname "$0")/../.." || exit 2
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
BIN=$PWD/build-native/cubench
SUMMARY=$OUT/summary.txt
: > "$SUMMARY"
T0=$(date +%s)
BUDGET=${BUDGET:-270}
say() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
log() { say "== $(date -u +%H:%M:%S) (+$(( $(date +%s) - T0 )) s) $*"; }
over_budget() { [ $(( $(date +%s) - T0 )) -ge "$BUDGET" ]; }

step_env() {
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
        --format=csv,noheader > "$OUT/nvidia-smi.txt" 2>&1
    say "GPU: $(head -1 "$OUT/nvidia-smi.txt")"
    NCU=$(command -v ncu || find /opt/nvidia/nsight-compute -maxdepth 2 -name ncu -type f 2>/dev/null | sort | tail -1)
    say "ncu: ${NCU:-not found} $( [ -n "${NCU:-}" ] && "$NCU" --version 2>/dev/null | tail -1)"
}

step_build() {
    log "build (scripts/build.sh native)"
    scripts/build.sh native > "$OUT/build.log" 2>&1
    local rc=$?
    say "build rc=$rc: $(tail -1 "$OUT/build.log")"
    if [ $rc -ne 0 ]; then
        grep -E "error|Error|jansson" "$OUT/build.log" | head -8 | tee -a "$SUMMARY"
        exit 1
    fi
}

step_test() {
    log "tests/gpu/test_counters"
    timeout 180 build-native/tests/test_counters > "$OUT/test_counters.log" 2>&1
    say "test_counters rc=$? (0 pass, 1 fail, 77 skipped: see the log's last line)"
    grep -E "^[0-9]\.|median|DRAM|counters /|check failed|skipped|passed" "$OUT/test_counters.log" \
        | head -20 | tee -a "$SUMMARY"
}

# FAMILY -> the benchmarks and axes of its ladder.
family_args() {
    case $1 in
    vecadd) echo "vecadd/thread_per_elem vecadd/float4_per_thread vecadd/grid_stride vecadd/grid_stride_float4 --axis n=2^20,2^24,2^28" ;;
    fp32) echo "matmul/cublas_fp32 matmul/naive_uncoalesced matmul/naive_coalesced matmul/smem_tiled matmul/regblock_1d matmul/regblock_2d matmul/vectorized matmul/warptiled matmul/pipelined --axis m=4096" ;;
    tc) echo "matmul_tc/* matmul/cublas_bf16 matmul/cublas_tf32 --axis m=4096,8192" ;;
    xfer) echo "transfers/zero_copy transfers/d2d transfers/overlap --axis stage=kernel --axis streams=1" ;;
    esac
}

# One family with --metrics sol and without; the wall time of each run.
run_family() {
    local fam=$1 args t
    read -r -a args <<< "$(family_args "$fam")"
    t=$(date +%s%N)
    timeout 300 "$BIN" run "${args[@]}" --metrics sol --quiet --out "$OUT/sol-$fam" \
        > "$OUT/sol-$fam.log" 2>&1
    local rc_sol=$? t_sol
    t_sol=$(( ($(date +%s%N) - t) / 1000000 ))
    t=$(date +%s%N)
    timeout 300 "$BIN" run "${args[@]}" --quiet --out "$OUT/plain-$fam" > "$OUT/plain-$fam.log" 2>&1
    local rc_plain=$? t_plain
    t_plain=$(( ($(date +%s%N) - t) / 1000000 ))
    "$BIN" compare "$OUT/plain-$fam" "$OUT/sol-$fam" > "$OUT/compare-$fam.md" 2> "$OUT/compare-$fam.log"
    local rc_cmp=$?
    say "$fam: with --metrics sol rc=$rc_sol ${t_sol} ms, without rc=$rc_plain ${t_plain} ms; compare (without -> with) rc=$rc_cmp (0 expected)"
    grep -E "cubench:|stopped" "$OUT/sol-$fam.log" | tail -2 | tee -a "$SUMMARY"
    [ $rc_cmp -ne 0 ] && grep -iE "slower|faster|regress" "$OUT/compare-$fam.md" | head -6 | tee -a "$SUMMARY"
}

step_ladders() {
    for fam in vecadd fp32 tc xfer; do
        log "ladder $fam"
        run_family "$fam"
    done
}

# The Python front end: the same metric pass around a framework's call.
step_python() {
    log "Python frameworks: cupy/add and torch/add at 2^28 with --metrics sol"
    CUBENCH_LIB=$PWD/build-native/libcubench.so PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH} \
        timeout 120 python3 -m cubench run cupy/add torch/add --axis n=2^28 --metrics sol --quiet \
        --out "$OUT/sol-python" > "$OUT/sol-python.log" 2>&1
    say "python -m cubench run cupy/add torch/add --metrics sol: rc=$? ($(tail -1 "$OUT/sol-python.log"))"
}

# Per family: how many metric passes collected, skipped or failed, their
# replay passes, and the extra wall time per point; the SOL figures of the
# rungs the docs quote.
step_tables() {
    log "metric passes and SOL figures"
    python3 - "$OUT" <<'PY' 2>&1 | tee -a "$SUMMARY"
import csv, statistics, sys, pathlib
out = pathlib.Path(sys.argv[1])
wall = open(out / "wall.csv", "w", newline="")
w = csv.writer(wall)
w.writerow(["family", "benchmark", "axes", "metrics_status", "metrics_passes", "metrics_wall_s", "median_s"])
def metric(fam, bench, axes, name):
    p = out / f"sol-{fam}" / "metrics.csv"
    if not p.exists(): return float("nan")
    for r in csv.DictReader(open(p)):
        if r["benchmark"] == bench and r["axes"] == axes and r["metric"] == name:
            try: return float(r["value"])
            except ValueError: return float("nan")
    return float("nan")
def num(r, k):
    try: return float(r[k])
    except (KeyError, ValueError): return float("nan")
doc = open(out / "doc-tables.md", "w")
doc.write("<!-- scripts/record/counters.sh: the counters of each ladder from sol-*/ -->\n")
def table(title, cols, rows):
    doc.write(f"\n### {title}\n\n| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n")
    for row in rows:
        doc.write("| " + " | ".join(row) + " |\n")
def f1(x): return "-" if x != x else f"{x:.1f}"
def f2(x): return "-" if x != x else f"{x:.2f}"
for fam in ["vecadd", "fp32", "tc", "xfer", "python"]:
    p = out / f"sol-{fam}" / "results.csv"
    if not p.exists():
        print(f"{fam}: no results.csv"); continue
    rows = list(csv.DictReader(open(p)))
    st = {}
    for r in rows:
        st[r["metrics_status"] or "-"] = st.get(r["metrics_status"] or "-", 0) + 1
        w.writerow([fam, r["benchmark"], r["axes"], r["metrics_status"], r["metrics_passes"], r["metrics_wall_s"], r["median_s"]])
    ws = [float(r["metrics_wall_s"]) for r in rows if r["metrics_wall_s"]]
    print(f"{fam}: {len(rows)} points, metric passes {st}; extra wall per point: "
          + (f"median {statistics.median(ws):.3f} s, max {max(ws):.3f} s, total {sum(ws):.1f} s" if ws else "none"))
    for r in rows:
        if r["metrics_status"] == "fail":
            print(f"  FAIL {r['benchmark']} {r['axes']}: {r['metrics_reason']}")
    bad = [r for r in rows if r["metrics_status"] == "skip"]
    if bad:
        print(f"  skip, e.g. {bad[0]['benchmark']}: {bad[0]['metrics_reason']}")
    for r in rows:
        if fam == "vecadd" and not r["axes"].startswith("n=268435456"):
            continue
        if fam == "xfer" and "268435456" not in r["axes"]:
            continue
        def f(k, d=1):
            try: return f"{float(r[k]):.{d}f}"
            except ValueError: return "-"
        print(f"  {r['benchmark']:30s} {r['axes'][:44]:44s} dram {f('sol_dram_pct')} l2 {f('sol_l2_pct')} "
              f"l1 {f('sol_l1_pct')} sm {f('sol_sm_pct')} tensor {f('sol_tensor_pct')} | "
              f"bytes x{(float(r['dram_bytes'])/float(r['bytes'])) if r['dram_bytes'] and r['bytes'] else float('nan'):.2f} "
              f"flops x{(float(r['measured_flops'])/float(r['flops'])) if r['measured_flops'] and r['flops'] else float('nan'):.2f}")
    pick = [r for r in rows if r["metrics_status"] == "ok" and (
        fam in ("fp32", "tc") or "268435456" in r["axes"])]
    cols = ["benchmark", "axes", "GB/s" if fam in ("vecadd", "xfer", "python") else "TFLOP/s",
            "DRAM %", "L2 %", "L1 %", "SM %", "tensor %", "DRAM bytes / model", "FLOPs / model",
            "thread instr. / element" if fam in ("vecadd", "python") else "passes"]
    out_rows = []
    for r in pick:
        a = dict(kv.split("=", 1) for kv in r["axes"].split(";") if "=" in kv)
        fig = num(r, "gbps") if cols[2] == "GB/s" else num(r, "tflops")
        inst = metric(fam, r["benchmark"], r["axes"], "smsp__thread_inst_executed.sum")
        last = (f2(inst / float(a["n"])) if "n" in a else "-") if cols[-1].startswith("thread") \
            else r["metrics_passes"]
        out_rows.append([r["benchmark"], r["axes"], f1(fig), f1(num(r, "sol_dram_pct")),
                         f1(num(r, "sol_l2_pct")), f1(num(r, "sol_l1_pct")), f1(num(r, "sol_sm_pct")),
                         f1(num(r, "sol_tensor_pct")), f2(num(r, "dram_bytes") / num(r, "bytes")),
                         f2(num(r, "measured_flops") / num(r, "flops")), last])
    table(fam, cols, out_rows)
wall.close()
doc.close()
print("doc-tables.md: the tables for docs/counters.md and the ladder docs")
PY
}

# RUNG NAME BENCH AXIS...: ncu on the point's one profiled run (--profile,
# hot: no flush kernel inside the range), the metrics of the sol run.
ncu_rung() {
    local name=$1 bench=$2
    shift 2
    local axes=()
    for a in "$@"; do axes+=(--axis "$a"); done
    if over_budget; then say "ncu $name: skipped (over the ${BUDGET} s budget)"; return; fi
    mkdir -p "$OUT/ncu-rep"
    timeout 120 "$NCU" --clock-control none --cache-control all --profile-from-start off \
        --metrics "$METRICS" -f -o "$OUT/ncu-rep/$name" \
        "$BIN" run "$bench" "${axes[@]}" --profile --no-cupti --cache hot --quick --quiet \
        --out "$OUT/ncu-run-$name" > "$OUT/ncu-$name.log" 2>&1
    local rc=$?
    "$NCU" --import "$OUT/ncu-rep/$name.ncu-rep" --csv --page raw --print-units base \
        > "$OUT/ncu-$name.csv" 2>> "$OUT/ncu-$name.log"
    say "ncu $name ($bench ${*}): rc=$rc, $(($(wc -l < "$OUT/ncu-$name.csv") - 2)) kernel row(s)"
}

step_ncu() {
    if [ -z "${NCU:-}" ]; then say "ncu: not found, no side-by-side"; return; fi
    METRICS=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['metrics']; print(','.join(x['name'] for x in m['chips'][0]['metrics']))" "$OUT/sol-vecadd/meta.json" 2>/dev/null)
    if [ -z "$METRICS" ]; then say "ncu: no metric list in sol-vecadd/meta.json"; return; fi
    log "Nsight Compute side by side"
    ncu_rung vecadd-float4 vecadd/float4_per_thread n=2^28 block=256
    ncu_rung fp32-naive-coalesced matmul/naive_coalesced m=4096
    ncu_rung fp32-pipelined matmul/pipelined m=4096
    ncu_rung tc-ldmatrix-bf16 matmul_tc/ldmatrix_bf16 m=4096
    ncu_rung tc-wgmma-ws-bf16 matmul_tc/wgmma_ws_bf16 m=8192
    ncu_rung fp32-cublas matmul/cublas_fp32 m=4096
    ncu_rung xfer-zero-copy transfers/zero_copy direction=h2d bytes=2^28
    python3 - "$OUT" <<'PY' 2>&1 | tee -a "$SUMMARY"
import csv, sys, pathlib, math
out = pathlib.Path(sys.argv[1])
# rung -> (family run, benchmark, axis values that pick its row)
rungs = {
    "vecadd-float4": ("vecadd", "vecadd/float4_per_thread", {"n": "268435456", "block": "256"}),
    "fp32-naive-coalesced": ("fp32", "matmul/naive_coalesced", {"m": "4096"}),
    "fp32-pipelined": ("fp32", "matmul/pipelined", {"m": "4096"}),
    "tc-ldmatrix-bf16": ("tc", "matmul_tc/ldmatrix_bf16", {"m": "4096"}),
    "tc-wgmma-ws-bf16": ("tc", "matmul_tc/wgmma_ws_bf16", {"m": "8192"}),
    "fp32-cublas": ("fp32", "matmul/cublas_fp32", {"m": "4096"}),
    "xfer-zero-copy": ("xfer", "transfers/zero_copy", {"direction": "h2d", "bytes": "268435456"}),
}
def axes_of(text):
    return dict(kv.split("=", 1) for kv in text.split(";") if "=" in kv)
rows_out = [["rung", "kernel", "metric", "unit", "cubench", "ncu", "diff", "kind"]]
for rung, (fam, bench, want) in rungs.items():
    p = out / f"ncu-{rung}.csv"
    m = out / f"sol-{fam}" / "metrics.csv"
    if not p.exists() or not m.exists():
        continue
    lines = [l for l in open(p) if l.startswith('"')]
    table = list(csv.reader(lines))
    if len(table) < 3:
        print(f"{rung}: ncu wrote no kernel rows (see ncu-{rung}.log)"); continue
    head, units, kernels = table[0], table[1], table[2:]
    tcol = head.index("gpu__time_duration.sum") if "gpu__time_duration.sum" in head else None
    def t(k):
        try: return float(k[tcol].replace(",", ""))
        except (TypeError, ValueError, IndexError): return 0.0
    k = max(kernels, key=t)  # the point's main kernel when it launched several
    ours = {}
    for r in csv.DictReader(open(m)):
        a = axes_of(r["axes"])
        if r["benchmark"] == bench and all(a.get(x) == v for x, v in want.items()):
            ours[r["metric"]] = (r["value"], r["unit"])
    kname = k[head.index("Kernel Name")] if "Kernel Name" in head else "?"
    worst = 0.0
    for i, name in enumerate(head):
        if name not in ours:
            continue
        try:
            a, b = float(ours[name][0]), float(k[i].replace(",", ""))
        except ValueError:
            continue
        pct = ours[name][1] == "percent"
        diff = a - b if pct else (a / b - 1 if b else math.nan)
        if pct and not math.isnan(diff): worst = max(worst, abs(diff))
        rows_out.append([rung, kname[:60], name, ours[name][1], a, b, diff, "pp" if pct else "relative"])
    flag = "" if worst <= 2 else "  <-- more than 2 percentage points apart"
    print(f"{rung}: {len(kernels)} kernel(s), {kname[:50]}: largest SOL difference {worst:.2f} pp{flag}")
with open(out / "side-by-side.csv", "w", newline="") as f:
    csv.writer(f).writerows(rows_out)
print(f"side-by-side.csv: {len(rows_out) - 1} metric rows")
PY
}

step_env
step_build
step_test
step_ladders
step_python
step_tables
step_ncu
log "done"
